/* i64map.c: int64 -> uint32 open-addressing hash map (see i64map.h). */
#include "convert/base/i64map.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(int64_t key, size_t cap)
{
    /* Fibonacci hashing of the key with its high half folded in first: the
     * slot bits of a product depend only on the key's low bits, and keys that
     * pair two 32-bit ids (the report's (leaf, kernel) keys) differed only
     * there: one long probe chain per kernel name */
    uint64_t k = (uint64_t)key;
    uint64_t h = (k ^ (k >> 32)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static void resize(tp_i64map *m, size_t cap)
{
    int64_t *keys = tp_xmalloc(cap * sizeof *keys);
    uint32_t *vals = tp_xmalloc(cap * sizeof *vals);
    memset(vals, 0xff, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] == TP_I64MAP_EMPTY)
            continue;
        size_t s = slot_of(m->keys[i], cap);
        while (vals[s] != TP_I64MAP_EMPTY)
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
}

void tp_i64map_init(tp_i64map *m, size_t cap)
{
    if (m->cap == 0 && cap >= 2 && (cap & (cap - 1)) == 0)
        resize(m, cap);
}

void tp_i64map_clear(tp_i64map *m)
{
    if (m->vals && m->n) /* an empty map stays as it is: clearing is then free */
        memset(m->vals, 0xff, m->cap * sizeof *m->vals);
    m->n = 0;
}

void tp_i64map_free(tp_i64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

void tp_i64map_put(tp_i64map *m, int64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap)
        resize(m, m->cap ? m->cap * 2 : 64);
    size_t s = slot_of(key, m->cap);
    while (m->vals[s] != TP_I64MAP_EMPTY) {
        if (m->keys[s] == key) {
            m->vals[s] = val;
            return;
        }
        s = (s + 1) & (m->cap - 1);
    }
    m->keys[s] = key;
    m->vals[s] = val;
    m->n++;
}

uint32_t tp_i64map_get(const tp_i64map *m, int64_t key)
{
    if (m->cap == 0)
        return TP_I64MAP_EMPTY;
    size_t s = slot_of(key, m->cap);
    while (m->vals[s] != TP_I64MAP_EMPTY) {
        if (m->keys[s] == key)
            return m->vals[s];
        s = (s + 1) & (m->cap - 1);
    }
    return TP_I64MAP_EMPTY;
}
