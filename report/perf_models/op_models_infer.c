/* op_models_infer.c: inference attention and KV-cache ops (op_models_infer.h).
 * The formulas follow TraceLens's InferenceAttention (docs/REPORT.md
 * "Inference ops"), so the rows can be checked against its inference CSVs. */
#include "report/perf_models/op_models_infer.h"
#include "report/perf_models/op_models_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- iteration annotations ---- */

/* "sq123sk456sqsq7sqsk8" at p: the four numbers; the end, or NULL. */
static const char *four(const char *p, int64_t v[4])
{
    static const char *const tags[4] = {"sq", "sk", "sqsq", "sqsk"};
    for (int k = 0; k < 4; k++) {
        size_t n = strlen(tags[k]);
        if (strncmp(p, tags[k], n) != 0)
            return NULL;
        p += n;
        if (*p < '0' || *p > '9')
            return NULL;
        int64_t x = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (x > (INT64_MAX - 9) / 10)
                return NULL;
            x = x * 10 + (*p - '0');
        }
        v[k] = x;
    }
    return p;
}

/* "_context_C(" then four numbers then ")" */
static const char *group(const char *p, const char *word, int64_t v[4])
{
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0)
        return NULL;
    p += n;
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p++ != '(')
        return NULL;
    p = four(p, v);
    return p && *p == ')' ? p + 1 : NULL;
}

static bool vllm_detailed(const char *name, tp_chunk_stats *cs)
{
    const char *p = strstr(name, "execute_");
    if (!p)
        return false;
    p += 8;
    while (*p >= '0' && *p <= '9')
        p++;
    int64_t c[4], g[4];
    if (!(p = group(p, "_context_", c)) || !(p = group(p, "_generation_", g)))
        return false;
    *cs = (tp_chunk_stats){c[0], c[1], c[2], c[3], g[0], g[1], g[2], g[3]};
    return true;
}

/* the value of " key=N" inside [begin, end): 0 when absent; false when malformed */
static bool member(const char *b, const char *e, const char *key, int64_t *v)
{
    size_t n = strlen(key);
    *v = 0;
    for (const char *p = b; p + n < e; p++) {
        if ((p == b || p[-1] != ' ') || strncmp(p, key, n) != 0 || p[n] != '=')
            continue;
        const char *q = p + n + 1;
        if (q >= e || *q < '0' || *q > '9')
            return false;
        int64_t x = 0;
        for (; q < e && *q >= '0' && *q <= '9'; q++) {
            if (x > (INT64_MAX - 9) / 10)
                return false;
            x = x * 10 + (*q - '0');
        }
        *v = x;
        return true;
    }
    return true;
}

