/* fuzz_pbwire.c: libFuzzer target for the shared protobuf wire decoder
 * (convert/codec/pbwire.h).  Walks the input as a message, descending into every
 * LEN field as a sub-message and as a packed varint array (bounded depth),
 * and checks the decoder's promises: every field it returns lies inside its
 * parent's range, a failure always says why, it always moves forward, and
 * the inline tp_pb_next_fast answers exactly as tp_pb_next does. */
#include "convert/codec/pbwire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ASSERT(c) \
    do {          \
        if (!(c)) \
            abort(); \
    } while (0)

static void walk(tp_pb r, int depth)
{
    tp_pb_field f;
    tp_err err = {0};
    tp_pb q = r; /* the inline fast path, in step: it must give the same answers */
    for (;;) {
        const uint8_t *before = r.p;
        int k = tp_pb_next(&r, &f, &err);
        tp_pb_field g;
        tp_err eg = {0};
        ASSERT(tp_pb_next_fast(&q, &g, &eg) == k && q.p == r.p);
        if (k == 1)
            ASSERT(g.num == f.num && g.wt == f.wt && g.v == f.v && g.data == f.data && g.len == f.len);
        else if (k < 0)
            ASSERT(strcmp(eg.msg, err.msg) == 0);
        if (k == 0) {
            ASSERT(r.p == r.end);
            return;
        }
        if (k < 0) {
            ASSERT(err.set);
            return;
        }
        ASSERT(r.p > before && r.p <= r.end);
        if (f.wt == TP_PB_LEN) {
            ASSERT(f.data >= before && f.data + f.len <= r.end);
            tp_pb sub = tp_pb_sub(&r, &f);
            if (depth < 32)
                walk(sub, depth + 1);
            uint64_t v;
            tp_err e2 = {0};
            int n = 0;
            while (tp_pb_varint(&sub, &v, &e2) == 1 && n++ < 100000)
                (void)tp_pb_zigzag(v);
            if (f.len >= 8)
                (void)tp_pb_double(0);
        } else if (f.wt == TP_PB_I32) {
            (void)tp_pb_float((uint32_t)f.v);
        } else if (f.wt == TP_PB_I64) {
            (void)tp_pb_double(f.v);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    walk(tp_pb_init(buf, size), 0);
    free(buf);
    return 0;
}
