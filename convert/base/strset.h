/* strset.h: a set of byte strings numbered 1, 2, 3 ... in the order they
 * were first added; owned by whoever made it (tp_strset_free).  For writers
 * that need their own names without interning into the trace (the trace's
 * pools must not grow while pointers into them are held). */
#ifndef TP_STRSET_H
#define TP_STRSET_H

#include "convert/base/common.h"

typedef struct tp_strset {
    tp_buf data;     /* strings, each followed by a NUL */
    size_t *off;     /* id -> offset into data (id 0 unused) */
    uint32_t *len;
    size_t n, cap;   /* ids 1..n */
    uint32_t *slots; /* open addressing table of ids, 0 empty */
    size_t nslots;
} tp_strset;

uint32_t tp_strset_add(tp_strset *s, const char *p, size_t n); /* id, found or added */
const char *tp_strset_get(const tp_strset *s, uint32_t id, size_t *len);
void tp_strset_free(tp_strset *s);

#endif
