/* collectives.h: what the collectives of one trace moved and how fast
 * (ANALYSIS.md §4 "Collectives", docs/REPORT.md "Collectives").
 *
 * A collective call is a device kernel of NCCL or RCCL (a name starting
 * "nccl" or "rccl", any case).  Its metadata comes from, in order: the
 * kernel's own args (PyTorch 2.3+ copies them there: "Collective name",
 * "In msg nelems", "Out msg nelems", "dtype", "Group size", "Process Group
 * Name", "Process Group Ranks"); else the `record_param_comms` host op its
 * launch ran in (the same keys); else neither, and only the kind (from the
 * kernel's name: ncclKernel_AllReduce_...) is known.
 *
 * Message size S = max(in, out) elements x element size of dtype (the
 * total buffer, as nccl-tests counts it: an all-gather's output, a
 * reduce-scatter's input).  Per call, t = the kernel's duration: algbw =
 * S / t, busbw = algbw x factor, with nccl-tests' factors for group size
 * n: all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
 * broadcast, reduce, send/recv 1; others none (busbw unknown).
 *
 * Rows per (kind, S, dtype, group, group size): count, time (sum, min, max,
 * mean), algbw and busbw in GB/s (10^9 bytes per second) as the mean over
 * calls and over the row (count x S / time).  Calls without a size are
 * counted per kind. */
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
} tp_coll_row;

typedef struct tp_collectives {
    tp_coll_row *rows;   /* by total time, then kind, bytes, group */
    size_t n;
    uint64_t calls;      /* NCCL/RCCL kernels */
    int64_t total_ns;
    uint64_t sized;      /* calls with a message size */
    uint64_t from_kernel, from_op; /* where the metadata came from */
} tp_collectives;

void tp_collectives_build(const tp_trace *t, tp_collectives *c);
void tp_collectives_free(tp_collectives *c);

/* The reader option's part (formats.h keep_args_of): NCCL/RCCL kernels and
 * record_param_comms keep their args. */
bool tp_collectives_want_args(const char *name, size_t len);

/* nccl-tests' bus bandwidth factor for a kind and group size; 0 unknown. */
double tp_coll_factor(const char *kind, int64_t n);

#endif
