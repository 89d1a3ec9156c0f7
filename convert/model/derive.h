/* derive.h: the derivation engine.  From a per-event annotation list it
 * builds, for every device, the derived timelines TensorBoard/XProf show
 * beside the device streams: Steps, Launch Stats, TensorFlow (Framework)
 * Name Scope, TensorFlow (Framework) Ops, XLA Modules, XLA Ops and Source.
 *
 * Every format feeds the same engine: the XPlane reader fills annotations
 * from kernel stats (tf_op, hlo_op, ...); tp_derive_lines() fills them for
 * any other trace from the launch links the pipeline made (PyTorch: the
 * top-level CPU op, the enclosing module/annotation scopes, the step).
 * Lines whose spans the file gives (the CK per_layer_info windows of dv/dt)
 * come in as windows (tp_derive_add_window) and are written as they are, on a
 * Layers line beside the stream they describe.
 *
 * Merge semantics follow XPLANE.md §5: per line, the last event of every
 * level is extended while the next annotation has the same key and the same
 * group; a new event at a level forgets deeper levels and, at level 0, the
 * lines that depend on this one.  Derived events are tp_events with
 * TP_EV_DERIVED on TP_TRACK_DERIVED tracks whose derived_of is the first
 * stream of their device. */
#ifndef TP_DERIVE_H
#define TP_DERIVE_H

#include "convert/base/i64map.h"
#include "convert/model/model.h"

#define TP_DERIVE_NO_GROUP INT64_MIN
/* Category of derived events in the output: a converted trace read again
 * keeps its derived lines as derived lines (tp_derive_lines). */
#define TP_DERIVED_CAT "derived"

/* Separates levels inside tp_annot.scopes and tp_annot.hlo_ops. */
#define TP_DERIVE_SEP '\x1f'
/* Levels of a name-scope or HLO path that become derived events: deeper
 * ones are counted in a warning.  Real traces nest a few dozen deep; a
 * hostile one 1,000 deep would give a million events from 37 KB. */
#define TP_DERIVE_MAX_LEVELS 64
/* A linked trace's name-scope path (derive_linked.c) holds its levels while
 * they fit in this many bytes: the level that would pass it and the deeper
 * ones are counted with the levels past TP_DERIVE_MAX_LEVELS.  Real paths are
 * a few hundred bytes; without it 64 levels of long names, repeated in the
 * path of every kernel below them, cost a multiple of the input. */
#define TP_DERIVE_MAX_PATH_BYTES 4096

/* Which upstream generation of the merge rule to follow (XPLANE.md §5.3). */
typedef enum tp_derive_era {
    TP_DERIVE_2024 = 0, /* same key + same group; 1 ns shrink of identical nested spans (default) */
    TP_DERIVE_2022,     /* same key + same group + the low-level-name rule; no shrink */
    TP_DERIVE_2020,     /* same key only; XLA Modules never merge; Steps reset op lines */
} tp_derive_era;

typedef struct tp_derive_opts {
    bool framework_names;  /* "Framework Ops"/"Framework Name Scope" instead of "TensorFlow ..." */
    tp_derive_era era;
    bool mark_steps;       /* Steps events are the trace's steps (TP_EV_STEP, id = group): XPlane */
    bool per_stream;       /* lines per device stream, beside it (XProf 2025), not per device; no Launch Stats */
    bool no_steps_line;    /* the trace has its own step track (ETDump Runs): groups still keep steps
                            * apart, but no Steps line is written */
} tp_derive_opts;

/* The merge rule of a --derive-rule value (tp_read_opts.derive_era: 0 = current, 2022, 2020). */
tp_derive_era tp_derive_era_of(int rule);

enum {
    TP_ANNOT_OP_SOURCE = 1u << 0, /* feeds the op lines (a kernel, not a memcpy) */
};

/* One device event and what it belongs to.  Strings are interned in the trace;
 * 0 means "none". */
