/* `convert A B ... -o job.json`: a distributed job's ranks merged into one
 * trace (issue 21 item 4, convert/pipeline/job_merge.h): the two real HTA
 * ranks, synthetic jobs with planted clock offsets, the refusals, and the
 * pieces underneath (tp_clock_align, tp_rank_from_path). */
#include "tests/lib/harness.h"
#include "convert/codec/json_value.h"
#include "convert/model/clock_align.h"
#include "convert/model/dist_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

typedef struct doc {
    char *text;
    tp_jdoc d;
    const tp_jv *root;
} doc;

static bool doc_load(doc *o, const char *path)
{
    size_t len = 0;
    memset(o, 0, sizeof *o);
    tp_jdoc_init(&o->d);
    o->text = tp_test_read_file(path, &len);
    tp_err err = {0};
    return o->text && tp_jv_parse_all(&o->d, o->text, len, &o->root, &err) == 0 && o->root->type == TP_JV_OBJECT;
}

static void doc_free(doc *o)
{
    tp_jdoc_free(&o->d);
    free(o->text);
}

static int64_t jint(const tp_jv *v, const char *key)
{
    int64_t x = INT64_MIN;
    const tp_jv *m = v ? tp_jv_get(v, key) : NULL;
    if (m)
        tp_jv_int(m, &x);
    return x;
}

static int64_t jns(const tp_jv *v, const char *key) /* "ts"/"dur" in us with 3 decimals -> ns */
{
    int64_t x = INT64_MIN;
    const tp_jv *m = v ? tp_jv_get(v, key) : NULL;
    if (m)
        tp_jv_fixed(m, 3, &x);
    return x;
}

static bool jstr_starts(const tp_jv *v, const char *key, const char *prefix)
{
    size_t n;
    const tp_jv *m = v ? tp_jv_get(v, key) : NULL;
    const char *s = m ? tp_jv_str(m, &n) : NULL;
    return s && n >= strlen(prefix) && memcmp(s, prefix, strlen(prefix)) == 0;
}

