/* op_models_matrix.c: the matrix models (GEMM, convolution, attention);
 * formulas in docs/REPORT.md "Efficiency". */
#include "report/perf_models/op_models_int.h"

#include <string.h>

#define TOO_LARGE "sizes too large to count"

/* The GEMM peak of an input's dtype. */
static int matrix_peak(const tp_op_input *x)
{
    int peak = -1;
    tp_op_dtype(x->type, x->type_len, NULL, &peak);
    return peak;
}

static bool tensor(const tp_op_inputs *in, size_t i, int rank)
{
    return i < in->n && in->in[i].rank >= 0 && (rank < 0 || in->in[i].rank == rank);
}

/* flops += batch * 2*M*N*K (+ M*N for a bias); bytes of A, B and the
 * output (elements of A's size) */
static bool gemm_cost(uint64_t batch, uint64_t m, uint64_t n, uint64_t k, bool bias, int ea, int eb, tp_op_cost *c)
{
    uint64_t mn = m, f = 2;
    if (!tp_op_mul(&mn, n) || !tp_op_mul(&f, mn) || !tp_op_mul(&f, k))
        return false;
    if (bias && !tp_op_add(&f, mn))
        return false;
    if (!tp_op_mul(&f, batch))
        return false;
    c->flops = f;
    uint64_t a = m, b = k, bytes = 0;
    if (!tp_op_mul(&a, k) || !tp_op_mul(&b, n) || !tp_op_mul(&a, batch) || !tp_op_mul(&b, batch) ||
        !tp_op_mul(&mn, batch))
        return false;
    if (!tp_op_add_bytes(&bytes, a, ea) || !tp_op_add_bytes(&bytes, b, eb) || !tp_op_add_bytes(&bytes, mn, ea))
        return false;
    c->bytes = bytes;
    return true;
}

/* The element count of input i, added as bytes (a bias, C of baddbmm). */
static bool add_tensor_bytes(const tp_op_inputs *in, size_t i, tp_op_cost *c)
{
    uint64_t n;
    return !tensor(in, i, -1) || (tp_op_numel(&in->in[i], &n) && tp_op_add_bytes(&c->bytes, n, in->in[i].elem_size));
}

/* matmul's batch: the broadcast of the dimensions before the last two */
static bool matmul_batch(const tp_op_input *a, const tp_op_input *b, uint64_t *batch)
{
    int ra = a->rank - 2, rb = b->rank - 2;
    *batch = 1;
    for (int k = 1; k <= (ra > rb ? ra : rb); k++) {
        int64_t x = k <= ra ? a->dims[ra - k] : 1, y = k <= rb ? b->dims[rb - k] : 1;
        if (x != y && x != 1 && y != 1)
            return false;
        if (!tp_op_mul(batch, (uint64_t)(x == 1 ? y : x)))
            return false;
    }
    return true;
}

