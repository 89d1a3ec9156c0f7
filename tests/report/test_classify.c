/* test_classify.c: the one classification (report/analysis/classify.h):
 * real kernel names by the built-in rules, the rules' order (work inside a
 * compiled region or a graph replay keeps its kernel's category, rotary is
 * not embedding), communication by kernel and by launching op, and every
 * consumer reading the same category: the GPU time split, the category
 * table, the kernel table's column. */
#include "report/analysis/summary.h"
#include "tests/lib/categorize.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"

#include <stdlib.h>
#include <string.h>

#define CAT_IS(name, want) CHECK_STR(tp_test_category(name), want)

TEST(classify_real_kernel_names)
{
    CAT_IS("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
           "elementwise");
    CAT_IS("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"
           "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
           "GEMM");
    CAT_IS("volta_sgemm_128x64_nn", "GEMM");
    CAT_IS("void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, "
           "float const*)",
           "GEMM"); /* the second pass of a split-K GEMM */
    CAT_IS("Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16", "GEMM");
    CAT_IS("nvjet_tst_192x128_64x4_1x2_h_bz_coopB_NTN", "GEMM"); /* cuBLASLt on Hopper/Blackwell */
    CAT_IS("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16", "CONV");
    /* cuDNN's fused attention (SDPA cuDNN backend, Transformer Engine) is no convolution for its "fprop" */
    CAT_IS("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", "attention");
    CAT_IS("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0", "attention");
    CAT_IS("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
           "WinogradDataParams<float, float>)",
           "CONV");
    CAT_IS("void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)",
           "normalisation");
    CAT_IS("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float "
           "const*, int, int, int, bool const*, int, bool)",
           "softmax");
    CAT_IS("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "communication");
    CAT_IS("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication");
    CAT_IS("Memcpy HtoD (Pageable -> Device)", "memcpy");
    CAT_IS("Memset (Device)", "memset");
    CAT_IS("loop_convert_fusion.kd", "elementwise"); /* XLA: "convert" is no convolution */
    CAT_IS("loop_reduce_fusion.kd", "reduce");
    CAT_IS("some_custom_thing", "other");
    /* inference engines' kernels (issue 30 item 2 and 4) */
    CAT_IS("void c10d::symmetric_memory::multimem_all_reduce_kernel<__nv_bfloat16, 16, 8>(__nv_bfloat16*, "
           "unsigned long, unsigned long, unsigned long)",
           "communication");
    CAT_IS("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
           "vllm::Signal*, __nv_bfloat16*, int, int)",
           "communication");
    CAT_IS("void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, 4>()",
           "communication");
    CAT_IS("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*)", "rotary");
    CAT_IS("void flashinfer::BatchQKApplyRotaryPosIdsCosSinCache<false, 128u>()", "rotary");
    CAT_IS("groupnorm_kernel_bf16_nhwc", "normalisation"); /* aiter */
    CAT_IS("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u>()", "attention");
    CAT_IS("void vllm::paged_attention_v2_kernel<__nv_bfloat16, 128, 16>()", "attention");
    CAT_IS("fused_moe_kernel", "MoE");
    CAT_IS("void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, int>()", "MoE");
    CAT_IS("void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>)>()",
           "elementwise");
    CAT_IS("void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long "
           "const*, float const*)",
           "embedding");
    /* torch Inductor's kernels by their kind prefix; "compiled" only for one of no known kind */
    CAT_IS("triton_poi_fused_add_cos_sin_0", "elementwise");
    CAT_IS("triton_red_fused_sum_1", "reduce");
    CAT_IS("triton_per_fused__softmax_2", "softmax");
    CAT_IS("triton_per_fused_native_layer_norm_3", "normalisation");
    CAT_IS("triton_tem_fused_mm_4", "GEMM");
    CAT_IS("triton_tem_fused_convolution_5", "CONV");
    CAT_IS("triton_unknown_kind_6", "compiled");
}

/* A trace with one GPU: each kernel launched by a runtime call inside the
 * host op (or annotation) named, all in one step. */
typedef struct kspec {
    const char *op;     /* the op around the launch (NULL: none) */
    const char *kernel;
    int64_t ts_us, dur_us;
    int graph;          /* launched by cudaGraphLaunch */
} kspec;

static const char *write_trace(const char *file, const kspec *k, size_t n)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                    "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100000}");
    for (size_t i = 0; i < n; i++) {
        int64_t t0 = k[i].ts_us - 2;
        if (k[i].op)
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
                              "\"dur\":2}",
                          strchr(k[i].op, ':') || !k[i].graph ? "cpu_op" : "user_annotation", k[i].op,
                          (long long)t0);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%lld,\"dur\":1,\"args\":{\"correlation\":%zu}}",
                      k[i].graph ? "cudaGraphLaunch" : "cudaLaunchKernel", (long long)t0 + 1, i + 1);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%lld,"
                          "\"dur\":%lld,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%zu}}",
                      k[i].kernel, (long long)k[i].ts_us, (long long)k[i].dur_us, i + 1);
    }
    tp_buf_puts(&b, "\n]}\n");
    const char *p = tp_test_write(file, b.data, b.len);
    tp_buf_free(&b);
    return p;
}

static int64_t cat_ns(const tp_summary *s, const char *name)
{
    for (size_t i = 0; i < s->cat.n; i++)
        if (strcmp(s->rules->names[s->cat.rows[i].category], name) == 0)
            return s->cat.rows[i].device_ns;
    return 0;
}