/* The rank in "rank N: ..." of pid's process_name, -1 if none. */
static int rank_of_pid(const tp_jv *events, int64_t pid)
{
    for (uint32_t i = 0; i < events->n; i++) {
        const tp_jv *e = &events->items[i];
        if (jint(e, "pid") == pid && tp_jv_str_eq(tp_jv_get(e, "ph"), "M") &&
            tp_jv_str_eq(tp_jv_get(e, "name"), "process_name")) {
            size_t n;
            const char *s = tp_jv_str(tp_jv_get(tp_jv_get(e, "args"), "name"), &n);
            if (s && n > 5 && memcmp(s, "rank ", 5) == 0)
                return atoi(s + 5);
        }
    }
    return -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static size_t count_str(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- 1. the two real HTA ranks ---------------------------------------------- */

/* By hand (python over the two files): the ranks' 10 NCCL kernels (all
 * SendRecv kernels inside nccl:all_to_all / all_reduce / _all_gather_base
 * annotations) pair up by kind; at offset 0 five pairs end within 1 ms:
 * all_to_all 1682725898187835 us on both (exact), all_reduce +55 us and
 * -8 us, all_gather +189 us and -332 us (rank 0 minus rank 1).  Their
 * median is 0: the two ranks share a clock (same node, GPUs 0 and 1), and
 * no other offset pairs up more than one call. */
TEST(job_merge_hta_two_ranks)
{
    const char *r0 = tp_test_shared("external/hta/trace_filter_sampled_rank-0.json.gz");
    const char *r1 = tp_test_shared("external/hta/trace_filter_sampled_rank-1.json.gz");
    const char *o0 = tp_test_tmp("hta_r0.json"), *o1 = tp_test_tmp("hta_r1.json"), *job = tp_test_tmp("hta_job.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), r0, o0), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), r1, o1), 0);
    char *err = NULL;
    CHECK_EQ_INT(tp_test_run(&err, "%s convert '%s' '%s' -o '%s'", tp_test_bin(), r1, r0, job), 0);
    CHECK(err && strstr(err, "tracepress: job: rank 0 (") && strstr(err, "): the reference clock, 10 collectives"));
    CHECK(err && strstr(err, "-1.json.gz): clock offset +0.000 us from 5 of 10 collectives (spread 332.000 us)"));
    free(err);
    char *a = tp_test_read_file(o0, NULL), *b = tp_test_read_file(o1, NULL), *m = tp_test_read_file(job, NULL);
    CHECK(a && b && m);
    /* every event and launch flow of both ranks */
    CHECK_EQ_INT(count_str(m, "\"flow_out\":true"), count_str(a, "\"flow_out\":true") + count_str(b, "\"flow_out\":true"));
    CHECK_EQ_INT(count_str(m, "\"flow_out\":true"), 2358);
    CHECK_EQ_INT(count_str(m, "\"ph\":\"X\""), count_str(a, "\"ph\":\"X\"") + count_str(b, "\"ph\":\"X\""));
    /* each rank's derived lines (4 streams: Steps, Framework Ops and Name Scope beside each) */
    /* (named per stream: "Framework Ops (stream 7)", issue 36) */
    CHECK_EQ_INT(count_str(m, "\"name\":\"Framework Ops (stream "), 8);
    CHECK_EQ_INT(count_str(m, "\"name\":\"Framework Ops (stream "),
                 count_str(a, "\"name\":\"Framework Ops (stream ") + count_str(b, "\"name\":\"Framework Ops (stream "));
    free(a);
    free(b);
    free(m);
    doc d;
    CHECK(doc_load(&d, job));
    const tp_jv *ev = tp_jv_get(d.root, "traceEvents");
    CHECK(ev && ev->type == TP_JV_ARRAY);
    /* processes named by rank, rank 0's all sorted before rank 1's */
    int64_t max0 = -1, min1 = INT64_MAX;
    int named[2] = {0, 0};
    for (uint32_t i = 0; ev && i < ev->n; i++) {
        const tp_jv *e = &ev->items[i];
        if (!tp_jv_str_eq(tp_jv_get(e, "name"), "process_sort_index"))
            continue;
        int r = rank_of_pid(ev, jint(e, "pid"));
        CHECK(r == 0 || r == 1);
        int64_t si = jint(tp_jv_get(e, "args"), "sort_index");
        if (r == 0 && si > max0)
            max0 = si;
        if (r == 1 && si < min1)
            min1 = si;
        if (r == 0 || r == 1)
            named[r]++;
    }
    CHECK_EQ_INT(named[0], 10); /* CPU, GPU 0..7 (metadata), Spans */
    CHECK_EQ_INT(named[1], 10);
    CHECK(max0 < min1);
    /* the job's metadata */
    const tp_jv *tj = tp_jv_get(d.root, "tracepress_job");
    CHECK(tj != NULL);
    CHECK(tp_jv_get(d.root, "distributedInfo") == NULL);
    CHECK_EQ_INT(jint(tj, "reference_rank"), 0);
    const tp_jv *rk = tp_jv_at(tp_jv_get(tj, "ranks"), 1);
    CHECK_EQ_INT(jint(rk, "rank"), 1);
    CHECK_EQ_INT(jint(rk, "offset_ns"), 0);
    CHECK_EQ_INT(jint(rk, "matched"), 5);
    CHECK_EQ_INT(jint(rk, "spread_ns"), 332000);
    CHECK(tp_jv_str_eq(tp_jv_get(rk, "method"), "collectives"));
    CHECK(tp_jv_str_eq(tp_jv_get(rk, "rank_from"), "distributedInfo"));
    doc_free(&d);
    /* the trace engine loads it: properly nested, every flow bound */
    char *chk = NULL;
    if (!getenv("TP_SKIP_NODE")) {
        CHECK_EQ_INT(tp_test_run(&chk, "node tests/check_trace.mjs '%s'", job), 0);
        CHECK(chk && strstr(chk, "\"bad_nesting\":0") && strstr(chk, "\"flows\":2358,\"flows_bound\":2358") &&
              strstr(chk, "\"problems\":[]") && strstr(chk, "\"mismatched\":0"));
        free(chk);
    }
    /* .pftrace and .json.gz of the same job */
    const char *pf = tp_test_tmp("hta_job.pftrace"), *gz = tp_test_tmp("hta_job.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' '%s' -o '%s'", tp_test_bin(), r0, r1, pf), 0);
    CHECK(tp_test_file_exists(pf));
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' '%s' -o '%s'", tp_test_bin(), r0, r1, gz), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc '%s' | cmp -s - '%s'", gz, job), 0);
}

/* ---- 2. synthetic jobs with planted offsets ---------------------------------- */

/* Rank r of a job: 30 steps 10 ms apart (with a jitter), each an all-reduce
 * whose end is the same true moment on every rank; the rank's clock reads
 * true - offset_us, its file's times are relative to its own base.  Every
 * rank uses pids 100 (host) and 0 (GPU), flow id 1 and correlation ids
 * from 1: they collide across ranks on purpose. */
static const char *synth_rank(const char *name, int rank, int world, int64_t offset_us, int64_t base_us, bool seq,
                              int skip_every)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":%d},"
                      "\"traceEvents\":[\n",
                  rank, world);
    tp_buf_puts(&b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100,\"args\":{\"name\":\"python\"}},\n"
                    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"python\"}},\n"
                    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}");
    for (int k = 0; k < 30; k++) {
        int64_t step = 1000000 + k * 10000 + (k * k * 37) % 900; /* true, us */
        int64_t end = step + 8000;
        int64_t kdur = 2000 + 100 * rank + (13 * k) % 50;
        int64_t d = -offset_us - base_us; /* true -> the file's time */
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#%d\",\"pid\":100,\"tid\":1,\"ts\":%lld,"
                      "\"dur\":9000}",
                      k, (long long)(step + d));
        if (skip_every && k % skip_every == 1)
            continue; /* sampled away on this rank */
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":100,\"tid\":1,\"ts\":%lld,"
                      "\"dur\":50}"
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":1,"
                      "\"ts\":%lld,\"dur\":20,\"args\":{\"correlation\":%d}}",
                      (long long)(step + 100 + d), (long long)(step + 110 + d), k + 1);
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"pid\":0,"
                      "\"tid\":7,\"ts\":%lld,\"dur\":%lld,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7,"
                      "\"Collective name\":\"allreduce\",\"Process Group Name\":\"0\",\"Process Group Ranks\":\"[0, 1, "
                      "2, 3]\",\"Group size\":%d,\"dtype\":\"Float\",\"In msg nelems\":1024,\"Out msg nelems\":1024,"
                      "\"k\":%d",
                      (long long)(end - kdur + d), (long long)kdur, k + 1, world, k);
        if (seq)
            tp_buf_printf(&b, ",\"Seq\":%d", k);
        tp_buf_puts(&b, "}}");
    }
    tp_buf_printf(&b,
                  ",\n{\"ph\":\"s\",\"cat\":\"user\",\"name\":\"hand-off\",\"id\":1,\"pid\":100,\"tid\":1,\"ts\":%lld}"
                  ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"user\",\"name\":\"hand-off\",\"id\":1,\"pid\":100,\"tid\":1,"
                  "\"ts\":%lld}",
                  (long long)(1000200 - offset_us - base_us), (long long)(1010200 - offset_us - base_us));
    tp_buf_printf(&b, "\n],\"baseTimeNanoseconds\":%lld}\n", (long long)base_us * 1000);
    const char *p = tp_test_write(name, b.data, b.len);
    tp_buf_free(&b);
    return p;
}

