/* op_breakdown.h: device time by the top-level host op that launched it
 * (the seeds' "dominating ops", KINETO.md §2.2 get_device_runtime and §2.4).
 *
 * Each device kernel / memcpy / memset is followed to its launch call
 * (`link`) and up the host tree (hosttree.h) to its top-level op.  Kernels
 * with no launch call, or launched outside any op and any enclosing scope,
 * go to one group with `no_op` set (shown as "(no host op)"); those
 * launched outside any op but inside an annotation or Python function
 * (attribution.h: CUDA graph replays, compiled regions) are grouped under
 * that scope's name, "graph: NAME" for graph launches.  All device streams are counted
 * together.
 *
 * Occurrence: one top-level op event that launched device work.  Kernel mix:
 * the set of kernel names one occurrence launched.  Occurrences of an op
 * with the same mix form a variant; a variant's kernel times are summed
 * over its occurrences.  The breakdown grid draws one 100% bar per variant.
 *
 * Order: ops by total device time (largest first), then name; variants by
 * total time, then by their kernel names; kernels in a variant by total
 * time, then name.  Comparisons use strings, never ids, so the order is the
 * same for a trace and its conversion.
 *
 * The same grouping keyed otherwise (tp_op_kernels_build_keyed): the caller
 * names each device event's key (XPlane: its TF op or HLO op) and
 * occurrence; events without a key form the group named `none`. */
#ifndef TP_OP_BREAKDOWN_H
#define TP_OP_BREAKDOWN_H

#include "report/analysis/attribution.h"

typedef struct tp_opk_kernel {
    tp_str name;
    uint8_t kind;
    uint64_t count;
    int64_t total_ns;
} tp_opk_kernel;

typedef struct tp_opk_variant {
    uint64_t occurrences;
    int64_t total_ns;
    size_t first, n; /* kernels[first .. first+n) */
} tp_opk_variant;

typedef struct tp_opk_op {
    tp_str name;     /* the op's name (unused when no_op) */
    bool no_op;
    const char *none; /* the name of the no_op group ("(no host op)"), static */
    char *label;      /* "graph: NAME" for a graph replay's scope (owned), else NULL */
    uint64_t occurrences; /* op events that launched device work */
    uint64_t instances;   /* device events */
    int64_t total_ns;
    size_t first, n; /* variants[first .. first+n) */
} tp_opk_op;

typedef struct tp_op_kernels {
    tp_opk_op *ops;
    size_t nops;
    tp_opk_variant *variants;
    size_t nvariants;
    tp_opk_kernel *kernels;
    size_t nkernels;
    int64_t total_ns;
} tp_op_kernels;

/* at: device activities without a top-level op go to the scope attribution
 * found around their launch ("graph: NAME" for graph replays); NULL: to
 * the no_op group. */
void tp_op_kernels_build(const tp_trace *t, const tp_host_tree *ht, const tp_attribution *at, tp_op_kernels *ob);

/* The key of one device event: an interned name (0 = none) and an
 * occurrence id (events of one key with equal ids are one occurrence; ids
 * only group, they never order anything). */
typedef struct tp_opk_key {
    tp_str name;
    uint32_t occ;
    bool graph; /* the name is a graph replay's scope: shown "graph: NAME" */
} tp_opk_key;
/* keys[i] for every event i of t (only device kernels, memcpys and memsets
 * are looked at); `none` (static) names the group of events without a key. */
void tp_op_kernels_build_keyed(const tp_trace *t, const tp_opk_key *keys, const char *none, tp_op_kernels *ob);

void tp_op_kernels_free(tp_op_kernels *ob);
const char *tp_opk_op_name(const tp_trace *t, const tp_opk_op *op); /* op->none ("(no host op)") for no_op */

#endif
