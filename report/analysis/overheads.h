/* overheads.h: the CPU overhead types T1-T5 of the DLRM performance model
 * (KINETO.md §2.3), for traces with host ops and launch calls.
 *
 * Constants (KINETO.md §2.1, analysis/utils.py at the seeds' HEAD), in ns:
 *   TP_CPU_EVENT_OVERHEAD   2 us  profiler cost charged per host event (c)
 *   TP_GPU_EVENT_OVERHEAD   4 us  per device event
 *   TP_KERNEL_LAUNCH_LENGTH 10 us nominal length of one launch call
 *   TP_T1_MAX_GAP           200 us larger gaps between ops are data loading
 * Skipped runtime calls (SKIP_RUNTIME_EVENTS): not counted as events
 * anywhere: cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
 * cudaPeakAtLastError, cudaStreamGetCaptureInfo, cudaEventQuery,
 * cudaEventRecord.
 *
 * For each top-level op (hosttree.h), on its host-tree subtree:
 *   launches L_1..L_k  leaf runtime calls (no children) named
 *                      cudaLaunchKernel, cudaMemcpyAsync or
 *                      cudaStreamSynchronize (the seeds' list), or their
 *                      HIP / driver twins hipLaunchKernel, hipExtLaunchKernel,
 *                      hipMemcpyAsync, hipStreamSynchronize, cuLaunchKernel;
 *   n_i                subtree events (op excluded) between L_{i-1} (or the
 *                      op's start) and L_i in preorder;
 *   S                  subtree events including the op.
 *   T1 (one global list) gap between the end of the previous top-level op on
 *      the same thread and this op's start when both have the same parent
 *      and c < gap < 200 us; value gap - c.
 *   T2 (per op name)   L_1.start - op.start - n_1*c                (k >= 1)
 *   T3 (per op name)   max(0, op.end - L_k.end - (S - sum(n_i+1))*c) (k >= 1)
 *   T4 (per launch API) KERNEL_LAUNCH_LENGTH - CPU_EVENT_OVERHEAD -
 *      GPU_EVENT_OVERHEAD = 4 us for every launch that is not a
 *      synchronisation (a constant, not measured)
 *   T5 (per op name)   k > 1: L_i.start - L_{i-1}.end - n_i*c for i = 2..k;
 *                      k = 1: one 0; k = 0: op.dur - S*c (not for aten::to)
 * A value below 0 counts as 0 and is counted in `clamped`: it means the
 * model's c = 2 us per host event is more than the trace's ops took (a
 * 2024 H100 trace's aten::view lasts under 2 us in all, so its T5 came out
 * at -1.7 us).
 * Statistics per (type, name): count of values, then mean and population
 * standard deviation after removing outliers outside [Q1 - 1.5 IQR,
 * Q3 + 1.5 IQR] (quartiles as tp_percentile), as the seeds do; kept is the
 * number of values left.  Means and deviations are rounded to whole ns. */
#ifndef TP_OVERHEADS_H
#define TP_OVERHEADS_H

#include "report/analysis/hosttree.h"

#define TP_CPU_EVENT_OVERHEAD 2000
#define TP_GPU_EVENT_OVERHEAD 4000
#define TP_KERNEL_LAUNCH_LENGTH 10000
#define TP_T1_MAX_GAP 200000

typedef struct tp_overhead_row {
    uint8_t type;       /* 1..5 */
    tp_str name;        /* op name (T2, T3, T5), launch API (T4), 0 for T1 */
    uint64_t count, kept;
    uint64_t clamped;   /* values below 0, counted as 0 */
    int64_t mean_ns, stddev_ns, min_ns, max_ns;
} tp_overhead_row;

typedef struct tp_overheads {
    tp_overhead_row *rows; /* by type, then by count (largest first), then name */
    size_t n;
    uint64_t ops;          /* top-level ops seen */
    uint64_t launches;     /* launches counted */
    bool applicable;       /* the trace has host ops and launch calls */
} tp_overheads;

void tp_overheads_build(const tp_trace *t, const tp_host_tree *ht, tp_overheads *ov);
void tp_overheads_free(tp_overheads *ov);

#endif