TEST(classify_one_category_for_every_consumer)
{
    const kspec k[] = {
        /* a GEMM replayed inside a compiled region stays GEMM (the region is where it ran) */
        {"Torch-Compiled Region: 0/0", "Cijk_Ailk_Bjlk_BBS_BH_MT128x128x64", 100, 50, 0},
        {"Torch-Compiled Region: 0/0", "triton_poi_fused_mul_0", 200, 10, 0},
        /* vLLM's symmetric-memory all-reduce: communication by its name */
        {"vllm::all_reduce", "multimem_all_reduce_kernel", 300, 40, 0},
        /* a kernel of no telling name launched by a collective op: communication by its op */
        {"c10d::allreduce_", "my_custom_kernel", 400, 20, 0},
        /* rotary embedding: never "embedding" */
        {"vllm::rotary_embedding", "rotary_embedding_kernel", 500, 5, 0},
        /* a graph replay: its kernels keep their own categories */
        {"decode_graph", "flash_fwd_splitkv_kernel", 600, 30, 1},
        {"aten::add", "vectorized_elementwise_kernel", 700, 5, 0},
    };
    const char *path = write_trace("classify.json", k, sizeof k / sizeof k[0]);
    tp_trace t;
    tp_summary s;
    CHECK_EQ_INT(tp_test_load_report(path, &t, &s), 0);
    CHECK_EQ_INT(cat_ns(&s, "GEMM"), 50000);
    CHECK_EQ_INT(cat_ns(&s, "elementwise"), 15000);
    CHECK_EQ_INT(cat_ns(&s, "communication"), 60000);
    CHECK_EQ_INT(cat_ns(&s, "rotary"), 5000);
    CHECK_EQ_INT(cat_ns(&s, "embedding"), 0);
    CHECK_EQ_INT(cat_ns(&s, "attention"), 30000);
    CHECK_EQ_INT(cat_ns(&s, "compiled"), 0);
    /* where it ran: attribution beside the category */
    for (size_t i = 0; i < s.cat.n; i++) {
        const char *name = s.rules->names[s.cat.rows[i].category];
        if (strcmp(name, "GEMM") == 0)
            CHECK_EQ_INT(s.cat.rows[i].compiled_ns, 50000);
        if (strcmp(name, "attention") == 0)
            CHECK_EQ_INT(s.cat.rows[i].graph_ns, 30000);
    }
    /* the GPU time model's communication is the category's: no overlap here, all exposed */
    CHECK_EQ_INT(s.gt.whole.communication_ns, 60000);
    CHECK_EQ_INT(s.gt.whole.exposed_communication_ns, 60000);
    /* and the collectives table counts the same kernels as calls (not only nccl* names) */
    CHECK_EQ_INT(s.coll.calls, 2);
    CHECK_EQ_INT(s.coll.total_ns, 60000);
    /* the kernel table's category of each name is the category that holds its time */
    for (size_t i = 0; i < s.kt.n; i++) {
        uint32_t c = tp_class_of_name(&s.cls, s.kt.rows[i].name);
        CHECK(cat_ns(&s, s.rules->names[c]) >= s.kt.rows[i].total_ns);
    }
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* gpu_time.h "linked": as TraceLens links.  With launch flows in the trace,
 * an activity needs a flow start and a flow end carrying its correlation id
 * (a HIP memset that ROCm records with only a flow end is unlinked); without
 * any launch flow a launch call is enough. */
static const char *flows_trace(const char *file, bool with_flows)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
                    "\"ts\":0,\"dur\":100}");
    /* corr 1: a kernel with start and end flows; corr 2: a memset with an end flow only */
    for (int c = 1; c <= 2; c++) {
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                          "\"dur\":2,\"args\":{\"correlation\":%d}}",
                      c == 1 ? "hipLaunchKernel" : "hipMemsetAsync", 10 * c, c);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,"
                          "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}",
                      c == 1 ? "kernel" : "gpu_memset", c == 1 ? "Cijk_gemm" : "Memset (Device)", 50 * c, 20 * c,
                      c);
        if (with_flows && c == 1)
            tp_buf_printf(&b, ",\n{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d,\"cat\":\"ac2g\","
                              "\"name\":\"ac2g\"}",
                          c, 10 * c);
        if (with_flows)
            tp_buf_printf(&b, ",\n{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%d,\"cat\":\"ac2g\","
                              "\"name\":\"ac2g\",\"bp\":\"e\"}",
                          c, 50 * c);
    }
    tp_buf_puts(&b, "\n]}\n");
    const char *p = tp_test_write(file, b.data, b.len);
    tp_buf_free(&b);
    return p;
}

TEST(classify_linked_as_tracelens_links)
{
    for (int with_flows = 0; with_flows < 2; with_flows++) {
        tp_trace t;
        tp_summary s;
        CHECK_EQ_INT(tp_test_load_report(flows_trace(with_flows ? "flows.json" : "noflows.json", with_flows), &t, &s),
                     0);
        CHECK_EQ_INT(s.gt.whole.busy_ns, 60000);
        CHECK_EQ_INT(s.gt.whole.unlinked_ns, with_flows ? 40000 : 0);
        CHECK_EQ_INT(s.gt.linked.busy_ns, with_flows ? 20000 : 60000);
        CHECK_EQ_INT(s.gt.linked.memset_ns, with_flows ? 0 : 40000);
        tp_summary_free(&s);
        tp_trace_free(&t);
    }
}
