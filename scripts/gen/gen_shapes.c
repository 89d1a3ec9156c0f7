/* gen_shapes.c: a synthetic Kineto trace with many distinct op shapes, for
 * the efficiency page (roofline) at scale: thousands of (op, shape) rows.
 *
 *   gen_shapes [--shapes N] [--device NAME] [--no-shapes] OUT
 *
 * N host ops (default 3000), each with its own input dims: aten::mm and
 * aten::addmm in bf16, aten::mm in fp32, aten::add and aten::mul (bf16,
 * elementwise), aten::_softmax (fp32), and each launching one kernel on
 * GPU 0 stream 7 (cudaLaunchKernel, the same correlation id, an ac2g flow).
 * A kernel lasts the time its FLOPs take at a fraction of an H100's peak
 * (bf16 989.4, fp32 66.9 TFLOPS/s) or its bytes at a fraction of its memory bandwidth, whichever is
 * longer, with the fractions drawn from a fixed LCG, so rows spread below
 * the roof.  --device names the GPU in deviceProperties (default "NVIDIA
 * H100 80GB HBM3"; "" = no deviceProperties); --no-shapes leaves out the
 * recorded inputs (a trace recorded without record_shapes).  Times are
 * integer nanoseconds written as microseconds with three decimals; the same
 * arguments always give the same bytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int first = 1;
static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static double frand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void ev(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ev(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(first ? "\n  " : ",\n  ", out);
    first = 0;
    vfprintf(out, fmt, ap);
    va_end(ap);
}

#define T(ns) (ns) / 1000, (ns) % 1000

typedef struct op {
    const char *name, *kernel;
    char dims[160], types[160], strides[160], conc[64];
    double flops, bytes;
    double peak; /* TFLOPS/s the kernel's FLOPs are timed against */
} op;

/* the i-th shape: sizes from the index so that every op is distinct */
static void make(long long i, op *o)
{
    long long a = 64 * (1 + i % 37), b = 128 * (1 + (i / 37) % 23), k = 256 * (1 + (i / 851) % 7);
    int kind = (int)(i % 10);
    if (kind < 5 || kind == 9) { /* mm: bf16, fp32 for kind 9 */
        const char *ty = kind == 9 ? "float" : "c10::BFloat16";
        int e = kind == 9 ? 4 : 2;
        o->name = "aten::mm";
        o->kernel = kind == 9 ? "ampere_sgemm_128x64_tn" : "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
        snprintf(o->dims, sizeof o->dims, "[[%lld, %lld], [%lld, %lld]]", a, k, k, b);
        snprintf(o->types, sizeof o->types, "[\"%s\", \"%s\"]", ty, ty);
        snprintf(o->strides, sizeof o->strides, "[[%lld, 1], [%lld, 1]]", k, b);
        snprintf(o->conc, sizeof o->conc, "[\"\", \"\"]");
        o->flops = 2.0 * a * b * k;
        o->bytes = (double)e * (a * k + k * b + a * b);
        o->peak = kind == 9 ? 66.9 : 989.4;
    } else if (kind == 5) { /* addmm: bias, mat1, mat2 */
        o->name = "aten::addmm";
        o->kernel = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64";
        snprintf(o->dims, sizeof o->dims, "[[%lld], [%lld, %lld], [%lld, %lld], [], []]", b, a, k, k, b);
        snprintf(o->types, sizeof o->types,
                 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]");
        snprintf(o->strides, sizeof o->strides, "[[1], [%lld, 1], [%lld, 1], [], []]", k, b);
        snprintf(o->conc, sizeof o->conc, "[\"\", \"\", \"\", \"1\", \"1\"]");
        o->flops = 2.0 * a * b * k + (double)a * b;
        o->bytes = 2.0 * (a * k + k * b + a * b + b);
        o->peak = 989.4;
    } else if (kind == 6 || kind == 7) { /* add (alpha) / mul: elementwise */
        o->name = kind == 6 ? "aten::add" : "aten::mul";
        o->kernel = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>";
        if (kind == 6) {
            snprintf(o->dims, sizeof o->dims, "[[%lld, %lld], [%lld, %lld], []]", a, b * k / 256, a, b * k / 256);
            snprintf(o->types, sizeof o->types, "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]");
            snprintf(o->strides, sizeof o->strides, "[[%lld, 1], [%lld, 1], []]", b * k / 256, b * k / 256);
            snprintf(o->conc, sizeof o->conc, "[\"\", \"\", \"1\"]");
        } else {
            snprintf(o->dims, sizeof o->dims, "[[%lld, %lld], [%lld, %lld]]", a, b * k / 256, a, b * k / 256);
            snprintf(o->types, sizeof o->types, "[\"c10::BFloat16\", \"c10::BFloat16\"]");
            snprintf(o->strides, sizeof o->strides, "[[%lld, 1], [%lld, 1]]", b * k / 256, b * k / 256);
            snprintf(o->conc, sizeof o->conc, "[\"\", \"\"]");
        }
        double n = (double)a * b * k / 256;
        o->flops = n;
        o->bytes = 2.0 * 3 * n;
        o->peak = 66.9;
    } else { /* softmax over the last dim, fp32 */
        o->name = "aten::_softmax";
        o->kernel = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>";
        snprintf(o->dims, sizeof o->dims, "[[%lld, %lld], [], []]", a, b);
        snprintf(o->types, sizeof o->types, "[\"float\", \"Scalar\", \"Scalar\"]");
        snprintf(o->strides, sizeof o->strides, "[[%lld, 1], [], []]", b);
        snprintf(o->conc, sizeof o->conc, "[\"\", \"-1\", \"False\"]");
        o->flops = 5.0 * a * b;
        o->bytes = 4.0 * 2 * a * b;
        o->peak = 66.9;
    }
}

