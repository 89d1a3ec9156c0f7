/* kernel_table.h: the kernel table: device kernels (and memcpy/memset,
 * marked by kind) grouped by name, with count, total, mean, min, max,
 * standard deviation and p10/p50/p90, all in integer nanoseconds.
 *
 * Definitions (tested in tests/read/test_chrome.c and the stats tests of each reader):
 * - mean = total / count, rounded half away from zero;
 * - percentile p = linear interpolation between closest ranks, as numpy's
 *   default: position (n-1)*p/100 in the sorted durations, rounded half away
 *   from zero to whole ns;
 * - stddev = population standard deviation (numpy's default ddof=0), rounded;
 * - totals saturate at INT64_MAX (only corrupt inputs get there: 292 years). */
#ifndef TP_KERNEL_TABLE_H
#define TP_KERNEL_TABLE_H

#include "convert/model/model.h"

typedef struct tp_kernel_row {
    tp_str name;
    uint8_t kind; /* TP_KIND_KERNEL, _MEMCPY or _MEMSET */
    uint64_t count;
    int64_t total_ns, mean_ns, min_ns, max_ns, p10_ns, p50_ns, p90_ns, stddev_ns;
} tp_kernel_row;

typedef struct tp_kernel_table {
    tp_kernel_row *rows; /* sorted by total time, largest first, then by name */
    size_t n;
    int64_t total_ns;    /* sum over all rows */
    uint64_t instances;  /* sum of counts */
    /* the same split by kind: kernels only, memcpys, memsets (the headline
     * counts them apart: a memcpy is not a kernel) */
    uint64_t kernels, memcpys, memsets;
    int64_t kernel_ns;   /* sum over kernel rows only */
    size_t kernel_names; /* kernel rows only */
} tp_kernel_table;

void tp_kernel_table_build(const tp_trace *t, tp_kernel_table *kt);
void tp_kernel_table_free(tp_kernel_table *kt);

/* Sort non-negative values in place (LSD radix; tmp: n scratch entries). */
void tp_sort_nonneg(int64_t *v, size_t n, int64_t *tmp);

/* numpy-style linear percentile of sorted values, pct in 0..100. */
int64_t tp_percentile(const int64_t *sorted, size_t n, int pct);

#endif
