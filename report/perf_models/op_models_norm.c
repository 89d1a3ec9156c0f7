/* op_models_norm.c: the normalisation models, forward and backward
 * (docs/REPORT.md "Efficiency").  The constants follow TraceLens's
 * Normalization models (its perf_model.py) so that the figures compare:
 * per element 3 FLOPs for the statistics and 2 to scale and shift, 6 per
 * channel for the per-channel factors; backward 4 per element for the two
 * reductions and 5 for grad_input; channel vectors of the normalised size.
 * Where TraceLens misreads an argument (an absent weight counted, the
 * string "False" read as true) we read the argument; docs/REPORT.md "Checked
 * against TraceLens" lists those rows. */
#include "report/perf_models/op_models_int.h"

#include <string.h>

static bool present(const tp_op_inputs *in, size_t i)
{
    return i < in->n && in->in[i].rank >= 0;
}

/* The product of normalized_shape (input k), checked to be x's last sizes. */
static int normalized(const tp_op_inputs *in, size_t k, const tp_op_input *x, uint64_t *ch, const char **why)
{
    int64_t shape[TP_OP_MAX_RANK];
    int ns = in->n > k ? tp_op_conc_ints(&in->in[k], shape, TP_OP_MAX_RANK) : -1;
    if (ns <= 0) {
        *why = "no normalized_shape recorded";
        return -1;
    }
    if (ns > x->rank) {
        *why = "a normalized_shape that is not the input's last sizes";
        return -1;
    }
    *ch = 1;
    for (int j = 0; j < ns; j++) {
        if (shape[j] != x->dims[x->rank - ns + j]) {
            *why = "a normalized_shape that is not the input's last sizes";
            return -1;
        }
        *ch *= (uint64_t)shape[j]; /* at most x's elements */
    }
    return 0;
}

/* The normalised tensor (input k): its elements n (> 0, < 2^56) and size e. */
static int tensor(const tp_op_inputs *in, size_t k, uint64_t *n, const char **why)
{
    if (!present(in, k)) {
        *why = "no input tensor";
        return -1;
    }
    if (!tp_op_numel(&in->in[k], n) || *n > UINT64_MAX / 256) {
        *why = "sizes too large to count";
        return -1;
    }
    if (*n == 0) { /* the channel counts are at most n only for a non-empty input */
        *why = "an empty input";
        return -1;
    }
    return 0;
}

/* The output_mask argument (input k): want bools, all true when absent. */
static int mask(const tp_op_inputs *in, size_t k, int *m, int want, const char **why)
{
    for (int j = 0; j < want; j++)
        m[j] = 1;
    if (in->n <= k)
        return 0;
    if (tp_op_conc_bools(&in->in[k], m, want) != want) {
        *why = "no output_mask recorded";
        return -1;
    }
    return 0;
}

/* Backward FLOPs (TraceLens's Normalization.flops_func_bwd): the inverse
 * deviation when it was not saved (3 per channel, not training), the two
 * reductions (4 per element), grad_input (5 per element, training); without
 * grad_input 2 per element. */
static uint64_t bwd_flops(uint64_t n, uint64_t ch, bool training, bool grad_input)
{
    return (training ? 0 : 3 * ch) + 4 * n + (grad_input ? (training ? 5 * n : 0) : 2 * n);
}

/* Backward bytes: grad_out and the input read, grad_input written when
 * asked, the saved inverse deviation (training), the weight when present,
 * grad_weight and grad_bias when asked: vectors of ch elements. */
static uint64_t bwd_bytes(uint64_t n, uint64_t ch, uint64_t e, bool training, bool grad_input, bool weight,
                          int grads)
{
    return (grad_input ? 3 : 2) * n * e + ((training ? 1 : 0) + (weight ? 1 : 0) + (uint64_t)grads) * ch * e;
}

/* The per-row RMS: 2 FLOPs per element (square, sum) and 2 per row (mean,
 * rsqrt), then 1 per element to scale and 1 more with a weight:
 * 4n + 2 rows (3n + 2 rows without a weight). */
static uint64_t rms_flops(uint64_t n, uint64_t ch, bool weight)
{
    return (weight ? 4 : 3) * n + 2 * (n / ch);
}

