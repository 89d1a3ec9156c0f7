/* pbwrite.h: a small protocol-buffers wire-format encoder into a tp_buf (the
 * counterpart of pbwire.h).  Nested messages are written in place:
 * tp_pbw_begin() notes where the payload starts, tp_pbw_end() inserts the
 * minimal length varint in front of it, so output is canonical and the same
 * bytes every time.  No generated code, no allocation beyond the buffer. */
#ifndef TP_PBWRITE_H
#define TP_PBWRITE_H

#include "common.h"

void tp_pbw_varint(tp_buf *b, uint64_t v);
void tp_pbw_tag(tp_buf *b, uint32_t field, unsigned wire_type);

/* VARINT fields: unsigned, and signed as two's complement (int32/int64, not
 * sint).  Inline: a .pftrace is mostly small varint fields. */
static inline void tp_pbw_uint(tp_buf *b, uint32_t field, uint64_t v)
{
    if (b->len + 22 > b->cap) /* the longest tag and value and the NUL */
        tp_grow((void **)&b->data, &b->cap, b->len + 22, 1);
    unsigned char *p = (unsigned char *)b->data + b->len;
    uint64_t k = (uint64_t)field << 3;
    while (k >= 0x80) {
        *p++ = (unsigned char)(0x80 | (k & 0x7f));
        k >>= 7;
    }
    *p++ = (unsigned char)k;
    while (v >= 0x80) {
        *p++ = (unsigned char)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    *p = 0;
    b->len = (size_t)((char *)p - b->data);
}

static inline void tp_pbw_int(tp_buf *b, uint32_t field, int64_t v) { tp_pbw_uint(b, field, (uint64_t)v); }

/* Nested message: mark = tp_pbw_begin(b, field); ...fields...; tp_pbw_end(b, mark).
 * One byte is kept for the length: most nested messages (annotations,
 * events) are shorter than 128 bytes, and then nothing has to move. */
static inline size_t tp_pbw_begin(tp_buf *b, uint32_t field)
{
    if (b->len + 8 > b->cap)
        tp_grow((void **)&b->data, &b->cap, b->len + 8, 1);
    unsigned char *p = (unsigned char *)b->data + b->len;
    uint32_t k = field << 3 | 2;
    while (k >= 0x80) {
        *p++ = (unsigned char)(0x80 | (k & 0x7f));
        k >>= 7;
    }
    *p++ = (unsigned char)k;
    *p++ = 0;
    *p = 0;
    b->len = (size_t)((char *)p - b->data);
    return b->len;
}

void tp_pbw_end_long(tp_buf *b, size_t mark);

static inline void tp_pbw_end(tp_buf *b, size_t mark)
{
    size_t len = b->len - mark;
    if (len < 0x80)
        b->data[mark - 1] = (char)len;
    else
        tp_pbw_end_long(b, mark);
}
void tp_pbw_fixed64(tp_buf *b, uint32_t field, uint64_t v);
void tp_pbw_double(tp_buf *b, uint32_t field, double v);
void tp_pbw_bytes(tp_buf *b, uint32_t field, const void *p, size_t n);
/* A string with invalid UTF-8 sequences replaced by U+FFFD (counted in *bad). */
void tp_pbw_utf8(tp_buf *b, uint32_t field, const char *s, size_t n, uint64_t *bad);


#endif
