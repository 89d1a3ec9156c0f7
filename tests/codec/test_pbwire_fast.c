/* test_pbwire_fast.c: the inline fast path of the protobuf wire decoder. */
#include "tests/lib/harness.h"
#include "convert/codec/pbwire.h"

/* tp_pb_next_fast decodes what tp_pb_next decodes, and fails where it fails. */
TEST(pbwire_fast_path_matches_slow_path)
{
    static const unsigned char msgs[][16] = {
        {0x08, 0x96, 0x01},                                                  /* 150 */
        {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x10, 0x01}, /* 2^64-1 */
        {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x10, 0x01}, /* > 64 bits */
        {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},     /* 11 bytes */
        {0x12, 0x03, 'a', 'b', 'c', 0x18, 0x05},
        {0x12, 0x09, 'a'},                                                    /* runs past the end */
    };
    static const size_t lens[] = {3, 13, 13, 12, 7, 3};
    for (size_t m = 0; m < sizeof lens / sizeof lens[0]; m++) {
        tp_pb a = tp_pb_init(msgs[m], lens[m]), b = tp_pb_init(msgs[m], lens[m]);
        tp_err ea = {0}, eb = {0};
        for (;;) {
            tp_pb_field fa, fb;
            int ra = tp_pb_next(&a, &fa, &ea), rb = tp_pb_next_fast(&b, &fb, &eb);
            CHECK_EQ_INT(ra, rb);
            if (ra != 1 || rb != 1)
                break;
            CHECK_EQ_INT(fa.num, fb.num);
            CHECK_EQ_INT(fa.wt, fb.wt);
            CHECK(fa.v == fb.v);
            CHECK_EQ_INT(fa.len, fb.len);
            CHECK(a.p == b.p);
        }
    }
}

/* Walk one message with both decoders in step: same fields, same positions,
 * same end, same error.  Returns false at the first difference. */
static bool same_walk(const uint8_t *m, size_t n)
{
    tp_pb a = tp_pb_init(m, n), b = tp_pb_init(m, n);
    for (;;) {
        tp_pb_field fa, fb;
        tp_err ea = {0}, eb = {0};
        int ra = tp_pb_next(&a, &fa, &ea), rb = tp_pb_next_fast(&b, &fb, &eb);
        if (ra != rb || a.p != b.p)
            return false;
        if (ra < 0)
            return strcmp(ea.where, eb.where) == 0 && strcmp(ea.msg, eb.msg) == 0;
        if (ra == 0)
            return true;
        if (fa.num != fb.num || fa.wt != fb.wt || fa.v != fb.v || fa.data != fb.data || fa.len != fb.len)
            return false;
    }
}

/* Every message of up to 2 bytes, then many of 3..14 bytes drawn from the
 * bytes that matter (keys of fields 1..2 of each wire type, lengths, varint
 * continuation and end bytes, the 10th byte's 0x01/0x02). */
TEST(pbwire_fast_path_matches_on_every_short_message)
{
    uint8_t m[16];
    size_t bad = 0;
    for (unsigned x = 0; x < 256 && !bad; x++) {
        m[0] = (uint8_t)x;
        bad += !same_walk(m, 1);
        for (unsigned y = 0; y < 256; y++) {
            m[1] = (uint8_t)y;
            bad += !same_walk(m, 2);
        }
    }
    static const uint8_t pick[] = {0x00, 0x01, 0x02, 0x03, 0x05, 0x08, 0x09, 0x0a, 0x0d, 0x10, 0x12,
                                   0x7f, 0x06, 0x07, 0x0c, 0x0f};
    static const uint8_t more[] = {0x80, 0x81, 0xff}; /* half the bytes: long varints happen */
    uint32_t seed = 1;
    for (int i = 0; i < 300000 && !bad; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = 3 + (seed >> 16) % 12;
        for (size_t j = 0; j < n; j++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t r = seed >> 16;
            m[j] = r & 1 ? more[(r >> 1) % sizeof more] : pick[(r >> 1) % sizeof pick];
        }
        bad += !same_walk(m, n);
    }
    CHECK_EQ_INT(bad, 0);
}
