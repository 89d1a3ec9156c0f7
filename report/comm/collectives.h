/* collectives.h: what the collectives of one trace moved and how fast
 * (ANALYSIS.md §4 "Collectives", docs/REPORT.md "Collectives").
 *
 * The calls and their metadata (kind, S, dtype, group) are read by
 * convert/model/coll_calls.h.  Per call, t = the kernel's duration:
 * algbw = S / t, busbw = algbw x factor, with nccl-tests' factors for group
 * size n: all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all
 * (n-1)/n; broadcast, reduce, send/recv 1; others none (busbw unknown).
 *
 * Rows per (kind, S, dtype, group, group size): count, time (sum, min, max,
 * mean), algbw and busbw in GB/s (10^9 bytes per second) as the mean over
 * calls and over the row (count x S / time).  Calls without a size are
 * counted per kind.  `list` keeps every call (the job report matches calls
 * across ranks). */
#ifndef TP_COLLECTIVES_H
#define TP_COLLECTIVES_H

#include "convert/model/model.h"

typedef struct tp_coll_row {
    char *kind;          /* "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
                          * "reduce", "send_recv", or the recorded name */
    char *dtype;         /* as recorded ("Float"), "" unknown */
    char *group;         /* process group name ("0"), "" unknown */
    char *ranks;         /* "[0, 1]" as recorded, "" unknown */
    int64_t group_size;  /* 0 unknown */
    uint64_t bytes;      /* S, 0 unknown (rows of calls without a size) */
    uint64_t count;
    int64_t total_ns, min_ns, max_ns;
    double factor;       /* busbw / algbw, 0 unknown */
    double algbw_mean, busbw_mean; /* GB/s, mean over calls; busbw 0 when factor unknown */
    double algbw, busbw;           /* GB/s over the row */
    uint32_t id;                   /* the row's index in rows */
} tp_coll_row;

/* One call, in event order. */
typedef struct tp_coll_inst {
    uint32_t row;        /* index into rows */
    uint32_t process;    /* the device's process (t->processes) */
    int64_t ts, dur;     /* the kernel's start and duration, ns (trace clock) */
    int64_t seq;         /* the group's sequence number, -1 unknown */
} tp_coll_inst;

typedef struct tp_collectives {
    tp_coll_row *rows;   /* by total time, then kind, bytes, group */
    size_t n;
    uint64_t calls;      /* communication kernels (the one classification: classify.h) */
    int64_t total_ns;
    uint64_t sized;      /* calls with a message size */
    uint64_t from_kernel, from_op, from_annotation; /* where the metadata came from */
    tp_coll_inst *list;  /* calls calls */
    size_t nlist;
} tp_collectives;

/* of, comm: the one classification's categories and its "communication"
 * (report/analysis/classify.h): the calls are the kernels it calls
 * communication; NULL: NCCL/RCCL kernels by name (coll_calls.h). */
void tp_collectives_build(const tp_trace *t, const uint32_t *of, uint32_t comm, tp_collectives *c);
void tp_collectives_free(tp_collectives *c);

/* The reader option's part (formats.h keep_args_of): NCCL/RCCL kernels and
 * record_param_comms keep their args. */
bool tp_collectives_want_args(const char *name, size_t len);

/* nccl-tests' bus bandwidth factor for a kind and group size; 0 unknown. */
double tp_coll_factor(const char *kind, int64_t n);

#endif
