/* pbwrite.c: protobuf wire encoding (see pbwrite.h). */
#include "convert/codec/pbwrite.h"
#include "convert/codec/json_write.h"

#include <string.h>

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void put_varint_at(char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (char)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    *p = (char)v;
}

void tp_pbw_varint(tp_buf *b, uint64_t v)
{
    tp_pbw_done(b, tp_pbw_at_varint(tp_pbw_room(b, 10), v));
}

void tp_pbw_tag(tp_buf *b, uint32_t field, unsigned wire_type)
{
    tp_pbw_varint(b, ((uint64_t)field << 3) | wire_type);
}

void tp_pbw_fixed64(tp_buf *b, uint32_t field, uint64_t v)
{
    tp_pbw_done(b, tp_pbw_at_fixed64(tp_pbw_room(b, 13), field, v));
}

void tp_pbw_double(tp_buf *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    tp_pbw_fixed64(b, field, bits);
}

void tp_pbw_bytes(tp_buf *b, uint32_t field, const void *p, size_t n)
{
    tp_pbw_tag(b, field, 2);
    tp_pbw_varint(b, n);
    tp_buf_put(b, p, n);
}

void tp_pbw_utf8(tp_buf *b, uint32_t field, const char *s, size_t n, uint64_t *bad)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    const unsigned char *q = p;
    while (q < end && *q < 0x80)
        q++;
    if (q == end) { /* plain ASCII: the common case */
        tp_pbw_bytes(b, field, s, n);
        return;
    }
    size_t mark = tp_pbw_begin(b, field);
    while (p < end) {
        size_t k = *p < 0x80 ? 1 : tp_utf8_seq_len(p, (size_t)(end - p));
        if (k) {
            tp_buf_put(b, p, k);
            p += k;
        } else {
            tp_buf_put(b, "\xEF\xBF\xBD", 3);
            p++;
            if (bad)
                (*bad)++;
        }
    }
    tp_pbw_end(b, mark);
}

/* The length of a nested message of 128 bytes or more: the byte kept for it
 * becomes a longer varint (tp_pbw_end handles the short ones inline). */
void tp_pbw_end_long(tp_buf *b, size_t mark)
{
    uint64_t len = b->len - mark;
    size_t n = varint_len(len);
    if (b->len + n + 1 > b->cap)
        TP_GROW(b->data, b->cap, b->len + n + 1);
    memmove(b->data + mark - 1 + n, b->data + mark, (size_t)len);
    put_varint_at(b->data + mark - 1, len);
    b->len += n - 1;
    b->data[b->len] = 0;
}
