/* test_find_job.c: the findings of a job (docs/REPORT.md "Jobs"): `--rules
 * FILE` overrides and disables the job's rules as it does a trace's, and
 * each rank's top finding is the one `tracepress report` gives on that
 * rank's trace alone. */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"
#define MM_4096 "{\"Input Dims\":[[4096,4096],[4096,4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}"

static bool has(const char *text, const char *needle)
{
    bool ok = text && strstr(text, needle) != NULL;
    if (!ok)
        fprintf(stderr, "  missing: %s\n", needle);
    return ok;
}

/* A generated job: R ranks, 4 steps, rank 1 4 ms late; its folder. */
static const char *gen_job(const char *name, int ranks)
{
    const char *gen = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks %d --steps 4 --slow-rank 1 --slow-us 4000 --out '%s' -q",
                             ranks, gen),
                 0);
    return gen;
}

TEST(find_job_rules_file_overrides_and_disables_job_rules)
{
    const char *gen = gen_job("jr", 4);
    const char *d0 = tp_test_tmp("jr0.report"), *d1 = tp_test_tmp("jr1.report"), *d2 = tp_test_tmp("jr2.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s'/rank-*.json -o '%s' 2>/dev/null", tp_test_bin(), gen, d0), 0);
    char *j = tp_test_read_in(d0, "summary.json");
    CHECK(has(j, "\"findings\":[\n{\"id\":\"straggler\","));
    free(j);
    /* the straggler's threshold raised over its 37.7%, imbalance switched off, a rule of my own added */
    const char *rules = tp_test_write_text("job.rules",
                                           "straggler | late_rank | 50% | high | Late rank | Look at it\n"
                                           "imbalance | computation_spread | 5% | off | x | y\n"
                                           "my_comm | job_exposed_communication | 1% | low | Some communication | Hide it\n");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s'/rank-*.json -o '%s' --rules '%s' 2>/dev/null", tp_test_bin(), gen,
                             d1, rules),
                 0);
    j = tp_test_read_in(d1, "summary.json");
    CHECK(j && !strstr(j, "{\"id\":\"straggler\""));
    CHECK(j && !strstr(j, "{\"id\":\"imbalance\""));
    CHECK(has(j, "{\"id\":\"my_comm\",\"title\":\"Some communication\",\"severity\":\"low\",\"rule_source\":\"file\""));
    free(j);
    /* stats of the job reads the same file */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'/rank-*.json --rules '%s' 2>/dev/null", tp_test_bin(), gen, rules), 0);
    CHECK(out && strstr(out, "Some communication") && !strstr(out, "One rank arrives late"));
    free(out);
    /* a trace's rule in the same file reaches each rank's own top finding */
    const char *rules2 = tp_test_write_text("job2.rules", "exposed_comm | exposed_communication | 5% | off | x | y\n");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s'/rank-*.json -o '%s' --rules '%s' 2>/dev/null", tp_test_bin(), gen,
                             d2, rules2),
                 0);
    j = tp_test_read_in(d2, "summary.json");
    CHECK(j && !strstr(j, "\"top_finding\":{\"id\":\"exposed_comm\""));
    CHECK(has(j, "{\"id\":\"straggler\","));
    free(j);
    /* a bad file: one line, exit 2, before any work */
    const char *bad = tp_test_write_text("bad.rules", "straggler | no_such_measure | 5% | high | t | n\n");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s'/rank-*.json -o '%s' --rules '%s' 2>&1", tp_test_bin(), gen,
                             tp_test_tmp("jr3.report"), bad),
                 2);
    CHECK(out && strstr(out, "is no measure"));
    free(out);
    CHECK(!tp_test_exists_in(tp_test_tmp("jr3.report"), "summary.json"));
}

/* Two ranks whose own report's top finding needs the cost model (GEMMs at 7% of an H100's roof):
 * the job's rank summary must give the same top finding as `report` of the rank alone. */
static const char *slow_gemm_rank(const char *file, int rank)
{
    fg_gen g;
    fg_begin(&g, true);
    char head[160];
    snprintf(head, sizeof head, "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":2},", rank);
    /* the trace's object starts with '{': the rank's identity first */
    tp_buf b = {0};
    tp_buf_puts(&b, head);
    tp_buf_put(&b, g.b.data + 1, g.b.len - 1);
    tp_buf_free(&g.b);
    g.b = b;
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 10; i++) {
            double t = s + 8 * i;
            fg_host(&g, "cpu_op", "aten::mm", t, 6, MM_4096);
            fg_launch(&g, t + 1, "kernel", GEMM, 7, 2000 + 100 * rank, 0);
        }
        fg_step(&g, k, s, 10 * (2000 + 100 * rank));
        s += 10 * (2000 + 100 * rank);
    }
    return fg_end(&g, file);
}

TEST(find_job_rank_top_finding_is_its_own_reports)
{
    const char *r0 = slow_gemm_rank("rank0_gemm.json", 0), *r1 = slow_gemm_rank("rank1_gemm.json", 1);
    const char *dj = tp_test_tmp("gemmjob.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), r0, r1, dj), 0);
    char *j = tp_test_read_in(dj, "summary.json");
    const char *rk[2] = {r0, r1};
    const char *at = j;
    for (int k = 0; k < 2; k++) {
        char dir[64];
        snprintf(dir, sizeof dir, "gemm%d.report", k);
        const char *d = tp_test_tmp(dir);
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' 2>/dev/null", tp_test_bin(), rk[k], d), 0);
        char *one = tp_test_read_in(d, "summary.json");
        /* its first finding: id and impact */
        const char *f = one ? strstr(one, "\"findings\":[\n{\"id\":\"") : NULL;
        CHECK(f != NULL);
        if (!f || !at)
            continue;
        f += strlen("\"findings\":[\n{\"id\":\"");
        char id[64] = "";
        sscanf(f, "%63[a-z0-9_]", id);
        const char *imp = strstr(f, "\"impact_ns\":");
        long long ns = imp ? atoll(imp + 12) : -1;
        CHECK_STR(id, "compute_headroom");
        char want[200];
        snprintf(want, sizeof want, "\"top_finding\":{\"id\":\"%s\",", id);
        at = strstr(at, want);
        CHECK(at != NULL);
        if (at) {
            const char *ji = strstr(at, "\"impact_ns\":");
            CHECK(ji && atoll(ji + 12) == ns);
            at++;
        }
        free(one);
    }
    free(j);
}

/* The straggler's trace gone before the merge (or a rank summary naming a FIFO): the evidence keeps the
 * window before its first collective from the rank summary and its confidence says so. */
TEST(find_job_late_window_without_the_trace_is_said)
{
    const char *gen = gen_job("jgone", 3);
    const char *d = tp_test_tmp("jgone.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s'/rank-*.json -o '%s' 2>/dev/null", tp_test_bin(), gen, d), 0);
    char *j = tp_test_read_in(d, "summary.json");
    CHECK(has(j, "it was late in (from the other ranks' first arrival to its own arrival) it ran: kernels: "));
    free(j);
    CHECK_EQ_INT(tp_test_run(NULL, "mv '%s/rank-1.json' '%s/moved.json' && mkfifo '%s/rank-1.json'", gen, gen, gen), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "timeout 20 '%s' report --merge -o '%s' 2>/dev/null", tp_test_bin(), d), 0);
    j = tp_test_read_in(d, "summary.json");
    CHECK(has(j, "{\"id\":\"straggler\","));
    CHECK(has(j, "before its first collective it ran "));
    CHECK(has(j, "its trace could not be read again for the window it was late in"));
    free(j);
}
