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
 * take at most log2(k) passes, not log2(n / TP_SORT_RUN), and input in
 * order takes n - 1 comparisons and no buffer.  The runs are first cut into
 * groups that merge alone (TP_SORT_CUTS_: a 1.2 M-slice thread of 229 runs
 * is 114 groups of two, one pass over each).  Runs shorter than TP_SORT_RUN
 * are made that long by insertion sort, which keeps random input at the
 * fixed-run sort's cost. */
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

/* Cut sorted runs into groups that can be merged alone: nothing in a group
 * is below anything before it or above anything after it (a thread's steps
 * one after the other, each its ops then its runtime calls: 1.18 M host
 * slices of a 1 GB trace, 229 runs, cut into 114 groups of two pieces).
 * Each group is then merged in log(its pieces) passes over itself instead
 * of log(all runs) passes over the whole array, with a buffer as long as
 * the widest group, and the stretches between groups stay where they are.
 * A cut in run r lies where the run's elements reach the largest of the
 * runs before it and do not yet pass the least of the runs after it (two
 * binary searches); random input has no cut but its ends and is one group.
 * runs[0..nruns]: run i is runs[i] .. runs[i + 1], runs[nruns] = n.
 * Fills cut (room for 2 * nruns) and sets ncut: [cut[2k], cut[2k + 1])
 * stays in place, cut[2k + 1] .. cut[2k + 2] is a group; widest: the
 * longest group. */
#define TP_SORT_CUTS_(a, runs, nruns, cut, ncut, widest, LESS, c)                                                 \
    do {                                                                                                         \
        size_t *least_ = tp_xmalloc((nruns + 1) * sizeof *least_); /* where the least first element of runs i.. is */ \
        least_[nruns - 1] = runs[nruns - 1];                                                                     \
        for (size_t i_ = nruns - 1; i_-- > 0;)                                                                   \
            least_[i_] = LESS((&a[runs[i_]]), (&a[least_[i_ + 1]]), c) ? runs[i_] : least_[i_ + 1];              \
        size_t most_ = 0; /* where the largest element of runs 0 .. r-1 is (runs end with their largest) */     \
        for (size_t r_ = 0; r_ < nruns; r_++) {                                                                  \
            size_t s_ = runs[r_], e_ = runs[r_ + 1];                                                             \
            bool first_ = r_ == 0, last_ = r_ + 1 == nruns;                                                      \
            if (first_ || last_ || !LESS((&a[least_[r_ + 1]]), (&a[most_]), c)) {                                \
                size_t lo_ = s_, hi_ = e_; /* from: the first element not below the runs before */              \
                while (!first_ && lo_ < hi_) {                                                                   \
                    size_t m_ = lo_ + (hi_ - lo_) / 2;                                                           \
                    if (LESS((&a[m_]), (&a[most_]), c))                                                          \
                        lo_ = m_ + 1;                                                                            \
                    else                                                                                         \
                        hi_ = m_;                                                                                \
                }                                                                                                \
                size_t from_ = lo_;                                                                              \
                lo_ = s_ + 1, hi_ = e_ + 1; /* to: the first cut whose element before is above the runs after */ \
                while (!last_ && lo_ < hi_) {                                                                    \
                    size_t m_ = lo_ + (hi_ - lo_) / 2;                                                           \
                    if (LESS((&a[least_[r_ + 1]]), (&a[m_ - 1]), c))                                             \
                        hi_ = m_;                                                                                \
                    else                                                                                         \
                        lo_ = m_ + 1;                                                                            \
                }                                                                                                \
                size_t to_ = last_ ? e_ : lo_ - 1;                                                               \
                if (from_ <= to_) {                                                                              \
                    if (ncut && from_ - cut[ncut - 1] > widest)                                                \
                        widest = from_ - cut[ncut - 1];                                                         \
                    cut[ncut++] = from_;                                                                        \
                    cut[ncut++] = to_;                                                                          \
                }                                                                                                \
            }                                                                                                    \
            if (first_ || LESS((&a[most_]), (&a[e_ - 1]), c))                                                    \
                most_ = e_ - 1;                                                                                  \
        }                                                                                                        \
        free(least_);                                                                                            \
    } while (0)

#define TP_SORT_DEFINE(fn, T, CTX, LESS)                                                                         \
    /* Merge the sorted pieces of a group: piece q is a[gr[q] .. gr[q + 1]), gr[np] = the group's length;       \
     * buf: room for the group. */                                                                               \
    static void fn##_group_(T *a, size_t *gr, size_t np, T *buf, CTX c)                                          \
    {                                                                                                            \
        (void)c;                                                                                                 \
        size_t len = gr[np];                                                                                     \
        T *src = a, *dst = buf;                                                                                  \
        while (np > 1) { /* adjacent pieces merged pairwise, ping-pong between the arrays */                    \
            size_t out = 0;                                                                                      \
            for (size_t q = 0; q < np; q += 2) {                                                                 \
                size_t lo = gr[q], mid = gr[q + 1], hi = q + 2 <= np ? gr[q + 2] : mid;                          \
                TP_SORT_MERGE_(src, dst, lo, mid, hi, LESS, c);                                                  \
                gr[out++] = lo;                                                                                  \
            }                                                                                                    \
            gr[out] = len;                                                                                       \
            np = out;                                                                                            \
            TP_SORT_FLIP_(T, src, dst);                                                                         \
        }                                                                                                        \
        if (src != a)                                                                                            \
            memcpy(a, src, len * sizeof *a);                                                                     \
    }                                                                                                            \
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
        if (nruns > 1) {                                                                                         \
            size_t *cut = tp_xmalloc((2 * nruns + 2) * sizeof *cut), ncut = 0, widest = 0;                      \
            TP_SORT_CUTS_(a, runs, nruns, cut, ncut, widest, LESS, c);                                              \
            T *buf = tp_xmalloc((widest + 1) * sizeof *buf);                                                     \
            size_t *gr = tp_xmalloc((nruns + 2) * sizeof *gr), r = 0; /* a group's pieces */                     \
            for (size_t k = 1; k + 1 < ncut; k += 2) {                                                          \
                size_t gs = cut[k], ge = cut[k + 1], np = 0;                                                     \
                while (r < nruns && runs[r] <= gs)                                                               \
                    r++;                                                                                         \
                gr[np++] = 0;                                                                                    \
                for (; r < nruns && runs[r] < ge; r++)                                                           \
                    gr[np++] = runs[r] - gs;                                                                     \
                gr[np] = ge - gs;                                                                                \
                if (np > 1)                                                                                      \
                    fn##_group_(a + gs, gr, np, buf, c);                                                         \
            }                                                                                                    \
            free(buf);                                                                                           \
            free(gr);                                                                                            \
            free(cut);                                                                                           \
        }                                                                                                        \
        free(runs);                                                                                              \
    }

#endif
