/* mem_gen.c: see mem_gen.h */
#include "tests/lib/mem_gen.h"
#include "tests/lib/harness.h"

#include "convert/base/common.h"

#include <stdio.h>

typedef struct mg {
    tp_buf b;
    int64_t level, reserved;
    int64_t addr;
} mg;

static void mem(mg *g, double ts, int64_t addr, int64_t bytes)
{
    g->level += bytes;
    int64_t chunk = (int64_t)64 << 20;
    int64_t r = (g->level + chunk - 1) / chunk * chunk;
    if (r > g->reserved)
        g->reserved = r;
    tp_buf_printf(&g->b,
                  ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
                  "\"ts\":%.3f,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":%lld,\"Bytes\":%lld,"
                  "\"Total Allocated\":%lld,\"Total Reserved\":%lld}}",
                  ts, (long long)addr, (long long)bytes, (long long)g->level, (long long)g->reserved);
}

static void slice(mg *g, const char *cat, const char *name, double ts, double dur)
{
    tp_buf_printf(&g->b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f}",
                  cat, name, ts, dur);
}

const char *mg_write(const char *file, const mg_opts *o)
{
    mg g = {{0}, o->held, 0, 0x7f0000000000};
    if (o->h100)
        tp_buf_puts(&g.b, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":"
                          "85045870592,\"computeMajor\":9,\"computeMinor\":0,\"numSms\":132}],\n");
    else
        tp_buf_puts(&g.b, "{");
    tp_buf_puts(&g.b, "\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,"
                      "\"tid\":1,\"ts\":1,\"dur\":1}");
    /* a host allocation pair: its own device, "cpu" */
    tp_buf_puts(&g.b, ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,"
                      "\"tid\":1,\"ts\":5,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":94000000,\"Bytes\":16,"
                      "\"Total Allocated\":16,\"Total Reserved\":0}}");
    tp_buf_puts(&g.b, ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,"
                      "\"tid\":1,\"ts\":6,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":94000000,\"Bytes\":-16,"
                      "\"Total Allocated\":0,\"Total Reserved\":0}}");
    for (int s = 0; s < o->steps; s++) {
        double t0 = 1000.0 + 1000.0 * s;
        tp_buf_printf(&g.b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,"
                            "\"tid\":1,\"ts\":%.3f,\"dur\":900}", s, t0);
        slice(&g, "python_function", "nn.Module: Net_0", t0 + 10, 880);
        slice(&g, "cpu_op", "aten::linear", t0 + 90, 50);
        slice(&g, "cpu_op", "aten::empty", t0 + 95, 10);
        int64_t act = g.addr += 1 << 24;
        mem(&g, t0 + 100, act, MG_ACT);
        /* one kernel a step: a device to report on (GPU time, findings) */
        tp_buf_printf(&g.b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%.3f,\"dur\":5,\"args\":{\"correlation\":%d}}",
                      t0 + 150, s + 1);
        tp_buf_printf(&g.b,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":%.3f,"
                      "\"dur\":500,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                      t0 + 160, s + 1);
        slice(&g, "python_function", "nn.Module: Cache_0", t0 + 180, 40);
        slice(&g, "cpu_op", "leaky_op", t0 + 190, 20);
        if (o->leak)
            mem(&g, t0 + 200, g.addr += 1 << 24, o->leak);
        if (s == 1 && o->extra) {
            slice(&g, "cpu_op", "extra_op", t0 + 240, 20);
            mem(&g, t0 + 250, g.addr += 1 << 24, o->extra);
        }
        if (s == o->temp_step && o->temp) {
            int64_t tmp = g.addr += 1 << 24;
            slice(&g, "cpu_op", "big_temp_op", t0 + 290, 120);
            mem(&g, t0 + 300, tmp, o->temp);
            mem(&g, t0 + 400, tmp, -o->temp);
        }
        slice(&g, "cpu_op", "aten::relu", t0 + 790, 20);
        mem(&g, t0 + 800, act, -MG_ACT);
        if (s == 0) { /* a block allocated before the trace began, freed here */
            slice(&g, "cpu_op", "aten::del", t0 + 845, 10);
            mem(&g, t0 + 850, 0x100000, -MG_UNMATCHED);
        }
    }
    tp_buf_puts(&g.b, "\n]}\n");
    tp_buf_putc(&g.b, 0);
    const char *p = tp_test_write_text(file, g.b.data);
    tp_buf_free(&g.b);
    return p;
}

int64_t mg_step_end(const mg_opts *o, int s)
{
    return o->held + o->leak * (s + 1) + (s >= 1 ? o->extra : 0) - MG_UNMATCHED;
}

int64_t mg_peak(const mg_opts *o)
{
    int64_t best = 0;
    for (int s = 0; s < o->steps; s++) {
        /* within step s the level is highest with the activation, the leak, the extra and the temporary live */
        int64_t before = s ? mg_step_end(o, s - 1) : o->held;
        int64_t v = before + MG_ACT + o->leak + (s == 1 ? o->extra : 0) + (s == o->temp_step ? o->temp : 0);
        if (v > best)
            best = v;
    }
    return best;
}

void mg_check_counters(const char *js, const mg_opts *o)
{
    CHECK_EQ_INT(tp_test_count(js, "\"name\":\"Memory cuda:0\""), 3 * o->steps + 1);
    CHECK_EQ_INT(tp_test_count(js, "\"name\":\"Memory cpu\""), 2);
    char want[200];
    snprintf(want, sizeof want, "\"ph\":\"C\",\"name\":\"Memory cuda:0\",\"pid\":1,\"tid\":1,\"ts\":1099.000,"
             "\"args\":{\"allocated\":%lld,\"reserved\":%lld}}", (long long)(o->held + MG_ACT), 1088LL << 20);
    CHECK(js && strstr(js, want));
}
