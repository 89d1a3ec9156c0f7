/* The job report (issue 21): a planted job (a slow rank, clock offsets,
 * known collective sizes) recovered exactly by the reduce; rank summaries
 * written and read back; the two real HTA ranks recounted by hand; shards
 * merged give the one-process bytes; different jobs refused. */
#include "convert/model/clock_align.h"
#include "report/job/job.h"
#include "report/job/job_out.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL

typedef struct plant {
    int nranks, nsteps, slow;
    int64_t slow_ns;
    int64_t off[8];  /* recorded = true + off[r] */
    bool seq;        /* calls carry sequence numbers */
    bool no_dist;    /* no distributedInfo: ranks from the file names */
} plant;

static char *xdup(const char *s) { return strcpy(malloc(strlen(s) + 1), s); }

/* One rank of the planted job.  Step s (true time T = 1e12 + s x 20 ms, 15 ms long):
 * computation 4 ms (+ slow_ns on the slow rank) from T; an all-reduce of
 * 1e8 bytes over all ranks from each rank's compute end, ending for all at
 * T + max compute + 1 ms; then an all-gather of 4e7 bytes that all start
 * together and that takes 0.5 ms. */
static void plant_rank(const plant *p, int r, tp_rank_sum *s)
{
    memset(s, 0, sizeof *s);
    char b[64];
    snprintf(b, sizeof b, "job/rank-%d.json", r);
    s->path = xdup(b);
    snprintf(b, sizeof b, "rank-%d", r);
    s->name = xdup(b);
    s->format = xdup("chrome");
    s->device = xdup("GPU 0");
    s->backend = xdup("nccl");
    s->dist_present = !p->no_dist;
    s->dist_rank = p->no_dist ? -1 : r;
    s->world_size = p->no_dist ? -1 : p->nranks;
    s->pg_size = p->no_dist ? -1 : p->nranks;
    s->pg_ranks = calloc((size_t)p->nranks, sizeof *s->pg_ranks);
    if (!p->no_dist) {
        s->npg_ranks = (size_t)p->nranks;
        for (int k = 0; k < p->nranks; k++)
            s->pg_ranks[k] = k;
    }
    char ranks[64] = "[0";
    for (int k = 1; k < p->nranks; k++)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), ", %d", k);
    strcat(ranks, "]");
    s->ncolls = 2;
    s->colls = calloc(2, sizeof *s->colls);
    s->colls[0] = (tp_rank_coll){xdup("all_reduce"), xdup("Float"), xdup("0"), xdup(ranks), p->nranks, 100000000, 0, 0};
    s->colls[1] = (tp_rank_coll){xdup("all_gather"), xdup("BFloat16"), xdup("0"), xdup(ranks), p->nranks, 40000000, 0, 0};
    s->nsteps = (size_t)p->nsteps;
    s->steps = calloc((size_t)p->nsteps, sizeof *s->steps);
    s->ncalls = 2 * (size_t)p->nsteps;
    s->calls = calloc(s->ncalls, sizeof *s->calls);
    int64_t maxc = 4 * MS + p->slow_ns;
    for (int st = 0; st < p->nsteps; st++) {
        int64_t T = 1000000000000LL + st * 20 * MS;
        int64_t c = 4 * MS + (r == p->slow ? p->slow_ns : 0);
        int64_t end1 = T + maxc + MS, end2 = end1 + MS / 2;
        tp_rank_step *x = &s->steps[st];
        x->number = 10 + st;
        x->start_ns = T + p->off[r];
        x->dur_ns = 15 * MS;
        x->gpu.span_ns = end2 - T;
        x->gpu.computation_ns = c;
        x->gpu.communication_ns = end2 - (T + c);
        x->gpu.exposed_communication_ns = end2 - (T + c);
        x->gpu.busy_ns = end2 - T;
        x->gpu.kernels = 3;
        s->calls[2 * st] = (tp_rank_call){0, T + c + p->off[r], end1 - (T + c), p->seq ? 2 * st : -1};
        s->calls[2 * st + 1] = (tp_rank_call){1, end1 + p->off[r], MS / 2, p->seq ? 2 * st + 1 : -1};
        s->colls[0].count++;
        s->colls[0].total_ns += end1 - (T + c);
        s->colls[1].count++;
        s->colls[1].total_ns += MS / 2;
        s->whole.computation_ns += c;
        s->whole.communication_ns += end2 - (T + c);
        s->whole.span_ns += end2 - T;
    }
    s->inputs = (uint64_t)p->nranks;
    s->input_index = (uint64_t)r;
}

