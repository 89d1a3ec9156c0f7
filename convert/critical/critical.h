/* critical.h: the critical path of a time window (a step, an annotation
 * instance, the whole trace): what the window waited on, on the dependency
 * graph of host ops, runtime calls, device activity and synchronisation.
 *
 * Definitions (docs/REPORT.md "Critical path"): the graph is HTA's
 * (HolisticTraceAnalysis critical_path_analysis.py), built from the model:
 *   nodes   a start and an end node for every host op and runtime call
 *           (kinds HOST_OP, RUNTIME; dur > 0) starting in the window, every
 *           data-loading annotation (a name holding "DataLoader") starting in
 *           it, and every kernel, memcpy and memset whose launch call starts
 *           in it (all kernels of one graph launch included);
 *   edges   operator (start -> end, through the nested children on the
 *           thread), dependency (top-level op to the next one on a thread;
 *           the runtime lock between cudaLaunchKernel / cudaMemcpyAsync /
 *           cudaHostAlloc calls of different threads), launch delay (launch
 *           call start -> device start; weight 0 when the device was busy),
 *           kernel-kernel delay (previous activity's end on the stream ->
 *           next start, when under 1.5 ms and not launch-bound), sync
 *           (device end -> end of cudaStreamSynchronize /
 *           cudaDeviceSynchronize / cudaEventSynchronize, and device end ->
 *           start of the next activity launched after a cudaStreamWaitEvent,
 *           the device activity being the last one launched on the recorded
 *           stream before the matching cudaEventRecord; a synchronisation
 *           call no sync event names waits for every stream; weight 0).
 *   weight  dst.ts - src.ts for operator, launch and kernel-kernel edges; 0
 *           for dependency and sync edges and for the exit edge of a
 *           blocking call (cudaDeviceSynchronize, cudaStreamSynchronize,
 *           cudaEventQuery, cudaEventSynchronize, cudaMemcpy,
 *           cudaMemcpyAsync).  Negative weights (clock skew) count as 0.
 *   path    the longest weighted path, ties broken as networkx's
 *           dag_longest_path breaks them (topological generations, the
 *           first best predecessor).
 * The path as time: from the window start to the first node, the path's
 * edges in order (each covering from where the last one stopped to its end
 * node, clipped to the window), and from the last node to the window end:
 * these pieces add up to the window's span exactly, each with a bound type.
 *
 * Cost: the candidates are sorted once (n log n); each window touches its
 * own events only (sorts of those, linear passes). */
#ifndef TP_CRITICAL_H
#define TP_CRITICAL_H

#include "convert/model/model.h"

typedef enum tp_cp_edge_type {
    TP_CPE_OPERATOR = 0,
    TP_CPE_DEPENDENCY,
    TP_CPE_LAUNCH,
    TP_CPE_KERNEL_KERNEL,
    TP_CPE_SYNC,
    TP_CPE_COUNT
} tp_cp_edge_type;

/* What a stretch of the path was bound by (docs/REPORT.md "Critical path"). */
typedef enum tp_cp_bound {
    TP_CPB_CPU = 0,      /* a host op or runtime call, or the host between two ops */
    TP_CPB_DATA_LOADING, /* a data-loading annotation */
    TP_CPB_LAUNCH,       /* launch delay: the call started, the device had not */
    TP_CPB_KERNEL,       /* a kernel computing */
    TP_CPB_COMM,         /* a communication kernel (nccl / rccl) */
    TP_CPB_MEMCPY,       /* a memcpy or memset */
    TP_CPB_KERNEL_GAP,   /* between two activities on a stream */
    TP_CPB_SYNC,         /* a blocking call waiting on the device */
    TP_CPB_OUTSIDE,      /* window time before the path's first node or after its last */
    TP_CPB_COUNT
} tp_cp_bound;

const char *tp_cp_edge_name(int type);  /* "operator", "dependency", ... */
const char *tp_cp_bound_name(int bound); /* "cpu_op", "data_loading", ... */

/* One edge of the path (40 bytes: a whole-trace path may hold millions).
 * A node's time is its event's start (from_start / to_start) or end. */
typedef struct tp_cp_link {
    uint32_t from_ev, to_ev;  /* the nodes' events */
    int64_t weight;           /* the edge's weight */
    int64_t from_ns, time_ns; /* the window time it covers: [from_ns, from_ns + time_ns) */
    uint32_t attr_ev;         /* the event the edge is attributed to, TP_NONE: none (between top-level ops) */
    uint8_t type, bound;
    bool from_start, to_start;
} tp_cp_link;

