/* coll_calls.h: which device kernels are collective calls, and what each one
 * moved (ANALYSIS.md §4 "Collectives", docs/REPORT.md "Collectives").  The
 * converter (a job's clock alignment) and the report (bandwidths, the job
 * report) both read calls through this one reader.
 *
 * A collective call is, in a report, a device kernel its one classification
 * puts in "communication" (tp_coll_reader_use_classes); in the converter (a
 * job's clock alignment, which classifies nothing) a kernel of NCCL or RCCL
 * (a name starting "nccl" or "rccl", any case).  Its metadata comes from, in
 * order:
 *   1. the kernel's own args (PyTorch 2.3+ copies them there: "Collective
 *      name", "In msg nelems", "Out msg nelems", "dtype", "Group size",
 *      "Process Group Name", "Process Group Ranks", "Seq");
 *   2. the `record_param_comms` host op its launch ran in (the same keys);
 *   3. the `nccl:<kind>` annotation its launch ran in (older PyTorch): the
 *      kind, and the size of its first input ("Input Dims" x "Input type");
 *   4. else only the kind, from the kernel's name (ncclKernel_AllReduce_...).
 * S = max(in, out) elements x element size: the whole buffer, as nccl-tests
 * counts it (an all-gather's output, a reduce-scatter's input).  From an
 * annotation only the input is known, which is S for every kind but
 * all-gather: an all-gather's S stays unknown there. */
#ifndef TP_COLL_CALLS_H
#define TP_COLL_CALLS_H

#include "convert/model/clock_align.h"
#include "convert/model/model.h"

enum { TP_COLL_FROM_NAME = 0, TP_COLL_FROM_KERNEL, TP_COLL_FROM_OP, TP_COLL_FROM_ANNOTATION };

typedef struct tp_coll_call {
    const char *kind;      /* static: "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                            * "broadcast", "reduce", "send_recv", "other" */
    char dtype[32];        /* as recorded ("Float", "float"), "" unknown */
    char group[64];        /* process group name ("0"), "" unknown */
    char ranks[256];       /* "[0, 1]" as recorded, "" unknown */
    int64_t group_size;    /* 0 unknown */
    int64_t seq;           /* the group's sequence number ("Seq"), -1 unknown */
    uint64_t bytes;        /* S, 0 unknown */
    int source;            /* TP_COLL_FROM_* */
} tp_coll_call;

typedef struct tp_coll_reader tp_coll_reader;

/* A reader over t's events (owns its scratch; t must outlive it). */
tp_coll_reader *tp_coll_reader_new(const tp_trace *t);
void tp_coll_reader_free(tp_coll_reader *r);
/* The report's one classification (report/analysis/classify.h): with it, a
 * collective call is a complete kernel whose category of[i] is `comm` (by
 * its name or the op that launched it: vLLM's custom and symmetric-memory
 * all-reduce too); without it (the converter, which classifies nothing) a
 * kernel named nccl* / rccl*.  `of` must outlive the reader. */
void tp_coll_reader_use_classes(tp_coll_reader *r, const uint32_t *of, uint32_t comm);
/* Is t->events[i] a collective call (a complete kernel, not dropped nor
 * derived, that is communication)?  When it is, fill *c. */
bool tp_coll_read(tp_coll_reader *r, size_t i, tp_coll_call *c);

/* The trace's collective calls as clock_align's sync points (absolute ends,
 * keyed by tp_sync_key of kind, group, ranks, seq), in event order; the
 * caller frees *out.  Returns the count. */
size_t tp_coll_sync_points(const tp_trace *t, tp_sync_point **out);

/* The reader option's part (formats.h keep_args_of): NCCL/RCCL kernels,
 * record_param_comms and nccl:* annotations keep their args. */
bool tp_coll_want_args(const char *name, size_t len);

#endif
