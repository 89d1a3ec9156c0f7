/* pbwrite.h: a small protocol-buffers wire-format encoder into a tp_buf (the
 * counterpart of pbwire.h).  Nested messages are written in place:
 * tp_pbw_begin() notes where the payload starts, tp_pbw_end() inserts the
 * minimal length varint in front of it, so output is canonical and the same
 * bytes every time.  No generated code, no allocation beyond the buffer. */
#ifndef TP_PBWRITE_H
#define TP_PBWRITE_H

#include "convert/base/common.h"

void tp_pbw_varint(tp_buf *b, uint64_t v);
void tp_pbw_tag(tp_buf *b, uint32_t field, unsigned wire_type);

/* A run of small fields at a cursor: p = tp_pbw_room(b, n) makes room for n
 * bytes and says where they go, the tp_pbw_at_* functions write at p and
 * return the new end, tp_pbw_done(b, p) ends the run.  The helpers above
 * store b->len after every field and load it again before the next (a char
 * store may alias it), a chain through memory on every field: packets of a
 * .pftrace are a dozen fields each, and the cursor stays in a register.
 * A nested message in a run: mark = tp_pbw_at_begin(&p, base, field), and
 * tp_pbw_at_end_short(base, mark, p) when it is known to be shorter than
 * 128 bytes (else tp_pbw_done, then tp_pbw_end). */
static inline unsigned char *tp_pbw_room(tp_buf *b, size_t n)
{
    if (b->len + n + 1 > b->cap)
        tp_grow((void **)&b->data, &b->cap, b->len + n + 1, 1);
    return (unsigned char *)b->data + b->len;
}

static inline void tp_pbw_done(tp_buf *b, unsigned char *p)
{
    *p = 0;
    b->len = (size_t)((char *)p - b->data);
}

static inline unsigned char *tp_pbw_at_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* at most 5 + 10 bytes */
static inline unsigned char *tp_pbw_at_uint(unsigned char *p, uint32_t field, uint64_t v)
{
    return tp_pbw_at_varint(tp_pbw_at_varint(p, (uint64_t)field << 3), v);
}

/* at most 5 + 8 bytes */
static inline unsigned char *tp_pbw_at_fixed64(unsigned char *p, uint32_t field, uint64_t v)
{
    p = tp_pbw_at_varint(p, (uint64_t)field << 3 | 1);
    for (int i = 0; i < 8; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

/* at most 5 + 1 bytes; the mark is an offset from base (b->data), as
 * tp_pbw_begin's */
static inline size_t tp_pbw_at_begin(unsigned char **p, const unsigned char *base, uint32_t field)
{
    unsigned char *q = tp_pbw_at_varint(*p, (uint64_t)field << 3 | 2);
    *q++ = 0;
    *p = q;
    return (size_t)(q - base);
}

static inline void tp_pbw_at_end_short(unsigned char *base, size_t mark, const unsigned char *p)
{
    base[mark - 1] = (unsigned char)((size_t)(p - base) - mark);
}

/* VARINT fields: unsigned, and signed as two's complement (int32/int64, not
 * sint). */
static inline void tp_pbw_uint(tp_buf *b, uint32_t field, uint64_t v)
{
    tp_pbw_done(b, tp_pbw_at_uint(tp_pbw_room(b, 15), field, v));
}

static inline void tp_pbw_int(tp_buf *b, uint32_t field, int64_t v) { tp_pbw_uint(b, field, (uint64_t)v); }

/* Nested message: mark = tp_pbw_begin(b, field); ...fields...; tp_pbw_end(b, mark).
 * One byte is kept for the length: most nested messages (annotations,
 * events) are shorter than 128 bytes, and then nothing has to move. */
static inline size_t tp_pbw_begin(tp_buf *b, uint32_t field)
{
    unsigned char *p = tp_pbw_room(b, 6);
    size_t mark = tp_pbw_at_begin(&p, (unsigned char *)b->data, field);
    tp_pbw_done(b, p);
    return mark;
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