int tp_op_gemm(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    size_t ia = variant == TP_GEMM_ADDMM || variant == TP_GEMM_BADDBMM ? 1 : 0, ib = ia + 1;
    if (!tensor(in, ia, -1) || !tensor(in, ib, -1)) {
        *why = "fewer than two matrix inputs";
        return -1;
    }
    const tp_op_input *a = &in->in[ia], *b = &in->in[ib];
    uint64_t batch = 1, m, n, k, k2;
    bool bias = false;
    switch (variant) {
    case TP_GEMM_MM:
    case TP_GEMM_ADDMM:
    case TP_GEMM_SCALED_MM:
        if (a->rank != 2 || b->rank != 2) {
            *why = "matrices that are not 2-D";
            return -1;
        }
        m = (uint64_t)a->dims[0], k = (uint64_t)a->dims[1], k2 = (uint64_t)b->dims[0], n = (uint64_t)b->dims[1];
        bias = variant == TP_GEMM_ADDMM || (variant == TP_GEMM_SCALED_MM && tensor(in, 4, -1));
        break;
    case TP_GEMM_BMM:
    case TP_GEMM_BADDBMM:
        if (a->rank != 3 || b->rank != 3 || a->dims[0] != b->dims[0]) {
            *why = "batched matrices that are not 3-D with one batch";
            return -1;
        }
        batch = (uint64_t)a->dims[0];
        m = (uint64_t)a->dims[1], k = (uint64_t)a->dims[2], k2 = (uint64_t)b->dims[1], n = (uint64_t)b->dims[2];
        bias = variant == TP_GEMM_BADDBMM;
        break;
    case TP_GEMM_MATMUL: {
        if (a->rank < 1 || b->rank < 1) {
            *why = "a 0-D operand";
            return -1;
        }
        m = a->rank >= 2 ? (uint64_t)a->dims[a->rank - 2] : 1;
        k = (uint64_t)a->dims[a->rank - 1];
        k2 = (uint64_t)b->dims[b->rank >= 2 ? b->rank - 2 : 0];
        n = b->rank >= 2 ? (uint64_t)b->dims[b->rank - 1] : 1;
        if (!matmul_batch(a, b, &batch)) {
            *why = "batch dimensions that do not broadcast";
            return -1;
        }
        break;
    }
    default: /* linear(input[..., K], weight[N, K], bias[N]) */
        if (a->rank < 1 || b->rank != 2) {
            *why = "a linear weight that is not 2-D";
            return -1;
        }
        k = (uint64_t)a->dims[a->rank - 1], k2 = (uint64_t)b->dims[1], n = (uint64_t)b->dims[0];
        m = 1;
        for (int d = 0; d < a->rank - 1; d++)
            if (!tp_op_mul(&m, (uint64_t)a->dims[d])) {
                *why = TOO_LARGE;
                return -1;
            }
        bias = tensor(in, 2, -1);
        break;
    }
    if (k != k2) {
        *why = "inner dimensions that differ";
        return -1;
    }
    if (!gemm_cost(batch, m, n, k, bias, a->elem_size, b->elem_size, c)) {
        *why = TOO_LARGE;
        return -1;
    }
    if (variant == TP_GEMM_MATMUL) { /* a broadcast operand is read once: its own size */
        uint64_t na, nb, out = batch;
        c->bytes = 0;
        if (!tp_op_numel(a, &na) || !tp_op_numel(b, &nb) || !tp_op_mul(&out, m) || !tp_op_mul(&out, n) ||
            !tp_op_add_bytes(&c->bytes, na, a->elem_size) || !tp_op_add_bytes(&c->bytes, nb, b->elem_size) ||
            !tp_op_add_bytes(&c->bytes, out, a->elem_size)) {
            *why = TOO_LARGE;
            return -1;
        }
    }
    /* the bias (addmm's first input, baddbmm's C, linear's and _scaled_mm's
     * bias) is read once; _scaled_mm also reads its scales */
    bool ok = true;
    if (variant == TP_GEMM_ADDMM || variant == TP_GEMM_BADDBMM)
        ok = add_tensor_bytes(in, 0, c);
    else if (variant == TP_GEMM_LINEAR)
        ok = add_tensor_bytes(in, 2, c);
    else if (variant == TP_GEMM_SCALED_MM) {
        ok = add_tensor_bytes(in, 2, c) && add_tensor_bytes(in, 3, c) && add_tensor_bytes(in, 4, c);
        /* the output in out_dtype (a ScalarType code) when recorded, not A's fp8 */
        int64_t code;
        int eo = in->n > 6 && tp_op_conc_ints(&in->in[6], &code, 1) == 1 ? tp_op_scalar_type_size(code) : 0;
        if (eo) {
            uint64_t mn = m, wrong = 0, right = 0;
            ok = ok && tp_op_mul(&mn, n) && tp_op_add_bytes(&wrong, mn, a->elem_size) && tp_op_add_bytes(&right, mn, eo);
            if (ok)
                c->bytes = c->bytes - wrong + right;
        }
    }
    if (!ok) {
        *why = TOO_LARGE;
        return -1;
    }
    c->peak = matrix_peak(a);
    return 0;
}

/* ---- convolution ---- */

/* stride, padding, dilation, output_padding: one value per spatial
 * dimension (a single value stands for all) */
static bool conv_param(const tp_op_inputs *in, size_t i, int nsp, int64_t dflt, int64_t *out)
{
    int64_t v[3];
    int n = i < in->n ? tp_op_conc_ints(&in->in[i], v, 3) : -1;
    if (n == 0 || (i < in->n && in->in[i].concrete_len == 0)) {
        for (int k = 0; k < nsp; k++)
            out[k] = dflt;
        return true;
    }
    if (n != 1 && n != nsp)
        return false;
    for (int k = 0; k < nsp; k++)
        out[k] = v[n == 1 ? 0 : k];
    return true;
}

/* convolution(input, weight, bias, stride, padding, dilation, transposed,
 * output_padding, groups);
 * convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask) */
