/* fbb.h: a tiny FlatBuffers writer for tests (front to back: a parent is
 * written first with placeholder offsets that are patched once its children
 * are appended after it, so every uoffset points forward as the format
 * requires).  Positions are file offsets; fbb_start reserves the size prefix. */
#ifndef TP_FBB_H
#define TP_FBB_H

#include <stddef.h>
#include <stdint.h>

typedef struct fbb {
    uint8_t *d;
    size_t len, cap;
} fbb;

/* A table field: size 1, 2, 4 or 8 for a scalar v, or 0 for an offset
 * placeholder (patched later with fbb_patch). */
typedef struct fbf {
    int slot;
    int size;
    uint64_t v;
} fbf;

void fbb_start(fbb *b, const char *ident, int size_prefixed);
/* Writes a vtable then the table; ph[i] receives the placeholder position of
 * offset field f[i] (ph may be NULL when there are none).  Returns the table position. */
uint32_t fbb_table(fbb *b, const fbf *f, int n, uint32_t *ph);
void fbb_patch(fbb *b, uint32_t at, uint32_t target);
uint32_t fbb_string(fbb *b, const char *s);
uint32_t fbb_bytes(fbb *b, const void *p, uint32_t n);
uint32_t fbb_longs(fbb *b, const int64_t *v, uint32_t n);
uint32_t fbb_offvec(fbb *b, uint32_t n); /* element i is at pos + 4 + 4*i */
/* Patches the root offset (and size prefix).  Returns the buffer (caller frees). */
uint8_t *fbb_finish(fbb *b, uint32_t root, size_t *len);

#endif
