/* find_gen.c: generated Kineto traces for the findings tests (find_gen.h). */
#include "tests/lib/find_gen.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <string.h>

void fg_begin(fg_gen *g, bool h100)
{
    memset(g, 0, sizeof *g);
    if (h100)
        tp_buf_puts(&g->b, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":"
                           "85045870592,\"computeMajor\":9,\"computeMinor\":0,\"numSms\":132}],\n");
    else
        tp_buf_puts(&g->b, "{");
    tp_buf_puts(&g->b, "\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,"
                       "\"tid\":1,\"ts\":1,\"dur\":1}");
}

const char *fg_end(fg_gen *g, const char *file)
{
    tp_buf_puts(&g->b, "\n]}\n");
    tp_buf_putc(&g->b, 0);
    const char *p = tp_test_write_text(file, g->b.data);
    tp_buf_free(&g->b);
    return p;
}

void fg_host(fg_gen *g, const char *cat, const char *name, double ts, double dur, const char *args)
{
    tp_buf_printf(&g->b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f%s%s}",
                  cat, name, ts, dur, args ? ",\"args\":" : "", args ? args : "");
}

/* A launch call at `ts` (2 us) of an activity that starts at max(gpu + gap, launch end + 1); returns its end. */
double fg_launch(fg_gen *g, double ts, const char *cat, const char *name, int tid, double dur, double gap)
{
    int c = ++g->corr;
    tp_buf_printf(&g->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":2,"
                  "\"args\":{\"correlation\":%d}}",
                  strcmp(cat, "kernel") ? "cudaMemcpyAsync" : "cudaLaunchKernel", ts, c);
    double start = g->gpu + gap > ts + 3 ? g->gpu + gap : ts + 3;
    tp_buf_printf(&g->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                  "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":%d}}",
                  cat, name, tid, start, dur, c, tid);
    g->gpu = start + dur;
    return g->gpu;
}

void fg_step(fg_gen *g, int n, double ts, double dur)
{
    tp_buf_printf(&g->b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                         "\"ts\":%.3f,\"dur\":%.3f}", n, ts, dur);
}