typedef struct tp_annot {
    uint32_t event;      /* the device event: its span and its device (the track's process) */
    uint32_t flags;      /* TP_ANNOT_* */
    int64_t group;       /* step / group id, or TP_DERIVE_NO_GROUP */
    tp_str op;           /* framework op key (full name) */
    tp_str op_display;   /* framework op as shown (op type, or the name) */
    tp_str scopes;       /* name-scope levels, outermost first, joined by TP_DERIVE_SEP */
    tp_str module;       /* XLA module as shown ("jit_f(123)") */
    tp_str hlo_ops;      /* HLO op levels joined by TP_DERIVE_SEP */
    tp_str hlo_prefix;   /* program id or module: XLA Ops keys are "<prefix>/<hlo op>" */
    tp_str source;       /* source location */
    tp_str low_name;     /* kernel name or innermost HLO op (2022 low-level-name rule) */
    /* Invocation identity, for formats where two calls of one op must stay
     * apart (PyTorch): 0 = none (merge by name, as XPlane does). */
    uint32_t op_inst;    /* host event index + 1 of this op call */
    uint32_t scope_inst; /* offset in tp_derive_input.inst of one id per scope level, or TP_NONE */
} tp_annot;

/* The host launches of one step to one device, for the Launch Stats line
 * (aggregated as they are read: one record per device and group). */
typedef struct tp_launch {
    uint32_t device;     /* process index of the device */
    int64_t group;
    int64_t lo, hi;      /* span covering the launches */
    int64_t count, max_dur, sum_dur;
} tp_launch;

/* Step names by group id (a group without an entry is shown as its number). */
typedef struct tp_step_name {
    int64_t group;
    tp_str name;
} tp_step_name;

/* How an annotation is stored: the per-event part, and the rest shared by
 * every event with the same op, module, kernel... (tp_derive_input.classes):
 * 16 bytes per kernel instead of 64 on multi-GB traces; the invocation ids
 * only for inputs that have them (tp_derive_input.insts). */
typedef struct tp_annot_item {
    uint32_t event;
    uint32_t cls;        /* index into tp_derive_input.classes */
    int64_t group;
} tp_annot_item;

typedef struct tp_annot_inst {
    uint32_t op_inst, scope_inst;
} tp_annot_inst;

/* A span the file gives for a device stream (CK per_layer_info: one layer's
 * time window): the Layers line beside `track` holds it as it is, neither
 * merged nor clipped (windows may overlap: the writer's overlap rows take
 * those).  Windows of one stream keep the order they were added in. */
typedef struct tp_window {
    uint32_t track;      /* the device stream the window describes (its process is the device) */
    int64_t ts, dur;
    tp_str name;
    uint64_t args;       /* committed args (tp_argb_commit), or 0 */
} tp_window;

typedef struct tp_derive_input {
    tp_annot_item *annots;
    size_t nannots, annots_cap;
    tp_annot_inst *insts; /* per annotation, NULL while every op_inst is 0 and scope_inst TP_NONE */
    size_t insts_cap;
    tp_annot *classes;   /* event, group, op_inst, scope_inst unused here */
    size_t nclasses, classes_cap;
    tp_i64map class_index;
    tp_launch *launches;
    size_t nlaunches, launches_cap;
    tp_i64map launch_index; /* (group, device) -> launches[] (tp_derive_add_launch) */
    tp_step_name *names;
    size_t nnames, names_cap;
    uint32_t *inst;      /* pool of per-level invocation ids (tp_annot.scope_inst) */
    size_t ninst, inst_cap;
    tp_window *windows;  /* tp_derive_add_window */
    size_t nwindows, windows_cap;
    uint64_t levels_dropped; /* scope levels the input left out of its paths (warned with the engine's) */
} tp_derive_input;

void tp_derive_input_free(tp_derive_input *in);

/* Add one annotation (copied; classes shared between events are stored once). */
void tp_derive_add(tp_derive_input *in, const tp_annot *a);

/* Append what another reader (a second thread over later parts of the same
 * input) collected into its own trace: its event indexes move by ev_shift,
 * its strings through smap (its tp_str -> ours).  The result is what adding
 * the same annotations and launches here would have given.  Returns false,
 * changing nothing, when src holds what this does not carry over
 * (invocation ids, windows, step names: inputs that are read on one thread). */
bool tp_derive_input_append(tp_derive_input *dst, const tp_derive_input *src, uint32_t ev_shift, const tp_str *smap);