/* Merge the four ranks of the planted job; check the offsets, the ends of
 * each collective (equal on every rank after the shift) and the flows. */
static void check_planted(const char *tag, bool seq, int skip_every)
{
    static const int64_t off[4] = {0, 1234, -5678, 250003}; /* us, rank 3: 25 periods and 3 us */
    static const int64_t base[4] = {0, 0, 500000, 0};       /* rank 2's times are relative to 0.5 s */
    char name[64], dir[80];
    snprintf(dir, sizeof dir, "%s", tp_test_tmp(tag));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    for (int r = 0; r < 4; r++) {
        snprintf(name, sizeof name, "%s/node%d.json", tag, 3 - r); /* names unrelated to ranks */
        synth_rank(name, r, 4, off[r], base[r], seq, r == 3 ? skip_every : 0);
    }
    char out[128];
    snprintf(out, sizeof out, "%s", tp_test_tmp(tag));
    strcat(out, ".json");
    char *err = NULL;
    CHECK_EQ_INT(tp_test_run(&err, "%s convert '%s' -o '%s'", tp_test_bin(), dir, out), 0);
    CHECK(err && strstr(err, "node1.json): clock offset -5678.000 us from "));
    CHECK(err && strstr(err, "node0.json): clock offset +250003.000 us from "));
    free(err);
    doc d;
    CHECK(doc_load(&d, out));
    const tp_jv *ranks = tp_jv_get(tp_jv_get(d.root, "tracepress_job"), "ranks");
    CHECK(ranks && ranks->n == 4);
    for (int r = 0; ranks && r < 4; r++) {
        const tp_jv *x = tp_jv_at(ranks, (size_t)r);
        CHECK_EQ_INT(jint(x, "rank"), r);
        CHECK_EQ_INT(jint(x, "offset_ns"), off[r] * 1000);
        CHECK_EQ_INT(jint(x, "spread_ns"), 0);
        CHECK_EQ_INT(jint(x, "collectives"), r == 3 && skip_every ? 20 : 30);
        CHECK_EQ_INT(jint(x, "matched"), r == 0 ? 0 : r == 3 && skip_every ? 20 : 30);
        CHECK(tp_jv_str_eq(tp_jv_get(x, "method"), r ? "collectives" : "reference"));
    }
    /* every rank's call k ends at one moment in the merged trace */
    const tp_jv *ev = tp_jv_get(d.root, "traceEvents");
    int64_t ends[30];
    int seen = 0, ranks_seen = 0;
    for (int k = 0; k < 30; k++)
        ends[k] = INT64_MIN;
    int64_t flow_pid[8];
    int nflow_ids = 0;
    int64_t flow_id[8];
    for (uint32_t i = 0; ev && i < ev->n; i++) {
        const tp_jv *e = &ev->items[i];
        if (jstr_starts(e, "name", "ncclKernel")) {
            int r = rank_of_pid(ev, jint(e, "pid"));
            int64_t k = jint(tp_jv_get(e, "args"), "k"), end = jns(e, "ts") + jns(e, "dur");
            CHECK(r >= 0 && k >= 0 && k < 30);
            if (k < 0 || k >= 30)
                continue;
            ranks_seen |= 1 << r;
            if (ends[k] == INT64_MIN)
                ends[k] = end;
            CHECK_EQ_INT(end, ends[k]);
            seen++;
        }
        if (tp_jv_str_eq(tp_jv_get(e, "cat"), "user")) { /* the input's flow: one id per rank */
            int64_t id = jint(e, "id"), pid = jint(e, "pid");
            int at = 0;
            while (at < nflow_ids && flow_id[at] != id)
                at++;
            if (at == nflow_ids && nflow_ids < 8) {
                flow_id[nflow_ids] = id;
                flow_pid[nflow_ids++] = pid;
            } else if (at < nflow_ids)
                CHECK_EQ_INT(pid, flow_pid[at]);
        }
    }
    CHECK_EQ_INT(seen, skip_every ? 110 : 120);
    CHECK_EQ_INT(ranks_seen, 15);
    CHECK_EQ_INT(nflow_ids, 4);
    doc_free(&d);
    char *chk = NULL;
    if (!getenv("TP_SKIP_NODE")) {
        CHECK_EQ_INT(tp_test_run(&chk, "node tests/check_trace.mjs '%s'", out), 0);
        CHECK(chk && strstr(chk, "\"bad_nesting\":0") && strstr(chk, "\"problems\":[]"));
        free(chk);
    }
}