int tp_op_norm(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    c->peak = TP_PEAK_VECTOR_FP32;
    /* the normalised tensor's index, by the op's signature */
    size_t xi = variant == TP_NORM_LAYER_BWD || variant == TP_NORM_BATCH_BWD || variant == TP_NORM_GROUP_BWD ||
                        variant == TP_NORM_RMS_BWD || variant == TP_NORM_RMS_OUT || variant == TP_NORM_RMS_ADD_OUT
                    ? 1
                    : 0;
    uint64_t n, ch = 1;
    if (tensor(in, xi, &n, why) != 0)
        return -1;
    const tp_op_input *x = &in->in[xi];
    uint64_t e = (uint64_t)x->elem_size;
    int m[3];
    switch (variant) {
    case TP_NORM_LAYER: /* layer_norm(input, normalized_shape, weight, bias, eps) */
        if (normalized(in, 1, x, &ch, why) != 0)
            return -1;
        c->flops = 5 * n + 6 * ch;
        c->bytes = 2 * n * e + (4 + present(in, 2) + present(in, 3)) * ch * e;
        return 0;
    case TP_NORM_LAYER_BWD: /* (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask) */
        if (normalized(in, 2, x, &ch, why) != 0 || mask(in, 7, m, 3, why) != 0)
            return -1;
        c->flops = bwd_flops(n, ch, true, m[0]);
        c->bytes = bwd_bytes(n, ch, e, true, m[0], present(in, 5), m[1] + m[2]);
        return 0;
    case TP_NORM_BATCH:
    case TP_NORM_GROUP:
    case TP_NORM_GROUP_NATIVE: {
        /* batch_norm(input, weight, bias, running_mean, running_var, training, ...);
         * group_norm(input, num_groups, weight, bias, ...); native_group_norm(input,
         * weight, bias, N, C, HxW, group, eps): channels = size 1 */
        int training = 1;
        if (variant == TP_NORM_BATCH)
            training = in->n > 5 ? tp_op_conc_bool(&in->in[5]) : -1;
        if (x->rank < 2 || training < 0) {
            *why = variant == TP_NORM_BATCH ? "batch norm without channels or a training flag"
                                            : "group norm without channels";
            return -1;
        }
        ch = (uint64_t)x->dims[1]; /* at most n */
        size_t w = variant == TP_NORM_GROUP ? 2 : 1;
        c->flops = 6 * ch + 2 * n + (training ? 3 * n : 0);
        c->bytes = 2 * n * e + (2 + present(in, w) + present(in, w + 1) + (training ? 2 : 0)) * ch * e;
        return 0;
    }
    case TP_NORM_BATCH_BWD:
    case TP_NORM_BATCH_BWD_LIB: {
        /* native_batch_norm_backward(grad_out, input, weight, running_mean,
         * running_var, save_mean, save_invstd, train, eps, output_mask);
         * cudnn/miopen_batch_norm_backward(input, grad_output, weight, ...,
         * epsilon, reserveSpace): training, every grad */
        int training = 1;
        m[0] = m[1] = m[2] = 1;
        if (variant == TP_NORM_BATCH_BWD) {
            training = in->n > 7 ? tp_op_conc_bool(&in->in[7]) : -1;
            if (training < 0) {
                *why = "batch norm backward without a training flag";
                return -1;
            }
            if (mask(in, 9, m, 3, why) != 0)
                return -1;
        }
        if (x->rank < 2) {
            *why = "batch norm without channels";
            return -1;
        }
        ch = (uint64_t)x->dims[1];
        bool weight = present(in, 2);
        c->flops = bwd_flops(n, ch, training, m[0]);
        c->bytes = bwd_bytes(n, ch, e, training, m[0], weight, weight && training ? m[1] + m[2] : 0);
        return 0;
    }
    case TP_NORM_GROUP_BWD: /* (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask) */
        if (x->rank < 2) {
            *why = "group norm without channels";
            return -1;
        }
        if (mask(in, 9, m, 3, why) != 0)
            return -1;
        ch = (uint64_t)x->dims[1];
        c->flops = bwd_flops(n, ch, true, m[0]);
        c->bytes = bwd_bytes(n, ch, e, true, m[0], present(in, 4), present(in, 4) ? m[1] + m[2] : 0);
        return 0;
    case TP_NORM_RMS: /* rms_norm / _fused_rms_norm(input, normalized_shape, weight, eps) */
        if (normalized(in, 1, x, &ch, why) != 0)
            return -1;
        c->flops = rms_flops(n, ch, present(in, 2));
        c->bytes = 2 * n * e + (present(in, 2) ? ch * e : 0);
        return 0;
    case TP_NORM_RMS_BWD: { /* _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask) */
        if (normalized(in, 2, x, &ch, why) != 0 || mask(in, 5, m, 2, why) != 0)
            return -1;
        bool weight = present(in, 4);
        /* TraceLens's RMSNormBwd: x_hat (1), grad_out x weight (1), the row's
         * dot product (2) and grad_input (4) when asked, grad_weight (1, and 1
         * to accumulate over rows) when asked */
        c->flops = n + (weight ? n : 0) + (m[0] ? 6 * n : 0) + (m[1] && weight ? n + (n / ch > 1 ? n : 0) : 0);
        c->bytes = 3 * n * e + (weight ? 2 * ch * e : 0);
        return 0;
    }
    default: {
        /* library RMSNorm ops, their weight the channels: (x, weight, eps)
         * aiter::rms_norm; (out, x, weight, eps) aiter::rmsnorm, vLLM's
         * _C::rms_norm, sgl_kernel::rmsnorm; with a residual add: (out, x,
         * residual_in, residual_out, weight, eps) aiter::add_rmsnorm, (x,
         * residual, weight, eps) _C::fused_add_rms_norm and
         * sgl_kernel::fused_add_rmsnorm (in place) */
        size_t wi = variant == TP_NORM_RMS_LIB ? 1 : variant == TP_NORM_RMS_OUT || variant == TP_NORM_RMS_ADD ? 2 : 4;
        bool add = variant == TP_NORM_RMS_ADD || variant == TP_NORM_RMS_ADD_OUT;
        const tp_op_input *w = present(in, wi) ? &in->in[wi] : NULL;
        if (!w || w->rank != 1 || x->rank < 1 || w->dims[0] != x->dims[x->rank - 1] || w->dims[0] <= 0) {
            *why = "a weight that is not the input's last size";
            return -1;
        }
        ch = (uint64_t)w->dims[0];
        /* the residual add: 1 FLOP per element; the residual read and the sum written */
        c->flops = rms_flops(n, ch, true) + (add ? n : 0);
        c->bytes = (add ? 4 : 2) * n * e + ch * (uint64_t)w->elem_size;
        return 0;
    }
    }
}