static bool sglang_detailed(const char *name, tp_chunk_stats *cs)
{
    if (strncmp(name, "step[", 5) != 0)
        return false;
    const char *b = name + 5, *e = strchr(b, ']');
    if (!e || !(strncmp(b, "DECODE", 6) == 0 || strncmp(b, "EXTEND", 6) == 0 || strncmp(b, "MIXED", 5) == 0))
        return false;
    static const char *const keys[8] = {"c_sq", "c_sk", "c_sqsq", "c_sqsk", "g_sq", "g_sk", "g_sqsq", "g_sqsk"};
    int64_t v[8];
    bool any_sqsq = false;
    for (int k = 0; k < 8; k++) {
        if (!member(b, e, keys[k], &v[k]))
            return false;
        any_sqsq |= (k == 2 || k == 6) && strstr(b, keys[k]) && strstr(b, keys[k]) < e;
    }
    if (!any_sqsq) /* the native label (bs and toks only): no sequence lengths */
        return false;
    *cs = (tp_chunk_stats){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    return true;
}

bool tp_chunk_stats_parse(const char *name, tp_chunk_stats *cs)
{
    return vllm_detailed(name, cs) || sglang_detailed(name, cs);
}

/* ---- the ops ---- */

enum {
    ATT_BASE,        /* q [N_Q, H_Q, d_qk] = input 0, k [..., N_KV, H_KV, d_v] = input 1 */
    ATT_BASE_V2,     /* the same, d_v from input 2's last dimension (v) */
    ATT_PAGED_RAGGED /* q = input 2, k cache [pages, page, H_KV, d] = input 3, v cache = input 4 */,
    KV_STORE,        /* (k, v, k_cache, v_cache, loc, ...): k and v read, written into the caches */
    GEMM_A16W16,     /* (x [M, K], w [N, K], bias or none, ...): y = x w^T (+ bias) in x's dtype */
    GEMM_ATOMIC,     /* (x, w, dtype, y, ...): y's dtype is input 3's, else bf16; no bias */
    GEMM_UNQUANT,    /* vLLM (x, w, bias): the output in the bias's dtype with a bias, else in w's */
    GEMM_A8W8,       /* (x [M, K], w [N, K], x_scale, w_scale, ...) 8-bit inputs, bf16 output; scales not counted */
    MOE_VLLM,        /* vLLM's aiter fused MoE: (x [M, K], w1 [E, N or 2N, K], w2 [E, K, N], topk_weights [M, topk], ...) */
    MOE_FMOE,        /* aiter fmoe: (out [M, K], x, w1, w2, ...), topk = Concrete Inputs[8] */
    MOE_UNFUSED      /* vLLM moe_forward (hidden [M, K], router logits [M, E], ...): its kernels say the rest */
};

static const struct {
    const char *name;
    uint8_t family, kind;
} infer_ops[] = {
    /* sorted by name (strcmp) */
    {"aiter::_gemm_a8w8_blockscale_bpreshuffle_asm", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::flatmm_a8w8_blockscale_asm", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::fmoe_fp8_blockscale_g1u1", TP_FAM_GEMM, MOE_FMOE},
    {"aiter::fmoe_g1u1", TP_FAM_GEMM, MOE_FMOE},
    {"aiter::fmha_v3_varlen_fwd", TP_FAM_ATTENTION, ATT_BASE_V2},
    {"aiter::gemm_a16w16", TP_FAM_GEMM, GEMM_A16W16},
    {"aiter::gemm_a16w16_atomic_", TP_FAM_GEMM, GEMM_ATOMIC},
    {"aiter::gemm_a8w8_blockscale_bpreshuffle_ck", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_blockscale_bpreshuffle_cktile", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_blockscale_ck", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_blockscale_cktile", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_bpreshuffle", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_bpreshuffle_ck", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gemm_a8w8_ck", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::gfx950_a8w8_blockscale_asm", TP_FAM_GEMM, GEMM_A8W8},
    {"aiter::mha_batch_prefill", TP_FAM_ATTENTION, ATT_BASE_V2},
    {"aiter::mha_varlen_fwd", TP_FAM_ATTENTION, ATT_BASE},
    {"aiter::paged_attention_ragged", TP_FAM_ATTENTION, ATT_PAGED_RAGGED},
    {"sglang::store_cache", TP_FAM_ELEMENTWISE, KV_STORE},
    {"sglang_profiler::attention_paged_attention_ragged", TP_FAM_ATTENTION, ATT_PAGED_RAGGED},
    {"sglang_profiler::fp8_utils_gemm_a8w8_blockscale", TP_FAM_GEMM, GEMM_A8W8},
    {"sglang_profiler::gemm_a8w8_blockscale_gemm_a8w8_blockscale", TP_FAM_GEMM, GEMM_A8W8},
    {"vllm::_rocm_aiter_preshuffled_per_token_w8a8_gemm", TP_FAM_GEMM, GEMM_A8W8},
    {"vllm::moe_forward", TP_FAM_GEMM, MOE_UNFUSED},
    {"vllm::rocm_aiter_fused_moe", TP_FAM_GEMM, MOE_VLLM},
    {"vllm::rocm_aiter_triton_gemm_a8w8_blockscale", TP_FAM_GEMM, GEMM_A8W8},
    {"vllm::rocm_unquantized_gemm", TP_FAM_GEMM, GEMM_UNQUANT},
    {"vllm::unified_attention_with_output", TP_FAM_ATTENTION, ATT_BASE},
};
#define NINFER (sizeof infer_ops / sizeof *infer_ops)

int tp_infer_op(const char *name, size_t len, tp_op_family *family)
{
    if (len < 7 || !(name[0] == 'a' || name[0] == 's' || name[0] == 'v'))
        return -1;
    size_t base = len;
    if (len > 17 && memcmp(name, "sglang_profiler::", 17) == 0) { /* "..._100": the layer's scope */
        size_t k = len;
        while (k > 17 && name[k - 1] >= '0' && name[k - 1] <= '9')
            k--;
        if (k < len && k > 17 && name[k - 1] == '_')
            base = k - 1;
    }
    for (size_t i = 0; i < NINFER; i++)
        if (strlen(infer_ops[i].name) == base && memcmp(infer_ops[i].name, name, base) == 0) {
            if (family)
                *family = (tp_op_family)infer_ops[i].family;
            return (int)i;
        }
    return -1;
}

bool tp_infer_needs_chunk(int k)
{
    return k >= 0 && (size_t)k < NINFER && infer_ops[k].kind <= ATT_PAGED_RAGGED;
}

static bool mul3(uint64_t *acc, uint64_t a, uint64_t b, uint64_t c)
{
    *acc = 1;
    return tp_op_mul(acc, a) && tp_op_mul(acc, b) && tp_op_mul(acc, c);
}

static int attention(int kind, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    const tp_chunk_stats *s = in->chunk;
    if (!s) {
        *why = "no iteration annotation with sequence lengths around the launch (vLLM execute_..._context_..(sq..sk.."
               "sqsq..sqsk..), SGLang step[... g_sqsk=..]): the KV lengths are not in the shapes";
        return -1;
    }
    int qi = kind == ATT_PAGED_RAGGED ? 2 : 0, ki = kind == ATT_PAGED_RAGGED ? 3 : 1;
    const tp_op_input *q = (size_t)qi < in->n ? &in->in[qi] : NULL, *k = (size_t)ki < in->n ? &in->in[ki] : NULL;
    if (!q || !k || q->rank != 3 || k->rank < (kind == ATT_PAGED_RAGGED ? 2 : 3)) {
        *why = kind == ATT_PAGED_RAGGED ? "expected q [tokens, heads, head dim] third and the paged K cache fourth"
                                        : "expected q [tokens, heads, head dim] first and K [..., tokens, heads, dim]";
        return -1;
    }
    int64_t h_q = q->dims[1], d_qk = q->dims[2];
    int64_t h_kv = kind == ATT_PAGED_RAGGED ? k->dims[k->rank - 2] : k->dims[k->rank - 2];
    int64_t d_v = k->dims[k->rank - 1];
    if (kind == ATT_PAGED_RAGGED || kind == ATT_BASE_V2) {
        const tp_op_input *v = in->n > (size_t)(kind == ATT_PAGED_RAGGED ? 4 : 2)
                                   ? &in->in[kind == ATT_PAGED_RAGGED ? 4 : 2] : NULL;
        if (v && v->rank >= 1)
            d_v = v->dims[v->rank - 1];
    }
    int esz = q->elem_size, matrix_peak = -1;
    bool is_float = false;
    if (q->type)
        tp_op_dtype(q->type, q->type_len, &is_float, &matrix_peak);
    int esz_kv = kind == ATT_PAGED_RAGGED ? esz : (k->elem_size ? k->elem_size : esz);
    if (!esz || h_q <= 0 || d_qk <= 0 || h_kv <= 0 || d_v <= 0) {
        *why = "a dtype or a dimension that is not known";
        return -1;
    }
    if (s->c_sq == 0 && s->g_sq == 0) {
        *why = "an iteration with no query token";
        return -1;
    }
    if (s->c_sk < s->c_sq || s->g_sk < s->g_sq || s->c_sqsk > INT64_MAX / 4 || s->g_sqsk > INT64_MAX / 4 ||
        2 * s->c_sqsk < s->c_sqsq) {
        *why = "sequence statistics with fewer KV tokens than query tokens";
        return -1;
    }
    /* FLOPs: QK^T and PV, 2 per multiply-add; the context's causal half of
     * its own chunk (sq*sq/2 pairs) not computed: H_Q (2 c_sqsk - c_sqsq)
     * (d_qk + d_v) + H_Q 2 g_sqsk (d_qk + d_v) */
    uint64_t f = 0, t;
    uint64_t ctx_pairs = (uint64_t)(2 * s->c_sqsk - s->c_sqsq), gen_pairs = 0;
    bool ok = tp_op_add(&gen_pairs, (uint64_t)s->g_sqsk) && tp_op_mul(&gen_pairs, 2) &&
              mul3(&t, ctx_pairs, (uint64_t)h_q, (uint64_t)(d_qk + d_v)) && tp_op_add(&f, t) &&
              mul3(&t, gen_pairs, (uint64_t)h_q, (uint64_t)(d_qk + d_v)) && tp_op_add(&f, t);
    /* bytes: the new tokens' Q read, output written, K and V read in Q's
     * dtype; the cached tokens' K and V read in the cache's dtype */
    uint64_t new_tok = (uint64_t)(s->c_sq + s->g_sq), cached = (uint64_t)((s->c_sk - s->c_sq) + (s->g_sk - s->g_sq));
    uint64_t elems_q = 0, elems_kv = 0, by = 0;
    ok = ok && mul3(&t, new_tok, (uint64_t)h_q, (uint64_t)(d_qk + d_v)) && tp_op_add(&elems_q, t) &&
         mul3(&t, new_tok, (uint64_t)h_kv, (uint64_t)(d_qk + d_v)) && tp_op_add(&elems_q, t) &&
         mul3(&elems_kv, cached, (uint64_t)h_kv, (uint64_t)(d_qk + d_v)) && tp_op_add_bytes(&by, elems_q, esz) &&
         tp_op_add_bytes(&by, elems_kv, esz_kv);
    if (!ok) {
        *why = "FLOPs or bytes past 2^64";
        return -1;
    }
    c->flops = f;
    c->bytes = by;
    c->peak = is_float ? matrix_peak : -1;
    return 0;
}

static int kv_store(const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    uint64_t nk, nv, by = 0;
    if (in->n < 2 || !tp_op_numel(&in->in[0], &nk) || !tp_op_numel(&in->in[1], &nv) || !in->in[0].elem_size ||
        !tp_op_add_bytes(&by, nk, in->in[0].elem_size) || !tp_op_add_bytes(&by, nv, in->in[1].elem_size) ||
        !tp_op_mul(&by, 2)) {
        *why = "expected the new K and V tensors first";
        return -1;
    }
    c->flops = 0; /* a copy: read k and v, write them into the caches */
    c->bytes = by;
    c->peak = TP_PEAK_VECTOR_FP32;
    return 0;
}

/* Element size of input i's recorded dtype (0 unknown); its matrix peak class in *peak. */
static int dtype_of(const tp_op_inputs *in, size_t i, int *peak)
{
    if (i >= in->n || !in->in[i].type)
        return 0;
    bool is_float = false;
    int mp = -1, sz = tp_op_dtype(in->in[i].type, in->in[i].type_len, &is_float, &mp);
    if (peak)
        *peak = mp;
    return sz;
}

/* y[M, N] = x[M, K] w[N, K]^T: 2 M N K FLOPs; x, w and y moved once, and the bias. */
static int gemm_nk(int kind, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    const tp_op_input *x = in->n >= 2 ? &in->in[0] : NULL, *w = in->n >= 2 ? &in->in[1] : NULL;
    if (!x || x->rank != 2 || w->rank != 2 || x->dims[1] != w->dims[1] || x->dims[0] < 0 || w->dims[0] < 0) {
        *why = "expected x [M, K] and w [N, K] first";
        return -1;
    }
    uint64_t m = (uint64_t)x->dims[0], n = (uint64_t)w->dims[0], k = (uint64_t)x->dims[1];
    int peak = -1, ex = dtype_of(in, 0, &peak), ew = dtype_of(in, 1, NULL), eo = 0, eb = 0;
    bool bias = in->n > 2 && in->in[2].rank >= 1;
    switch (kind) {
    case GEMM_A16W16: eo = ex, eb = bias ? ex : 0; break;
    case GEMM_ATOMIC: eo = dtype_of(in, 3, NULL) ? dtype_of(in, 3, NULL) : 2, bias = false; break;
    case GEMM_UNQUANT: eo = bias ? dtype_of(in, 2, NULL) : ew, eb = bias ? eo : 0; break;
    default: eo = 2, bias = false; break; /* GEMM_A8W8: bf16 out */
    }
    if (!ex || !ew || !eo || (bias && !eb)) {
        *why = "a dtype that is not known";
        return -1;
    }
    uint64_t f = 2, by = 0, t;
    bool ok = tp_op_mul(&f, m) && tp_op_mul(&f, n) && tp_op_mul(&f, k);
    ok = ok && (t = m, tp_op_mul(&t, k)) && tp_op_add_bytes(&by, t, ex) && (t = n, tp_op_mul(&t, k)) &&
         tp_op_add_bytes(&by, t, ew) && (t = m, tp_op_mul(&t, n)) && tp_op_add_bytes(&by, t, eo) &&
         (!bias || tp_op_add_bytes(&by, n, eb));
    if (!ok) {
        *why = "FLOPs or bytes past 2^64";
        return -1;
    }
    c->flops = f;
    c->bytes = by;
    c->peak = kind == GEMM_A8W8 && peak < 0 && ex == 1 ? TP_PEAK_MATRIX_FP8 : peak; /* int8 against the 8-bit peak */
    return 0;
}

/* Fused MoE: M tokens of hidden size K, E experts of intermediate size N,
 * topk experts per token, gated (w1 holds gate and up: 2N rows).  FLOPs: the
 * experts' GEMMs for the routed tokens, 2 M K N topk (x2 gated) up and
 * 2 M K N topk down, and the weighted sum M K (2 topk - 1).  Bytes: x read,
 * y written, and the weights of the experts the tokens reach, under uniform
 * routing E_active = E (1 - ((E - topk) / E)^M), w1 (x2 gated) and w2 once
 * each (rounded to a byte). */
static int moe(int kind, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    size_t xi = kind == MOE_VLLM ? 0 : 1, w1i = kind == MOE_VLLM ? 1 : 2, w2i = kind == MOE_VLLM ? 2 : 3;
    const tp_op_input *x = in->n > w2i ? &in->in[xi] : NULL, *w1 = x ? &in->in[w1i] : NULL,
                      *w2 = x ? &in->in[w2i] : NULL, *out = in->n > 0 ? &in->in[0] : NULL;
    if (!x || x->rank != 2 || w1->rank != 3 || w2->rank != 3 || w1->dims[0] != w2->dims[0] || w1->dims[2] <= 0) {
        *why = kind == MOE_VLLM ? "expected x [M, K], w1 [E, 2N, K], w2 [E, K, N] first"
                                : "expected out [M, K], x, w1 [E, 2N, K], w2 [E, K, N] first";
        return -1;
    }
    int64_t topk = 0;
    if (kind == MOE_VLLM) {
        const tp_op_input *tw = in->n > 3 ? &in->in[3] : NULL;
        topk = tw && tw->rank == 2 ? tw->dims[1] : 0;
    } else if (in->n > 8) {
        int64_t v[2];
        topk = tp_op_conc_ints(&in->in[8], v, 2) == 1 ? v[0] : 0;
    }
    int64_t m = (kind == MOE_VLLM ? x : out)->dims[0], e = w1->dims[0], k = w2->dims[1];
    int64_t n = w2->dims[2] * (k / w1->dims[2] > 0 ? k / w1->dims[2] : 1); /* 4-bit weights: two per byte */
    bool gated = w1->dims[1] == 2 * n;
    if (topk <= 0 || topk > e || m < 0 || k <= 0 || n <= 0 || e <= 0) {
        *why = "no top-k (experts per token) recorded, or sizes that do not fit";
        return -1;
    }
    int peak = -1;
    int ex = dtype_of(in, xi, &peak), ew = dtype_of(in, w1i, NULL),
        eo = kind == MOE_VLLM ? ex : dtype_of(in, 0, NULL);
    if (!ex || !ew || !eo) {
        *why = "a dtype that is not known";
        return -1;
    }
    uint64_t f = 0, t;
    bool ok = mul3(&t, (uint64_t)m, (uint64_t)k, (uint64_t)n) && tp_op_mul(&t, (uint64_t)topk) &&
              tp_op_mul(&t, gated ? 6 : 4) && tp_op_add(&f, t) && mul3(&t, (uint64_t)m, (uint64_t)k, 1) &&
              tp_op_mul(&t, (uint64_t)(2 * topk - 1)) && tp_op_add(&f, t);
    double active = (double)e * (1.0 - pow((double)(e - topk) / (double)e, (double)m));
    double by = (double)m * (double)k * (ex + eo) + active * (double)n * (double)k * ew * (gated ? 3 : 2);
    if (!ok || !(by < 1.8e19)) {
        *why = "FLOPs or bytes past 2^64";
        return -1;
    }
    c->flops = f;
    c->bytes = (uint64_t)llround(by);
    c->peak = peak;
    return 0;
}

int64_t tp_infer_topk_of(const tp_op_inputs *in)
{
    int64_t v[2];
    return in->n > 1 && tp_op_conc_ints(&in->in[1], v, 2) == 1 && v[0] > 0 ? v[0] : 0;
}

bool tp_infer_alloc_size(const tp_op_inputs *in, int64_t *rows, int64_t *last)
{
    int64_t v[TP_OP_MAX_RANK];
    int r = in->n >= 1 ? tp_op_conc_ints(&in->in[0], v, TP_OP_MAX_RANK) : -1;
    if (r < 2)
        return false;
    int64_t p = 1;
    for (int d = 0; d < r; d++) {
        if (v[d] < 0 || (d < r - 1 && v[d] && p > INT64_MAX / v[d]))
            return false;
        if (d < r - 1)
            p *= v[d];
    }
    *rows = p;
    *last = v[r - 1];
    return true;
}

bool tp_infer_reads_kernels(int k) { return k >= 0 && (size_t)k < NINFER && infer_ops[k].kind == MOE_UNFUSED; }

/* vLLM's unfused Triton MoE (GPT-OSS): an up GEMM (gated: gate and up) and a
 * down GEMM over the routed tokens, of hidden size K (input 0), E experts
 * (the router logits' last size) and the experts' intermediate size N.  N is
 * not among the op's inputs (the weights are not recorded) and is not K in
 * general (GPT-OSS pads them differently: hidden states [32, 3072], up GEMM
 * output [1, 128, 2944]); TraceLens takes N = K.  A capture trace records
 * the allocation of the up GEMM's output inside the op: the first
 * allocation of M topk rows (the up GEMM runs first; its output is
 * allocated before the down GEMM's [.., M topk, K]) gives N.  Without it,
 * nothing is guessed: no cost, with the reason.  FLOPs and bytes as
 * TraceLens's UnfusedMoE_Up + UnfusedMoE_Down: up 2 M K N topk (x2 gated),
 * down 2 M N K topk; bytes x read, the active experts' weights (E_active as
 * moe() above; x2 gated for up) at the kernels' weight width (mxfp4 half a
 * byte, fp8 one, else the input's), the intermediate M topk N written and
 * read, the output M K written. */
static int moe_unfused(const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    const tp_moe_hint *h = in->moe;
    const tp_op_input *x = in->n >= 2 ? &in->in[0] : NULL, *r = in->n >= 2 ? &in->in[1] : NULL;
    if (!x || x->rank != 2 || r->rank != 2 || x->dims[0] != r->dims[0]) {
        *why = "expected hidden states [M, K] and router logits [M, E] first";
        return -1;
    }
    if (!h || !h->matmul_ogs) {
        *why = "no Triton matmul_ogs kernels: not the unfused MoE this model knows";
        return -1;
    }
    int64_t m = x->dims[0], k = x->dims[1], e = r->dims[1], topk = h->topk, n = 0;
    if (topk <= 0 || topk > e || k <= 0 || m <= 0) {
        *why = "no TopK op with its k recorded inside the MoE op";
        return -1;
    }
    for (int a = 0; a < h->nallocs && !n; a++)
        if (m <= INT64_MAX / topk && h->alloc_rows[a] == m * topk && h->alloc_last[a] > 0)
            n = h->alloc_last[a];
    if (!n) {
        *why = "the experts' intermediate size is not recorded (no allocation of M x topk rows inside the op in "
               "a capture trace; not taken equal to the hidden size)";
        return -1;
    }
    int peak = -1, ex = dtype_of(in, 0, &peak);
    if (!ex) {
        *why = "a dtype that is not known";
        return -1;
    }
    double ew = h->weight_bits == 4 ? 0.5 : h->weight_bits == 8 ? 1.0 : (double)ex, g = h->gated ? 2.0 : 1.0;
    uint64_t f = 0, t;
    bool ok = mul3(&t, (uint64_t)m, (uint64_t)k, (uint64_t)n) && tp_op_mul(&t, (uint64_t)topk) &&
              tp_op_mul(&t, h->gated ? 6 : 4) && tp_op_add(&f, t);
    double active = (double)e * (1.0 - pow((double)(e - topk) / (double)e, (double)m));
    double md = (double)m, kd = (double)k, nd = (double)n, td = (double)topk;
    double by = md * kd * ex + active * g * kd * nd * ew + md * nd * td * ex /* up */
                + md * nd * td * ex + active * nd * kd * ew + md * kd * ex;  /* down */
    if (!ok || !(by < 1.8e19)) {
        *why = "FLOPs or bytes past 2^64";
        return -1;
    }
    c->flops = f;
    c->bytes = (uint64_t)llround(by);
    c->peak = peak;
    return 0;
}

int tp_infer_cost(int k, const tp_op_inputs *in, tp_op_cost *c, const char **why)
{
    if (k < 0 || (size_t)k >= NINFER) {
        *why = "no model for this op";
        return -1;
    }
    c->family = (tp_op_family)infer_ops[k].family;
    int kind = infer_ops[k].kind;
    if (kind == KV_STORE)
        return kv_store(in, c, why);
    if (kind == MOE_VLLM || kind == MOE_FMOE)
        return moe(kind, in, c, why);
    if (kind == MOE_UNFUSED)
        return moe_unfused(in, c, why);
    if (kind >= GEMM_A16W16)
        return gemm_nk(kind, in, c, why);
    return attention(kind, in, c, why);
}
