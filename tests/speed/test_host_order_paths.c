/* test_host_order_paths.c: the host tree's order (report/analysis/hosttree.c)
 * is the same whichever way a thread's slices come: in start order, in a few
 * runs (merged where they overlap) or shuffled (the general sort), so the
 * report and stats built on it are byte-identical; and stats, which builds
 * no op breakdown and no CPU overheads, prints what it printed with them. */
#include "tests/lib/harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 60, PER_STEP = 7, N = STEPS * PER_STEP };

/* Event i of a trace of STEPS steps: a step span, an op with a child op and a launch, the kernel it launches,
 * and two ops starting together (a tie in start: the longer first; the critical path takes equal slices in input
 * order, so none is equal in start and length). */
static void event(int i, char *buf, size_t n)
{
    int s = i / PER_STEP, k = i % PER_STEP;
    long base = 1000L + s * 1000L;
    switch (k) {
    case 0:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":900}", s, base);
        break;
    case 1:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":300}", base + 10);
        break;
    case 2:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":200}", base + 20);
        break;
    case 3:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":50,\"args\":{\"correlation\":%d}}", base + 30, s + 1);
        break;
    case 4:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_gemm_%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":%d,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}", s % 3, base + 100, 150 + s % 5, s + 1);
        break;
    case 5:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":100}", base + 400);
        break;
    default:
        snprintf(buf, n, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":80}", base + 400);
        break;
    }
}

static const char *write_trace(const char *name, const int *order)
{
    size_t cap = (size_t)N * 256 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "{\"traceEvents\":[");
    for (int i = 0; i < N; i++) {
        char ev[256];
        event(order[i], ev, sizeof ev);
        len += (size_t)snprintf(text + len, cap - len, "%s%s\n", i ? "," : "", ev);
    }
    snprintf(text + len, cap - len, "]}");
    const char *path = tp_test_write_text(name, text);
    free(text);
    return path;
}

static int same_file(const char *a, const char *b)
{
    return tp_test_run(NULL, "cmp -s '%s' '%s'", a, b) == 0;
}

TEST(host_order_in_order_runs_and_shuffled_give_one_report)
{
    int sorted[N], runs[N], shuffled[N];
    for (int i = 0; i < N; i++)
        sorted[i] = i;
    /* three runs: the steps' thirds, the last first */
    int n = 0;
    for (int part = 2; part >= 0; part--)
        for (int i = part * N / 3; i < (part + 1) * N / 3; i++)
            runs[n++] = i;
    memcpy(shuffled, sorted, sizeof shuffled);
    unsigned x = 99;
    /* the first three steps stay in front: the names first appear in the same order (the critical path ranks
     * equal times by name id: the order names first appear in) */
    for (int i = N - 1; i > 3 * PER_STEP; i--) {
        x = x * 1103515245u + 12345u;
        int j = 3 * PER_STEP + (int)((x >> 8) % (unsigned)(i + 1 - 3 * PER_STEP)), v = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = v;
    }
    const int *orders[3] = {sorted, runs, shuffled};
    const char *names[3] = {"sorted", "runs", "shuffled"};
    char dirs[3][1024], stats[3][1200], bin[4096];
    CHECK(realpath(tp_test_bin(), bin) != NULL); /* the commands run in the trace's folder */
    for (int k = 0; k < 3; k++) {
        char file[64], in[1200];
        snprintf(file, sizeof file, "host_%s.json", names[k]);
        const char *written = write_trace(file, orders[k]);
        /* each as trace.json in its own folder: the reports name their input */
        snprintf(dirs[k], sizeof dirs[k], "%.900s", tp_test_tmp(names[k]));
        snprintf(in, sizeof in, "%s/trace.json", dirs[k]);
        CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s'", dirs[k], written, in), 0);
        snprintf(stats[k], sizeof stats[k], "%s/stats.json", dirs[k]);
        CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && SOURCE_DATE_EPOCH=0 '%s' report trace.json -o out 2>/dev/null", dirs[k], bin),
                     0);
        CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && '%s' stats --json trace.json > stats.json 2>/dev/null", dirs[k], bin),
                     0);
        snprintf(dirs[k] + strlen(dirs[k]), sizeof dirs[k] - strlen(dirs[k]), "/out");
    }
    for (int k = 1; k < 3; k++) {
        char a[1200], b[1200];
        snprintf(a, sizeof a, "%s/summary.json", dirs[0]);
        snprintf(b, sizeof b, "%s/summary.json", dirs[k]);
        CHECK(same_file(a, b));
        snprintf(a, sizeof a, "%s/png/timeline.png", dirs[0]);
        snprintf(b, sizeof b, "%s/png/timeline.png", dirs[k]);
        CHECK(same_file(a, b));
        CHECK(same_file(stats[0], stats[k]));
    }
    /* the host tree saw the nesting: the step's ops under it, addmm under linear */
    char *out = NULL;
    char p[1200];
    snprintf(p, sizeof p, "%s/summary.json", dirs[1]);
    CHECK_EQ_INT(tp_test_run(&out, "grep -c 'aten::linear' '%s'", p), 0);
    free(out);
}
