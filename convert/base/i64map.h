/* i64map.h: a small open-addressing hash map from int64 keys to uint32
 * values, for readers that resolve ids found in a file (XPlane metadata ids,
 * protobuf-interned strings).  The map owns its table; free with
 * tp_i64map_free.  Not part of the trace (see the ownership rule in model.h). */
#ifndef TP_I64MAP_H
#define TP_I64MAP_H

#include "convert/base/common.h"

typedef struct tp_i64map {
    int64_t *keys;
    uint32_t *vals;  /* TP_I64MAP_EMPTY marks a free slot */
    size_t cap, n;
} tp_i64map;

#define TP_I64MAP_EMPTY UINT32_MAX

/* An empty map's first table of cap (a power of two) slots, not the
 * default 64: for many maps that hold a few keys each (a Perfetto trace's
 * per-sequence interned strings), so one costs what it holds. */
void tp_i64map_init(tp_i64map *m, size_t cap);
void tp_i64map_clear(tp_i64map *m);          /* keep the table, drop every entry */
void tp_i64map_free(tp_i64map *m);
/* Set key -> val (val != TP_I64MAP_EMPTY); replaces an existing value. */
void tp_i64map_put(tp_i64map *m, int64_t key, uint32_t val);
/* The value for key, or TP_I64MAP_EMPTY. */
uint32_t tp_i64map_get(const tp_i64map *m, int64_t key);

#endif
