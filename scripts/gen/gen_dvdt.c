/* gen_dvdt.c: a synthetic dv/dt prof cjson trace of about SIZE MB with the
 * call mix of the real ARM CL sample (per enqueue: ~23 clSetKernelArg,
 * ~2 clCreateBuffer), deterministic.  Prints the expected kernel count and
 * the total execution time (ns) on stderr so a run can be checked.
 *   build/gen/gen_dvdt OUT.json [SIZE_MB=100] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static void iso(char *out, size_t n, int64_t ns)
{
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t k = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + k, n - k, ".%06d", (int)(ns % 1000000000 / 1000));
}

static void stamp(FILE *f, int64_t t0, int64_t t1)
{
    char a[40], b[40];
    iso(a, sizeof a, t0);
    iso(b, sizeof b, t1);
    fprintf(f, "    \"timestamp\": {\n      \"start\": \"%s\", \n      \"end\": \"%s\"\n    }, \n", a, b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_dvdt OUT.json [SIZE_MB]\n");
        return 1;
    }
    double mb = argc > 2 ? atof(argv[2]) : 100;
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static const char *const kernels[] = {"direct_convolution1x1_f32_bifrost_7", "batchnormalization_layer",
                                          "activation_layer", "depthwise_convolution_3x3",
                                          "fill_image_borders_constant", "gemm_mm_floating_point"};
    int64_t host = 1518172608553314000LL;            /* 2018-02-09T10:36:48.553314 */
    const int64_t dev_off = 1517857591003344518LL;   /* host = device + dev_off */
    uint64_t buf = 0x55a2b2d000ULL;
    uint64_t kernels_n = 0, total_exec = 0, calls = 0;
    fputs("[\n", f);
    int first = 1;
    while ((double)ftell(f) < mb * 1e6) {
        int nbuf = 1 + (int)(next() % 3);
        for (int i = 0; i < nbuf; i++) {
            fputs(first ? "  {\n" : ", \n  {\n", f);
            first = 0;
            buf += 0x400;
            stamp(f, host, host + 15000);
            fprintf(f, "    \"buffer\": \"0x%" PRIx64 "\", \n    \"errcode\": 0, \n    \"flags\": 17, \n"
                       "    \"context\": \"0x55a2b19800\", \n    \"host_ptr\": \"0\", \n    \"call\": \"clCreateBuffer\", \n"
                       "    \"errcode_ret\": \"0x7fe7417cec\", \n    \"size\": %u\n  }",
                    buf, 64 + next() % 100000);
            host += 20000;
            calls++;
        }
        uint64_t kptr = 0x55a2b57000ULL + 0x200 * (next() % 8);
        int nargs = 18 + (int)(next() % 10);
        for (int a = 0; a < nargs; a++) {
            int size8 = a % 4 == 0;
            char hex[17];
            if (size8) {
                uint64_t v = buf - 0x400 * (uint64_t)(next() % 4);
                for (int b = 0; b < 8; b++)
                    snprintf(hex + 2 * b, 3, "%02x", (unsigned)((v >> (8 * b)) & 0xff));
            } else {
                uint32_t v = next() % 4096;
                for (int b = 0; b < 4; b++)
                    snprintf(hex + 2 * b, 3, "%02x", (unsigned)((v >> (8 * b)) & 0xff));
            }
            fputs(", \n  {\n", f);
            fprintf(f, "    \"arg_size\": %d, \n    \"kernel\": \"0x%" PRIx64 "\", \n    \"arg_value_ptr\": \"0x7fe7417974\", \n",
                    size8 ? 8 : 4, kptr);
            stamp(f, host, host + 10000);
            fprintf(f, "    \"errcode\": 0, \n    \"call\": \"clSetKernelArg\", \n    \"arg_value\": \"%s\", \n"
                       "    \"arg_index\": %d\n  }",
                    hex, a);
            host += 12000;
            calls++;
        }
        const char *name = kernels[next() % (sizeof kernels / sizeof kernels[0])];
        int64_t q = host - dev_off + 30000, s = q + 250000, st = s + 3000000 + next() % 100000,
                e = st + 5000 + next() % 2000000;
        int64_t t1 = e + dev_off + 200000;
        fputs(", \n  {\n", f);
        fprintf(f, "    \"kernel\": \"0x%" PRIx64 "\", \n    \"profiling\": {\n      \"start\": %" PRId64 ", \n"
                   "      \"end\": %" PRId64 ", \n      \"queued\": %" PRId64 ", \n      \"submit\": %" PRId64 "\n    }, \n"
                   "    \"name\": \"%s\", \n    \"lws\": [\n      0, \n      0, \n      0\n    ], \n"
                   "    \"gwo\": [\n      0, \n      0, \n      0\n    ], \n    \"errcode\": 0, \n"
                   "    \"queue\": \"0x55a2b3dc00\", \n    \"call\": \"clEnqueueNDRangeKernel\", \n"
                   "    \"gws\": [\n      %u, \n      %u, \n      %u\n    ], \n",
                kptr, st, e, q, s, name, 1 + next() % 1024, 1 + next() % 64, 1 + next() % 4);
        stamp(f, host, t1);
        fputs("    \"event_wait_list\": [], \n    \"event\": \"0\"\n  }", f);
        host = t1 + 10000;
        kernels_n++;
        total_exec += (uint64_t)(e - st);
        calls++;
    }
    fputs("\n]\n", f);
    long size = ftell(f);
    if (fclose(f)) {
        perror(argv[1]);
        return 1;
    }
    fprintf(stderr, "%s: %ld bytes, %" PRIu64 " calls, %" PRIu64 " kernel enqueues, execution total %" PRIu64 " ns\n",
            argv[1], size, calls, kernels_n, total_exec);
    return 0;
}
