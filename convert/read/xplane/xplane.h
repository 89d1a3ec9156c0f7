/* xplane.h: the XPlane (XSpace protobuf) reader's entry over a byte range,
 * for tests and tools that already hold the bytes (truncation tests), and
 * what it keeps for the report. */
#ifndef TP_XPLANE_H
#define TP_XPLANE_H

#include "convert/model/derive.h"
#include "convert/read/formats.h"

/* Read one serialized XSpace from buf[0..len) into t (same contract as
 * tp_format_xplane.read).  buf must stay valid during the call only. */
int tp_xplane_read_mem(const void *buf, size_t len, tp_trace *t, const tp_read_opts *o, tp_err *err);

/* True when an XLine id is one of the derived-line ids (0xdeadbeef + 0..399
 * compared as int32, XPLANE.md §2). */
bool tp_xplane_is_derived_line_id(int64_t id);

/* With tp_read_opts.report_data the reader keeps (owned by the trace, read
 * with tp_xplane_report_data) what the report's XPlane pages need and the
 * model does not hold once args are skipped: the stats of launch calls and
 * the framework / HLO op of every device event (report/formats/xplane/fpage_xplane.c). */

/* A host call with a correlation id that tp_launch_counted() accepts. */
typedef struct tp_xplane_launch {
    uint32_t event;  /* index into t->events */
    uint32_t device; /* process of the /device:GPU:N plane its device_id stat names, or TP_NONE */
    int64_t group;   /* its group_id stat, or TP_DERIVE_NO_GROUP */
} tp_xplane_launch;

/* The ops a device event (kernel, memcpy, memset; not async) belongs to,
 * from the same stats the derived lines use (tf_op, the 2020 `level 0`, the
 * JAX `name`, hlo_op, hlo_module). */
typedef struct tp_xplane_opkey {
    uint32_t event;
    tp_str tf_op;   /* framework op full name ("scope/name:Type"), 0 = none */
    tp_str tf_type; /* as the TensorFlow Ops line shows it: the op type ("MatMul", "dot_general") */
    tp_str hlo_op;  /* outermost hlo_op level and its module: "fusion.3 (jit_f)" (no module: the op), 0 = none */
} tp_xplane_opkey;

typedef struct tp_xplane_data {
    tp_xplane_launch *launches; /* in file order */
    size_t nlaunches, launches_cap;
    tp_xplane_opkey *ops;       /* in file order */
    size_t nops, ops_cap;
} tp_xplane_data;

/* The report data of an XPlane trace read with report_data, or NULL. */
const tp_xplane_data *tp_xplane_report_data(const tp_trace *t);

/* XPlane's own options (tp_format_xplane.options: --rederive, --line-names). */
typedef struct tp_xplane_opts {
    bool rederive;        /* rebuild the derived lines the file already has */
    bool framework_names; /* "Framework Ops"/"Framework Name Scope" instead of "TensorFlow ..." */
} tp_xplane_opts;

static inline const tp_xplane_opts *tp_xplane_opts_of(const tp_read_opts *o)
{
    static const tp_xplane_opts defaults;
    const tp_xplane_opts *x = tp_format_opts(o, &tp_format_xplane);
    return x ? x : &defaults;
}

#endif
