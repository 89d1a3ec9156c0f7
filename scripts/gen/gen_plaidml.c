/* gen_plaidml.c: a synthetic PlaidML event log of the current schema
 * (ActivityID index + stream uuid), for benchmarks and tests at scale.
 *   gen_plaidml OUT[.gz] [MB]     (default 100 MB of uncompressed records)
 * Shape: per invocation, ScheduleInvocation -> Program::Run ->
 * Program::Enqueue -> 40 Kernel::Run (RunInfo) each with HostQueue,
 * DevQueue and Executing on device clock 1; buffer mappings between
 * invocations; 64 kernels built once with KernelInfo and a CompilationInfo.
 * Deterministic: same arguments, same bytes.  Prints what it wrote. */
#include "../../tests/lib/pbenc.h"

#include <zlib.h>

static pbe rec;             /* one Record */
static pbe ev, tmp, tmp2;
static gzFile gz;
static FILE *plain;
static uint64_t bytes_out, nevents, nexec;

static void emit_event(void)
{
    pbe_free(&rec);
    pbe_msg(&rec, 2, &ev);
    pbe len = {0};
    pbe_varint(&len, rec.len);
    if (gz) {
        gzwrite(gz, len.d, (unsigned)len.len);
        gzwrite(gz, rec.d, (unsigned)rec.len);
    } else {
        fwrite(len.d, 1, len.len, plain);
        fwrite(rec.d, 1, rec.len, plain);
    }
    bytes_out += len.len + rec.len;
    nevents++;
    pbe_free(&len);
    pbe_free(&ev);
}

static void id(pbe *b, uint32_t field, uint64_t index, const char *uuid)
{
    pbe m = {0};
    if (index)
        pbe_uint(&m, 1, index);
    if (uuid)
        pbe_bytes(&m, 2, uuid, 16);
    pbe_msg(b, field, &m);
    pbe_free(&m);
}

static void dur(pbe *b, uint32_t field, uint64_t ns)
{
    pbe m = {0};
    pbe_uint(&m, 1, ns / 1000000000u);
    if (ns % 1000000000u)
        pbe_uint(&m, 2, ns % 1000000000u);
    pbe_msg(b, field, &m);
    pbe_free(&m);
}

static uint64_t next_id = 1;
static uint64_t host_ns = 1524125748000000000ull; /* a 2018 Unix time, as real logs */
static uint64_t dev_ns = 1251014000000000ull;     /* a device uptime clock */
static uint32_t lcg = 12345;

static uint32_t rnd(uint32_t n)
{
    lcg = lcg * 1103515245u + 12345u;
    return (lcg >> 8) % n;
}

static uint64_t start(uint64_t parent, const char *verb, const char *uuid)
{
    uint64_t a = next_id++;
    id(&ev, 1, parent, NULL);
    id(&ev, 2, a, uuid);
    pbe_str(&ev, 3, verb);
    dur(&ev, 5, host_ns);
    id(&ev, 8, 0, NULL);
    emit_event();
    host_ns += 1000 + rnd(2000);
    return a;
}

static void end(uint64_t a)
{
    id(&ev, 2, a, NULL);
    dur(&ev, 6, host_ns);
    emit_event();
    host_ns += 500 + rnd(1000);
}

static void meta(uint64_t a, const char *type, const pbe *value)
{
    char url[160];
    snprintf(url, sizeof url, "type.vertex.ai/%s", type);
    pbe any = {0};
    pbe_str(&any, 1, url);
    pbe_msg(&any, 2, value);
    id(&ev, 2, a, NULL);
    pbe_msg(&ev, 7, &any);
    emit_event();
    pbe_free(&any);
}

static void device(uint64_t parent, const char *verb, uint64_t s, uint64_t e)
{
    pbe c = {0};
    id(&ev, 1, parent, NULL);
    id(&ev, 2, next_id++, NULL);
    pbe_str(&ev, 3, verb);
    pbe_uint(&c, 1, 1);
    pbe_msg(&ev, 4, &c);
    dur(&ev, 5, s);
    dur(&ev, 6, e);
    id(&ev, 8, 0, NULL);
    emit_event();
    pbe_free(&c);
}