int tp_op_conv(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    size_t o = variant == TP_CONV_BWD ? 1 : 0; /* the backward's arguments sit one later */
    if (!tensor(in, o, -1) || !tensor(in, o + 1, -1) || in->n < o + 9) {
        *why = "fewer inputs than a convolution has";
        return -1;
    }
    const tp_op_input *x = &in->in[o], *w = &in->in[o + 1];
    int nsp = x->rank - 2;
    if (nsp < 1 || nsp > 3 || w->rank != x->rank) {
        *why = "an input that is not 1-, 2- or 3-D with batch and channels";
        return -1;
    }
    int64_t stride[3], pad[3], dil[3], opad[3], groups[1];
    int transposed = tp_op_conc_bool(&in->in[o + 6]);
    if (!conv_param(in, o + 3, nsp, 1, stride) || !conv_param(in, o + 4, nsp, 0, pad) ||
        !conv_param(in, o + 5, nsp, 1, dil) || !conv_param(in, o + 7, nsp, 0, opad) || transposed < 0 ||
        tp_op_conc_ints(&in->in[o + 8], groups, 1) != 1 || groups[0] < 1) {
        *why = "stride, padding, dilation, transposed or groups not recorded";
        return -1;
    }
    /* sizes and parameters below 2^31 keep every product below in int64 */
    for (int k = 0; k < x->rank; k++)
        if (x->dims[k] > INT32_MAX || w->dims[k] > INT32_MAX || (k < nsp && (stride[k] > INT32_MAX ||
            pad[k] > INT32_MAX || dil[k] > INT32_MAX || opad[k] > INT32_MAX)) || groups[0] > INT32_MAX) {
            *why = "a convolution size or parameter beyond 2^31";
            return -1;
        }
    /* per output element (forward) or input element (transposed): 2 *
     * (channels per group) * kernel FLOPs; the weight is [C_out, C_in/g, k...],
     * transposed [C_in, C_out/g, k...] */
    uint64_t per = 2 * (uint64_t)w->dims[1], elems = (uint64_t)x->dims[0], out = elems, cout;
    cout = transposed ? (uint64_t)w->dims[1] * (uint64_t)groups[0] : (uint64_t)w->dims[0];
    if ((uint64_t)x->dims[1] != (transposed ? (uint64_t)w->dims[0] : (uint64_t)w->dims[1] * (uint64_t)groups[0])) {
        *why = "input channels that do not match the weight";
        return -1;
    }
    bool ok = tp_op_mul(&out, cout);
    for (int k = 0; k < nsp; k++) {
        int64_t i = x->dims[2 + k], kk = w->dims[2 + k], s;
        if (stride[k] < 1 || dil[k] < 1 || pad[k] < 0 || opad[k] < 0) {
            *why = "a stride, padding or dilation out of range";
            return -1;
        }
        if (transposed)
            s = (i - 1) * stride[k] - 2 * pad[k] + dil[k] * (kk - 1) + opad[k] + 1;
        else
            s = (i + 2 * pad[k] - dil[k] * (kk - 1) - 1) / stride[k] + 1;
        if (s < 1 || i < 1) {
            *why = "an output size below 1";
            return -1;
        }
        ok = ok && tp_op_mul(&per, (uint64_t)kk) && tp_op_mul(&out, (uint64_t)s);
    }
    uint64_t nx, nw;
    ok = ok && tp_op_numel(x, &nx) && tp_op_numel(w, &nw);
    uint64_t pass = transposed ? nx : out; /* the elements the kernel is applied for */
    ok = ok && tp_op_mul(&pass, per);
    if (!ok) {
        *why = TOO_LARGE;
        return -1;
    }
    uint64_t flops = 0, bytes = 0;
    int e = x->elem_size;
    if (variant == TP_CONV_FWD) {
        /* the bias is not counted: cuDNN and MIOpen add it with an op of
         * its own (an aten::add_ inside the convolution, its own row) */
        ok = tp_op_add(&flops, pass) && tp_op_add_bytes(&bytes, nx, e) &&
             tp_op_add_bytes(&bytes, nw, w->elem_size) && tp_op_add_bytes(&bytes, out, e);
    } else {
        /* output_mask [grad_input, grad_weight, grad_bias]: one pass each for
         * the first two, a sum over the output for the bias; reads
         * grad_output, input and weight, writes what the mask asks for */
        int mask[3];
        int gi = -1, gw = -1, gb = -1;
        if (in->n > 10 && tp_op_conc_bools(&in->in[10], mask, 3) == 3)
            gi = mask[0], gw = mask[1], gb = mask[2];
        if (gi < 0 || gw < 0 || gb < 0 || !tensor(in, 0, x->rank)) {
            *why = "no output_mask or grad_output recorded";
            return -1;
        }
        ok = tp_op_add_bytes(&bytes, out, e) && tp_op_add_bytes(&bytes, nx, e) &&
             tp_op_add_bytes(&bytes, nw, w->elem_size);
        if (gi)
            ok = ok && tp_op_add(&flops, pass) && tp_op_add_bytes(&bytes, nx, e);
        if (gw)
            ok = ok && tp_op_add(&flops, pass) && tp_op_add_bytes(&bytes, nw, w->elem_size);
        if (gb)
            ok = ok && tp_op_add(&flops, out) && tp_op_add_bytes(&bytes, cout, e);
    }
    if (!ok) {
        *why = TOO_LARGE;
        return -1;
    }
    c->flops = flops;
    c->bytes = bytes;
    c->peak = matrix_peak(x);
    return 0;
}

