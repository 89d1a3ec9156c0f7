/* str_ranks.c: string ranks (str_ranks.h). */
#include "convert/model/str_ranks.h"
#include "convert/base/sort.h"

#define ID_LESS(x, y, t) (strcmp(tp_str_get((t), *(x)), tp_str_get((t), *(y))) < 0)
TP_SORT_DEFINE(sort_ids_by_text, tp_str, const tp_trace *, ID_LESS)

uint32_t *tp_str_ranks(const tp_trace *t)
{
    size_t n = t->nstr;
    tp_str *ids = tp_xmalloc((n + 1) * sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = (tp_str)i;
    sort_ids_by_text(ids, n, t);
    uint32_t *rank = tp_xmalloc((n + 1) * sizeof *rank);
    uint32_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(tp_str_get(t, ids[i - 1]), tp_str_get(t, ids[i])) != 0)
            r++;
        rank[ids[i]] = r;
    }
    free(ids);
    return rank;
}