int main(int argc, char **argv)
{
    long long shapes = 3000;
    const char *path = NULL, *device = "NVIDIA H100 80GB HBM3";
    int no_shapes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc)
            shapes = atoll(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            device = argv[++i];
        else if (strcmp(argv[i], "--no-shapes") == 0)
            no_shapes = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gen_shapes: unknown option %s\n", argv[i]);
            return 1;
        } else
            path = argv[i];
    }
    if (!path || shapes < 1 || shapes > 1000000 || strchr(device, '"') || strchr(device, '\\')) {
        fprintf(stderr, "usage: gen_shapes [--shapes N] [--device NAME] [--no-shapes] OUT\n");
        return 1;
    }
    out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!out) {
        perror(path);
        return 1;
    }
    fputs("{\"schemaVersion\": 1, ", out);
    if (*device)
        fprintf(out, "\"deviceProperties\": [{\"id\": 0, \"name\": \"%s\", \"totalGlobalMem\": 85029158912, "
                     "\"numSms\": 132}],\n", device);
    fputs("\"traceEvents\": [", out);
    ev("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"python3\"}}");
    ev("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"GPU 0\"}}");
    long long t = 1700000000000000LL, gpu = t; /* ns */
    unsigned corr = 1000;
    for (long long i = 0; i < shapes; i++) {
        op o;
        make(i, &o);
        /* the kernel's time: FLOPs at 5-90% of an H100's peak for the dtype
         * or bytes at 5-90% of 3.35 TB/s, whichever is longer */
        double f = 0.05 + 0.85 * frand();
        double ns_c = o.flops / (f * o.peak * 1e3), ns_m = o.bytes / (f * 3.35e3);
        long long kns = (long long)(ns_c > ns_m ? ns_c : ns_m) + 1500;
        long long ts = t, launch = ts + 2000, kstart = gpu > launch + 3000 ? gpu : launch + 3000;
        unsigned c = corr++;
        if (no_shapes)
            ev("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, "
               "\"dur\": %lld.%03lld, \"args\": {\"Sequence number\": %lld}}",
               o.name, T(ts), T(6000LL), i);
        else
            ev("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, "
               "\"dur\": %lld.%03lld, \"args\": {\"Input Dims\": %s, \"Input type\": %s, \"Input Strides\": %s, "
               "\"Concrete Inputs\": %s}}",
               o.name, T(ts), T(6000LL), o.dims, o.types, o.strides, o.conc);
        ev("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": %lld.%03lld, \"dur\": %lld.%03lld, \"args\": {\"correlation\": %u}}",
           T(launch), T(3000LL), c);
        ev("{\"ph\": \"s\", \"id\": %u, \"pid\": 1, \"tid\": 1, \"ts\": %lld.%03lld, \"cat\": \"ac2g\", \"name\": "
           "\"ac2g\"}", c, T(launch));
        ev("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, "
           "\"dur\": %lld.%03lld, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %u}}",
           o.kernel, T(kstart), T(kns), c);
        ev("{\"ph\": \"f\", \"id\": %u, \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, \"cat\": \"ac2g\", \"name\": "
           "\"ac2g\", \"bp\": \"e\"}", c, T(kstart));
        t += 7000;
        gpu = kstart + kns + 500;
    }
    fputs("\n]}\n", out);
    if (out != stdout && fclose(out) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