static int build(const plant *p, tp_job *j, tp_err *err)
{
    tp_rank_sum sums[8];
    /* given in a shuffled order: the job sorts by rank */
    for (int i = 0; i < p->nranks; i++)
        plant_rank(p, (i * 3 + 1) % p->nranks, &sums[i]);
    int rc = tp_job_build(sums, (size_t)p->nranks, j, err);
    for (int i = 0; i < p->nranks; i++)
        tp_rank_sum_free(&sums[i]);
    return rc;
}

static void check_planted(const plant *p)
{
    tp_job j;
    tp_err err = {0};
    CHECK(build(p, &j, &err) == 0);
    CHECK_EQ_INT(j.nranks, p->nranks);
    CHECK_EQ_INT(j.nsteps, p->nsteps);
    for (int r = 0; r < p->nranks; r++) {
        CHECK_EQ_INT(j.ranks[r].rank, r);
        CHECK_EQ_INT(j.ranks[r].rank_from, p->no_dist ? TP_RANK_FROM_NAME : TP_RANK_FROM_TRACE);
        /* the offset puts rank r on rank 0's clock: recorded + offset = recorded on rank 0 */
        CHECK_EQ_INT(j.ranks[r].offset_ns, p->off[0] - p->off[r]);
        CHECK_EQ_INT(j.ranks[r].align_method, r ? TP_ALIGN_COLLECTIVES : TP_ALIGN_REFERENCE);
        if (r)
            CHECK_EQ_INT(j.ranks[r].align_matched, 2 * p->nsteps);
        CHECK_EQ_INT(j.ranks[r].align_spread_ns, 0);
    }
    CHECK_EQ_INT(j.instances, 2 * p->nsteps);
    CHECK_EQ_INT(j.unmatched_calls, 0);
    CHECK_EQ_INT(j.ncolls, 2);
    const tp_job_coll *ar = &j.colls[0], *ag = &j.colls[1];
    CHECK_STR(ar->kind, "all_reduce");
    CHECK_EQ_INT(ar->instances, p->nsteps);
    CHECK_EQ_INT(ar->transfer_ns, p->nsteps * MS);
    CHECK_EQ_INT(ar->wait_ns, (int64_t)p->nsteps * (p->nranks - 1) * p->slow_ns);
    CHECK(fabs(ar->algbw - 100.0) < 1e-9);                                       /* 1e8 B / 1 ms */
    CHECK(fabs(ar->busbw - 100.0 * 2 * (p->nranks - 1) / p->nranks) < 1e-9); /* x 2(n-1)/n */
    CHECK_EQ_INT(ar->slowest_rank, p->slow);
    CHECK_EQ_INT(ar->slowest_count, p->nsteps);
    CHECK_STR(ag->kind, "all_gather");
    CHECK_EQ_INT(ag->wait_ns, 0);
    CHECK_EQ_INT(ag->slowest_rank, -1);
    CHECK(fabs(ag->algbw - 80.0) < 1e-9);
    CHECK(fabs(ag->busbw - 80.0 * (p->nranks - 1) / p->nranks) < 1e-9);
    /* the straggler: every step, for its computation and its late arrival */
    CHECK_EQ_INT(j.nstragglers, p->nsteps);
    for (size_t i = 0; i < j.nstragglers; i++) {
        const tp_job_straggler *s = &j.stragglers[i];
        CHECK_EQ_INT(s->rank, p->slow);
        CHECK_EQ_INT(s->step, 10 + (int64_t)i);
        CHECK_EQ_INT(s->flags, TP_JOB_FLAG_COMPUTE | TP_JOB_FLAG_ARRIVAL);
        CHECK_EQ_INT(s->computation_ns, 4 * MS + p->slow_ns);
        CHECK_EQ_INT(s->median_computation_ns, 4 * MS);
        CHECK_EQ_INT(s->wait_caused_ns, (p->nranks - 1) * p->slow_ns);
        CHECK_EQ_INT(s->last_arrivals, 1);
        CHECK_EQ_INT(s->instances, 2);
        CHECK_EQ_INT(j.steps[i].straggler, p->slow);
    }
    CHECK_EQ_INT(j.ranks[p->slow].wait_caused_ns, (int64_t)p->nsteps * (p->nranks - 1) * p->slow_ns);
    CHECK_EQ_INT(j.ranks[p->slow].waited_ns, 0);
    CHECK_EQ_INT(j.ranks[(p->slow + 1) % p->nranks].waited_ns, (int64_t)p->nsteps * p->slow_ns);
    CHECK_STR(j.spread[5].figure, "wait_caused_ns");
    CHECK_EQ_INT(j.spread[5].max_rank, p->slow);
    CHECK_EQ_INT(j.spread[1].max, (4 * MS + p->slow_ns) * p->nsteps);
    tp_job_free(&j);
}

