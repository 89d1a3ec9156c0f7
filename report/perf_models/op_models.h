/* op_models.h: the work one op invocation does, from the shapes the
 * profiler recorded (ANALYSIS.md §3, docs/REPORT.md "Efficiency").
 *
 * PyTorch traces recorded with record_shapes carry, on each op, "Input Dims"
 * (a list per input: the tensor's sizes, [] for a scalar or a missing
 * tensor, a list of lists for a tensor list), "Input type" (the dtype's C++
 * name, "Scalar", "ScalarList", "TensorList" or ""), "Input Strides" and
 * "Concrete Inputs" (the values of scalar arguments, as text).  From them
 * each modelled op gets its FLOPs, the bytes it must move (inputs read and
 * output written once) and the peak it should be held against.  Nothing is
 * guessed: an op whose inputs do not fit its model gets a reason instead.
 *
 * Nothing here touches a trace: the analysis (report/analysis/efficiency.h)
 * finds the invocations and their device time. */
#ifndef TP_OP_MODELS_H
#define TP_OP_MODELS_H

#include "convert/base/common.h"
#include "convert/codec/json_value.h"

typedef enum tp_op_family {
    TP_FAM_NONE = 0,
    TP_FAM_GEMM,
    TP_FAM_CONV,
    TP_FAM_ATTENTION,
    TP_FAM_NORM,
    TP_FAM_SOFTMAX,
    TP_FAM_ELEMENTWISE,
    TP_FAM_REDUCE,
    TP_FAM_XLA,        /* an XLA op whose cost the trace recorded (tp_name_cost) */
    TP_FAM_COUNT
} tp_op_family;

/* "GEMM", "convolution", "attention", "normalisation", "softmax",
 * "elementwise", "reduce", "XLA op" */
const char *tp_op_family_name(tp_op_family f);

/* The model an op name has, TP_FAM_NONE when none.  Cheap (a sorted table):
 * the reader asks it of every event name to keep the args it needs. */
tp_op_family tp_op_family_of(const char *name, size_t len);

#define TP_OP_MAX_RANK 8

/* One recorded input. */
typedef struct tp_op_input {
    int rank;                       /* -1: not a tensor (a scalar, a list, absent) */
    int64_t dims[TP_OP_MAX_RANK];
    int elem_size;                  /* bytes per element of its dtype, 0 unknown or not a tensor */
    bool is_float;                  /* a floating dtype (for the peak class) */
    const char *type;               /* "Input type" text (points into the args text), NULL when absent */
    size_t type_len;
    const char *concrete;           /* "Concrete Inputs" text, NULL when absent */
    size_t concrete_len;
} tp_op_input;

#define TP_OP_MAX_INPUTS 48 /* aiter::mha_batch_prefill records 30 */

typedef struct tp_op_inputs {
    size_t n;
    tp_op_input in[TP_OP_MAX_INPUTS];
    /* what the aggregation groups by ("Input Strides" NULL when absent);
     * nodes of the caller's doc */
    const tp_jv *dims_v, *types_v, *strides_v;
    /* the iteration's sequence statistics (op_models_infer.h), set by the
     * caller for the ops that read them; NULL: not known */
    const struct tp_chunk_stats *chunk;
    /* what an unfused MoE op's kernels say (op_models_infer.h), NULL: not known */
    const struct tp_moe_hint *moe;
} tp_op_inputs;

/* Read the recorded inputs from an op's args object text.  0, or -1 with a
 * reason ("no \"Input Dims\" recorded", "\"Input Dims\" is not a list of
 * lists", "more than 48 inputs", ...).  The texts point into `args`; doc
 * holds the parse (reset by the caller between calls). */
int tp_op_inputs_parse(const char *args, size_t len, tp_jdoc *doc, tp_op_inputs *in, const char **why);

typedef struct tp_op_cost {
    tp_op_family family;
    uint64_t flops;
    uint64_t bytes;
    int peak;            /* tp_peak_class (devices.h), -1 when no peak applies (a GEMM in fp64 or integers) */
} tp_op_cost;

/* The cost of one invocation of op `name` with these inputs: 0, or -1 with
 * the reason it has none ("aten::mm: 3 inputs, expected 2 tensors", ...). */
int tp_op_cost_of(const char *name, const tp_op_inputs *in, tp_op_cost *out, const char **why);

#endif
