/* test_find_scope.c: the findings per step (docs/REPORT.md "Findings",
 * *Scope*): a stall planted in one step is scoped to that step, one in every
 * step says so, the per-step impact uses the step's time as its base; the
 * step-variance finding names what the outlier step ran more of. */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"
#include "tests/lib/load_trace.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"

/* Six steps of GEMMs queued ahead (the device never waits).  In the steps
 * whose bit is set in `stall`, the host syncs with the device
 * (aten::item > cudaStreamSynchronize) after its launches and then works
 * `host_us` before the next step launches anything: the GPU idles that long
 * in that step only.  A kernel after the last step ends the last idle. */
static const char *stall_trace(const char *file, unsigned stall, double host_us)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 6; k++) {
        double end = 0;
        for (int i = 0; i < 10; i++)
            end = fg_launch(&g, s + 6 * i, "kernel", GEMM, 7, 200, 0);
        double next = end - 100; /* launched ahead: the next step's first kernel queues behind this one's */
        if (stall & (1u << k)) {
            fg_host(&g, "cpu_op", "aten::item", s + 62, end + 6 - (s + 62), NULL);
            fg_host(&g, "cuda_runtime", "cudaStreamSynchronize", s + 65, end + 2 - (s + 65), NULL);
            next = end + host_us;
        }
        fg_step(&g, k + 1, s, next - s);
        s = next;
    }
    fg_launch(&g, s, "kernel", GEMM, 7, 200, 0); /* after the steps: the last step's stall idles the GPU too */
    return fg_end(&g, file);
}

static const tp_finding *find(const tp_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->items[i].rule->id, id) == 0)
            return &f->items[i];
    return NULL;
}

TEST(find_scope_a_stall_in_step_3_of_6_is_scoped_to_step_3)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    /* 1.5 ms of host work after the sync in step 3 only (of ProfilerStep#1..#6) */
    CHECK(tp_test_load_report(stall_trace("stall3.json", 1u << 2, 1500), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    CHECK(f.n >= 1);
    CHECK(f.n && strcmp(f.items[0].rule->id, "sync_stall") == 0);
    const tp_finding *x = find(&f, "sync_stall");
    CHECK(x != NULL);
    if (x) {
        CHECK_STR(x->scope, "step 3");
        CHECK_EQ_INT(x->nsteps, 1);
        CHECK_EQ_INT(x->steps_total, 6);
        CHECK(x->nsteps == 1 && s.sf.steps[x->steps[0]].step == 3);
        /* the idle: from the last GEMM's end to the next step's first kernel, within step 3's window */
        CHECK(x->step_impact_ns >= 1400000 && x->step_impact_ns <= 1600000);
        /* its share of step 3's time (about 2.0 + 1.5 ms) */
        CHECK(x->step_impact_milli > 35000 && x->step_impact_milli < 50000);
    }
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* Diluted by the other steps under the rule's threshold, the stall is still a finding of its step. */
TEST(find_scope_a_stall_below_the_whole_trace_threshold_is_a_step_finding)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    /* 400 us of idle in step 3: about 16% of that step, about 3% of the GPU span (under 5%) */
    CHECK(tp_test_load_report(stall_trace("stall3_small.json", 1u << 2, 400), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    const tp_finding *x = find(&f, "sync_stall");
    CHECK(x != NULL);
    if (x) {
        CHECK(x->m->value_milli < x->rule->threshold_milli); /* the whole trace alone would not fire */
        CHECK_STR(x->scope, "step 3");
    }
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

TEST(find_scope_every_step_and_some_steps)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    CHECK(tp_test_load_report(stall_trace("stall_all.json", 0x3f, 1500), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    const tp_finding *x = find(&f, "sync_stall");
    CHECK(x && strcmp(x->scope, "every step, 6 of 6") == 0);
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
    CHECK(tp_test_load_report(stall_trace("stall_25.json", (1u << 1) | (1u << 4), 1500), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    x = find(&f, "sync_stall");
    CHECK(x && strcmp(x->scope, "steps 2, 5 (2 of 6)") == 0);
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* The scope in every output: summary.json's fields, summary.md's verdict, stats. */
TEST(find_scope_in_the_outputs)
{
    const char *in = stall_trace("stall3_out.json", 1u << 2, 1500);
    const char *dir = tp_test_tmp("stall3.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strncmp(md, "**Host synchronisations leave the GPU idle in step 3**: up to ", 60) == 0);
    CHECK(md && strstr(md, "; in that step "));
    const char *nl = md ? strchr(md, '\n') : NULL;
    CHECK(nl && nl - md < 200);
    free(md);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "{\"id\":\"sync_stall\","));
    CHECK(js && strstr(js, "\"scope\":\"step 3\",\"scope_steps\":[3],\"steps_holding\":1,\"steps_total\":6,"
                           "\"impact_per_step_ns\":"));
    CHECK(js && strstr(js, "\"impact_per_step_pct_of_step_time\":"));
    free(js);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "sync_stall [high] Host synchronisations leave the GPU idle\n    scope: step 3\n"));
    CHECK(out && strstr(out, "    impact per step (median over the 1 step it holds in): "));
    free(out);
}

/* Steps of GEMMs queued ahead; step 4 of 8 also runs 20 extra copies and an extra host op. */
static const char *outlier_trace(void)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 8; k++) {
        for (int i = 0; i < 10; i++)
            fg_launch(&g, s + 6 * i, "kernel", GEMM, 7, 100, 0);
        double len = 1000;
        if (k == 3) {
            fg_host(&g, "cpu_op", "aten::index_put_", s + 70, 30, NULL);
            for (int i = 0; i < 20; i++)
                fg_launch(&g, s + 100 + 6 * i, "kernel", "indexing_backward_kernel", 7, 100, 0);
            len = 3000;
        }
        fg_step(&g, k + 1, s, len);
        s += len;
        g.gpu = s;
    }
    return fg_end(&g, "outlier_diff.json");
}

TEST(find_scope_step_variance_names_what_the_outlier_ran)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    CHECK(tp_test_load_report(outlier_trace(), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    const tp_finding *x = find(&f, "step_variance");
    CHECK(x != NULL);
    if (x) {
        CHECK_STR(x->scope, "step 4");
        bool kern = false, host = false;
        for (size_t k = 0; k < x->m->nevidence; k++) {
            const char *e = x->m->evidence[k];
            kern |= strstr(e, "device activities with more time than in the median step: indexing_backward_kernel "
                              "+2.000 ms (x20, median step x0)") != NULL;
            host |= strstr(e, "top-level host ops with more time than in the median step: aten::index_put_") != NULL;
        }
        CHECK(kern);
        CHECK(host);
    }
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}
