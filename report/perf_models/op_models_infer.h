/* op_models_infer.h: the ops inference servers run (vLLM, SGLang, aiter)
 * whose cost depends on the iteration, not only on the recorded shapes:
 * paged / varlen / decode attention reads every request's KV cache, and the
 * shapes say how many query tokens and heads there are but not how long the
 * sequences are.  The servers (patched as TraceLens's roofline patches do)
 * write the iteration's sequence statistics into an annotation around the
 * step; the efficiency analysis finds it around each invocation's launch and
 * hands it to the model (tp_op_inputs.chunk).  docs/REPORT.md "Inference
 * ops" has the formulas and worked examples. */
#ifndef TP_OP_MODELS_INFER_H
#define TP_OP_MODELS_INFER_H

#include "report/perf_models/op_models.h"

/* The sequence statistics of one iteration: for the context (prefill)
 * requests and the generation (decode) requests, the sums over requests of
 * sq (query tokens), sk (KV tokens), sq*sq and sq*sk. */
typedef struct tp_chunk_stats {
    int64_t c_sq, c_sk, c_sqsq, c_sqsk;
    int64_t g_sq, g_sk, g_sqsq, g_sqsk;
} tp_chunk_stats;

/* What an unfused MoE op's own kernels and ops say (vLLM's vllm::moe_forward
 * runs a TopK op and Triton matmul_ogs kernels): its top-k (the TopK op's
 * Concrete Inputs[1], 0 unknown), whether its first matmul_ogs kernel is
 * gated (a swiglu/glu epilogue), the weights' bits from the kernel names
 * (4 mxfp4, 8 fp8; 0: the input's dtype) and whether it ran matmul_ogs kernels. */
#define TP_MOE_MAX_ALLOCS 32
typedef struct tp_moe_hint {
    int64_t topk;
    bool gated, matmul_ogs;
    int weight_bits;
    /* the allocations (aten::empty, recorded in a capture trace, copied
     * inside the op: graph_capture.h) in time order, each as its rows (the
     * product of its sizes but the last) and its last size: the up GEMM's
     * output [.., M topk, N] says the experts' intermediate size N */
    int nallocs;
    int64_t alloc_rows[TP_MOE_MAX_ALLOCS], alloc_last[TP_MOE_MAX_ALLOCS];
} tp_moe_hint;

/* A TopK op's k: its Concrete Inputs[1] (topk(input, k, ...)); 0 when not recorded. */
int64_t tp_infer_topk_of(const tp_op_inputs *topk_op);
/* An allocation op's size (aten::empty's Concrete Inputs[0], of rank 2 or
 * more) as its rows (the product of the sizes but the last) and last size;
 * false when not recorded. */
bool tp_infer_alloc_size(const tp_op_inputs *alloc_op, int64_t *rows, int64_t *last);
/* Whether op index k reads its kernels and ops (tp_moe_hint). */
bool tp_infer_reads_kernels(int k);

/* An iteration annotation with the statistics, read into *cs: vLLM's
 * "execute_N_context_C(sqAskBsqsqCsqskD)_generation_G(sqEskFsqsqGsqskH)"
 * and SGLang's "step[DECODE|EXTEND|MIXED ... c_sq=.. c_sk=.. c_sqsq=..
 * c_sqsk=.. g_sq=.. ...]" (absent members 0).  False for any other name
 * (the native annotations without sq/sk say too little). */
bool tp_chunk_stats_parse(const char *name, tp_chunk_stats *cs);

/* The inference op a name is (an index for tp_infer_cost, -1 none), with
 * its family; "sglang_profiler::NAME_<digits>" (the per-layer suffix of
 * SGLang's profiler scopes) is NAME. */
int tp_infer_op(const char *name, size_t len, tp_op_family *family);
/* Whether op index k reads the iteration's statistics. */
bool tp_infer_needs_chunk(int k);
/* The cost of inference op k: 0, or -1 with *why. */
int tp_infer_cost(int k, const tp_op_inputs *in, tp_op_cost *c, const char **why);

#endif
