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
 * TP_SORT_DEFINE; LESS(x, y, c) is called with c = 0.
 *
 * The array is first cut where nothing before is above anything after (a
 * thread's steps one after the other, each its ops then its runtime calls:
 * 1.18 M host slices of a 1 GB trace, 229 runs, cut into 114 groups of two
 * pieces); each group is merged alone, in log(its pieces) passes over
 * itself instead of log(all runs) passes over the whole array, and the
 * stretches between groups stay where they are.  A cut in run r lies where
 * the run's elements reach the largest of the runs before it and do not yet
 * pass the least of the runs after it (two binary searches). */
#define TP_RUNS_SORT_DEFINE(fn, T, LESS)                                                                         \
    /* Merge the sorted pieces of a group: piece q is a[gr[q] .. gr[q + 1]), gr[np] = the group's length. */    \
    static void fn##_group_(T *a, size_t *gr, size_t np, T *buf)                                                 \
    {                                                                                                            \
        size_t len = gr[np];                                                                                     \
        T *src = a, *dst = buf;                                                                                  \
        while (np > 1) {                                                                                         \
            size_t out = 0;                                                                                      \
            for (size_t q = 0; q < np; q += 2) {                                                                 \
                size_t lo = gr[q], mid = gr[q + 1], hi = q + 2 <= np ? gr[q + 2] : mid;                          \
                TP_SORT_MERGE_(src, dst, lo, mid, hi, LESS, 0);                                                  \
                gr[out++] = lo;                                                                                  \
            }                                                                                                    \
            gr[out] = len;                                                                                       \
            np = out;                                                                                            \
            TP_SORT_FLIP_(T, src, dst);                                                                         \
        }                                                                                                        \
        if (src != a)                                                                                            \
            memcpy(a, src, len * sizeof *a);                                                                     \
    }                                                                                                            \
    static bool fn(T *a, size_t n, size_t max_runs, T *tmp)                                                      \
    {                                                                                                            \
        if (n > 0 && max_runs == 0)                                                                              \
            return false;                                                                                        \
        if (n < 2)                                                                                               \
            return true;                                                                                         \
        size_t *runs = NULL, runs_cap = 0, nruns = 0, r;                                                         \
        TP_GROW(runs, runs_cap, 64);                                                                             \
        runs[nruns++] = 0;                                                                                       \
        for (size_t j = 1; j < n; j++) /* one pass: stops at the run past max_runs */                           \
            if (LESS((&a[j]), (&a[j - 1]), 0)) {                                                                 \
                if (nruns == max_runs) {                                                                         \
                    free(runs);                                                                                  \
                    return false;                                                                                \
                }                                                                                                \
                TP_GROW(runs, runs_cap, nruns + 2);                                                              \
                runs[nruns++] = j;                                                                               \
            }                                                                                                    \
        if (nruns < 2) {                                                                                         \
            free(runs);                                                                                          \
            return true;                                                                                         \
        }                                                                                                        \
        runs[nruns] = n; /* run i: runs[i] .. runs[i + 1] */                                                     \
        /* least[i]: where the least first element of runs i.. is */                                             \
        size_t *least = tp_xmalloc((nruns + 1) * sizeof *least);                                                 \
        least[nruns - 1] = runs[nruns - 1];                                                                      \
        for (size_t i = nruns - 1; i-- > 0;)                                                                     \
            least[i] = LESS((&a[runs[i]]), (&a[least[i + 1]]), 0) ? runs[i] : least[i + 1];                      \
        /* cuts: [cut[2k], cut[2k + 1]] are cuts (stays in place), cut[2k + 1] .. cut[2k + 2] a group */         \
        size_t *cut = tp_xmalloc((2 * nruns + 2) * sizeof *cut), ncut = 0, widest = 0;                           \
        size_t most = 0; /* where the largest element of runs 0 .. r-1 is (runs end with their largest) */      \
        for (r = 0; r < nruns; r++) {                                                                            \
            size_t s = runs[r], e = runs[r + 1];                                                                 \
            bool first = r == 0, last = r + 1 == nruns;                                                          \
            if (first || last || !LESS((&a[least[r + 1]]), (&a[most]), 0)) {                                    \
                size_t lo = s, hi = e; /* from: the first element not below the runs before */                  \
                while (!first && lo < hi) {                                                                      \
                    size_t m = lo + (hi - lo) / 2;                                                               \
                    if (LESS((&a[m]), (&a[most]), 0))                                                            \
                        lo = m + 1;                                                                              \
                    else                                                                                         \
                        hi = m;                                                                                  \
                }                                                                                                \
                size_t from = lo;                                                                                \
                lo = s + 1, hi = e + 1; /* to: the first cut whose element before is above the runs after */     \
                while (!last && lo < hi) {                                                                       \
                    size_t m = lo + (hi - lo) / 2;                                                               \
                    if (LESS((&a[least[r + 1]]), (&a[m - 1]), 0))                                                \
                        hi = m;                                                                                  \
                    else                                                                                         \
                        lo = m + 1;                                                                              \
                }                                                                                                \
                size_t to = last ? e : lo - 1;                                                                   \
                if (from <= to) {                                                                                \
                    if (ncut && from - cut[ncut - 1] > widest)                                                   \
                        widest = from - cut[ncut - 1];                                                           \
                    cut[ncut++] = from;                                                                          \
                    cut[ncut++] = to;                                                                            \
                }                                                                                                \
            }                                                                                                    \
            if (first || LESS((&a[most]), (&a[e - 1]), 0))                                                       \
                most = e - 1;                                                                                    \
        }                                                                                                        \
        free(least);                                                                                             \
        T *buf = tmp ? tmp : tp_xmalloc((widest + 1) * sizeof *buf);                                             \
        size_t *gr = tp_xmalloc((nruns + 2) * sizeof *gr); /* a group's pieces */                                \
        r = 0;                                                                                                   \
        for (size_t k = 1; k + 1 < ncut; k += 2) {                                                               \
            size_t gs = cut[k], ge = cut[k + 1], np = 0;                                                         \
            while (r < nruns && runs[r] <= gs)                                                                   \
                r++;                                                                                             \
            gr[np++] = 0;                                                                                        \
            for (; r < nruns && runs[r] < ge; r++)                                                               \
                gr[np++] = runs[r] - gs;                                                                         \
            gr[np] = ge - gs;                                                                                    \
            if (np > 1)                                                                                          \
                fn##_group_(a + gs, gr, np, buf);                                                                \
        }                                                                                                        \
        if (buf != tmp)                                                                                          \
            free(buf);                                                                                           \
        free(gr);                                                                                                \
        free(cut);                                                                                               \
        free(runs);                                                                                              \
        return true;                                                                                             \
    }

#endif
