/* test_find_step_impact.c: a finding that holds only in some steps (the whole
 * trace under the rule's threshold) has the part of those steps as its
 * impact, not the idle the other steps keep under the threshold
 * (docs/REPORT.md "Findings", *Scope*): a slow warm-up step of an otherwise
 * quiet trace is no finding once it is under the noise. */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"
#include "tests/lib/load_trace.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "ampere_sgemm_128x128_nn"

/* `steps` steps of 20 GEMMs of 400 us; halfway through each, the host works
 * `pause_us` (step 0: `first_us`) after the device has drained before it
 * launches the rest: the GPU waits that long for the host in that step. */
static const char *paused_trace(const char *file, int steps, double pause_us, double first_us)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < steps; k++) {
        double h = s + 5;
        for (int i = 0; i < 20; i++) {
            if (i == 10) {
                double p = k ? pause_us : first_us;
                h = h > g.gpu ? h : g.gpu;
                fg_host(&g, "cpu_op", "aten::host_work", h, p, NULL);
                h += p;
            }
            fg_host(&g, "cpu_op", "aten::mm", h, 8, NULL);
            fg_launch(&g, h + 2, "kernel", GEMM, 7, 400, 1);
            h += 10;
        }
        double end = g.gpu + 10;
        fg_step(&g, k, s, end - s);
        s = end;
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

TEST(find_step_impact_is_the_holding_steps_part)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    /* every step 9.1% host wait (under 15%): no finding */
    CHECK(tp_test_load_report(paused_trace("quiet.json", 10, 800, 800), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    CHECK(!find(&f, "host_bound"));
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);

    /* step 0 at 16.5%: host_bound in step 0, its impact step 0's 1.6 ms, not the 8.9 ms of all ten */
    CHECK(tp_test_load_report(paused_trace("warm10.json", 10, 800, 1600), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    const tp_finding *x = find(&f, "host_bound");
    CHECK(x != NULL);
    if (x) {
        CHECK_STR(x->scope, "step 0");
        CHECK(x->m->impact_ns >= 1500000 && x->m->impact_ns <= 1700000);
        CHECK_EQ_INT(x->m->impact_ns, x->step_impact_ns);
    }
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);

    /* the same warm-up step among 30: 1.6 ms is 0.6% of the GPU span, under the noise: no finding */
    CHECK(tp_test_load_report(paused_trace("warm30.json", 30, 800, 1600), &t, &s) == 0);
    tp_findings_build(&s, NULL, &f);
    CHECK(!find(&f, "host_bound"));
    CHECK_EQ_INT(f.n, 0);
    tp_findings_free(&f);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* A finding that moved between base and candidate says where it held in the
 * base: "grew ... in every step, 10 of 10" alone read as the same stall
 * grown, when the base's was a warm-up step's; a job's straggler that is
 * another rank is not the base's straggler grown. */
TEST(find_diff_names_where_a_moved_finding_held_in_the_base)
{
    const char *base = paused_trace("d_base.json", 10, 800, 1600), *cand = paused_trace("d_cand.json", 10, 2000, 2000);
    const char *dir = tp_test_tmp("d_out");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s'", tp_test_bin(), base, cand, dir), 0);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "- grew: The GPU waits for the host to launch work in every step, 10 of 10 (in the base: "
                           "step 0) (`host_bound`, high)"));
    free(md);

    const char *j[2] = {tp_test_tmp("j_base"), tp_test_tmp("j_cand")};
    for (int k = 0; k < 2; k++)
        CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 4 --steps 4 --slow-rank %d --slow-us 3000 --out '%s' -q",
                                 k ? 2 : 1, j[k]),
                     0);
    const char *jd = tp_test_tmp("j_out");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(),
                             j[0], j[1], jd),
                 0);
    md = tp_test_read_in(jd, "diff.md");
    CHECK(md && strstr(md, "(rank 2) (in the base: rank 1) (`straggler`, high)"));
    free(md);
}
