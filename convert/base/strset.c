/* strset.c: numbered set of byte strings (see strset.h). */
#include "convert/base/strset.h"

#include <stdlib.h>
#include <string.h>

static void rehash(tp_strset *s)
{
    size_t ns = s->nslots ? s->nslots * 2 : 256;
    uint32_t *slots = tp_xcalloc(ns, sizeof *slots);
    for (size_t id = 1; id <= s->n; id++) {
        size_t h = (size_t)tp_hash_bytes(s->data.data + s->off[id], s->len[id]) & (ns - 1);
        while (slots[h])
            h = (h + 1) & (ns - 1);
        slots[h] = (uint32_t)id;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = ns;
}

uint32_t tp_strset_add(tp_strset *s, const char *p, size_t n)
{
    if ((s->n + 1) * 2 > s->nslots)
        rehash(s);
    size_t h = (size_t)tp_hash_bytes(p, n) & (s->nslots - 1);
    for (uint32_t id; (id = s->slots[h]) != 0; h = (h + 1) & (s->nslots - 1))
        if (s->len[id] == n && memcmp(s->data.data + s->off[id], p, n) == 0)
            return id;
    uint32_t id = (uint32_t)++s->n;
    if (id + 1 > s->cap) {
        size_t cap = s->cap;
        TP_GROW(s->off, cap, (size_t)id + 1);
        s->len = tp_xrealloc(s->len, cap * sizeof *s->len);
        s->cap = cap;
    }
    s->off[id] = s->data.len;
    s->len[id] = (uint32_t)n;
    tp_buf_put(&s->data, p, n);
    tp_buf_putc(&s->data, 0);
    s->slots[h] = id;
    return id;
}

const char *tp_strset_get(const tp_strset *s, uint32_t id, size_t *len)
{
    *len = s->len[id];
    return s->data.data + s->off[id];
}

void tp_strset_free(tp_strset *s)
{
    tp_buf_free(&s->data);
    free(s->off);
    free(s->len);
    free(s->slots);
    memset(s, 0, sizeof *s);
}
