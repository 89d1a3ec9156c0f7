/* efficiency.h: how close each op runs to the device's peak (ANALYSIS.md §3,
 * docs/REPORT.md "Efficiency").
 *
 * An invocation is a host op that has a model (report/perf_models/op_models.h)
 * and launched device work: every device activity goes to the innermost
 * modelled op around its launch (aten::linear -> aten::addmm: the addmm; an
 * aten::copy_ inside aten::matmul: the copy), and its device time is the sum
 * of those activities' durations (kernels, memsets and device-to-device
 * copies; an op whose only device work is a copy between host and device is
 * not compared with the device's memory and is counted apart).  XLA ops whose
 * cost the trace recorded (model.h tp_name_cost) are invocations of their
 * own: each device event named so.
 *
 * Rows group invocations by (op, input dims, dtypes, strides, FLOPs, bytes):
 * count, device time (sum, mean, median), FLOPs and bytes per invocation,
 * TFLOPS/s and TB/s per invocation (mean and median over invocations, as
 * TraceLens reports them) and over the row (all FLOPs / all time), the
 * arithmetic intensity, and with a known device the fraction of the roof
 * (min(peak, intensity x bandwidth)) the row's rate reaches, whether the row
 * is compute- or memory-bound at its intensity, and its opportunity: device
 * time x (1 - fraction).  Modelled invocations without a cost (no shapes
 * recorded, shapes that do not fit the model) are counted per (op, reason). */
#ifndef TP_EFFICIENCY_H
#define TP_EFFICIENCY_H

#include "report/analysis/classify.h"
#include "report/analysis/hosttree.h"
#include "report/perf_models/devices.h"
#include "report/perf_models/math_mode.h"
#include "report/perf_models/op_models.h"

enum { TP_BOUND_UNKNOWN = 0, TP_BOUND_COMPUTE, TP_BOUND_MEMORY };

typedef struct tp_eff_row {
    char *op;                /* the op's name */
    uint8_t family;          /* tp_op_family */
    int8_t peak;             /* tp_peak_class held against, -1 none: the math mode's when known, else the dtype's */
    int8_t dtype_peak;       /* the class of its dtype (the op model's), -1 none */
    uint8_t math_mode;       /* tp_math_mode of its kernels (GEMM, convolution, attention), see tp_eff_math_mode */
    uint8_t bound;           /* TP_BOUND_* */
    uint32_t category;       /* its first kernel's category (else its first activity's: classify.h), UINT32_MAX none */
    char *input_dims;        /* compact JSON ("[[512],[141,512]]"), "" for XLA ops */
    char *dtypes;            /* compact JSON list of "Input type" */
    char *strides;           /* compact JSON "Input Strides", "" when not recorded */
    uint64_t count;          /* invocations */
    int64_t device_ns;       /* their device time */
    int64_t mean_ns, median_ns; /* per invocation */
    uint64_t flops, bytes;   /* per invocation */
    double tflops_mean, tflops_median; /* TFLOPS/s per invocation, mean and median */
    double tbps_mean, tbps_median;     /* TB/s per invocation, mean and median */
    double tflops, tbps;     /* over the row: count x flops / device time */
    double intensity;        /* flops / bytes, 0 when no bytes */
    double roof_tflops;      /* the roof at its intensity, min(peak, intensity x bandwidth); 0 unknown */
    double peak_fraction;    /* of the roof at its intensity; -1 unknown */
    int64_t opportunity_ns;  /* device_ns x (1 - min(1, peak_fraction)); 0 when unknown */
    const char *roof_note;   /* why the rate passes the roof (peak_fraction > 1), static text; NULL otherwise */
} tp_eff_row;

/* The row's math mode as summary.json and the pages write it: the mode's
 * name for a GEMM, convolution or attention row ("tf32", "bf16", ...,
 * "unknown" when no kernel name says), "vector" for the vector families
 * (held against the vector fp32 peak whatever their dtype), NULL for an XLA
 * op (its cost and peak come from the trace). */
const char *tp_eff_math_mode(const tp_eff_row *r);

/* Modelled invocations that got no cost, per (op, reason). */
typedef struct tp_eff_skip {
    char *op;
    const char *why;         /* static text */
    uint64_t count;
    int64_t device_ns;
} tp_eff_skip;

typedef struct tp_efficiency {
    tp_device_peaks device;  /* the trace's first described device */
    bool have_device;        /* the trace described a device */
    size_t ndevices;         /* devices the trace described */
    bool mixed_devices;      /* they are not all the same model */
    tp_eff_row *rows;        /* by device time, then op, dims, dtypes, strides */
    size_t n;
    size_t *by_opportunity;  /* row indexes, largest opportunity first (rows with a known fraction) */
    size_t nopportunities;
    tp_eff_skip *skips;      /* by device time */
    size_t nskips;
    uint64_t invocations;    /* in rows */
    int64_t modelled_ns;     /* device time of the rows */
    uint64_t skipped;        /* modelled invocations without a cost */
    int64_t skipped_ns;
    uint64_t host_copies;    /* modelled invocations whose device work was host<->device copies only */
    int64_t device_ns;       /* all device activity time, the base of the coverage share */
    uint64_t with_shapes;    /* host ops with a model whose args record "Input Dims" (0: no shapes) */
    uint64_t xla_costs;      /* the trace's recorded XLA op costs */
    const char *shapes_hint; /* how this trace's profiler records shapes (tp_record_shapes_hint), static */
    struct tp_eff_builder *builder; /* between prepare and build (private) */
} tp_efficiency;

/* In two parts, like the GPU time model: prepare reads the recorded inputs
 * of every host op that has a model (no host tree needed: it runs beside
 * the tree's build) and finds the device (dt NULL = the built-in table);
 * build gives every device activity to its invocation (c: the one
 * classification, the rows' categories; NULL: none) and makes the rows. */
void tp_efficiency_prepare(const tp_trace *t, const tp_device_table *dt, tp_efficiency *e);
void tp_efficiency_build(const tp_trace *t, const tp_host_tree *ht, const tp_classes *c, tp_efficiency *e);
void tp_efficiency_free(tp_efficiency *e);

/* The reader option (formats.h keep_args_of): keep the args of ops that have
 * a model. */
bool tp_efficiency_wants_args(const char *name, size_t len);

/* The profiler setting that records shapes, for the "no shapes" notes:
 * PyTorch's for a Kineto trace, never for an XLA (JAX/TF) or other trace,
 * whose users cannot act on torch.profiler advice (issue 36). */
#define TP_EFF_RECORD_SHAPES "torch.profiler.profile(record_shapes=True)"
const char *tp_record_shapes_hint(const tp_trace *t);
/* Is t an XLA (JAX/TensorFlow) trace: an XSpace, or an XProf trace.json. */
bool tp_trace_is_xla(const tp_trace *t);
/* e's hint (set by tp_efficiency_prepare; a generic one before it ran). */
static inline const char *tp_eff_shapes_hint(const tp_efficiency *e)
{
    return e->shapes_hint ? e->shapes_hint : "a profiler that records each op's input shapes";
}

#endif
