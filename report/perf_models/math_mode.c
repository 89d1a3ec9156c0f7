/* math_mode.c: the math a kernel ran, from its name (math_mode.h). */
#include "report/perf_models/math_mode.h"
#include "convert/base/common.h"
#include "report/perf_models/devices.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *tp_math_mode_name(tp_math_mode m)
{
    static const char *const names[TP_MATH_MODES] = {"unknown", "fp64", "fp32", "fp32 matrix", "tf32",
                                                     "fp16 or bf16", "fp16", "bf16", "fp8", "int8"};
    return (unsigned)m < TP_MATH_MODES ? names[m] : "unknown";
}

static bool has(const char *s, const char *w) { return strstr(s, w) != NULL; }

/* AMD Tensile / hipBLASLt: "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8..."; the
 * third part names the types, data type first: H fp16, B bf16, S fp32, D fp64,
 * X xf32 (tf32), I8 int8, F8/B8 fp8 (the letters after it are the output and
 * compute types, or B for "beta").  fp32 with matrix instructions ("_MI") ran
 * on the matrix cores, without them on the vector ALUs. */
static tp_math_mode tensile(const char *s)
{
    const char *p = s + 5; /* after "cijk_" */
    for (int k = 0; k < 2; k++) { /* the A and B layouts */
        p = strchr(p, '_');
        if (!p)
            return TP_MATH_UNKNOWN;
        p++;
    }
    if (!strncmp(p, "f8", 2) || !strncmp(p, "b8", 2))
        return TP_MATH_FP8;
    if (!strncmp(p, "i8", 2) || !strncmp(p, "4xi8", 4))
        return TP_MATH_INT8;
    switch (*p) {
    case 'h': return TP_MATH_FP16;
    case 'b': return TP_MATH_BF16;
    case 'x': return TP_MATH_TF32;
    case 'd': return TP_MATH_FP64;
    case 's': return has(p, "_mi") ? TP_MATH_FP32_MATRIX : TP_MATH_FP32;
    default: return TP_MATH_UNKNOWN;
    }
}

/* cuBLASLt's nvjet kernels: "nvjet_tst_128x256_64x4_2x1_v_bz_TNT",
 * "nvjet_sm90_hss_...": the first of the type letters is the inputs' type:
 * h fp16, t bf16, q / e fp8 (e4m3 / e5m2); s (fp32) does not say whether
 * TF32 was allowed, so it stays unknown. */
static tp_math_mode nvjet(const char *s)
{
    const char *p = s + 6; /* after "nvjet_" */
    if (!strncmp(p, "sm", 2) && isdigit((unsigned char)p[2])) {
        p = strchr(p, '_');
        if (!p)
            return TP_MATH_UNKNOWN;
        p++;
    }
    switch (*p) {
    case 'h': return TP_MATH_FP16;
    case 't': return TP_MATH_BF16;
    case 'q': case 'e': return TP_MATH_FP8;
    default: return TP_MATH_UNKNOWN;
    }
}

static tp_math_mode of_lower(const char *s)
{
    if (!strncmp(s, "cijk_", 5))
        return tensile(s);
    if (!strncmp(s, "nvjet_", 6))
        return nvjet(s);
    /* type tags anywhere in the name (cuBLAS "sm80_xmma_gemm_f32f32_tf32f32",
     * CUTLASS "cutlass_80_tensorop_bf16_s16816gemm_bf16", template arguments
     * "cutlass::bfloat16_t", "ck::half_t"): the narrowest type first */
    /* vLLM's paged attention names its KV cache type "vllm::Fp8KVCacheDataType)0": 0 is kAuto (the
     * cache in the model's dtype), not fp8 (1 e4m3, 2 e5m2) */
    if (has(s, "e4m3") || has(s, "e5m2") || (has(s, "fp8") && !has(s, "fp8kvcachedatatype)0")) || has(s, "f8f8") ||
        has(s, "float8"))
        return TP_MATH_FP8;
    if (has(s, "imma") || has(s, "int8") || has(s, "i8816") || has(s, "i8i8") || has(s, "s8s8"))
        return TP_MATH_INT8;
    if (has(s, "tf32") || has(s, "xf32"))
        return TP_MATH_TF32;
    if (has(s, "bf16") || has(s, "bfloat16") || has(s, "bhalf"))
        return TP_MATH_BF16;
    if (has(s, "f16") || has(s, "fp16") || has(s, "half") || has(s, "hgemm") || has(s, "hmma") || has(s, "h884") ||
        has(s, "h1688") || has(s, "h16816"))
        return TP_MATH_FP16;
    if (has(s, "dgemm") || has(s, "dmma") || has(s, "f64") || has(s, "double"))
        return TP_MATH_FP64;
    /* CUTLASS tensor-op MMA shapes without a type tag: 16x8x8 with fp32
     * accumulation over fp32 inputs is TF32 (SM80+; a Turing fp16 1688 kernel
     * carries its f16 tag); 16x8x16 and Volta's 8x8x4 take 16-bit inputs */
    if (has(s, "s1688gemm") || has(s, "s1688tf32"))
        return TP_MATH_TF32;
    if (has(s, "s16816gemm") || has(s, "s884gemm"))
        return TP_MATH_16BIT;
    if (has(s, "sgemm") || has(s, "simt") || has(s, "f32f32_f32f32") || has(s, "gemm_f32"))
        return has(s, "xmma") ? TP_MATH_FP32_MATRIX : TP_MATH_FP32;
    return TP_MATH_UNKNOWN;
}

tp_math_mode tp_math_mode_of_kernel(const char *name)
{
    size_t n = strlen(name);
    char small[256], *s = n < sizeof small ? small : tp_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)tolower((unsigned char)name[i]);
    s[n] = 0;
    tp_math_mode m = of_lower(s);
    if (s != small)
        free(s);
    return m;
}

int tp_math_mode_peak(tp_math_mode m, int dtype_peak)
{
    switch (m) {
    case TP_MATH_FP32: return TP_PEAK_VECTOR_FP32;
    case TP_MATH_FP32_MATRIX: return TP_PEAK_MATRIX_FP32;
    case TP_MATH_TF32: return TP_PEAK_MATRIX_TF32;
    case TP_MATH_16BIT: return dtype_peak == TP_PEAK_MATRIX_BF16 ? TP_PEAK_MATRIX_BF16 : TP_PEAK_MATRIX_FP16;
    case TP_MATH_FP16: return TP_PEAK_MATRIX_FP16;
    case TP_MATH_BF16: return TP_PEAK_MATRIX_BF16;
    case TP_MATH_FP8: return TP_PEAK_MATRIX_FP8;
    default: return -1;
    }
}
