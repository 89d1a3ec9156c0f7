/* hosttree.h: the host-side event tree every report analysis shares.
 *
 * Host slices (ph 'X' on host threads, not dropped) of each thread are
 * sorted by (start, longer first, name, index) and swept with a stack: an
 * event's parent is the innermost earlier event on the same thread that
 * still covers its start (a partially overlapping "crossover" is treated as
 * a sibling of the event it crosses).  The sort order is a preorder, so the
 * subtree of the event at position p is positions p .. sub_end[p]-1.
 *
 * Overlap rows: `tracepress convert` moves partially overlapping slices to a
 * row named "<thread> (overlap)" (role TP_TRACK_OVERFLOW in the model, a
 * plain thread once the converted file is read again).  Both are folded back
 * into the thread they came from (tp_logical_tracks), so an analysis gives
 * the same answer on a trace and on its conversion.
 *
 * Top-level op (KINETO.md §2.2 get_operators): the outermost host op
 * (kind TP_KIND_HOST_OP) on the path from a root to the event that is
 * neither a step (ProfilerStep#N) nor a module label.  Module labels
 * (KINETO.md §2.1 LABEL_MARKERS) are names starting with "##", "__",
 * "module::", "DLRM " or "DistributedDataParallel". */
#ifndef TP_HOSTTREE_H
#define TP_HOSTTREE_H

#include "convert/model/model.h"

typedef struct tp_host_tree {
    uint32_t *order;   /* host slices in preorder, thread after thread (by logical track index) */
    size_t n;
    uint32_t *pos;     /* event index -> position in order, TP_NONE if not a host slice */
    uint32_t *parent;  /* event index -> parent event, TP_NONE for roots and non-host events */
    uint32_t *top;     /* event index -> its top-level op, TP_NONE when none */
    uint32_t *sub_end; /* position -> one past the last position of its subtree */
    uint32_t *logical; /* track index -> logical track (overlap rows folded) */
    size_t slices;     /* the trace's slices, host or not (ph 'X', neither dropped nor derived): counted in the
                        * tree's pass over the events, for the report (summary.h), instead of a pass of its own */
    uint32_t *device;  /* the device activities (ph 'X', not dropped, kind kernel, memcpy or memset; derived ones
                        * too: a reader of tp_is_device_activity's leaves those out), in event order: noted in the
                        * same pass, so that an analysis of them walks them, not every event */
    size_t ndevice;
} tp_host_tree;

void tp_host_tree_build(const tp_trace *t, tp_host_tree *ht);
void tp_host_tree_free(tp_host_tree *ht);

/* Track index -> the track it was split off from (itself otherwise).
 * malloc'ed array of t->ntracks entries. */
uint32_t *tp_logical_tracks(const tp_trace *t);

bool tp_is_module_label(const char *name);
/* A host op that can be a top-level op (HOST_OP kind, not a step, not a label). */
bool tp_is_op(const tp_trace *t, const tp_event *e);

/* The enclosing host event of ev: its parent in the tree, or for an op
 * copied from a graph-capture trace (TP_EV_CAPTURED: on no thread of this
 * trace) its copied enclosing op (graph_capture.h).  TP_NONE at the top. */
static inline uint32_t tp_host_parent(const tp_trace *t, const tp_host_tree *ht, uint32_t ev)
{
    return (t->events[ev].flags & TP_EV_CAPTURED) ? t->events[ev].link : ht->parent[ev];
}

/* The top-level op of a device event (through its launch call), or of a
 * host event; TP_NONE when it has none. */
uint32_t tp_top_op_of(const tp_trace *t, const tp_host_tree *ht, uint32_t ev);

#endif