TEST(job_planted_straggler_offsets_bandwidths)
{
    plant p = {4, 3, 2, 5 * MS, {0, 1500123, -42000007, 250}, false, false};
    check_planted(&p);
    p.seq = true; /* with sequence numbers the calls pair by number */
    check_planted(&p);
    p.no_dist = true; /* ranks from the file names */
    p.slow = 0;
    p.off[0] = 777000;
    check_planted(&p);
    plant q = {8, 5, 7, 2 * MS, {0, -3, 5, 50000000, -50000000, 1, 2, 3}, false, false};
    check_planted(&q);
}

TEST(job_refuses_other_jobs)
{
    plant p = {3, 2, 1, MS, {0}, false, false};
    tp_rank_sum sums[3];
    for (int r = 0; r < 3; r++)
        plant_rank(&p, r, &sums[r]);
    sums[2].world_size = 4; /* another job's trace */
    tp_job j;
    tp_err err = {0};
    CHECK(tp_job_build(sums, 3, &j, &err) < 0);
    CHECK(strstr(err.msg, "world_size") != NULL);
    sums[2].world_size = 3;
    sums[2].dist_rank = 1; /* two traces of rank 1 */
    memset(&err, 0, sizeof err);
    CHECK(tp_job_build(sums, 3, &j, &err) < 0);
    CHECK(strstr(err.msg, "two traces are rank 1") != NULL);
    sums[2].dist_rank = 2;
    sums[2].pg_ranks[1] = 7; /* its default group names other ranks */
    memset(&err, 0, sizeof err);
    CHECK(tp_job_build(sums, 3, &j, &err) < 0);
    CHECK(strstr(err.msg, "default process group") != NULL);
    for (int r = 0; r < 3; r++)
        tp_rank_sum_free(&sums[r]);
}

TEST(job_rank_summary_round_trip_and_hostile_text)
{
    plant p = {2, 3, 1, MS, {0, 12345}, true, false};
    tp_rank_sum s, back;
    plant_rank(&p, 1, &s);
    tp_buf a = {0}, b = {0};
    tp_rank_sum_json(&s, &a);
    tp_err err = {0};
    CHECK(tp_rank_sum_parse(a.data, a.len, &back, &err) == 0);
    tp_rank_sum_json(&back, &b);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    tp_rank_sum_free(&back);
    /* each corruption is refused with a message, never half read */
    static const struct {
        const char *from, *to, *msg;
    } bad[] = {{"tracepress.rank/1", "tracepress.rank/9", "not a rank summary"},
               {"[1,", "[5,", "a call names a collective that is not there"},
               {"\"warnings\":0", "\"warnings\":-1", "warnings"},
               {"\"inputs\":2", "\"inputs\":1", "input_index"},
               {"\"figures\":\"span", "\"figures\":\"spam", "other figures"},
               {"\"present\":true", "\"present\":1", "present"},
               {"null}\n", "null", "ends inside"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = malloc(a.len + 64);
        const char *at = NULL;
        /* the last occurrence for the calls' "[1," (a call of the second collective) */
        for (const char *q = a.data; (q = strstr(q, bad[i].from)) != NULL; q++)
            at = q;
        CHECK(at != NULL);
        if (!at) {
            free(t);
            continue;
        }
        size_t pre = (size_t)(at - a.data), fl = strlen(bad[i].from);
        memcpy(t, a.data, pre);
        strcpy(t + pre, bad[i].to);
        memcpy(t + pre + strlen(bad[i].to), at + fl, a.len - pre - fl);
        size_t len = a.len - fl + strlen(bad[i].to);
        memset(&err, 0, sizeof err);
        int rc = tp_rank_sum_parse(t, len, &back, &err);
        CHECK(rc < 0);
        if (rc == 0)
            tp_rank_sum_free(&back);
        else if (!strstr(err.msg, bad[i].msg))
            tp_test_fail(__FILE__, __LINE__, "case %zu: message '%s' lacks '%s'", i, err.msg, bad[i].msg);
        free(t);
    }
    tp_rank_sum_free(&s);
    tp_buf_free(&a);
    tp_buf_free(&b);
}