#define NKERNELS 64
#define RUNS_PER_INVOCATION 40

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_plaidml OUT[.gz] [MB]\n");
        return 1;
    }
    double mb = argc > 2 ? atof(argv[2]) : 100;
    size_t n = strlen(argv[1]);
    if (n > 3 && strcmp(argv[1] + n - 3, ".gz") == 0)
        gz = gzopen(argv[1], "wb6");
    else
        plain = fopen(argv[1], "wb");
    if (!gz && !plain) {
        perror(argv[1]);
        return 1;
    }
    /* magic record */
    pbe m = {0};
    pbe_uint(&tmp, 1, 0x4C747645u);
    pbe_msg(&m, 1, &tmp);
    pbe_free(&tmp);
    pbe len = {0};
    pbe_varint(&len, m.len);
    if (gz) {
        gzwrite(gz, len.d, (unsigned)len.len);
        gzwrite(gz, m.d, (unsigned)m.len);
    } else {
        fwrite(len.d, 1, len.len, plain);
        fwrite(m.d, 1, m.len, plain);
    }
    bytes_out += len.len + m.len;
    pbe_free(&len);
    pbe_free(&m);

    /* compile once: 64 kernels */
    uint64_t kernel_act[NKERNELS];
    uint64_t root = start(0, "vertexai::OpenDevices", "0123456789abcdef");
    end(root);
    uint64_t inv0 = start(0, "plaidml::invoker::ScheduleInvocation", NULL);
    uint64_t comp = start(inv0, "tile::local_machine::Compile", NULL);
    uint64_t build = start(comp, "tile::hal::opencl::Build", NULL);
    for (int k = 0; k < NKERNELS; k++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_c1_sdk_%d", k);
        kernel_act[k] = start(build, "tile::hal::opencl::BuildKernel", NULL);
        pbe_str(&tmp, 1, name);
        pbe_str(&tmp, 2, "__kernel void k(__global float *x) { x[get_global_id(0)] *= 2.0f; }");
        pbe_uint(&tmp2, 101, 1000000 + (uint64_t)k * 1000);
        pbe_uint(&tmp2, 102, 4096 + (uint64_t)k);
        pbe_msg(&tmp, 3, &tmp2);
        meta(kernel_act[k], "vertexai.tile.hal.opencl.proto.KernelInfo", &tmp);
        pbe_free(&tmp);
        pbe_free(&tmp2);
        end(kernel_act[k]);
    }
    end(build);
    pbe prog = {0};
    pbe_str(&prog, 1, "c1_sdk");
    pbe_str(&prog, 3, "function (A[N]) -> (B) { B = A * 2; }");
    pbe_msg(&tmp, 1, &prog);
    pbe_free(&prog);
    for (int k = 0; k < 4; k++) {
        pbe_uint(&tmp2, 1, 1024u << k);
        pbe_uint(&tmp2, 2, 1 + (uint64_t)k);
        pbe_msg(&tmp, 2, &tmp2);
        pbe_msg(&tmp, 3, &tmp2);
        pbe_free(&tmp2);
    }
    meta(comp, "vertexai.tile.hal.proto.CompilationInfo", &tmp);
    pbe_free(&tmp);
    end(comp);
    end(inv0);

    uint64_t target = (uint64_t)(mb * 1e6);
    uint64_t invocations = 0;
    while (bytes_out < target) {
        uint64_t inv = start(0, "plaidml::invoker::ScheduleInvocation", NULL);
        uint64_t prun = start(inv, "tile::local_machine::Program::Run", NULL);
        uint64_t enq = start(prun, "tile::local_machine::Program::Enqueue", NULL);
        for (int r = 0; r < RUNS_PER_INVOCATION; r++) {
            int k = (int)rnd(NKERNELS);
            uint64_t run = start(enq, "tile::hal::opencl::Kernel::Run", NULL);
            id(&tmp, 1, kernel_act[k], NULL);
            meta(run, "vertexai.tile.hal.opencl.proto.RunInfo", &tmp);
            pbe_free(&tmp);
            uint64_t q = dev_ns, s = q + 2000 + rnd(3000), x = s + 1000 + rnd(5000);
            uint64_t e = x + 10000 + (uint64_t)k * 500 + rnd(20000);
            device(run, "tile::hal::opencl::HostQueue", q, s);
            device(run, "tile::hal::opencl::DevQueue", s, x);
            device(run, "tile::hal::opencl::Executing", x, e);
            nexec++;
            dev_ns = e + 100;
            end(run);
        }
        end(enq);
        end(prun);
        end(inv);
        uint64_t wb = start(0, "vertexai::WriteBackMap", NULL);
        uint64_t um = start(wb, "tile::hal::opencl::Buffer::Unmap", NULL);
        end(um);
        end(wb);
        uint64_t gm = start(0, "vertexai::GetMapBase", NULL);
        end(gm);
        /* keep the device clock behind its host launches */
        if (dev_ns < host_ns - 1524125748000000000ull + 1251014000000000ull)
            dev_ns = host_ns - 1524125748000000000ull + 1251014000000000ull;
        invocations++;
    }
    if (gz)
        gzclose(gz);
    else
        fclose(plain);
    printf("%s: %llu bytes of records, %llu events, %llu invocations, %llu kernel executions\n", argv[1],
           (unsigned long long)bytes_out, (unsigned long long)nevents, (unsigned long long)invocations,
           (unsigned long long)nexec);
    return 0;
}
