/* op_models_int.h: what the op model files share (not for other rooms). */
#ifndef TP_OP_MODELS_INT_H
#define TP_OP_MODELS_INT_H

#include "report/perf_models/devices.h"
#include "report/perf_models/op_models.h"


/* Element size of a dtype name, 0 unknown; its GEMM peak class (-1 none). */
int tp_op_dtype(const char *s, size_t n, bool *is_float, int *matrix_peak);
/* Element size of a c10::ScalarType code (a recorded dtype argument), 0 unknown. */
int tp_op_scalar_type_size(int64_t code);
/* Checked arithmetic: false on overflow. */
bool tp_op_mul(uint64_t *acc, uint64_t v);
bool tp_op_add(uint64_t *acc, uint64_t v);
/* *acc += n * elem_size */
bool tp_op_add_bytes(uint64_t *acc, uint64_t n, int elem_size);
/* Elements of a tensor input; false when not a tensor or on overflow. */
bool tp_op_numel(const tp_op_input *x, uint64_t *n);
/* A concrete input as a bool (1/0), -1 when it is not one. */
int tp_op_conc_bool(const tp_op_input *x);
/* A concrete input as integers ("[16, 16]", "3", "[]"): how many, -1 when not. */
int tp_op_conc_ints(const tp_op_input *x, int64_t *out, int max);
/* "[True, False, True]": how many, -1 when not such a list. */
int tp_op_conc_bools(const tp_op_input *x, int *out, int max);

enum { TP_GEMM_MM, TP_GEMM_ADDMM, TP_GEMM_BMM, TP_GEMM_BADDBMM, TP_GEMM_MATMUL, TP_GEMM_LINEAR, TP_GEMM_SCALED_MM };
enum { TP_CONV_FWD, TP_CONV_BWD };
/* normalisation variants (op_models_norm.c) */
enum {
    TP_NORM_LAYER, TP_NORM_LAYER_BWD, TP_NORM_BATCH, TP_NORM_BATCH_BWD, TP_NORM_BATCH_BWD_LIB, TP_NORM_GROUP,
    TP_NORM_GROUP_NATIVE, TP_NORM_GROUP_BWD, TP_NORM_RMS, TP_NORM_RMS_BWD,
    TP_NORM_RMS_LIB, TP_NORM_RMS_OUT, TP_NORM_RMS_ADD, TP_NORM_RMS_ADD_OUT /* library RMSNorm ops */
};

/* The models by family (op_models_matrix.c): 0, or -1 with *why. */
int tp_op_gemm(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why);
int tp_op_conv(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why);
int tp_op_attention(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why);
int tp_op_norm(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why);

#endif
