/* gen_graphs.c: a synthetic decode trace of an LLM server that replays
 * CUDA (or HIP) graphs, in the shape of vLLM's and SGLang's profiler traces:
 * the graph launch sits under Python functions and annotations, never under
 * an op, and one launch call starts a whole layer stack of kernels.
 *
 *   gen_graphs [--steps N] [--layers N] [--hip] [--sglang] [--bare N] OUT
 *
 * Per decode step (a `ProfilerStep#N` annotation):
 *  - Python frames  `vllm/worker/model_runner.py(1720): execute_model` >
 *    `vllm/worker/model_runner.py(1530): CUDAGraphRunner.forward` (SGLang:
 *    `sglang/srt/model_executor/cuda_graph_runner.py(602): replay`) >
 *    the framework's `torch/cuda/graphs.py(88): replay` > cudaGraphLaunch
 *    (hipGraphLaunch with --hip): on the GPU, per layer, a GEMM, an RMS norm,
 *    a flash attention kernel, a SiLU and a second GEMM, all with the launch's
 *    correlation id and an ac2g flow from the launch;
 *  - the sampler, eager: aten::argmax (one kernel) and aten::item with a
 *    DtoH memcpy.
 * --bare N: N more one-layer graph launches per step with nothing around
 * them but the step, which is not a scope: they are named after the call
 * ("graph: cudaGraphLaunch").
 * Times are integer microseconds with three decimals; the same arguments
 * always give the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int first = 1;
static unsigned corr = 1000;

static void ev(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void ev(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(first ? "\n  " : ",\n  ", out);
    first = 0;
    vfprintf(out, fmt, ap);
    va_end(ap);
}

static void slice(const char *cat, const char *name, int pid, int tid, long long ts_ns, long long dur_ns)
{
    ev("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03lld, "
       "\"dur\": %lld.%03lld}",
       cat, name, pid, tid, ts_ns / 1000, ts_ns % 1000, dur_ns / 1000, dur_ns % 1000);
}

/* a launch call and its device activity, linked by correlation and an ac2g flow */
static void launch(const char *call, long long ts, long long dur, unsigned c)
{
    ev("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, "
       "\"dur\": %lld.%03lld, \"args\": {\"correlation\": %u}}",
       call, ts / 1000, ts % 1000, dur / 1000, dur % 1000, c);
    ev("{\"ph\": \"s\", \"id\": %u, \"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, \"cat\": \"ac2g\", \"name\": \"ac2g\"}",
       c, ts / 1000, ts % 1000);
}

static void device(const char *cat, const char *name, long long ts, long long dur, unsigned c, int with_flow)
{
    ev("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, "
       "\"dur\": %lld.%03lld, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %u}}",
       cat, name, ts / 1000, ts % 1000, dur / 1000, dur % 1000, c);
    if (with_flow)
        ev("{\"ph\": \"f\", \"id\": %u, \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, \"cat\": \"ac2g\", "
           "\"name\": \"ac2g\", \"bp\": \"e\"}",
           c, ts / 1000, ts % 1000);
}

static const char *const layer_kernels[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
    "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
    "void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(Flash_fwd_params)",
    "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, "
    "c10::BFloat16 const*, int)",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_cublas",
};
static const long long layer_ns[] = {11250, 2125, 7375, 1875, 9500};

/* one graph replay of `layers` layers starting at ts on the GPU; returns its end */
static long long graph(long long ts, int layers, unsigned c)
{
    for (int l = 0; l < layers; l++)
        for (size_t k = 0; k < sizeof layer_kernels / sizeof layer_kernels[0]; k++) {
            /* Kineto's flow ends on the first kernel of the launch only */
            device("kernel", layer_kernels[k], ts, layer_ns[k], c, l == 0 && k == 0);
            ts += layer_ns[k] + 625;
        }
    return ts;
}

int main(int argc, char **argv)
{
    int steps = 8, layers = 24, hip = 0, sglang = 0, bare = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bare") == 0 && i + 1 < argc)
            bare = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hip") == 0)
            hip = 1;
        else if (strcmp(argv[i], "--sglang") == 0)
            sglang = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gen_graphs: unknown option %s\n", argv[i]);
            return 1;
        } else
            path = argv[i];
    }
    if (!path || steps < 1 || steps > 100000 || layers < 1 || layers > 1000 || bare < 0 || bare > 1000) {
        fprintf(stderr, "usage: gen_graphs [--steps N] [--layers N] [--hip] [--sglang] [--bare N] OUT\n");
        return 1;
    }
    out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!out) {
        perror(path);
        return 1;
    }
    const char *glaunch = hip ? "hipGraphLaunch" : "cudaGraphLaunch";
    const char *runner = sglang ? "sglang/srt/model_executor/cuda_graph_runner.py(602): replay"
                                : "vllm/worker/model_runner.py(1530): CUDAGraphRunner.forward";
    fputs("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n"
          "\"traceEvents\": [",
          out);
    ev("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"python3\"}}");
    ev("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"GPU 0\"}}");
    long long t = 1700000000000000LL; /* ns */
    long long gpu = t;
    for (int s = 0; s < steps; s++) {
        long long step0 = t;
        long long host = t + 20000, dev_start = gpu > host + 5000 ? gpu : host + 5000;
        char name[64];
        snprintf(name, sizeof name, "ProfilerStep#%d", s + 1);
        /* the graph replay: its kernels, then the host frames around the launch */
        unsigned c = corr++;
        long long gend = graph(dev_start, layers, c);
        slice("python_function", "vllm/worker/model_runner.py(1720): execute_model", 1, 1, host, 60000);
        slice("python_function", runner, 1, 1, host + 2000, 40000);
        slice("python_function", "torch/cuda/graphs.py(88): replay", 1, 1, host + 4000, 30000);
        launch(glaunch, host + 5000, 20000, c);
        /* graphs launched with nothing but the step around them */
        long long bend = gend;
        for (int b = 0; b < bare; b++) {
            unsigned cb = corr++;
            long long bt = host + 62000 + b * 3000;
            launch(glaunch, bt, 2000, cb);
            bend = graph(bend + 1000 > bt ? bend + 1000 : bt, 1, cb);
        }
        /* the sampler, eager, after the replay */
        long long ht = host + 62000 + bare * 3000;
        unsigned ca = corr++, cm = corr++;
        slice("cpu_op", "aten::argmax", 1, 1, ht, 12000);
        launch("cudaLaunchKernel", ht + 3000, 6000, ca);
        long long at = bend + 1500;
        device("kernel", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>>>()",
               at, 4250, ca, 1);
        slice("cpu_op", "aten::item", 1, 1, ht + 14000, at + 4250 + 9000 - (ht + 14000));
        slice("cpu_op", "aten::_local_scalar_dense", 1, 1, ht + 15000, at + 4250 + 7000 - (ht + 15000));
        launch("cudaMemcpyAsync", ht + 16000, 4000, cm);
        device("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", at + 4250 + 500, 1750, cm, 1);
        gpu = at + 4250 + 500 + 1750;
        long long end = (gpu > ht + 30000 ? gpu : ht + 30000) + 10000;
        slice("user_annotation", name, 1, 1, step0, end - step0);
        t = end + 1000;
    }
    fputs("\n]}\n", out);
    if (out != stdout && fclose(out) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
