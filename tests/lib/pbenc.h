/* pbenc.h: a tiny protobuf wire encoder for building synthetic inputs in
 * tests and generators (header-only, no tracepress dependencies). */
#ifndef TP_PBENC_H
#define TP_PBENC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pbe {
    unsigned char *d;
    size_t len, cap;
} pbe;

static inline void pbe_put(pbe *b, const void *p, size_t n)
{
    if (n == 0) /* an empty sub-message has no buffer at all */
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n)
            cap *= 2;
        b->d = realloc(b->d, cap);
        if (!b->d) {
            fprintf(stderr, "pbenc: out of memory\n");
            exit(1);
        }
        b->cap = cap;
    }
    memcpy(b->d + b->len, p, n);
    b->len += n;
}

static inline void pbe_varint(pbe *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pbe_put(b, tmp, n);
}

static inline void pbe_uint(pbe *b, uint32_t num, uint64_t v)
{
    pbe_varint(b, (uint64_t)num << 3);
    pbe_varint(b, v);
}

static inline void pbe_bytes(pbe *b, uint32_t num, const void *p, size_t n)
{
    pbe_varint(b, ((uint64_t)num << 3) | 2);
    pbe_varint(b, n);
    pbe_put(b, p, n);
}

static inline void pbe_str(pbe *b, uint32_t num, const char *s) { pbe_bytes(b, num, s, strlen(s)); }
static inline void pbe_msg(pbe *b, uint32_t num, const pbe *sub) { pbe_bytes(b, num, sub->d, sub->len); }
static inline void pbe_free(pbe *b)
{
    free(b->d);
    memset(b, 0, sizeof *b);
}

#endif
