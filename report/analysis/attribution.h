/* attribution.h: who asked for each device activity (ANALYSIS.md §2
 * "Attribution", docs/REPORT.md).
 *
 * For every device activity (kernel, memcpy, memset):
 *   top      its top-level op (hosttree.h tp_top_op_of), TP_NONE when none;
 *   leaf     the innermost host op (kind host_op) around its launch call
 *            (the pipeline's event.op), else - no op around the launch - the
 *            innermost enclosing host slice that is neither a step nor the
 *            profiler's own span: an annotation or a Python function (a
 *            CUDA/HIP graph replay launched under `CUDAGraphRunner.forward`,
 *            a compiled region), skipping the framework's own Python frames
 *            (torch/..., <built-in ...>) when a frame of the user's code or
 *            an annotation encloses them; a graph launch with nothing but a
 *            step around it is its own leaf ("graph: cudaGraphLaunch");
 *            TP_NONE when nothing encloses the launch or there is no launch
 *            call;
 *   how      TP_ATTR_OP, TP_ATTR_SCOPE (leaf is an enclosing scope),
 *            TP_ATTR_GRAPH (a scope, and the launch is a graph launch:
 *            cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch), TP_ATTR_NONE;
 *   module   the module path: the names of the enclosing `nn.Module: X`
 *            Python functions and module labels (hosttree.h), outermost
 *            first, joined with "/" ("BertModel_0/BertEncoder_0/..."); 0
 *            when none encloses the launch.  A path holds at most
 *            TP_MODULE_MAX_LEVELS names and TP_MODULE_MAX_PATH_BYTES bytes:
 *            a module past either adds no name (what runs inside it counts
 *            under its ancestors' path) and is counted in `modules_cut`, so
 *            a path costs O(1), not O(depth) (12k nested modules: 786 MB of
 *            summary.json and 3.9 GB in memory before).
 * The name shown for a leaf is the event's name, "graph: NAME" for graphs;
 * "(no host op)" for TP_ATTR_NONE with a launch call, "(no launch call)"
 * without one. */
#ifndef TP_ATTRIBUTION_H
#define TP_ATTRIBUTION_H

#include "convert/base/strset.h"
#include "report/analysis/hosttree.h"

enum { TP_ATTR_NONE = 0, TP_ATTR_OP, TP_ATTR_SCOPE, TP_ATTR_GRAPH };

#define TP_MODULE_MAX_LEVELS 64
#define TP_MODULE_MAX_PATH_BYTES 1024

typedef struct tp_attribution {
    uint32_t *leaf;   /* event -> leaf host event, TP_NONE (device activities only) */
    uint8_t *how;     /* event -> TP_ATTR_* */
    uint32_t *module; /* event -> module path id in `paths` (0 none) */
    tp_strset paths;  /* module paths */
    uint64_t modules_cut; /* module scopes left out of the paths (TP_MODULE_MAX_*) */
} tp_attribution;

void tp_attribution_build(const tp_trace *t, const tp_host_tree *ht, tp_attribution *a);
void tp_attribution_free(tp_attribution *a);

/* The leaf's display name of device event ev into buf ("aten::mm",
 * "graph: decode_step", "(no host op)"). */
void tp_attr_leaf_name(const tp_trace *t, const tp_attribution *a, uint32_t ev, char *buf, size_t n);

/* Whether e is a device activity (kernel, memcpy, memset; not dropped or
 * derived).  Inline: every analysis asks it of every event. */
static inline bool tp_is_device_activity(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED)) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}
/* The profiler's own span ("PyTorch Profiler (0)", category "Trace"): never
 * counted in any span. */
bool tp_is_profiler_span(const tp_trace *t, const tp_event *e);
/* A graph launch call (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch...). */
bool tp_is_graph_launch(const char *name);

#endif
