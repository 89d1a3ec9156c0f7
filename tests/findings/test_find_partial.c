/* test_find_partial.c: a trace whose events were filtered or sampled
 * (docs/REPORT.md "Findings", *Partial traces*) is not called host-bound on
 * the evidence of the gaps its filter made: the measures that read the idle
 * gaps cannot tell, said once; the same trace with its numbering whole is
 * host-bound. */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"
#include "tests/lib/load_trace.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small GEMMs each launched late (host-bound), each aten::mm numbered by
 * Kineto's "Ev Idx": `stride` 1 as a whole trace numbers them (the launch
 * call between two ops has no number), 40 as a trace that kept one event in
 * 40. */
static const char *numbered_trace(const char *file, int stride)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    int idx = 1000;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 25; i++) {
            char args[160];
            snprintf(args, sizeof args,
                     "{\"Input Dims\":[[64,64],[64,64]],\"Input type\":[\"float\",\"float\"],\"Ev Idx\":%d}", idx);
            idx += stride;
            fg_host(&g, "cpu_op", "aten::mm", s + 50 * i, 40, args);
            fg_launch(&g, s + 50 * i + 30, "kernel", "gemm_64x64_kernel", 7, 5, 0);
        }
        fg_step(&g, k, s, 1250);
        s += 1250;
    }
    return fg_end(&g, file);
}

static const tp_finding *find(const tp_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->items[i].rule->id, id) == 0)
            return &f->items[i];
    return NULL;
}

TEST(find_partial_sampled_trace_is_not_host_bound)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    CHECK(tp_test_load_report(numbered_trace("whole.json", 1), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    CHECK(f.n && strcmp(f.items[0].rule->id, "host_bound") == 0);
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);

    CHECK(tp_test_load_report(numbered_trace("sampled.json", 40), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    CHECK(find(&f, "host_bound") == NULL);
    CHECK(find(&f, "sync_stall") == NULL);
    bool said = false;
    for (size_t i = 0; i < f.nunsure; i++)
        if (strcmp(f.unsure[i]->id, "host_bound") == 0)
            said = strstr(f.unsure_m[i]->why, "filtered or sampled") != NULL;
    CHECK(said);
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* Said once in summary.md: one line for the three rules that read the gaps. */
TEST(find_partial_said_once)
{
    const char *in = numbered_trace("sampled_md.json", 40);
    const char *dir = tp_test_tmp("sampled.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "- cannot tell (`host_bound`, `sync_stall`, `input_bound`): the trace"));
    const char *p = md ? strstr(md, "filtered or sampled") : NULL;
    CHECK(p && !strstr(p + 1, "filtered or sampled"));
    CHECK(md && strncmp(md, "**The GPU waits for the host", 28) != 0);
    free(md);
}