TEST(job_merge_planted_offsets_without_seq)
{
    check_planted("planted", false, 0);
}

TEST(job_merge_planted_offsets_with_seq_and_sampled_rank)
{
    check_planted("planted_seq", true, 3);
}

/* ---- 3. refusals -------------------------------------------------------------- */

static const char *bin_abs(void)
{
    static char buf[4096];
    char *r = realpath(tp_test_bin(), NULL);
    snprintf(buf, sizeof buf, "%s", r ? r : tp_test_bin());
    free(r);
    return buf;
}

static void check_refused(const char *tag, const char *args, const char *what)
{
    char out[160];
    snprintf(out, sizeof out, "%s", tp_test_tmp(tag));
    char *err = NULL;
    int rc = tp_test_run(&err, "cd '%s' && %s convert %s -o '%s.json'", tp_test_tmpdir(), bin_abs(), args, tag);
    CHECK_EQ_INT(rc, 2);
    CHECK_EQ_INT(count_lines(err), 1);
    CHECK(err && strstr(err, what));
    if (!err || !strstr(err, what))
        fprintf(stderr, "  %s: got %s\n", tag, err ? err : "");
    free(err);
    strcat(out, ".json");
    CHECK(!tp_test_file_exists(out));
}

TEST(job_merge_refusals)
{
    synth_rank("ref_w4_r0.json", 0, 4, 0, 0, false, 0);
    synth_rank("ref_w4_r1.json", 1, 4, 0, 0, false, 0);
    synth_rank("ref_w8_r2.json", 2, 8, 0, 0, false, 0);
    synth_rank("ref_w4_again_r1.json", 1, 4, 0, 0, false, 0);
    tp_test_write_text("ref_notes.txt", "not a trace\n");
    check_refused("r_world", "ref_w4_r0.json ref_w8_r2.json",
                  "tracepress: job: not one job: ref_w4_r0.json has world_size 4, ref_w8_r2.json has 8");
    check_refused("r_same", "ref_w4_r0.json ref_w4_r1.json ref_w4_again_r1.json",
                  "tracepress: job: two traces are rank 1: ref_w4_again_r1.json and ref_w4_r1.json");
    check_refused("r_junk", "ref_w4_r0.json ref_notes.txt", "tracepress: ref_notes.txt: offset 0: not a trace format");
    check_refused("r_glob", "'nothing*.json'", "tracepress: job: nothing*.json: no file matches");
    /* several inputs and no -o: a usage error (exit 1) */
    char *err = NULL;
    CHECK_EQ_INT(tp_test_run(&err, "cd '%s' && %s convert ref_w4_r0.json ref_w4_r1.json", tp_test_tmpdir(), bin_abs()),
                 1);
    CHECK(err && strstr(err, "no output file"));
    free(err);
}