typedef struct tp_cp_top {
    tp_str name;  /* the event's name */
    uint8_t bound;
    int64_t ns;   /* window time on the path */
} tp_cp_top;

#define TP_CP_TOP 5

typedef struct tp_cp_path {
    int64_t step;         /* step number; -1 for the whole trace or an annotation window */
    uint32_t window_ev;   /* the step or annotation event, TP_NONE for the whole trace */
    int64_t ws, we;       /* window [ws, we] */
    uint32_t nodes, edges; /* graph size */
    uint32_t edges_of[TP_CPE_COUNT];
    uint32_t sync_nonzero; /* sync edges with a weight (always 0 by the definition) */
    uint32_t negative;     /* edges whose weight was negative (clock skew), counted as 0 */
    uint64_t sync_skipped; /* whole-device sync edges left out past the budget (cp_graph.c device_pass) */
    bool cycle;           /* the graph had a cycle (bad input): no path */
    bool skipped;         /* past the work budget (windows overlapping too much: critical.c): no path */
    tp_cp_link *links;    /* the path's edges in order; NULL (nlinks 0) when the caller asked for the figures
                           * only (tp_critical_begin keep_links false: `stats` prints their count by type) */
    size_t nlinks;
    size_t path_edges;    /* the path's edges, links kept or not */
    uint32_t path_edges_of[TP_CPE_COUNT];
    uint32_t path_events; /* distinct events on the path */
    int64_t weighted_ns;  /* the sum of the path's weights (HTA's length) */
    int64_t length_ns;    /* we - ws: the sum of bound_ns */
    int64_t bound_ns[TP_CPB_COUNT];
    tp_cp_top top[TP_CP_TOP];
    size_t ntop;
    int64_t longest_cpu_ns;   /* the longest stretch of one host op on the path */
    tp_str longest_cpu_name;
} tp_cp_path;

typedef struct tp_cp_window {
    int64_t ws, we, step;
    uint32_t ev;
} tp_cp_window;

typedef struct tp_critical {
    tp_cp_path *paths;
    size_t n;
    bool annotation;  /* windows of --critical-path-window */
} tp_critical;

/* The windows: spec NULL: one per step (TP_EV_STEP events, by step number;
 * a step number seen twice keeps its first), the whole trace [first slice
 * start, last slice end] without steps; spec "NAME" or "NAME#N": the N-th
 * (from 0, as HTA's instance_id; default 0) complete event whose name holds
 * NAME, in time order; spec "" or "#N" (HTA's annotation ""): the whole trace.  0,
 * or -1 with a message in err (no such annotation). */
int tp_cp_windows(const tp_trace *t, const char *spec, tp_cp_window **out, size_t *n, char *err, size_t errn);

/* The paths of windows w[0..n).  logical: track -> the thread or stream it
 * was split off from (a converted trace's "X (overlap)" rows:
 * report/analysis/hosttree.h tp_logical_tracks), or NULL: the model's
 * overflow rows only. */
void tp_critical_build(const tp_trace *t, const tp_cp_window *w, size_t n, const uint32_t *logical, tp_critical *c);
void tp_critical_free(tp_critical *c);

/* The same in two lanes (the report's summary round, two threads): begin
 * prepares the trace's part and c's paths; lane k (0 or 1) computes the
 * windows i with i % 2 == k, touching only its own work arrays and those
 * paths, so the two lanes may run at once; end frees the state.
 * keep_links false: the paths' links are not kept (the figures, the top
 * names and path_edges_of are): a whole-trace path holds about an edge per
 * event, 40 bytes each, and only the report's page draws them. */
typedef struct tp_cp_lanes tp_cp_lanes;
tp_cp_lanes *tp_critical_begin(const tp_trace *t, const tp_cp_window *w, size_t n, const uint32_t *logical,
                               bool keep_links, tp_critical *c);
void tp_critical_lane(tp_cp_lanes *l, int lane);
void tp_critical_end(tp_cp_lanes *l);

/* The names whose args the graph reads (the sync events' matching record):
 * a reader's keep_args_of. */
bool tp_critical_wants_args(const char *name, size_t len);

/* `convert --critical-path`: mark the path's events (args "critical":1),
 * add flow events between consecutive path nodes and a "Critical path"
 * track of the path's stretches.  Returns the number of events marked. */
size_t tp_critical_overlay(tp_trace *t, const tp_critical *c);

#endif
