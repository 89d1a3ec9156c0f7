/* batch_inputs.c: output names and shards of batch inputs (batch.h). */
#include "report/batch/batch.h"
#include "report/analysis/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void tp_batch_names(const tp_strlist *paths, tp_strlist *names)
{
    for (size_t i = 0; i < paths->n; i++) {
        char b[256];
        tp_trace_basename(paths->v[i], b, sizeof b);
        for (char *c = b; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                  *c == '_' || *c == '-'))
                *c = '_';
        if (!b[0] || b[0] == '.')
            b[0] = '_';
        /* DIR/index.json, index-K-of-N.md, ... are the index's: a trace
         * folder never takes (or shadows) such a name, in any case */
        if (strncasecmp(b, "index", 5) == 0 && (b[5] == '.' || b[5] == '-')) {
            memmove(b + 1, b, strnlen(b, sizeof b - 2) + 1);
            b[0] = '_';
            b[sizeof b - 1] = 0;
        }
        tp_strlist_add(names, b);
    }
    /* names that repeat get a suffix from the path's hash */
    bool *dup = tp_xcalloc(names->n + 1, sizeof *dup);
    char **sorted = tp_xcalloc(names->n + 1, sizeof *sorted);
    memcpy(sorted, names->v, names->n * sizeof *sorted);
    if (names->n > 1)
        qsort(sorted, names->n, sizeof *sorted, cmp_str);
    for (size_t i = 0; i < names->n; i++) {
        /* binary search: is this name's neighbour in sorted order the same? */
        size_t lo = 0, hi = names->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (strcmp(sorted[mid], names->v[i]) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        dup[i] = lo + 1 < names->n && strcmp(sorted[lo + 1], names->v[i]) == 0;
    }
    free(sorted);
    for (size_t i = 0; i < names->n; i++)
        if (dup[i]) {
            char b[300];
            snprintf(b, sizeof b, "%s-%08llx", names->v[i],
                     (unsigned long long)(tp_hash64_bytes(paths->v[i], strlen(paths->v[i])) & 0xffffffffu));
            free(names->v[i]);
            names->v[i] = tp_xstrdup(b);
        }
    free(dup);
}

bool tp_batch_in_shard(const char *path, int k, int n)
{
    return (int)(tp_hash64_bytes(path, strlen(path)) % (uint64_t)n) == k - 1;
}
