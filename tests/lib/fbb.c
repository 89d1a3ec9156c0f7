/* fbb.c: the test FlatBuffers writer (see fbb.h). */
#include "tests/lib/fbb.h"

#include <stdlib.h>
#include <string.h>

static int prefixed;

static void put(fbb *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        if (!b->d)
            abort();
    }
    memcpy(b->d + b->len, p, n);
    b->len += n;
}

static void pad4(fbb *b)
{
    static const uint8_t z[4];
    put(b, z, (4 - b->len % 4) % 4);
}

static void put32(fbb *b, uint32_t v) { put(b, &v, 4); }

void fbb_start(fbb *b, const char *ident, int size_prefixed)
{
    b->d = NULL;
    b->len = b->cap = 0;
    prefixed = size_prefixed;
    if (size_prefixed)
        put32(b, 0);
    put32(b, 0); /* root offset */
    put(b, ident, 4);
}

void fbb_patch(fbb *b, uint32_t at, uint32_t target)
{
    uint32_t v = target - at;
    memcpy(b->d + at, &v, 4);
}

uint32_t fbb_table(fbb *b, const fbf *f, int n, uint32_t *ph)
{
    int nslots = 0;
    for (int i = 0; i < n; i++)
        if (f[i].slot + 1 > nslots)
            nslots = f[i].slot + 1;
    uint16_t vt[66] = {0};
    uint16_t off = 4;
    for (int i = 0; i < n; i++) {
        int sz = f[i].size ? f[i].size : 4;
        vt[2 + f[i].slot] = off;
        off = (uint16_t)(off + sz);
    }
    vt[0] = (uint16_t)(4 + 2 * nslots);
    vt[1] = off;
    pad4(b);
    uint32_t vpos = (uint32_t)b->len;
    put(b, vt, vt[0]);
    pad4(b);
    uint32_t tpos = (uint32_t)b->len;
    put32(b, tpos - vpos); /* soffset: vtable = table - soffset */
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (f[i].size == 0) {
            if (ph)
                ph[k] = (uint32_t)b->len;
            k++;
            put32(b, 0);
        } else {
            put(b, &f[i].v, (size_t)f[i].size); /* little-endian host */
        }
    }
    return tpos;
}

uint32_t fbb_string(fbb *b, const char *s)
{
    pad4(b);
    uint32_t pos = (uint32_t)b->len;
    put32(b, (uint32_t)strlen(s));
    put(b, s, strlen(s) + 1);
    return pos;
}

uint32_t fbb_bytes(fbb *b, const void *p, uint32_t n)
{
    pad4(b);
    uint32_t pos = (uint32_t)b->len;
    put32(b, n);
    put(b, p, n);
    return pos;
}

uint32_t fbb_longs(fbb *b, const int64_t *v, uint32_t n)
{
    pad4(b);
    uint32_t pos = (uint32_t)b->len;
    put32(b, n);
    put(b, v, 8 * (size_t)n);
    return pos;
}

uint32_t fbb_offvec(fbb *b, uint32_t n)
{
    pad4(b);
    uint32_t pos = (uint32_t)b->len;
    put32(b, n);
    for (uint32_t i = 0; i < n; i++)
        put32(b, 0);
    return pos;
}

uint8_t *fbb_finish(fbb *b, uint32_t root, size_t *len)
{
    pad4(b);
    uint32_t at = prefixed ? 4 : 0;
    fbb_patch(b, at, root);
    if (prefixed) {
        uint32_t size = (uint32_t)b->len - 4;
        memcpy(b->d, &size, 4);
    }
    *len = b->len;
    return b->d;
}
