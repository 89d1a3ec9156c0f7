/* pbwire.c: protobuf wire decoding with bounds checks. */
#include "convert/codec/pbwire.h"

#include <string.h>

int tp_pb_varint(tp_pb *r, uint64_t *v, tp_err *err)
{
    if (r->p >= r->end)
        return 0;
    if (*r->p < 0x80) { /* one byte: most keys, lengths and small values (half the time of XPlane reading) */
        *v = *r->p++;
        return 1;
    }
    if (r->end - r->p >= 2 && r->p[1] < 0x80) {
        *v = (uint64_t)(r->p[0] & 0x7f) | (uint64_t)r->p[1] << 7;
        r->p += 2;
        return 1;
    }
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end)
            return tp_fail(err, tp_pb_offset(r), "protobuf varint runs past the end of its message");
        uint8_t b = *r->p++;
        if (shift == 63 && b > 1)
            return tp_fail(err, tp_pb_offset(r) - 1, "protobuf varint longer than 64 bits");
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return tp_fail(err, tp_pb_offset(r), "protobuf varint longer than 10 bytes");
}

int tp_pb_next(tp_pb *r, tp_pb_field *f, tp_err *err)
{
    uint64_t key;
    uint64_t at = tp_pb_offset(r);
    if (r->p < r->end && *r->p < 0x80) { /* one-byte key: fields 1..15, the common case */
        key = *r->p++;
    } else {
        int k = tp_pb_varint(r, &key, err);
        if (k <= 0)
            return k;
    }
    f->num = (uint32_t)(key >> 3);
    f->wt = (uint8_t)(key & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    if (f->num == 0 || (key >> 3) > 0x1fffffff)
        return tp_fail(err, at, "protobuf field number %llu is invalid", (unsigned long long)(key >> 3));
    switch (f->wt) {
    case TP_PB_VARINT:
        if (r->p < r->end && *r->p < 0x80) {
            f->v = *r->p++;
            return 1;
        }
        if (tp_pb_varint(r, &f->v, err) != 1)
            return tp_fail(err, tp_pb_offset(r), "protobuf field %u: missing varint value", f->num);
        return 1;
    case TP_PB_I64:
        if (r->end - r->p < 8)
            return tp_fail(err, tp_pb_offset(r), "protobuf field %u: 8-byte value runs past the end", f->num);
        for (int i = 7; i >= 0; i--)
            f->v = (f->v << 8) | r->p[i];
        r->p += 8;
        return 1;
    case TP_PB_I32:
        if (r->end - r->p < 4)
            return tp_fail(err, tp_pb_offset(r), "protobuf field %u: 4-byte value runs past the end", f->num);
        for (int i = 3; i >= 0; i--)
            f->v = (f->v << 8) | r->p[i];
        r->p += 4;
        return 1;
    case TP_PB_LEN: {
        uint64_t len;
        if (r->p < r->end && *r->p < 0x80)
            len = *r->p++;
        else if (tp_pb_varint(r, &len, err) != 1)
            return tp_fail(err, tp_pb_offset(r), "protobuf field %u: missing length", f->num);
        if (len > (uint64_t)(r->end - r->p))
            return tp_fail(err, tp_pb_offset(r),
                           "protobuf field %u: length %llu runs past the end (%llu bytes left)", f->num,
                           (unsigned long long)len, (unsigned long long)(r->end - r->p));
        f->data = r->p;
        f->len = (size_t)len;
        r->p += len;
        return 1;
    }
    default:
        return tp_fail(err, at, "protobuf field %u: unsupported wire type %u", f->num, f->wt);
    }
}

double tp_pb_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float tp_pb_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
