/* etrecord.h: the ExecuTorch ETRecord side-car (a zip), read only for what
 * links profile events to the model graph: debug_handle_map, delegate_map
 * and the edge-dialect program's nodes (target, debug_handle, stack_trace,
 * nn_module_stack).  See ../shared/specs/ETDUMP.md section 5. */
#ifndef TP_ETRECORD_H
#define TP_ETRECORD_H

#include "convert/base/common.h"

/* Module paths are the attribute paths torch.export records per level of
 * nn_module_stack ("layer1", "layer1.0", "layer1.0.conv1"); the root module
 * (path "") is left out, and the dynamo form of older exports
 * ("L['self'].layer1[0]") is normalised the way torch >= 2.3 writes it
 * ("layer1.0").  One path per level: the module, its parent, ... */
typedef struct tp_etr_node {
    char *target;       /* op type, edge prefix dropped: "aten.mul.Tensor" */
    char *stack_trace;  /* may be NULL */
    char *module;       /* innermost module path, or NULL (no stack, or the root module only) */
    char *modules;      /* whole hierarchy "a/a.b/a.b.c", or NULL */
    char **paths;       /* the levels, outermost first (paths[npaths - 1] == module) */
    uint32_t npaths;
    uint32_t index;     /* position in tp_etrecord_node() order */
    int64_t handle;     /* debug_handle */
} tp_etr_node;

/* Nodes looked at per event (the reader's args, the Inspector, the derived lines agree). */
#define TP_ETR_MAX_NODES 64

typedef struct tp_etrecord tp_etrecord;

/* Load PATH.  Returns NULL with err filled when it is not a readable ETRecord. */
tp_etrecord *tp_etrecord_load(const char *path, tp_err *err);
void tp_etrecord_free(tp_etrecord *r);

/* Graph nodes linked to an event of instruction `iid` (method "forward").
 * For a delegated event pass its delegate id text (str(int) or the string);
 * *backend gets the delegate backend name when the instruction is a delegate
 * call.  Fills up to max node pointers (owned by r) and returns how many. */
size_t tp_etrecord_nodes(const tp_etrecord *r, int32_t iid, const char *delegate_id, size_t delegate_len,
                         const tp_etr_node **nodes, size_t max, const char **backend);

/* The node whose module stands for an event linked to nodes[0..n): the
 * first one with a module, or NULL. */
const tp_etr_node *tp_etr_module_node(const tp_etr_node *const *nodes, size_t n);

/* Nodes by debug handle (tests, reports). */
size_t tp_etrecord_node_count(const tp_etrecord *r);
const tp_etr_node *tp_etrecord_node(const tp_etrecord *r, size_t i);

#endif
