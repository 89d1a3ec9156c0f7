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

/* The folder of path (its text before the last '/', "" for none): length. */
static size_t folder_len(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? (size_t)(slash - p) : 0;
}

/* Whether path's folder is named capture_traces; *beside: the length of the folder holding it. */
static bool in_capture_folder(const char *p, size_t *beside)
{
    size_t n = folder_len(p);
    static const char name[] = "capture_traces";
    size_t k = sizeof name - 1;
    if (n < k || memcmp(p + n - k, name, k) != 0 || (n > k && p[n - k - 1] != '/'))
        return false;
    *beside = n > k ? n - k - 1 : 0;
    return true;
}

void tp_batch_split_captures(tp_strlist *paths, tp_strlist *captures)
{
    /* the folders holding a trace that is not a capture's, sorted: a capture folder beside one is its input */
    char **folders = tp_xcalloc(paths->n + 1, sizeof *folders);
    size_t nf = 0, beside;
    for (size_t i = 0; i < paths->n; i++)
        if (!in_capture_folder(paths->v[i], &beside)) {
            size_t n = folder_len(paths->v[i]);
            folders[nf] = tp_xmalloc(n + 1);
            memcpy(folders[nf], paths->v[i], n);
            folders[nf++][n] = 0;
        }
    if (nf > 1)
        qsort(folders, nf, sizeof *folders, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < paths->n; i++) {
        char *p = paths->v[i];
        if (in_capture_folder(p, &beside)) {
            char *f = tp_xmalloc(beside + 1);
            memcpy(f, p, beside);
            f[beside] = 0;
            bool found = nf && bsearch(&f, folders, nf, sizeof *folders, cmp_str);
            free(f);
            if (found) {
                tp_strlist_add(captures, p);
                free(p);
                continue;
            }
        }
        paths->v[k++] = p;
    }
    paths->n = k;
    for (size_t i = 0; i < nf; i++)
        free(folders[i]);
    free(folders);
}