/* ---- 4. tp_clock_align -------------------------------------------------------- */

/* n points of key k every `period` ns from t0, shifted by -off (the rank's clock) */
static size_t periodic(tp_sync_point *v, uint64_t key, int64_t t0, int64_t period, size_t n, int64_t off, int keep_mod)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!keep_mod || i % (size_t)keep_mod == 0)
            v[m++] = (tp_sync_point){key, t0 + (int64_t)i * period - off};
    return m;
}

TEST(clock_align_periodic_sampled_and_missing)
{
    uint64_t ka = tp_sync_key("all_reduce", "0", "[0, 1, 2, 3, 4, 5]", -1);
    uint64_t kb = tp_sync_key("all_gather", "7", "[1, 4]", -1); /* a group without the reference */
    static tp_sync_point p0[200], p1[300], p2[200], p3[200], p4[200], p5[4], p6[4];
    const int64_t period = 10000000; /* 10 ms steps: a shift by a period matches all but one point */
    size_t n[7];
    n[0] = periodic(p0, ka, 5000000000, period, 100, 0, 0);
    n[1] = periodic(p1, ka, 5000000000, period, 100, 3217000, 0); /* +3.217 ms */
    n[1] += periodic(p1 + n[1], kb, 5000500000, period, 100, 3217000, 0);
    n[2] = periodic(p2, ka, 5000000000, period, 100, -45678000, 0); /* -45.678 ms: 4.5 periods */
    n[3] = periodic(p3, ka, 5000000000 + 10 * period, period, 90, 777000, 7); /* every 7th of the last 90 */
    n[4] = periodic(p4, kb, 5000500000, period, 100, -12000, 0); /* only the group [1, 4] */
    n[5] = 0;                                                    /* no collective at all */
    p6[0] = (tp_sync_point){ka, 5000000000 + 123456789}; /* one point: matches anything by itself */
    n[6] = 1;
    /* rank 4's points end 1 us apart from rank 1's, alternately: spread */
    for (size_t i = 0; i < n[4]; i++)
        p4[i].end_ns += (i % 2) ? 1000 : -1000;
    const tp_sync_point *pts[7] = {p0, p1, p2, p3, p4, p5, p6};
    tp_align_result r[7];
    tp_clock_align(pts, n, 7, r);
    CHECK_EQ_INT(r[0].method, TP_ALIGN_REFERENCE);
    CHECK_EQ_INT(r[1].method, TP_ALIGN_COLLECTIVES);
    CHECK_EQ_INT(r[1].offset_ns, 3217000);
    CHECK_EQ_INT(r[1].matched, 100); /* its all-gathers have no partner yet */
    CHECK_EQ_INT(r[2].offset_ns, -45678000);
    CHECK_EQ_INT(r[2].matched, 100);
    CHECK_EQ_INT(r[3].offset_ns, 777000);
    CHECK_EQ_INT(r[3].matched, 13);
    CHECK_EQ_INT(r[4].method, TP_ALIGN_COLLECTIVES); /* through rank 1, aligned before it */
    CHECK_EQ_INT(r[4].offset_ns, -12000);             /* 50 at -13 us, 50 at -11 us: the mean of the middle two */
    CHECK_EQ_INT(r[4].matched, 100);
    CHECK_EQ_INT(r[4].spread_ns, 1000);
    CHECK_EQ_INT(r[5].method, TP_ALIGN_RECORDED);
    CHECK_EQ_INT(r[5].offset_ns, 0);
    CHECK_EQ_INT(r[5].matched, 0);
    CHECK_EQ_INT(r[6].method, TP_ALIGN_RECORDED);
    CHECK_EQ_INT(r[6].offset_ns, 0);
    CHECK_STR(tp_align_method_name(r[6].method), "recorded");
}

