/* pbwire.h: a small protocol-buffers wire-format decoder over a byte range,
 * shared by every protobuf-based reader (XPlane, PlaidML).  It never
 * allocates and checks every length against the end of its range, so a
 * reader built on it cannot read out of bounds.  (Why not protobuf-c: it
 * would materialise the whole message tree; we want to walk a mapped file.) */
#ifndef TP_PBWIRE_H
#define TP_PBWIRE_H

#include "convert/base/common.h"

enum { TP_PB_VARINT = 0, TP_PB_I64 = 1, TP_PB_LEN = 2, TP_PB_SGROUP = 3, TP_PB_EGROUP = 4, TP_PB_I32 = 5 };

typedef struct tp_pb {
    const uint8_t *p, *end;
    const uint8_t *base; /* start of the whole buffer, for error offsets */
} tp_pb;

typedef struct tp_pb_field {
    uint32_t num;
    uint8_t wt;
    uint64_t v;            /* VARINT, I64 and I32 values */
    const uint8_t *data;   /* LEN: payload */
    size_t len;
} tp_pb_field;

static inline tp_pb tp_pb_init(const void *buf, size_t len)
{
    tp_pb r = {(const uint8_t *)buf, (const uint8_t *)buf + len, (const uint8_t *)buf};
    return r;
}

/* Reader over a LEN field's payload (a sub-message or packed array). */
static inline tp_pb tp_pb_sub(const tp_pb *parent, const tp_pb_field *f)
{
    tp_pb r = {f->data, f->data + f->len, parent->base};
    return r;
}

static inline uint64_t tp_pb_offset(const tp_pb *r) { return (uint64_t)(r->p - r->base); }

/* Next field: 1 got one, 0 end of range, -1 malformed (err filled). */
int tp_pb_next(tp_pb *r, tp_pb_field *f, tp_err *err);
/* A bare varint (used for length prefixes and packed arrays): 1, 0 at end, -1. */
int tp_pb_varint(tp_pb *r, uint64_t *v, tp_err *err);

/* A varint of at most 9 bytes (63 bits) at *p, ending before `end`: true,
 * *v set and *p moved past it.  false, *p unchanged, for a longer or
 * cut-short one, which the caller leaves to the checked tp_pb_next /
 * tp_pb_varint (they decode the 10-byte ones and report the errors). */
__attribute__((always_inline)) static inline bool tp_pb_varint_short(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    size_t n = (size_t)(end - q) < 9 ? (size_t)(end - q) : 9;
    uint64_t x = 0;
#pragma GCC unroll 9
    for (size_t i = 0; i < n; i++) {
        x |= (uint64_t)(q[i] & 0x7f) << (7 * i);
        if (q[i] < 0x80) {
            *v = x;
            *p = q + i + 1;
            return true;
        }
    }
    return false;
}

/* tp_pb_next with the common shapes decoded inline: the end of the range,
 * and a one-byte key (fields 1..15) followed by a short varint value or by a
 * length below 128.  Anything else, and every malformed case, goes to
 * tp_pb_next (same results, same errors).  For hot loops over many small
 * messages. */
__attribute__((always_inline)) static inline int tp_pb_next_fast(tp_pb *r, tp_pb_field *f, tp_err *err)
{
    const uint8_t *p = r->p, *end = r->end;
    if (p == end) /* the end of every message: no call */
        return 0;
    if (end - p >= 2 && p[0] < 0x80 && p[0] >= 8) {
        uint8_t wt = p[0] & 7;
        const uint8_t *q = p + 1;
        uint64_t v;
        if (wt == TP_PB_VARINT && tp_pb_varint_short(&q, end, &v)) {
            f->num = p[0] >> 3;
            f->wt = wt;
            f->v = v;
            f->data = NULL;
            f->len = 0;
            r->p = q;
            return 1;
        } else if (wt == TP_PB_LEN && p[1] < 0x80 && (size_t)(end - p - 2) >= p[1]) {
            f->num = p[0] >> 3;
            f->wt = wt;
            f->v = 0;
            f->data = p + 2;
            f->len = p[1];
            r->p = p + 2 + p[1];
            return 1;
        }
    }
    return tp_pb_next(r, f, err); /* 10-byte varints and all errors too */
}

static inline int64_t tp_pb_zigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }
double tp_pb_double(uint64_t bits);
float tp_pb_float(uint32_t bits);

#endif
