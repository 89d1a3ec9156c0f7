/* memory.h: the device (and host) memory model of one trace, from the
 * allocator's own events: Kineto's "[memory]" instants (profile_memory=True),
 * args "Device Type", "Device Id", "Addr", "Bytes" (negative: a free),
 * "Total Allocated" and "Total Reserved" (the allocator's levels after the
 * event).  docs/REPORT.md "Memory" defines every number.
 *
 * Levels are the events' own totals, never a running sum: a trace starts
 * with memory already held, which only the totals know.  Holders (what is
 * live at the peak) come from matching each free to the allocation at its
 * address; what was allocated before the trace began shows as
 * "before the trace" (the peak minus the live allocations seen).
 *
 * This room sits below report/analysis: the host tree and the steps come in
 * as plain arrays (tp_mem_inputs), so the summary can own the result. */
#ifndef TP_MEMORY_H
#define TP_MEMORY_H

#include "convert/model/mem_event.h"

/* Who allocated: the innermost framework op enclosing the event, the
 * top-level op above it and the innermost module (nn.Module / ## label ##);
 * 0 when none. */
typedef struct tp_mem_holder {
    tp_str op;          /* grouping key: top-level op (holders) or innermost op (holders_inner) */
    tp_str module;
    int64_t bytes;      /* live at the peak */
    uint64_t allocations;
} tp_mem_holder;

typedef struct tp_mem_step {
    int64_t step;       /* step number */
    int64_t start, peak, end;   /* allocated bytes at the step's start, its highest, at its end */
    int64_t peak_reserved;
    uint64_t events;    /* memory events inside the step */
} tp_mem_step;

/* One level change, time order (the page's curve, convert's counter track). */
typedef struct tp_mem_point {
    int64_t ts;         /* trace clock, ns */
    int64_t allocated, reserved;
} tp_mem_point;

typedef struct tp_mem_device {
    int64_t type;       /* c10 DeviceType: 0 CPU, 1 CUDA, ... */
    int64_t id;         /* Device Id (-1 for the host) */
    char label[32];     /* "cuda:0", "cpu" */
    uint64_t events;    /* events with levels */
    int64_t capacity;   /* the device's memory from deviceProperties, 0 unknown */
    int64_t peak_allocated, peak_allocated_ts; /* ts: trace clock */
    int64_t peak_allocated_step;               /* step number, -1 outside every step */
    int64_t peak_reserved, peak_reserved_ts, peak_reserved_step;
    int64_t first_allocated, last_allocated;   /* before the first event, after the last */
    int64_t last_reserved;
    uint32_t peak_event;    /* the event that reached peak_allocated first */
    tp_mem_holder *holders;  /* live at the peak by (top-level op, module), bytes descending */
    size_t nholders;
    tp_mem_holder *holders_inner; /* the same by the innermost op */
    size_t nholders_inner;
    int64_t held_seen;      /* sum of the live allocations seen, at the peak */
    int64_t held_before;    /* peak_allocated - held_seen: allocated before the trace began (or unseen) */
    tp_mem_step *steps;     /* one per step of the trace */
    size_t nsteps;
    tp_mem_point *pts;
    size_t npts;
} tp_mem_device;

/* Devices modelled at most (a machine has a host and a few GPUs); the events of more are counted in
 * past_devices: the per-step rows are devices x steps. */
#define TP_MEM_MAX_DEVICES 64

typedef struct tp_memory {
    tp_mem_device *dev;     /* by (type, id), at most TP_MEM_MAX_DEVICES */
    size_t ndev;
    uint64_t events;        /* [memory] events read */
    uint64_t lacking;       /* without Device Type, Device Id or Bytes: skipped */
    uint64_t no_levels;     /* without Total Allocated / Total Reserved (PyTorch 1.9 and older): no levels */
    uint64_t no_addr;       /* without Addr: counted in the levels, not in the holders */
    uint64_t unmatched_frees; /* frees whose address held no allocation seen (made before the trace) */
    uint64_t allocations, frees;
    uint64_t past_devices;  /* events of devices past the first TP_MEM_MAX_DEVICES (by type, id): not modelled */
    struct tp_mem_prep *prep; /* what tp_memory_prepare read, until tp_memory_build */
} tp_memory;

/* The window of one step, trace clock, [ts, end). */
typedef struct tp_mem_window {
    int64_t step, ts, end;
} tp_mem_window;

/* What the model reads besides the trace: the host tree's arrays
 * (report/analysis/hosttree.h; all may be NULL: no op attribution) and the steps. */
typedef struct tp_mem_inputs {
    const uint32_t *order;    /* host slices in preorder, thread after thread by logical track */
    size_t norder;
    const uint32_t *pos;      /* event -> its position in order */
    const uint32_t *parent;   /* event -> parent event */
    const uint32_t *top;      /* event -> top-level op */
    const uint32_t *logical;  /* track -> logical track */
    const tp_mem_window *steps; /* by start */
    size_t nsteps;
    /* a framework op (hosttree.h tp_is_op); of a host op that is not a step, its name alone decides
     * (asked once per name) */
    bool (*is_op)(const tp_trace *t, const tp_event *e);
    bool (*is_module)(const char *name);                  /* a module label (tp_is_module_label) */
} tp_mem_inputs;

/* Two parts, so the first can run beside the host tree (report/analysis/summary.c): reading the
 * events' args (needs the trace only), then the rest.  tp_memory_build alone does both. */
void tp_memory_prepare(const tp_trace *t, tp_memory *m);
void tp_memory_build(const tp_trace *t, const tp_mem_inputs *in, tp_memory *m);
void tp_memory_free(tp_memory *m);

/* Bytes for people: "512 B", "1.5 GiB", "300 MiB" (binary units, three significant digits at most, as
 * report/out/text.h tp_fmt_bytes writes them), "-" before a negative amount, "0 B". */
void tp_mem_bytes(char *buf, size_t n, int64_t bytes);
/* The device with the highest peak allocated (ties: the first), NULL without levels. */
const tp_mem_device *tp_memory_top(const tp_memory *m);

#endif
