/* The roof from the math actually run (issue 30 item 3): a kernel's math
 * mode from its name (report/perf_models/math_mode.c), the row's peak class
 * from it, and a row whose rate passes its roof says why (summary.json
 * math_mode, roof_tflops_per_s, roof_note; the page's "!" and ring). */
#include "convert/codec/json_value.h"
#include "report/perf_models/devices.h"
#include "report/perf_models/math_mode.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(math_mode_from_kernel_names)
{
    static const struct {
        const char *name;
        tp_math_mode mode;
    } cases[] = {
        {"cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4", TP_MATH_TF32},
        {"cutlass_tensorop_s1688tf32gemm_256x128_16x3_nn_align4", TP_MATH_TF32},
        {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel",
         TP_MATH_TF32},
        {"ampere_tf32_s1688gemm_tf32_128x128_16x3_nt", TP_MATH_TF32},
        {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8", TP_MATH_BF16},
        {"cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8", TP_MATH_FP16},
        {"cutlass_75_tensorop_s1688gemm_f16_256x128_32x2_nt_align8", TP_MATH_FP16},
        {"ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_relu_f2f_stages_64x6_tn", TP_MATH_FP16},
        {"cutlass_80_tensorop_s16816gemm_128x64_32x6_tn_align8", TP_MATH_16BIT},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
         "__5x_cublas",
         TP_MATH_BF16},
        {"volta_sgemm_128x64_nn", TP_MATH_FP32},
        {"ampere_sgemm_64x32_sliced1x4_nn", TP_MATH_FP32},
        {"void cutlass::Kernel<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::"
         "Params)",
         TP_MATH_FP32},
        {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8", TP_MATH_FP32_MATRIX},
        {"nvjet_tst_128x256_64x4_2x1_v_bz_TNT", TP_MATH_BF16},
        {"nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", TP_MATH_FP16},
        {"nvjet_sm90_hss_320x128", TP_MATH_FP16},
        {"nvjet_qqtst_128x128_128x6_1x1_v_bz_TNT", TP_MATH_FP8},
        {"nvjet_sss_64x64_32x8_v_bz_NNN", TP_MATH_UNKNOWN},
        {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", TP_MATH_FP16},
        {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1", TP_MATH_BF16},
        {"Cijk_Ailk_Bjlk_SB_MT64x64x8_SN_1LDSB0_APM1", TP_MATH_FP32},
        {"Cijk_Ailk_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_GRVW4", TP_MATH_FP32_MATRIX},
        {"Cijk_Ailk_Bljk_F8BS_BH_MT256x256x128_MI16x16x1", TP_MATH_FP8},
        {"Cijk_Alik_Bljk_XSS_BH_MT128x128x32_MI16x16x1", TP_MATH_TF32},
        {"Cijk_Ailk_Bljk_DB_MT64x64x8_SN", TP_MATH_FP64},
        {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_cublas", TP_MATH_FP8},
        {"sm80_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64", TP_MATH_INT8},
        {"volta_dgemm_64x64_nn", TP_MATH_FP64},
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>",
         TP_MATH_BF16},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80", TP_MATH_FP16},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", TP_MATH_UNKNOWN},
        {"", TP_MATH_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tp_math_mode m = tp_math_mode_of_kernel(cases[i].name);
        if (m != cases[i].mode)
            tp_test_fail(__FILE__, __LINE__, "%s: %s, expected %s", cases[i].name, tp_math_mode_name(m),
                         tp_math_mode_name(cases[i].mode));
    }
    CHECK_EQ_INT(tp_math_mode_peak(TP_MATH_TF32, TP_PEAK_MATRIX_FP32), TP_PEAK_MATRIX_TF32);
    CHECK_EQ_INT(tp_math_mode_peak(TP_MATH_16BIT, TP_PEAK_MATRIX_BF16), TP_PEAK_MATRIX_BF16);
    CHECK_EQ_INT(tp_math_mode_peak(TP_MATH_16BIT, TP_PEAK_MATRIX_FP32), TP_PEAK_MATRIX_FP16);
    CHECK_EQ_INT(tp_math_mode_peak(TP_MATH_FP64, TP_PEAK_MATRIX_FP32), -1);
    /* a long template name (past any stack buffer) still reads */
    char longname[2048];
    memset(longname, 'x', sizeof longname);
    memcpy(longname + 1500, "_bf16_", 6);
    longname[sizeof longname - 1] = 0;
    CHECK_EQ_INT(tp_math_mode_of_kernel(longname), TP_MATH_BF16);
}

/* An A100 trace: each op a host op with its recorded fp32 inputs, a launch
 * and a kernel linked by correlation. */
typedef struct planted {
    const char *dims, *kernel;
    long long kernel_ns;
} planted;

/* mm 4096^3: 2 x 4096^3 = 137,438,953,472 FLOPs in 1,374,390 ns = 100
 * TFLOPS/s: 513% of the 19.5 fp32 peak, 64% of the 156 tf32 peak.  The
 * second shape's kernel name says nothing: held against fp32 at 100
 * TFLOPS/s it must say why it passes the roof. */
static const planted ops[] = {
    {"[[4096,4096],[4096,4096]]", "cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4", 1374390},
    {"[[4096,4096],[4096,4096]]", "cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4", 1374390},
    {"[[4096,4096],[4096,4096]]", "cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4", 1374390},
    {"[[2048,2048],[2048,2048]]", "gemm_kernel_x", 171799},
};

static const char *write_trace(const char *file)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"totalGlobalMem\":85198045184,"
                    "\"computeMajor\":8,\"computeMinor\":0,\"numSms\":108}],\"traceEvents\":[");
    long long t = 1000000, gpu = 1000000;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++, t += 100000) {
        const planted *o = &ops[i];
        unsigned c = 100 + (unsigned)i;
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":50,"
                      "\"args\":{\"Input Dims\":%s,\"Input type\":[\"float\",\"float\"]}}",
                      i ? "," : "", t / 1000, o->dims);
        tp_buf_printf(&b, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%lld,\"dur\":10,\"args\":{\"correlation\":%u}}",
                      t / 1000 + 10, c);
        gpu = gpu > t + 30000 ? gpu : t + 30000;
        tp_buf_printf(&b, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%lld.%03lld,"
                          "\"dur\":%lld.%03lld,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%u}}",
                      o->kernel, gpu / 1000, gpu % 1000, o->kernel_ns / 1000, o->kernel_ns % 1000, c);
        gpu += o->kernel_ns + 1000;
    }
    tp_buf_puts(&b, "]}");
    tp_buf_putc(&b, 0);
    const char *path = tp_test_write_text(file, b.data);
    tp_buf_free(&b);
    return path;
}

