/* sort.h: typed, stable merge sort with the comparison inlined, and string
 * ranks (convert/model/str_ranks.h), for the hot sorts of the pipeline and the report.
 *
 * glibc's qsort_r calls its comparator through a pointer and most of ours
 * compared names with strcmp: on a 200 MB Kineto trace the report spent 29%
 * of its instructions in qsort.  TP_SORT_DEFINE generates a sort for one
 * element type whose "less" is a macro expression, and tp_str_ranks turns
 * a name comparison into an integer one.
 *
 *     #define HOST_LESS(x, y, c) ((x)->ts < (y)->ts || ...)
 *     TP_SORT_DEFINE(sort_hosts, host_key, const tp_trace *, HOST_LESS)
 *     sort_hosts(keys, n, t);
 *
 * LESS(x, y, c) gets two `const T *` and the context; it must be a strict
 * weak order.  The sort is stable (equal elements keep their order), so
 * results are deterministic whatever LESS leaves tied.  It is a natural
 * merge sort: the input's own ascending runs (a host thread's slices, a
 * stream's intervals: mostly in time order already) are merged, so k runs
 * take log2(k) passes, not log2(n / TP_SORT_RUN) (a 1.2 M-slice thread in
 * 229 runs: 8 passes, not 17), and input in order takes n - 1 comparisons
 * and no buffer.  Runs shorter than TP_SORT_RUN are made that long by
 * insertion sort, which keeps random input at the fixed-run sort's cost. */
#ifndef TP_SORT_H
#define TP_SORT_H

#include "convert/base/common.h"

#include <stdlib.h>
#include <string.h>

#define TP_SORT_RUN 16

/* Merge src[lo, mid) and src[mid, hi), both sorted, into dst[lo, hi)
 * (stable; ranges already in order are copied without comparing). */
#define TP_SORT_MERGE_(src, dst, lo, mid, hi, LESS, c)                                                          \
    do {                                                                                                         \
        size_t i_ = (lo), j_ = (mid), k_ = (lo);                                                                 \
        if (j_ < (hi) && LESS((&(src)[j_]), (&(src)[j_ - 1]), c))                                                \
            while (i_ < (mid) && j_ < (hi))                                                                      \
                (dst)[k_++] = LESS((&(src)[j_]), (&(src)[i_]), c) ? (src)[j_++] : (src)[i_++];                   \
        memcpy((dst) + k_, (src) + i_, ((mid) - i_) * sizeof *(src));                                           \
        k_ += (mid) - i_;                                                                                        \
        memcpy((dst) + k_, (src) + j_, ((hi) - j_) * sizeof *(src));                                            \
    } while (0)

/* After a merge pass (src -> dst): the merged data becomes the source. */
#define TP_SORT_FLIP_(T, src, dst)                                                                               \
    do {                                                                                                         \
        T *s_ = (src);                                                                                           \
        (src) = (dst);                                                                                           \
        (dst) = s_;                                                                                              \
    } while (0)

