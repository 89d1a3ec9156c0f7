/* op_models.c: which ops have a model, and the vector models (normalisation,
 * softmax, elementwise, reduce); the matrix ones are in op_models_matrix.c.
 * Every formula is in docs/REPORT.md "Efficiency", with a worked example. */
#include "report/perf_models/op_models_int.h"
#include "report/perf_models/op_models_infer.h"

#include <stdlib.h>
#include <string.h>

enum { EW_UNARY, EW_BINARY, EW_COPY, EW_UPSAMPLE, EW_SILU_MUL, EW_GELU_MUL, EW_GELU_TANH_MUL, EW_ROPE };
enum { RED_REDUCE, RED_SCAN, RED_MAXMIN, RED_NORM /* (self, p, dim, ...): dim third */ };

/* Sorted by name (strcmp): tp_op_family_of searches it.  Library ops
 * (vLLM _C::, aiter::, sgl_kernel::) take their models from the recorded
 * inputs like aten:: ops do. */
static const struct {
    const char *name;
    uint8_t family;
    uint8_t variant;
} ops[] = {
    {"_C::fused_add_rms_norm", TP_FAM_NORM, TP_NORM_RMS_ADD},
    {"_C::gelu_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_MUL},
    {"_C::gelu_tanh_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_TANH_MUL},
    {"_C::rms_norm", TP_FAM_NORM, TP_NORM_RMS_OUT},
    {"_C::rotary_embedding", TP_FAM_ELEMENTWISE, EW_ROPE},
    {"_C::silu_and_mul", TP_FAM_ELEMENTWISE, EW_SILU_MUL},
    {"aiter::add_rmsnorm", TP_FAM_NORM, TP_NORM_RMS_ADD_OUT},
    {"aiter::fmha_v3_fwd", TP_FAM_ATTENTION, 10},
    {"aiter::gelu_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_MUL},
    {"aiter::gelu_tanh_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_TANH_MUL},
    {"aiter::mha_bwd", TP_FAM_ATTENTION, 11},
    {"aiter::mha_fwd", TP_FAM_ATTENTION, 10},
    {"aiter::rms_norm", TP_FAM_NORM, TP_NORM_RMS_LIB},
    {"aiter::rmsnorm", TP_FAM_NORM, TP_NORM_RMS_OUT},
    {"aiter::rmsnorm2d_fwd_ck", TP_FAM_NORM, TP_NORM_RMS_LIB},
    {"aiter::rmsnorm2d_fwd_with_add_ck", TP_FAM_NORM, TP_NORM_RMS_ADD_OUT},
    {"aiter::silu_and_mul", TP_FAM_ELEMENTWISE, EW_SILU_MUL},
    {"aten::_efficient_attention_backward", TP_FAM_ATTENTION, 9},
    {"aten::_efficient_attention_forward", TP_FAM_ATTENTION, 4},
    {"aten::_flash_attention_backward", TP_FAM_ATTENTION, 8},
    {"aten::_flash_attention_forward", TP_FAM_ATTENTION, 3},
    {"aten::_fused_rms_norm", TP_FAM_NORM, TP_NORM_RMS},
    {"aten::_fused_rms_norm_backward", TP_FAM_NORM, TP_NORM_RMS_BWD},
    {"aten::_log_softmax", TP_FAM_SOFTMAX, 1},
    {"aten::_safe_softmax", TP_FAM_SOFTMAX, 0},
    {"aten::_scaled_dot_product_cudnn_attention", TP_FAM_ATTENTION, 2},
    {"aten::_scaled_dot_product_cudnn_attention_backward", TP_FAM_ATTENTION, 7},
    {"aten::_scaled_dot_product_efficient_attention", TP_FAM_ATTENTION, 1},
    {"aten::_scaled_dot_product_efficient_attention_backward", TP_FAM_ATTENTION, 6},
    {"aten::_scaled_dot_product_flash_attention", TP_FAM_ATTENTION, 0},
    {"aten::_scaled_dot_product_flash_attention_backward", TP_FAM_ATTENTION, 5},
    {"aten::_scaled_mm", TP_FAM_GEMM, TP_GEMM_SCALED_MM},
    {"aten::_softmax", TP_FAM_SOFTMAX, 1},
    {"aten::abs", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::add", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::add_", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::addmm", TP_FAM_GEMM, TP_GEMM_ADDMM},
    {"aten::amax", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::amin", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::baddbmm", TP_FAM_GEMM, TP_GEMM_BADDBMM},
    {"aten::batch_norm", TP_FAM_NORM, TP_NORM_BATCH},
    {"aten::bmm", TP_FAM_GEMM, TP_GEMM_BMM},
    {"aten::clamp", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::clamp_", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::clamp_max", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::clamp_max_", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::clamp_min", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::clamp_min_", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::convolution", TP_FAM_CONV, TP_CONV_FWD},
    {"aten::convolution_backward", TP_FAM_CONV, TP_CONV_BWD},
    {"aten::copy_", TP_FAM_ELEMENTWISE, EW_COPY},
    {"aten::cos", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::cudnn_batch_norm", TP_FAM_NORM, TP_NORM_BATCH},
    {"aten::cudnn_batch_norm_backward", TP_FAM_NORM, TP_NORM_BATCH_BWD_LIB},
    {"aten::cumsum", TP_FAM_REDUCE, RED_SCAN},
    {"aten::div", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::div_", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::exp", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::gelu", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::gelu_backward", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::group_norm", TP_FAM_NORM, TP_NORM_GROUP},
    {"aten::layer_norm", TP_FAM_NORM, TP_NORM_LAYER},
    {"aten::linalg_vector_norm", TP_FAM_REDUCE, RED_NORM},
    {"aten::linear", TP_FAM_GEMM, TP_GEMM_LINEAR},
    {"aten::log", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::log_softmax", TP_FAM_SOFTMAX, 0},
    {"aten::logsumexp", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::matmul", TP_FAM_GEMM, TP_GEMM_MATMUL},
    {"aten::max", TP_FAM_REDUCE, RED_MAXMIN},
    {"aten::maximum", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::mean", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::min", TP_FAM_REDUCE, RED_MAXMIN},
    {"aten::minimum", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::miopen_batch_norm", TP_FAM_NORM, TP_NORM_BATCH},
    {"aten::miopen_batch_norm_backward", TP_FAM_NORM, TP_NORM_BATCH_BWD_LIB},
    {"aten::mm", TP_FAM_GEMM, TP_GEMM_MM},
    {"aten::mul", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::mul_", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::native_batch_norm", TP_FAM_NORM, TP_NORM_BATCH},
    {"aten::native_batch_norm_backward", TP_FAM_NORM, TP_NORM_BATCH_BWD},
    {"aten::native_group_norm", TP_FAM_NORM, TP_NORM_GROUP_NATIVE},
    {"aten::native_group_norm_backward", TP_FAM_NORM, TP_NORM_GROUP_BWD},
    {"aten::native_layer_norm", TP_FAM_NORM, TP_NORM_LAYER},
    {"aten::native_layer_norm_backward", TP_FAM_NORM, TP_NORM_LAYER_BWD},
    {"aten::neg", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::norm", TP_FAM_REDUCE, RED_NORM},
    {"aten::pow", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::reciprocal", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::relu", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::relu_", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::rms_norm", TP_FAM_NORM, TP_NORM_RMS},
    {"aten::rsqrt", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::sigmoid", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::sigmoid_backward", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::silu", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::silu_", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::silu_backward", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::sin", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::softmax", TP_FAM_SOFTMAX, 0},
    {"aten::sqrt", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::std", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::sub", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::sub_", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::sum", TP_FAM_REDUCE, RED_REDUCE},
    {"aten::tanh", TP_FAM_ELEMENTWISE, EW_UNARY},
    {"aten::threshold_backward", TP_FAM_ELEMENTWISE, EW_BINARY},
    {"aten::upsample_nearest1d", TP_FAM_ELEMENTWISE, EW_UPSAMPLE},
    {"aten::upsample_nearest2d", TP_FAM_ELEMENTWISE, EW_UPSAMPLE},
    {"aten::upsample_nearest3d", TP_FAM_ELEMENTWISE, EW_UPSAMPLE},
    {"aten::var", TP_FAM_REDUCE, RED_REDUCE},
    {"sgl_kernel::fused_add_rmsnorm", TP_FAM_NORM, TP_NORM_RMS_ADD},
    {"sgl_kernel::gelu_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_MUL},
    {"sgl_kernel::gelu_tanh_and_mul", TP_FAM_ELEMENTWISE, EW_GELU_TANH_MUL},
    {"sgl_kernel::rmsnorm", TP_FAM_NORM, TP_NORM_RMS_OUT},
    {"sgl_kernel::rotary_embedding", TP_FAM_ELEMENTWISE, EW_ROPE},
    {"sgl_kernel::silu_and_mul", TP_FAM_ELEMENTWISE, EW_SILU_MUL},
};
#define NOPS (sizeof ops / sizeof *ops)

static const char *const family_names[TP_FAM_COUNT] = {
    "", "GEMM", "convolution", "attention", "normalisation", "softmax", "elementwise", "reduce", "XLA op",
};

const char *tp_op_family_name(tp_op_family f)
{
    return (unsigned)f < TP_FAM_COUNT ? family_names[f] : "";
}

static int find(const char *name, size_t len)
{
    size_t lo = 0, hi = NOPS;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(ops[mid].name, name, len);
        if (c == 0 && ops[mid].name[len] != 0)
            c = 1; /* the table's name is longer */
        if (c == 0)
            return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The namespaces of the table: a cheap test before the search (the reader
 * asks of every event name). */
static bool modelled_namespace(const char *name, size_t len)
{
    switch (len > 4 ? name[0] : 0) {
    case 'a': return (len > 6 && memcmp(name, "aten::", 6) == 0) || (len > 7 && memcmp(name, "aiter::", 7) == 0);
    case '_': return memcmp(name, "_C::", 4) == 0;
    case 's': return len > 12 && memcmp(name, "sgl_kernel::", 12) == 0;
    default: return false;
    }
}

tp_op_family tp_op_family_of(const char *name, size_t len)
{
    tp_op_family f;
    if (tp_infer_op(name, len, &f) >= 0)
        return f;
    if (!modelled_namespace(name, len))
        return TP_FAM_NONE;
    int i = find(name, len);
    return i < 0 ? TP_FAM_NONE : (tp_op_family)ops[i].family;
}

/* ---- the vector models: 1 FLOP per element unless said otherwise ---- */

static int first_tensor(const tp_op_inputs *in, const char *op, const char **why)
{
    if (in->n == 0 || in->in[0].rank < 0) {
        *why = op;
        return -1;
    }
    return 0;
}

/* out = broadcast(a, b); false when they do not broadcast */
static bool broadcast(const tp_op_input *a, const tp_op_input *b, tp_op_input *out)
{
    *out = a->rank >= b->rank ? *a : *b;
    for (int k = 1; k <= a->rank && k <= b->rank; k++) {
        int64_t x = a->dims[a->rank - k], y = b->dims[b->rank - k];
        if (x != y && x != 1 && y != 1)
            return false;
        out->dims[out->rank - k] = x == 1 ? y : x;
    }
    return true;
}

/* A gated activation, (out, input) with input = [gate, up] on the last
 * dim: act(gate) x up per output element, k FLOPs each (TraceLens's
 * convention: silu 5, erf gelu 8, tanh gelu 10); the input read, the
 * output written. */
static int gated(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    const tp_op_input *out = in->n >= 2 ? &in->in[0] : NULL, *x = in->n >= 2 ? &in->in[1] : NULL;
    uint64_t nout, nx;
    if (!out || out->rank < 1 || x->rank != out->rank || !tp_op_numel(out, &nout) || !tp_op_numel(x, &nx) ||
        x->dims[x->rank - 1] != 2 * out->dims[out->rank - 1] || nx / 2 != nout || nout > UINT64_MAX / 64) {
        *why = "a gated activation whose input is not twice its output's last size";
        return -1;
    }
    uint64_t k = variant == EW_SILU_MUL ? 5 : variant == EW_GELU_MUL ? 8 : 10;
    c->flops = k * nout;
    c->bytes = nx * (uint64_t)x->elem_size + nout * (uint64_t)out->elem_size;
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
}

/* rotary_embedding(positions, query, key, head_size, cos_sin_cache,
 * is_neox), in place: the rot_dim (the cache's last size) slice of every
 * query and key head rotated, 3 FLOPs per rotated element (4 multiplies and
 * 2 adds per pair), each read and written. */
static int rope(const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    const tp_op_input *q = in->n >= 5 ? &in->in[1] : NULL, *k = in->n >= 5 ? &in->in[2] : NULL;
    int64_t head = 0;
    if (q && q->rank >= 1 && (in->in[3].concrete_len == 0 || tp_op_conc_ints(&in->in[3], &head, 1) != 1))
        head = q->dims[q->rank - 1];
    const tp_op_input *cache = q ? &in->in[4] : NULL;
    int64_t rot = cache && cache->rank == 2 ? cache->dims[1] : head;
    uint64_t nq, nk = 0;
    if (!q || q->rank < 2 || head <= 0 || rot <= 0 || rot > head || q->dims[0] <= 0 || !tp_op_numel(q, &nq) ||
        (k->rank >= 0 && !tp_op_numel(k, &nk)) || nq % ((uint64_t)q->dims[0] * (uint64_t)head) != 0 ||
        nk % ((uint64_t)q->dims[0] * (uint64_t)head) != 0) {
        *why = "a rotary embedding whose query is not tokens x heads x head_size";
        return -1;
    }
    /* tokens x (query heads + key heads) x rot_dim */
    uint64_t n = (nq + nk) / (uint64_t)head * (uint64_t)rot;
    if (n > UINT64_MAX / 64) {
        *why = "sizes too large to count";
        return -1;
    }
    c->flops = 3 * n;
    c->bytes = 2 * n * (uint64_t)q->elem_size;
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
}

static int elementwise(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    if (variant == EW_SILU_MUL || variant == EW_GELU_MUL || variant == EW_GELU_TANH_MUL)
        return gated(variant, in, c, why);
    if (variant == EW_ROPE)
        return rope(in, c, why);
    if (first_tensor(in, "no input tensor", why) != 0)
        return -1;
    const tp_op_input *a = &in->in[0];
    uint64_t na, nb = 0, nout, bytes;
    if (!tp_op_numel(a, &na))
        goto overflow;
    if (variant == EW_COPY) { /* copy_(dst, src): read src, write dst */
        if (in->n < 2 || in->in[1].rank < 0) {
            *why = "copy_ without a source tensor";
            return -1;
        }
        if (!tp_op_numel(&in->in[1], &nb))
            goto overflow;
        nout = na;
        bytes = 0;
        if (!tp_op_add_bytes(&bytes, na, a->elem_size) || !tp_op_add_bytes(&bytes, nb, in->in[1].elem_size))
            goto overflow;
    } else if (variant == EW_UPSAMPLE) { /* upsample_nearest(input, output_size, ...): one copy per output element */
        int64_t size[3];
        int ns = in->n >= 2 ? tp_op_conc_ints(&in->in[1], size, 3) : -1;
        if (ns != a->rank - 2 || ns < 1) {
            *why = "no output_size recorded (scale factors are not modelled)";
            return -1;
        }
        nout = (uint64_t)a->dims[0];
        if (!tp_op_mul(&nout, (uint64_t)a->dims[1]))
            goto overflow;
        for (int k = 0; k < ns; k++)
            if (size[k] < 0 || !tp_op_mul(&nout, (uint64_t)size[k]))
                goto overflow;
        bytes = 0;
        if (!tp_op_add_bytes(&bytes, na, a->elem_size) || !tp_op_add_bytes(&bytes, nout, a->elem_size))
            goto overflow;
    } else if (variant == EW_BINARY && in->n >= 2 && in->in[1].rank >= 0) {
        const tp_op_input *b = &in->in[1];
        tp_op_input out;
        if (!broadcast(a, b, &out)) {
            *why = "inputs that do not broadcast";
            return -1;
        }
        if (!tp_op_numel(b, &nb) || !tp_op_numel(&out, &nout))
            goto overflow;
        /* the output takes the larger element size of the inputs that are
         * not 0-dim (a 0-dim tensor does not promote a tensor's dtype) */
        int eo = (a->rank > 0 || b->rank == 0) ? a->elem_size : b->elem_size;
        if (a->rank > 0 && b->rank > 0 && b->elem_size > eo)
            eo = b->elem_size;
        bytes = 0;
        if (!tp_op_add_bytes(&bytes, na, a->elem_size) || !tp_op_add_bytes(&bytes, nb, b->elem_size) ||
            !tp_op_add_bytes(&bytes, nout, eo))
            goto overflow;
    } else { /* unary, or a binary op with a scalar operand */
        nout = na;
        bytes = 0;
        if (!tp_op_add_bytes(&bytes, na, a->elem_size) || !tp_op_add_bytes(&bytes, na, a->elem_size))
            goto overflow;
    }
    c->flops = nout;
    c->bytes = bytes;
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
overflow:
    *why = "sizes too large to count";
    return -1;
}

/* The reduced dimensions from concrete input 1 ("[-1]", "1", absent: all). */
static int reduce_out(const tp_op_input *a, const tp_op_input *dim, uint64_t *nout, const char **why)
{
    int64_t d[TP_OP_MAX_RANK];
    int nd = dim ? tp_op_conc_ints(dim, d, TP_OP_MAX_RANK) : -1;
    bool keep[TP_OP_MAX_RANK];
    for (int k = 0; k < TP_OP_MAX_RANK; k++)
        keep[k] = nd > 0;
    for (int i = 0; i < nd; i++) {
        int64_t k = d[i] < 0 ? d[i] + a->rank : d[i];
        if (k < 0 || k >= (a->rank ? a->rank : 1)) {
            *why = "a reduced dimension out of range";
            return -1;
        }
        keep[k] = false;
    }
    *nout = 1;
    for (int k = 0; k < a->rank; k++)
        if (keep[k])
            *nout *= (uint64_t)a->dims[k]; /* at most the input's count: no overflow */
    return 0;
}

static int reduce(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    if (variant == RED_MAXMIN && in->n >= 2 && in->in[1].rank >= 0)
        return elementwise(EW_BINARY, in, c, why); /* max(a, b): elementwise */
    if (first_tensor(in, "no input tensor", why) != 0)
        return -1;
    const tp_op_input *a = &in->in[0];
    uint64_t n, nout;
    if (!tp_op_numel(a, &n)) {
        *why = "sizes too large to count";
        return -1;
    }
    if (variant == RED_SCAN)
        nout = n;
    else {
        /* the reduced dims: absent (no such argument, or None) is every dim;
         * an argument the profiler did not record is a reason, not a guess */
        size_t d = variant == RED_NORM ? 2 : 1;
        const tp_op_input *dim = in->n > d ? &in->in[d] : NULL;
        bool none = !dim || !dim->type || dim->type_len == 0 || (dim->concrete && dim->concrete_len == 4 &&
                                                                 memcmp(dim->concrete, "None", 4) == 0);
        if (!none && dim->concrete_len == 0) {
            *why = "the reduced dims not recorded (no Concrete Inputs)";
            return -1;
        }
        if (!none && (dim->type_len != 10 || memcmp(dim->type, "ScalarList", 10) != 0) &&
            (dim->type_len != 6 || memcmp(dim->type, "Scalar", 6) != 0)) {
            *why = "a reduced-dims argument that is not a list of ints";
            return -1;
        }
        if (!none && tp_op_conc_ints(dim, (int64_t[TP_OP_MAX_RANK]){0}, TP_OP_MAX_RANK) < 0) {
            *why = "reduced dims that are not integers";
            return -1;
        }
        if (reduce_out(a, none ? NULL : dim, &nout, why) != 0)
            return -1;
    }
    c->flops = n;
    c->bytes = 0;
    if (!tp_op_add_bytes(&c->bytes, n, a->elem_size) || !tp_op_add_bytes(&c->bytes, nout, a->elem_size)) {
        *why = "sizes too large to count";
        return -1;
    }
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
}

static int softmax(bool half_to_float, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    if (first_tensor(in, "no input tensor", why) != 0)
        return -1;
    const tp_op_input *a = &in->in[0];
    uint64_t n, bytes;
    if (!tp_op_numel(a, &n) || n > UINT64_MAX / 64) {
        *why = "sizes too large to count";
        return -1;
    }
    /* _softmax(self, dim, half_to_float): a half input gives a float output
     * when the flag is set; softmax(self, dim, dtype): the output in dtype
     * (a ScalarType code) when given */
    int eo = a->elem_size;
    if (half_to_float) {
        int flag = in->n >= 3 ? tp_op_conc_bool(&in->in[2]) : -1;
        if (flag < 0 && a->elem_size < 4) {
            *why = "half_to_float not recorded for a half input";
            return -1;
        }
        eo = flag == 1 ? 4 : eo;
    } else if (in->n >= 3 && in->in[2].concrete_len) {
        int64_t code;
        eo = tp_op_conc_ints(&in->in[2], &code, 1) == 1 ? tp_op_scalar_type_size(code) : 0;
        if (!eo) {
            *why = "an output dtype that is not a known ScalarType";
            return -1;
        }
    }
    bytes = n * (uint64_t)a->elem_size + n * (uint64_t)eo;
    c->flops = 5 * n; /* max, subtract, exp, sum, divide */
    c->bytes = bytes;
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
}

int tp_op_cost_of(const char *name, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    memset(c, 0, sizeof *c);
    c->peak = -1;
    int i = find(name, strlen(name));
    if (i < 0)
        return tp_infer_cost(tp_infer_op(name, strlen(name), NULL), in, c, why);
    c->family = (tp_op_family)ops[i].family;
    int v = ops[i].variant;
    switch (c->family) {
    case TP_FAM_GEMM:
        return tp_op_gemm(v, in, c, why);
    case TP_FAM_CONV:
        return tp_op_conv(v, in, c, why);
    case TP_FAM_ATTENTION:
        return tp_op_attention(v, in, c, why);
    case TP_FAM_NORM:
        return tp_op_norm(v, in, c, why);
    case TP_FAM_SOFTMAX:
        return softmax(v == 1, in, c, why);
    case TP_FAM_ELEMENTWISE:
        return elementwise(v, in, c, why);
    case TP_FAM_REDUCE:
        return reduce(v, in, c, why);
    default:
        *why = "no model for this op";
        return -1;
    }
}
