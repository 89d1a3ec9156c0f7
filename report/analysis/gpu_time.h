/* gpu_time.h: the GPU time model (ANALYSIS.md §1, docs/REPORT.md "GPU time
 * model"), per device, for the whole trace and per step.
 *
 * Device activities: complete events of kind kernel, memcpy or memset, not
 * dropped nor derived.  Each is one class: communication (a kernel the one
 * classification, classify.h, puts in the "communication" category: by its
 * name, or by the op or annotation that launched it), memcpy, or computation
 * (every other kernel, and memsets).  U(S) is the
 * union of the intervals of S, overlaps across streams counted once.  For a
 * device and a time window W (the whole trace, or a step):
 *
 *   span_ns                  |W ∩ [first activity start, last activity end]|
 *                            on that device (never a profiler annotation)
 *   busy_ns                  |U(all) ∩ W|
 *   idle_ns                  span_ns - busy_ns
 *   computation_ns           |U(computation) ∩ W|
 *   communication_ns         |U(communication) ∩ W|
 *   exposed_communication_ns |(U(communication) - U(computation)) ∩ W|
 *   memcpy_ns                |U(memcpy) ∩ W|
 *   exposed_memcpy_ns        |(U(memcpy) - U(computation) - U(communication)) ∩ W|
 *   memset_ns                |U(memset) ∩ W| (part of computation)
 *   unlinked_ns              |U(activities not linked) ∩ W|
 *   kernels, memcpys, memsets  activities of each kind starting in W
 *
 * so that computation + exposed communication + exposed memcpy + idle = span
 * exactly.  Step windows: a host step (ProfilerStep#N) is its span
 * [ts, ts + dur) on every device; a step on a device (XPlane Steps lines) is
 * its span on that device only.  Windows of one device are made disjoint in
 * start order (a window starts no earlier than the previous one ends), so the
 * steps and `outside` (the time of the GPU span in no step) add up to the
 * whole, figure by figure.  `linked` is the whole-trace model over the
 * linked activities only, as TraceLens links them (what it reports: it
 * leaves the others out): an activity is linked when its launch call is
 * known by correlation and, in a trace that records launch flows ("ac2g"
 * s/f events), a flow start and a flow end carry its correlation id, or the
 * call is a graph launch (linked by correlation alone).  So a HIP memset
 * that ROCm records with a flow end but no flow start is unlinked, as in
 * TraceLens; in a trace without launch flows (PyTorch 1.8, other formats)
 * a launch call is enough. */
#ifndef TP_GPU_TIME_H
#define TP_GPU_TIME_H

#include "report/analysis/classify.h"
#include "report/analysis/steps.h"

typedef struct tp_gpu_figs {
    int64_t span_ns, busy_ns, idle_ns;
    int64_t computation_ns, communication_ns, exposed_communication_ns;
    int64_t memcpy_ns, exposed_memcpy_ns, memset_ns, unlinked_ns;
    uint64_t kernels, memcpys, memsets;
} tp_gpu_figs;

typedef struct tp_gpu_device {
    uint32_t process;  /* index into t->processes */
    char label[96];    /* "GPU 0", "/device:GPU:0", "device 3" */
    int64_t start_ns, end_ns; /* the device's GPU span (trace clock); 0, 0 without activity */
    tp_gpu_figs whole, linked, outside;
    tp_gpu_figs *steps; /* nsteps entries, indexed like tp_step_figures.steps */
} tp_gpu_device;

/* An idle gap of one device: a stretch of its GPU span no activity covers,
 * from the latest end so far to the start of the next activity (`next`, its
 * event).  Kept for the findings (report/findings/), which classify them by
 * what the host was doing; one per gap, so at most one per activity. */
typedef struct tp_gpu_gap {
    int64_t start_ns, end_ns;
    uint32_t device; /* index into devices */
    uint32_t next;   /* the event of the activity that ends the gap */
} tp_gpu_gap;

typedef struct tp_gpu_time {
    tp_gpu_device *devices; /* by process order */
    size_t ndevices, nsteps;
    tp_gpu_figs whole, linked, outside; /* summed over the devices */
    tp_gpu_figs *steps;     /* nsteps entries summed over the devices */
    tp_gpu_figs *dev_steps; /* ndevices x nsteps, each device's steps (devices[d].steps points here) */
    tp_gpu_gap *gaps;       /* every device's idle gaps, by device then start */
    size_t ngaps;
    void *acts;             /* between prepare and build: the classified activities, sorted */
    size_t nacts;
} tp_gpu_time;

/* In two parts so that the first (devices, activities classified and sorted:
 * two thirds of the work) runs before the steps exist, beside the host tree
 * (summary.c): prepare, then build with the steps. */
void tp_gpu_time_prepare(const tp_trace *t, tp_gpu_time *g);
void tp_gpu_time_build(const tp_trace *t, const tp_step_figures *sf, const tp_classes *cls, tp_gpu_time *g);
void tp_gpu_time_free(tp_gpu_time *g);

/* "device N" label of a process as tp_stream_label names it (process label,
 * "device N", process name, "pid N"). */
void tp_device_label(const tp_trace *t, uint32_t process, char *buf, size_t n);

/* share of communication during which computation ran: 1 - exposed/total,
 * in thousandths of a percent (0..100000); -1 without communication. */
int64_t tp_gpu_overlap_milli_pct(const tp_gpu_figs *f);

#endif
