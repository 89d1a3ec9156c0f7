/* fuzz_inference.c: libFuzzer target for the inference op models
 * (report/perf_models/op_models_infer.c): the input's first line is an
 * iteration annotation (vLLM execute_..., SGLang step[...]), the rest an op's
 * args object.  The annotation parser must accept only what it can read
 * (every number it returns is >= 0), and every inference op's model must
 * give a cost or a reason, never crash, whatever the shapes and statistics.
 * Built by `make fuzz`. */
#include "report/perf_models/op_models_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "sglang_profiler::attention_paged_attention_ragged_7", "vllm::unified_attention_with_output",
    "aiter::fmha_v3_varlen_fwd", "aiter::mha_batch_prefill", "sglang::store_cache", "aiter::gemm_a16w16",
    "aiter::gemm_a16w16_atomic_", "vllm::rocm_unquantized_gemm", "aiter::gemm_a8w8_blockscale_ck",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n1 = nl ? (size_t)(nl - data) : size;
    char *name = malloc(n1 + 1);
    memcpy(name, data, n1);
    name[n1] = 0;
    tp_chunk_stats cs;
    bool have = tp_chunk_stats_parse(name, &cs);
    if (have && (cs.c_sq < 0 || cs.c_sk < 0 || cs.c_sqsq < 0 || cs.c_sqsk < 0 || cs.g_sq < 0 || cs.g_sk < 0 ||
                 cs.g_sqsq < 0 || cs.g_sqsk < 0)) {
        fprintf(stderr, "inference: a negative statistic from \"%s\"\n", name);
        abort();
    }
    free(name);
    const char *args = nl ? (const char *)nl + 1 : "";
    size_t alen = nl ? size - n1 - 1 : 0;
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    tp_op_inputs in;
    const char *why = NULL;
    if (tp_op_inputs_parse(args, alen, &doc, &in, &why) == 0) {
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            in.chunk = have ? &cs : NULL;
            tp_op_cost c;
            why = NULL;
            if (tp_op_cost_of(names[k], &in, &c, &why) != 0 && (!why || !*why)) {
                fprintf(stderr, "inference: %s gave no cost and no reason\n", names[k]);
                abort();
            }
        }
    }
    tp_jdoc_free(&doc);
    return 0;
}
