/* str_ranks.h: interned strings compared as integers (see convert/base/sort.h). */
#ifndef TP_STR_RANKS_H
#define TP_STR_RANKS_H

#include "convert/model/model.h"

/* rank[id] for every interned string: the strcmp order of the strings
 * (equal strings share a rank), so `strcmp(name(x), name(y)) < 0` is
 * `rank[x] < rank[y]`.  The caller frees the array.  O(S log S) in the
 * number of distinct strings, which is small next to the events. */
uint32_t *tp_str_ranks(const tp_trace *t);

#endif