#define TP_SORT_DEFINE(fn, T, CTX, LESS)                                                                         \
    static void fn(T *a, size_t n, CTX c)                                                                        \
    {                                                                                                            \
        (void)c;                                                                                                 \
        size_t first = n > 0; /* the input's own first run: all of it when it came in order (no merge, no buffer) */ \
        while (first < n && !LESS((&a[first]), (&a[first - 1]), c))                                              \
            first++;                                                                                             \
        if (first == n)                                                                                          \
            return;                                                                                              \
        /* runs: the input's ascending runs, each one shorter than TP_SORT_RUN made that long by insertion sort \
         * (so at most n / TP_SORT_RUN + 1 of them); run i is runs[i] .. runs[i + 1] */                          \
        size_t *runs = tp_xmalloc((n / TP_SORT_RUN + 2) * sizeof *runs), nruns = 0;                              \
        for (size_t lo = 0, hi = first; lo < n; lo = hi) {                                                       \
            if (lo) {                                                                                            \
                for (hi = lo + 1; hi < n && !LESS((&a[hi]), (&a[hi - 1]), c); hi++)                              \
                    ;                                                                                            \
            }                                                                                                    \
            size_t end = hi - lo >= TP_SORT_RUN ? hi : (lo + TP_SORT_RUN < n ? lo + TP_SORT_RUN : n);           \
            for (size_t i = hi; i < end; i++) {                                                                  \
                T v = a[i];                                                                                      \
                size_t j = i;                                                                                    \
                for (; j > lo && LESS((&v), (&a[j - 1]), c); j--)                                                \
                    a[j] = a[j - 1];                                                                             \
                a[j] = v;                                                                                        \
            }                                                                                                    \
            hi = end;                                                                                            \
            runs[nruns++] = lo;                                                                                  \
        }                                                                                                        \
        runs[nruns] = n;                                                                                         \
        T *buf = nruns > 1 ? tp_xmalloc(n * sizeof *buf) : NULL, *src = a, *dst = buf;                          \
        while (nruns > 1) { /* adjacent runs merged pairwise, ping-pong between the arrays */                   \
            size_t out = 0;                                                                                      \
            for (size_t i = 0; i < nruns; i += 2) {                                                              \
                size_t lo = runs[i], mid = runs[i + 1], hi = i + 2 <= nruns ? runs[i + 2] : mid;                 \
                TP_SORT_MERGE_(src, dst, lo, mid, hi, LESS, c);                                                  \
                runs[out++] = lo;                                                                                \
            }                                                                                                    \
            runs[out] = n;                                                                                       \
            nruns = out;                                                                                         \
            TP_SORT_FLIP_(T, src, dst);                                                                         \
        }                                                                                                        \
        if (src != a)                                                                                            \
            memcpy(a, src, n * sizeof *a);                                                                       \
        free(buf);                                                                                               \
        free(runs);                                                                                              \
    }

/* TP_RUNS_SORT_DEFINE(fn, T, LESS): `bool fn(T *a, size_t n, size_t max_runs, T *tmp)`,
 * a natural merge sort for data made of a few long sorted runs (a device's
 * streams, a host thread's ops then its runtime calls): the runs are found,
 * then merged pairwise, O(n log runs).  It returns false, leaving `a` as it
 * was, when there are more than max_runs runs (the caller sorts another
 * way).  tmp: room for n elements, or NULL (allocated here).  Stable, like
 * TP_SORT_DEFINE; LESS(x, y, c) is called with c = 0. */
#define TP_RUNS_SORT_DEFINE(fn, T, LESS)                                                                         \
    static bool fn(T *a, size_t n, size_t max_runs, T *tmp)                                                      \
    {                                                                                                            \
        size_t nruns = n > 0;                                                                                    \
        for (size_t j = 1; j < n; j++)                                                                           \
            nruns += LESS((&a[j]), (&a[j - 1]), 0) ? 1 : 0;                                                       \
        if (nruns > max_runs)                                                                                    \
            return false;                                                                                        \
        if (nruns < 2)                                                                                           \
            return true;                                                                                         \
        size_t *runs = tp_xmalloc((nruns + 1) * sizeof *runs), r = 0;                                            \
        runs[r++] = 0;                                                                                           \
        for (size_t j = 1; j < n; j++)                                                                           \
            if (LESS((&a[j]), (&a[j - 1]), 0))                                                                   \
                runs[r++] = j;                                                                                   \
        runs[nruns] = n; /* run i: runs[i] .. runs[i + 1] */                                                     \
        T *buf = tmp ? tmp : tp_xmalloc(n * sizeof *buf), *src = a, *dst = buf;                                 \
        while (nruns > 1) {                                                                                      \
            size_t out = 0;                                                                                      \
            for (size_t i = 0; i < nruns; i += 2) {                                                              \
                size_t lo = runs[i], mid = runs[i + 1], hi = i + 2 <= nruns ? runs[i + 2] : mid;                 \
                TP_SORT_MERGE_(src, dst, lo, mid, hi, LESS, 0);                                                  \
                runs[out++] = lo;                                                                                \
            }                                                                                                    \
            runs[out] = n;                                                                                       \
            nruns = out;                                                                                         \
            TP_SORT_FLIP_(T, src, dst);                                                                         \
        }                                                                                                        \
        if (src != a)                                                                                            \
            memcpy(a, src, n * sizeof *a);                                                                       \
        if (buf != tmp)                                                                                          \
            free(buf);                                                                                           \
        free(runs);                                                                                              \
        return true;                                                                                             \
    }

#endif