TEST(clock_align_seq_names_one_call)
{
    /* with sequence numbers every key is one call: 5 calls, rank 1 sees 3 of them */
    tp_sync_point a[5], b[3];
    for (int i = 0; i < 5; i++)
        a[i] = (tp_sync_point){tp_sync_key("all_reduce", "0", "[0, 1]", i), 1000000 * (int64_t)i};
    int keep[3] = {0, 2, 4};
    for (int i = 0; i < 3; i++)
        b[i] = (tp_sync_point){tp_sync_key("all_reduce", "0", "[0, 1]", keep[i]), 1000000 * (int64_t)keep[i] + 5000000};
    const tp_sync_point *pts[2] = {a, b};
    size_t n[2] = {5, 3};
    tp_align_result r[2];
    tp_clock_align(pts, n, 2, r);
    CHECK_EQ_INT(r[1].method, TP_ALIGN_COLLECTIVES);
    CHECK_EQ_INT(r[1].offset_ns, -5000000);
    CHECK_EQ_INT(r[1].matched, 3);
}

/* ---- 5. tp_rank_from_path ----------------------------------------------------- */

TEST(rank_from_path_cases)
{
    CHECK_EQ_INT(tp_rank_from_path("rank-3.json"), 3);
    CHECK_EQ_INT(tp_rank_from_path("/x/trace_filter_sampled_rank-1.json.gz"), 1);
    CHECK_EQ_INT(tp_rank_from_path("worker_rank03.pt.trace.json"), 3);
    CHECK_EQ_INT(tp_rank_from_path("RANK_12.json"), 12);
    CHECK_EQ_INT(tp_rank_from_path("job.rank.7.json"), 7);
    CHECK_EQ_INT(tp_rank_from_path("rank-2_rank-5.json"), 5);         /* the last one */
    CHECK_EQ_INT(tp_rank_from_path("rank-2_ranks.json"), 2);          /* "ranks" has no number */
    CHECK_EQ_INT(tp_rank_from_path("/runs/rank7/trace.json"), -1);    /* the file's name only */
    CHECK_EQ_INT(tp_rank_from_path("rank.json"), -1);
    CHECK_EQ_INT(tp_rank_from_path("frank1.json"), 1);               /* "rank" anywhere in the name */
    CHECK_EQ_INT(tp_rank_from_path("node3.json"), -1);
    CHECK_EQ_INT(tp_rank_from_path(""), -1);
    CHECK_EQ_INT(tp_rank_from_path("rank-99999999999999999999.json"), -1); /* too long for a rank */
    CHECK_EQ_INT(tp_rank_from_path("rank-4_rank-99999999999999999999.json"), 4);
    CHECK_STR(tp_rank_from_name(TP_RANK_FROM_NAME), "file name");
}
