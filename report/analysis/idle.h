/* idle.h: idle attribution and launch statistics per device stream
 * (ANALYSIS.md §1 "Idle attribution"; HTA's idle time breakdown, kernel
 * launch statistics and queue length; docs/REPORT.md "Idle attribution and
 * launch statistics" has every definition and where HTA differs).
 *
 * Streams are those of steps.h (device tracks with device activity, overlap
 * rows folded back), in the same order.  On one stream, its activities
 * (kernels, memcpys, memsets: attribution.h tp_is_device_activity) ordered by
 * start, then by the start of their launch call (none last):
 *
 *   span      first activity start .. last activity end; time before the
 *             first and after the last activity is no idle time (as HTA)
 *   gap       a stretch of the span no activity covers: from the latest end
 *             so far to the start of the next activity A (overlapping
 *             activities never make a gap), so idle_ns = span - busy
 *   host wait A's launch call started after the gap began (the GPU waited
 *             for the CPU to launch A)
 *   kernel wait  otherwise, a gap shorter than TP_IDLE_SHORT_GAP_NS (30 us,
 *             HTA's consecutive_kernel_delay): the cost of launching back to
 *             back (A with or without a launch call)
 *   other     the rest: a longer gap although A was launched before it began
 *             (waiting for an event, a synchronisation, another stream), or
 *             a longer gap before an A without a launch call
 *   so host_wait_ns + kernel_wait_ns + other_ns = idle_ns exactly.
 *
 * Launched activities: those linked to a launch call that is not a graph
 * launch (tp_is_graph_launch: one call starts a whole graph, whose later
 * kernels wait for the earlier ones, not for the launch).  For each:
 *   launch delay = A.start - (launch start + launch duration), 0 when
 *             negative (A started before its launch call returned: counted
 *             in `clipped`); p50/p90 by numpy's linear rule, max;
 *   queue     A is queued from its launch call's start to its own start
 *             (half-open; nothing when A starts no later than the call).
 *             queue_max = the largest number queued at once; the mean is
 *             time-weighted: queue_wait_ns (sum of the queued times) over
 *             queue_window_ns (from the earliest queued launch, or the first
 *             activity when earlier, to the span's end).
 * All times integer ns.  One pass over the events, then per stream a sweep
 * of its activities (sorted only when the input was not in order) and a
 * radix sort of its delays. */
#ifndef TP_IDLE_H
#define TP_IDLE_H

#include "report/analysis/steps.h"

#define TP_IDLE_SHORT_GAP_NS 30000

typedef struct tp_idle_stream {
    uint32_t track;   /* logical device track (tp_step_figures.streams[i]) */
    uint32_t process; /* its device */
    uint64_t activities;
    int64_t start_ns, end_ns; /* the stream's span (trace clock) */
    int64_t busy_ns, idle_ns, host_wait_ns, kernel_wait_ns, other_ns;
    uint64_t gaps, host_wait_gaps, kernel_wait_gaps, other_gaps;
    uint64_t launched; /* activities with a launch delay */
    uint64_t clipped;  /* of which started before their launch call ended */
    int64_t delay_p50_ns, delay_p90_ns, delay_max_ns; /* 0 when launched == 0 */
    uint64_t queue_max;
    int64_t queue_wait_ns, queue_window_ns;
} tp_idle_stream;

typedef struct tp_idle {
    tp_idle_stream *streams; /* as tp_step_figures.streams */
    size_t n;
} tp_idle;

void tp_idle_build(const tp_trace *t, const tp_host_tree *ht, const tp_step_figures *sf, tp_idle *out);
void tp_idle_free(tp_idle *d);

#endif