/* ---- attention ---- */

/* Where each attention op keeps q, k, v and its causal flag, and how its
 * causal mask is aligned when Lq != Lkv (PyTorch's sdp_utils: the flash
 * kernels are bottom-right, the efficient ones top-left; cuDNN's is not
 * documented, so such a shape gets a reason). */
enum { ALIGN_TOP_LEFT, ALIGN_BOTTOM_RIGHT, ALIGN_UNKNOWN };
static const struct {
    bool blhd;         /* q is [B, L, H, d] (else [B, H, L, d]) */
    bool backward;
    uint8_t q;         /* index of the query */
    uint8_t causal;    /* index of is_causal */
    bool mask_type;    /* causal is custom_mask_type: 0 none, 1 top-left, 2 bottom-right */
    uint8_t align;     /* of is_causal */
} attn[] = {
    {false, false, 0, 4, false, ALIGN_BOTTOM_RIGHT}, /* 0 _scaled_dot_product_flash_attention */
    {false, false, 0, 6, false, ALIGN_TOP_LEFT},     /* 1 _scaled_dot_product_efficient_attention */
    {false, false, 0, 6, false, ALIGN_UNKNOWN},      /* 2 _scaled_dot_product_cudnn_attention */
    {true, false, 0, 8, false, ALIGN_BOTTOM_RIGHT},  /* 3 _flash_attention_forward */
    {true, false, 0, 9, true, ALIGN_TOP_LEFT},       /* 4 _efficient_attention_forward */
    {false, true, 1, 11, false, ALIGN_BOTTOM_RIGHT}, /* 5 _scaled_dot_product_flash_attention_backward */
    {false, true, 1, 11, false, ALIGN_TOP_LEFT},     /* 6 _scaled_dot_product_efficient_attention_backward */
    {false, true, 1, 14, false, ALIGN_UNKNOWN},      /* 7 _scaled_dot_product_cudnn_attention_backward */
    {true, true, 1, 11, false, ALIGN_BOTTOM_RIGHT},  /* 8 _flash_attention_backward */
    {true, true, 1, 14, true, ALIGN_TOP_LEFT},       /* 9 _efficient_attention_backward */
    {true, false, 0, 5, false, ALIGN_BOTTOM_RIGHT},  /* 10 aiter::mha_fwd, aiter::fmha_v3_fwd (q, k, v, dropout, scale, causal) */
    {true, true, 1, 8, false, ALIGN_BOTTOM_RIGHT},   /* 11 aiter::mha_bwd (dout, q, k, v, out, lse, dropout, scale, causal) */
};

/* (query, key) pairs a causal mask keeps, Lq != Lkv: top-left (PyTorch's
 * is_causal: query i sees keys 0..i) or bottom-right (query i sees keys up
 * to Lkv - Lq + i) */
/* (query, key) pairs a causal mask keeps when Lq != Lkv: top-left (PyTorch's
 * math and efficient kernels, custom_mask_type 1: query i sees keys 0..i)
 * or bottom-right (FlashAttention, custom_mask_type 2: query i sees keys up
 * to i + Lkv - Lq).  Query i sees min(Lkv, max(0, i + 1 + shift)) keys. */
static uint64_t causal_pairs(uint64_t lq, uint64_t lkv, bool bottom_right)
{
    int64_t shift = bottom_right ? (int64_t)lkv - (int64_t)lq : 0;
    /* queries seeing nothing: i + 1 + shift <= 0; all keys: i + 1 + shift >= Lkv */
    int64_t first = -shift;               /* first i that sees a key (may be < 0) */
    int64_t full = (int64_t)lkv - 1 - shift; /* first i that sees every key */
    int64_t a = first < 0 ? 0 : first, b = full < (int64_t)lq ? full : (int64_t)lq;
    uint64_t pairs = 0;
    if (b > a) /* i in [a, b): i + 1 + shift keys, an arithmetic series */
        pairs += (uint64_t)((b - a) * (a + b - 1 + 2 * (1 + shift)) / 2);
    int64_t c = full > 0 ? full : 0;
    if ((int64_t)lq > c)
        pairs += (uint64_t)((int64_t)lq - c) * lkv;
    return pairs;
}

