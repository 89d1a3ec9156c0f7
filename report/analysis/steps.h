/* steps.h: per-step figures and the whole-trace window.
 *
 * Steps are the step annotations the pipeline marked (TP_EV_STEP,
 * ProfilerStep#N), ordered by step number.  Device activity (kernels,
 * memcpy, memset) belongs to the step whose host span [ts, ts+dur) holds
 * the start of its launch call (its own start when it has no launch call).
 * Steps on a device (XPlane's Steps lines: one per device and group, their
 * span the span of the group's work there) hold that device's activity by
 * its own start: on several GPUs the steps run at the same time, and a
 * launch on the host says nothing about which device's step it is.
 * Streams are the device tracks with such activity (overlap rows folded
 * back, hosttree.h), in display order.
 *
 * For a step (and for the whole trace, whose window is the span from the
 * first slice's start to the last slice's end; the profiler's own span,
 * attribution.h tp_is_profiler_span, is no slice of it):
 *   host_ns     the step's duration (the window length for the whole trace)
 *   busy_ns[s]  union of the activity intervals on stream s (overlapping
 *               kernels counted once; not clipped to the window)
 *   busy_ns     union over all streams: time at least one stream is busy
 *   overlap_ns  time at least two streams are busy at once
 *   idle_ns     max(0, host_ns - busy_ns)
 *
 * The median step: the steps with device activity (device_events > 0),
 * or all steps when none has any, ordered by (host_ns, step number),
 * element (n-1)/2 of them.  Throughput (the seeds' QPS, KINETO.md §2.2):
 *   samples/s = batch_size * iterations * 1e9 / host_ns_total
 * with iterations = number of steps and host_ns_total the sum of their
 * host_ns; without steps, one iteration over the whole window.  Kept as an
 * exact integer in thousandths (rounded half up). */
#ifndef TP_STEPS_H
#define TP_STEPS_H

#include "report/analysis/hosttree.h"

typedef struct tp_step_row {
    int64_t step;        /* step number; -1 for the whole trace */
    uint32_t event;      /* the step's event (TP_NONE for the whole trace) */
    int64_t ts, host_ns;
    int64_t busy_ns, overlap_ns, idle_ns;
    uint64_t device_events;
    int64_t *stream_busy; /* nstreams entries (points into the figures' matrix) */
} tp_step_row;

typedef struct tp_step_figures {
    uint32_t *streams;   /* logical device tracks, display order */
    size_t nstreams;
    tp_step_row *steps;  /* by step number */
    size_t nsteps;
    tp_step_row whole;
    size_t median;       /* index into steps, or SIZE_MAX without steps */
    size_t median_of;    /* how many steps it is the median of (those with device activity) */
    int64_t steps_host_ns; /* sum of the steps' host_ns (0 without steps) */
    int64_t span_start, span_end;
    int64_t *matrix;     /* (nsteps+1) x nstreams busy times */
    uint32_t *ev_step;   /* event -> index into steps of the step holding that device activity, TP_NONE */
} tp_step_figures;

void tp_step_figures_build(const tp_trace *t, const tp_host_tree *ht, tp_step_figures *sf);
void tp_step_figures_free(tp_step_figures *sf);

/* "GPU 0 stream 7": device label (process label, else name, else pid) and
 * the thread name (else tid).  Writes into buf. */
void tp_stream_label(const tp_trace *t, uint32_t track, char *buf, size_t n);

/* The device process a step's event sits on (XPlane Steps lines), or
 * TP_NONE for a host step. */
uint32_t tp_step_device(const tp_trace *t, const tp_step_row *r);

/* Whether device activity e falls in step r's span by the rules above
 * (launch start, or its own start on the step's device). */
bool tp_step_holds(const tp_trace *t, const tp_step_row *r, const tp_event *e);

/* "#12"; for a step on a device whose number another step shares (one per
 * device) "#12 GPU:4"; "whole trace" for sf->whole.  Writes into buf. */
void tp_step_label(const tp_trace *t, const tp_step_figures *sf, const tp_step_row *r, char *buf, size_t n);

/* Samples per second in thousandths for batch_size samples per iteration;
 * 0 when there is no time. */
int64_t tp_throughput_milli(const tp_step_figures *sf, int64_t batch_size);

/* The spread of the step times (docs/DIFF.md "Step times"), over the steps
 * the median step is taken over: median (= the median step's host_ns), Q1
 * and Q3 by linear interpolation (numpy's default, rounded half up to the
 * ns), IQR = Q3 - Q1; min and max over all steps.  All zero without steps. */
typedef struct tp_step_spread {
    size_t n;          /* steps */
    size_t median_of;  /* steps the median and quartiles are over */
    int64_t median, min, max;
    int64_t q1, q3, iqr;
} tp_step_spread;
void tp_step_spread_of(const tp_step_figures *sf, tp_step_spread *sp);
/* Q1 and Q3 of n sorted values (0 for n = 0). */
void tp_step_quartiles(const int64_t *sorted, size_t n, int64_t *q1, int64_t *q3);

#endif