static double num(const tp_jv *v)
{
    return v && v->type == TP_JV_NUMBER ? strtod(v->s, NULL) : -1;
}

TEST(math_mode_tf32_gemm_held_against_tf32_roof)
{
    const char *in = write_trace("a100_tf32.json");
    const char *dir = tp_test_tmp("a100_tf32_out");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' >/dev/null 2>&1", tp_test_bin(), in, dir), 0);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js);
    if (!js)
        return;
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root = NULL;
    tp_err err = {0};
    CHECK(tp_jv_parse_all(&doc, js, strlen(js), &root, &err) == 0);
    const tp_jv *rows = root ? tp_jv_get(tp_jv_get(root, "efficiency"), "ops") : NULL;
    CHECK(rows && rows->type == TP_JV_ARRAY && rows->n == 2);
    for (size_t i = 0; rows && i < rows->n; i++) {
        const tp_jv *r = tp_jv_at(rows, i);
        double f = num(tp_jv_get(r, "peak_fraction")), rate = num(tp_jv_get(r, "tflops_per_s"));
        CHECK(fabs(rate - 100) < 0.01);
        if (num(tp_jv_get(r, "flops")) > 1e11) { /* the cutlass TF32 shape */
            CHECK(tp_jv_str_eq(tp_jv_get(r, "math_mode"), "tf32"));
            CHECK(tp_jv_str_eq(tp_jv_get(r, "peak"), "matrix_tf32"));
            CHECK(fabs(num(tp_jv_get(r, "roof_tflops_per_s")) - 156) < 1e-9);
            CHECK(f > 0.6 && f <= 1);
            CHECK(tp_jv_get(r, "roof_note") && tp_jv_get(r, "roof_note")->type == TP_JV_NULL);
        } else { /* a name that says nothing: fp32, above its roof, and says why */
            CHECK(tp_jv_str_eq(tp_jv_get(r, "math_mode"), "unknown"));
            CHECK(tp_jv_str_eq(tp_jv_get(r, "peak"), "matrix_fp32"));
            CHECK(f > 5);
            const tp_jv *note = tp_jv_get(r, "roof_note");
            CHECK(note && note->type == TP_JV_STRING && note->len > 20 && memmem(note->s, note->len, "TF32", 4));
        }
    }
    /* the page flags the row above its roof */
    if (tp_test_have("pdftotext")) {
        char *text = NULL;
        CHECK(tp_test_run(&text, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir) == 0);
        CHECK(text && strstr(text, "ringed: above their roof"));
        CHECK(text && strstr(text, "! above its roof"));
        free(text);
    }
    tp_jdoc_free(&doc);
    free(js);
}