int tp_op_attention(int variant, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    size_t q = attn[variant].q;
    if (!tensor(in, q, 4) || !tensor(in, q + 1, 4) || !tensor(in, q + 2, 4)) {
        *why = "query, key and value that are not 4-D (variable-length attention is not modelled)";
        return -1;
    }
    const tp_op_input *Q = &in->in[q], *K = &in->in[q + 1], *V = &in->in[q + 2];
    int hd = attn[variant].blhd ? 2 : 1, ld = attn[variant].blhd ? 1 : 2;
    uint64_t b = (uint64_t)Q->dims[0], hq = (uint64_t)Q->dims[hd], lq = (uint64_t)Q->dims[ld],
             dqk = (uint64_t)Q->dims[3], hkv = (uint64_t)K->dims[hd], lkv = (uint64_t)K->dims[ld],
             dv = (uint64_t)V->dims[3];
    if ((uint64_t)K->dims[0] != b || (uint64_t)V->dims[0] != b || (uint64_t)K->dims[3] != dqk ||
        (uint64_t)V->dims[ld] != lkv || (uint64_t)V->dims[hd] != hkv || hkv == 0 || hq % hkv != 0) {
        *why = "query, key and value shapes that do not fit together";
        return -1;
    }
    int causal = -1;
    if (attn[variant].causal < in->n) {
        const tp_op_input *f = &in->in[attn[variant].causal];
        if (attn[variant].mask_type) {
            int64_t mt;
            if (tp_op_conc_ints(f, &mt, 1) == 1 && mt >= 0 && mt <= 2)
                causal = (int)mt;
        } else
            causal = tp_op_conc_bool(f);
    }
    if (causal < 0) {
        *why = "no causal flag recorded";
        return -1;
    }
    if (lq > (1u << 24) || lkv > (1u << 24)) {
        *why = TOO_LARGE;
        return -1;
    }
    /* score pairs: Lq * Lkv, halved when causal over a square mask (the
     * FLOPs halved, as FLOPs of the full square are even) */
    uint64_t pairs = lq * lkv, f = 2;
    if (causal && lq != lkv) {
        /* is_causal (1) takes the op's alignment; custom_mask_type says its own (1, 2) */
        int align = attn[variant].mask_type ? (causal == 2 ? ALIGN_BOTTOM_RIGHT : ALIGN_TOP_LEFT) : attn[variant].align;
        if (align == ALIGN_UNKNOWN) {
            *why = "causal attention with Lq != Lkv whose mask alignment is not known (cuDNN)";
            return -1;
        }
        pairs = causal_pairs(lq, lkv, align == ALIGN_BOTTOM_RIGHT);
    }
    /* forward: S = QK^T (d_qk) and O = PV (d_v); backward recomputes S and
     * computes dV, dP, dQ, dK: 3 d_qk + 2 d_v */
    uint64_t width = attn[variant].backward ? 3 * dqk + 2 * dv : dqk + dv;
    bool ok = tp_op_mul(&f, b) && tp_op_mul(&f, hq) && tp_op_mul(&f, pairs) && tp_op_mul(&f, width);
    if (causal && lq == lkv)
        f /= 2;
    /* bytes: Q, K, V read and O written; backward also reads O and dO and
     * writes dQ, dK, dV */
    uint64_t nq, nk, nv, no = b, bytes = 0;
    ok = ok && tp_op_numel(Q, &nq) && tp_op_numel(K, &nk) && tp_op_numel(V, &nv) && tp_op_mul(&no, hq) &&
         tp_op_mul(&no, lq) && tp_op_mul(&no, dv);
    int e = Q->elem_size, times = attn[variant].backward ? 2 : 1;
    for (int k = 0; k < times; k++)
        ok = ok && tp_op_add_bytes(&bytes, nq, e) && tp_op_add_bytes(&bytes, nk, K->elem_size) &&
             tp_op_add_bytes(&bytes, nv, V->elem_size) && tp_op_add_bytes(&bytes, no, e);
    if (!ok) {
        *why = TOO_LARGE;
        return -1;
    }
    c->flops = f;
    c->bytes = bytes;
    c->peak = matrix_peak(Q);
    return 0;
}