/* Whether a host call that has a correlation id is a launch the Launch Stats
 * count (XPLANE.md §5.2): every one but the CUDA driver API's own calls,
 * whose names start with "cu" (cuEventRecord, cuCtxSynchronize, ...;
 * TensorFlow names a launch after its kernel or "MemcpyH2D", JAX after the
 * runtime call, hipModuleLaunchKernel, ...).  The Launch Stats line also
 * wants the call's group and device id; the report counts the others too
 * (report/formats/xplane/launch_stats.h).  The one place this rule lives. */
bool tp_launch_counted(const char *name, size_t len);

/* Add one window of the Layers line (copied). */
void tp_derive_add_window(tp_derive_input *in, const tp_window *w);

/* Count one host launch of `group` to `device` (any device key the caller
 * resolves later, e.g. an ordinal) lasting [ts, ts + dur). */
void tp_derive_add_launch(tp_derive_input *in, uint32_t device, int64_t group, int64_t ts, int64_t dur);

/* Parse a TensorFlow/JAX op full name (XPLANE.md §4) into the annotation's
 * op, op_display and scopes.  Returns the category: 0 unknown, 1 TensorFlow,
 * 2 JAX, 3 tf.data, 4 memcpy. */
enum { TP_TFOP_UNKNOWN = 0, TP_TFOP_TF, TP_TFOP_JAX, TP_TFOP_TFDATA, TP_TFOP_MEMCPY };
int tp_tfop_parse(tp_trace *t, const char *s, size_t n, tp_annot *a);

/* Build the derived lines from an annotation list.  Returns the number of
 * derived events added. */
size_t tp_derive_from(tp_trace *t, const tp_derive_input *in, const tp_derive_opts *o);

/* The same in two steps, so the first can run beside other work on the
 * trace.  tp_derive_begin builds every line (the costly part): it reads the
 * annotated events' ts, dur and track, tracks' process, processes' names and
 * the strings; it interns strings and adds args; it adds no event or track.
 * So while it runs, another thread may read and write events' other fields
 * (kinds, links, ops, flags, ids), tracks' and processes' other fields
 * (roles, is_device), the warnings and drops (tp_load classifies and links
 * meanwhile), but must not read or add strings, args, events or tracks.  `in` must stay unchanged until it
 * returns.  tp_derive_commit adds the lines' tracks and events (beside each
 * device's first stream, in index order) and frees the job; the result is
 * tp_derive_from's. */
typedef struct tp_derive_job tp_derive_job;

/* A reader's derivation, left to the caller (tp_read_opts.derive_later). */
typedef struct tp_derive_later {
    bool set;              /* the reader left one: the caller derives, then frees `in` */
    tp_derive_input in;
    tp_derive_opts opts;
} tp_derive_later;
tp_derive_job *tp_derive_begin(tp_trace *t, const tp_derive_input *in, const tp_derive_opts *o);
size_t tp_derive_commit(tp_derive_job *job);

/* A converted trace read again: device tracks whose events all have
 * category TP_DERIVED_CAT become derived lines again (their "(overlap)" rows
 * overflow rows beside them) and their events TP_EV_DERIVED.  tp_load calls
 * it for Chrome JSON input (what tracepress writes and reads back) right
 * after classification. */
void tp_derived_lines_recognise(tp_trace *t);

/* The host slices of each track in time order (tp_sort_by_time):
 * list[start[k] .. start[k + 1]) for track k, for a trace of nevents events
 * and ntracks tracks.  Linking builds it (tp_load); tp_derive_lines reuses
 * it instead of sorting the same slices again, skipping those dropped or
 * derived since.  Owned by whoever filled it: tp_host_slices_free. */
typedef struct tp_host_slices {
    uint32_t *list;
    size_t *start;
    size_t nevents, ntracks;
} tp_host_slices;

void tp_host_slices_free(tp_host_slices *hs);

/* Derived lines for a trace whose device events are linked to their launches
 * (PyTorch/Kineto after the pipeline's linking): Framework Ops = the top-level
 * host op that launched each kernel, Name Scope = the enclosing annotation /
 * module / python_function hierarchy, Steps = the enclosing step.  Devices
 * that already have derived tracks are left alone.  hs: linking's host
 * slices (used only when the trace still has as many events and tracks), or
 * NULL.  Returns 0. */
int tp_derive_lines(tp_trace *t, const tp_derive_opts *o, const tp_host_slices *hs);

#endif
