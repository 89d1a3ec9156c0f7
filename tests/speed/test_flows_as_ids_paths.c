/* test_flows_as_ids_paths.c: the commands that analyse a trace and do not
 * write it (report, stats, diff, a job's ranks) ask the reader to note
 * Kineto's launch flows as ids instead of keeping them as events
 * (tp_read_opts.flows_as_ids; convert/read/chrome/chrome_events.c
 * flow_as_id, convert/model/model.h tp_launch_flow_note).  What they write (stats' text
 * and --json, the report's folder: summary.json, summary.md, report.pdf,
 * png/, diff's folder, the warnings and the exit code) is what keeping every
 * flow as an event wrote (TP_FLOWS_AS_IDS=0), on one reader and on two
 * halves, on a trace built to hold the cases the notes must leave to the
 * full path or count the same (one end only, string, negative, escaped and
 * sparse ids, flow keys, bad times, a track of flows only, a pair split
 * across the halves), and on the shared Kineto samples. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One step of launches: each case twice per track (the first flow of a
 * (track, category) stays an event, the others are notes). */
static void odd_step(tp_buf *b, int step, int64_t base)
{
    int64_t t0 = 10000 * (int64_t)step;
    tp_buf_printf(b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                     "\"ts\":%lld,\"dur\":9000}", step, (long long)t0);
    for (int k = 0; k < 12; k++) {
        int64_t c = base + step * 100 + k, ts = t0 + 100 + k * 600;
        tp_buf_printf(b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":300}"
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
                      "\"dur\":50,\"args\":{\"correlation\":%lld}}"
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":%d,"
                      "\"args\":{\"correlation\":%lld}}",
                      (long long)ts, k == 11 ? "cudaGraphLaunch" : "cudaLaunchKernel", (long long)ts + 10, (long long)c,
                      k % 3, (long long)ts + 200, 100 + k, (long long)c);
        const char *id_s = "", *id_f = "";
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)c);
        id_s = id_f = num;
        switch (k) {
        case 1: /* a start only: not linked as TraceLens links */
            id_f = NULL;
            break;
        case 2: /* an end only */
            id_s = NULL;
            break;
        case 3: /* a string id: the full path, no launch flow */
            id_s = id_f = "\"0x10\"";
            break;
        case 4: /* an escaped id */
            id_s = "\"\\u0031\"";
            break;
        case 5: /* a negative id */
            id_s = id_f = "-5";
            break;
        default:
            break;
        }
        if (id_s)
            tp_buf_printf(b, ",\n{\"ph\":\"s\",\"id\":%s,\"pid\":1,\"tid\":%d,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                          id_s, k == 6 ? 3 : 1, (long long)ts + 10);
        if (id_f)
            tp_buf_printf(b, ",\n{\"ph\":\"f\",\"id\":%s,\"pid\":0,\"tid\":7,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\","
                             "\"bp\":\"e\"}", id_f, (long long)ts + 200);
    }
    /* flow keys on a flow (warned about), a bad time (dropped), an escaped category, a 't', no id */
    tp_buf_printf(b, ",\n{\"ph\":\"s\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\","
                     "\"bind_id\":5,\"flow_out\":true}", (long long)(base + step * 100 + 7), (long long)t0 + 4310);
    tp_buf_printf(b, ",\n{\"ph\":\"f\",\"id\":%lld,\"pid\":0,\"tid\":7,\"ts\":\"soon\",\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                  (long long)(base + step * 100 + 8));
    tp_buf_printf(b, ",\n{\"ph\":\"s\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":%lld,\"cat\":\"ac\\u0032g\",\"name\":\"ac2g\"}",
                  (long long)(base + step * 100 + 9), (long long)t0 + 5510);
    tp_buf_printf(b, ",\n{\"ph\":\"t\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                  (long long)(base + step * 100 + 10), (long long)t0 + 6110);
    tp_buf_printf(b, ",\n{\"ph\":\"f\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                  (long long)t0 + 6110);
}

/* base: the first correlation id (large and spread: the ends are then hashed, not a byte per id). */
static const char *odd_trace(const char *name, int64_t base, int64_t spread)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    tp_buf_puts(&b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}");
    /* a track whose first flow is dropped for its time: the next one is its event */
    tp_buf_puts(&b, ",\n{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":4,\"ts\":\"later\",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    tp_buf_puts(&b, ",\n{\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":4,\"ts\":5,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    /* a launch whose flow starts first in the file and ends last: the pair spans the halves */
    tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":9100,\"dur\":20,\"args\":{\"correlation\":%lld}}", (long long)(base + 99));
    for (int copy = 0; copy < 2; copy++) /* the second: a note, the first of its track stays an event */
        tp_buf_printf(&b, ",\n{\"ph\":\"s\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":9100,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                      (long long)(base + 99 - copy));
    for (int step = 1; step <= 8; step++)
        odd_step(&b, step, base + spread * step);
    tp_buf_printf(&b, ",\n{\"ph\":\"f\",\"id\":%lld,\"pid\":0,\"tid\":7,\"ts\":9150,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                  (long long)(base + 99));
    tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"late\",\"pid\":0,\"tid\":7,\"ts\":9150,\"dur\":30,"
                      "\"args\":{\"correlation\":%lld}}", (long long)(base + 99));
    tp_buf_puts(&b, "\n]}\n");
    const char *path = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return path;
}

/* stdout, stderr and the exit code of one command, as one text. */
static char *run_of(const char *env, const char *cmd)
{
    char o[PATH_MAX], e[PATH_MAX];
    snprintf(o, sizeof o, "%s", tp_test_tmp("fa.out"));
    snprintf(e, sizeof e, "%s", tp_test_tmp("fa.err"));
    /* (the braces: a command list's output is captured whole; env applies to its first command) */
    int rc = tp_test_run(NULL, "{ SOURCE_DATE_EPOCH=1700000000 %s %s; } >'%s' 2>'%s'", env, cmd, o, e);
    char *so = tp_test_read_file(o, NULL), *se = tp_test_read_file(e, NULL);
    size_t n = (so ? strlen(so) : 0) + (se ? strlen(se) : 0) + 64;
    char *out = malloc(n);
    snprintf(out, n, "%s\n--- stderr\n%s\n--- rc %d", so ? so : "", se ? se : "", rc);
    free(so);
    free(se);
    return out;
}

static void same_text(const char *path, const char *what, const char *env, const char *cmd)
{
    char full_env[160];
    snprintf(full_env, sizeof full_env, "TP_FLOWS_AS_IDS=0 %s", env);
    char *full = run_of(full_env, cmd), *ids = run_of(env, cmd);
    if (strcmp(full, ids) != 0)
        tp_test_fail(__FILE__, __LINE__, "%s: %s (%s): with flows as ids\n%s\nwith flows as events\n%s", path, what, env,
                     ids, full);
    free(full);
    free(ids);
}

/* A command that writes a folder: the folders are the same, byte for byte. */
static void same_folder(const char *path, const char *what, const char *env, const char *cmd_fmt)
{
    char a[PATH_MAX], b[PATH_MAX], cmd[PATH_MAX * 3];
    snprintf(a, sizeof a, "%s", tp_test_tmp("fa_full"));
    snprintf(b, sizeof b, "%s", tp_test_tmp("fa_out"));
    tp_test_run(NULL, "rm -rf '%s' '%s'", a, b);
    snprintf(cmd, sizeof cmd, cmd_fmt, b); /* one folder name for both runs: the messages name it */
    char full_env[160];
    snprintf(full_env, sizeof full_env, "TP_FLOWS_AS_IDS=0 %s", env);
    char *full = run_of(full_env, cmd);
    tp_test_run(NULL, "mv '%s' '%s'", b, a);
    char *ids = run_of(env, cmd);
    char *d = NULL;
    int rc = tp_test_run(&d, "diff -r '%s' '%s' && ls '%s' | grep -q .", a, b, b);
    if (strcmp(full, ids) != 0 || rc != 0)
        tp_test_fail(__FILE__, __LINE__, "%s: %s (%s): differs with flows as ids:\n%s\n%s\nagainst\n%s", path, what, env,
                     d ? d : "", ids, full);
    free(d);
    free(full);
    free(ids);
}

/* stats, stats --json and report, each with opts, the same both ways, on one reader and on two halves;
 * and with flows as ids, one reader's outputs are the two halves' */
static void check_same_opts(const char *path_in, const char *opts)
{
    char path[PATH_MAX]; /* (tp_test_tmp's and tp_test_write_text's buffers rotate) */
    snprintf(path, sizeof path, "%s", path_in);
    static const char *const splits[] = {"TP_READ_THREADS=1", "TP_READ_SPLIT_MIN=0"};
    const char *bin = tp_test_bin();
    for (size_t s = 0; s < 2; s++) {
        char cmd[PATH_MAX * 2];
        snprintf(cmd, sizeof cmd, "'%s' stats '%s' %s", bin, path, opts);
        same_text(path, "stats", splits[s], cmd);
        snprintf(cmd, sizeof cmd, "'%s' stats '%s' --json %s", bin, path, opts);
        same_text(path, "stats --json", splits[s], cmd);
        snprintf(cmd, sizeof cmd, "'%s' report '%s' -o '%%s' %s", bin, path, opts);
        same_folder(path, "report", splits[s], cmd);
    }
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "'%s' stats '%s' --json %s", bin, path, opts);
    char *one = run_of("TP_READ_THREADS=1", cmd), *two = run_of("TP_READ_SPLIT_MIN=0", cmd);
    if (strcmp(one, two) != 0)
        tp_test_fail(__FILE__, __LINE__, "%s: stats --json %s: one reader\n%s\ntwo halves\n%s", path, opts, one, two);
    free(one);
    free(two);
}

static void check_same(const char *path)
{
    check_same_opts(path, "");
}

/* "read: N launch flows noted as ids" (TP_TIMING=1): N, or -1 when the line is missing. */
static long noted_of(const char *env, const char *path)
{
    char *out = NULL;
    tp_test_run(&out, "%s TP_TIMING=1 '%s' stats '%s' 2>&1 >/dev/null", env, tp_test_bin(), path);
    long n = -1;
    for (const char *k = out ? strstr(out, "timing: read: ") : NULL; k && n < 0; k = strstr(k + 1, "timing: read: "))
        if (sscanf(k, "timing: read: %ld launch flows noted", &n) != 1)
            n = -1;
    free(out);
    return n;
}

TEST(flows_as_ids_odd_cases_write_what_flows_as_events_write)
{
    char dense[PATH_MAX], sparse[PATH_MAX];
    snprintf(dense, sizeof dense, "%s", odd_trace("flows_dense.json", 1000, 0));
    snprintf(sparse, sizeof sparse, "%s", odd_trace("flows_sparse.json", 1000, (int64_t)1 << 40));
    check_same(dense);
    check_same(sparse);
    /* the notes were taken (on one reader and on two), and not with TP_FLOWS_AS_IDS=0 */
    long one = noted_of("TP_READ_THREADS=1", dense);
    CHECK(one > 50);
    long two = noted_of("TP_READ_SPLIT_MIN=0", dense); /* each half keeps its own first flow of a track */
    CHECK(two > 50 && two <= one);
    CHECK_EQ_INT(noted_of("TP_FLOWS_AS_IDS=0", dense), -1);
    /* the cases are there: the TraceLens-linked split counts the one-ended and odd ids as unlinked */
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "'%s' stats '%s'", tp_test_bin(), dense);
    char *out = run_of("", cmd);
    CHECK(strstr(out, "busy with no launch call") != NULL);
    CHECK(strstr(out, "flow keys on events that are not slices (ignored)") != NULL);
    CHECK(strstr(out, "bad or out-of-range ts/dur (event dropped)") != NULL);
    free(out);
}

/* What reads events in their order or counts them: a launch flow noted stands where its event stood
 * (review of the first version, helper-46). */
TEST(flows_as_ids_order_and_counts_read_the_notes_where_the_events_stood)
{
    /* the partial-trace finding counts the host events between Kineto's numbered ones ("Ev Idx"):
     * numbers 5 apart with a launch call and a flow between make a whole trace, without the flow a
     * filtered one */
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}},\n"
                    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":0},\n"
                    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":0,\"bp\":\"e\"}");
    for (int i = 0, t = 1; i < 200; i++, t += 20)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10,"
                      "\"args\":{\"Ev Idx\":%d}}"
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                      "\"dur\":2,\"args\":{\"correlation\":%d}}"
                      ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d}"
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":3,"
                      "\"args\":{\"correlation\":%d}}"
                      ",\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%d,\"bp\":\"e\"}",
                      t, i * 5, t + 1, i + 10, i + 10, t + 1, t + 5, i + 10, i + 10, t + 5);
    tp_buf_puts(&b, "\n]}\n");
    char partial[PATH_MAX];
    snprintf(partial, sizeof partial, "%s", tp_test_write_text("flows_partial.json", b.data));
    b.len = 0;
    check_same(partial);
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "'%s' stats '%s'", tp_test_bin(), partial);
    char *out = run_of("", cmd);
    CHECK(strstr(out, "filtered or sampled") == NULL); /* a whole trace */
    free(out);
    /* a v1 "launch" pair of a converted trace is matched only next to its slice: a flow between parts it */
    check_same(tp_test_write_text(
        "flows_v1.json",
        "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}},\n"
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1},\n"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":1,\"bp\":\"e\"},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
        "\"bind_id\":1,\"flow_out\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,\"bind_id\":1,\"flow_in\":true},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5},\n"
        "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":10},\n"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":2,\"pid\":0,\"tid\":7,\"ts\":30,\"bp\":\"e\"},\n"
        "{\"ph\":\"f\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":30,\"bp\":\"e\"}]}\n"));
    /* --steps drops by time: a track's one flow event outside the window, its later flows inside */
    check_same_opts(tp_test_write_text(
                        "flows_steps.json",
                        "{\"traceEvents\":[\n"
                        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
                        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10},\n"
                        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":2,\"tid\":2,\"ts\":50},\n"
                        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":8,\"pid\":2,\"tid\":2,\"ts\":150}]}\n"),
                    "--steps 1");
    /* a flow with a duration is a slice to what reads slices (the input pipeline's): an event */
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}},\n"
                    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"DataLoader next\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}");
    for (int i = 0, t = 10; i < 20; i++, t += 100)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                      "\"dur\":100}"
                      ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"DataLoader next\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d,"
                      "\"dur\":60}"
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":20}",
                      i, t, 100 + i, t + 1, t + 70);
    tp_buf_puts(&b, "\n]}\n");
    char dl[PATH_MAX];
    snprintf(dl, sizeof dl, "%s", tp_test_write_text("flows_dur.json", b.data));
    tp_buf_free(&b);
    check_same(dl);
}

/* convert (tp_load_opts.written): the flows replaced by linking are dropped and counted as the events
 * were; a trace where nothing links is read again with its flows as events (they are written) */
static void check_convert(const char *path_in, const char *opts, bool read_again)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", path_in);
    static const char *const outs[] = {"json", "pftrace", "json.gz"};
    static const char *const splits[] = {"TP_READ_THREADS=1", "TP_READ_SPLIT_MIN=0"};
    for (size_t s = 0; s < 2; s++)
        for (size_t o = 0; o < 3; o++) {
            char cmd[PATH_MAX * 5], out[PATH_MAX];
            snprintf(out, sizeof out, "%s.%s", tp_test_tmp("fa_conv"), outs[o]);
            /* the message names the output and the time: the same name both ways, the time cut */
            snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' %s 2>&1 && cat '%s' | od -An -tx1 | md5sum", tp_test_bin(),
                     path, out, opts, out);
            char full_env[160];
            snprintf(full_env, sizeof full_env, "TP_FLOWS_AS_IDS=0 %s", splits[s]);
            char *full = run_of(full_env, cmd), *ids = run_of(splits[s], cmd);
            char *cut[2] = {full, ids};
            for (int k = 0; k < 2; k++) /* ", 0.01 s" at the end of the summary line */
                for (char *c = strstr(cut[k], " MB, "); c; c = strstr(c + 1, " MB, "))
                    for (char *q = c + 5; *q && *q != '\n'; q++)
                        *q = ' ';
            if (strcmp(full, ids) != 0)
                tp_test_fail(__FILE__, __LINE__, "%s: convert to %s %s (%s): with flows as ids\n%s\nwith flows as events\n%s",
                             path, outs[o], opts, splits[s], ids, full);
            free(full);
            free(ids);
        }
    char *t = NULL;
    tp_test_run(&t, "TP_TIMING=1 '%s' convert '%s' -o '%s' %s 2>&1 >/dev/null", tp_test_bin(), path,
                tp_test_tmp("fa_conv.json"), opts);
    CHECK_EQ_INT(t && strstr(t, "read again: nothing linked") != NULL, read_again);
    free(t);
}

TEST(flows_as_ids_convert_writes_what_flows_as_events_write)
{
    char dense[PATH_MAX];
    snprintf(dense, sizeof dense, "%s", odd_trace("flows_conv.json", 1000, 0));
    check_convert(dense, "", false);
    check_convert(dense, "--drop-cat ac2g", false); /* (noting left off) */
    check_convert(dense, "--steps 2:3", false);
    /* nothing links by correlation (only the flows' ids): read again, flows as events */
    char unlinked[PATH_MAX];
    snprintf(unlinked, sizeof unlinked, "%s",
             tp_test_write_text("flows_unlinked.json",
                                "{\"traceEvents\":[\n"
                                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
                                "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":10},\n"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5},\n"
                                "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":20,\"bp\":\"e\"},\n"
                                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5},\n"
                                "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":8,\"pid\":1,\"tid\":1,\"ts\":30},\n"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5},\n"
                                "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":40,\"bp\":\"e\"}]}\n"));
    check_convert(unlinked, "", true);
    /* gzip input is read again the same way; standard input cannot be: its flows are events from the start */
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -kf '%s'", unlinked), 0);
    char gz[PATH_MAX + 4];
    snprintf(gz, sizeof gz, "%s.gz", unlinked);
    check_convert(gz, "", true);
    char *a = NULL, *b = NULL;
    tp_test_run(&a, "TP_TIMING=1 '%s' convert - -o '%s' <'%s' 2>&1 >/dev/null; cat '%s'", tp_test_bin(),
                tp_test_tmp("fa_stdin.json"), unlinked, tp_test_tmp("fa_stdin.json"));
    tp_test_run(&b, "TP_FLOWS_AS_IDS=0 '%s' convert '%s' -o '%s' 2>/dev/null; cat '%s'", tp_test_bin(), unlinked,
                tp_test_tmp("fa_file.json"), tp_test_tmp("fa_file.json"));
    CHECK(a && b && strstr(a, "read again") == NULL && strstr(b, "traceEvents") != NULL);
    CHECK(a && b && strcmp(strstr(a, "{"), strstr(b, "{")) == 0);
    free(a);
    free(b);
    check_convert("golden/example.pt.trace.json", "", false);
}

/* String ids are in order of first sight and some orders read them: a noted flow's name is interned as
 * its event's would be (review helper-47): the .pftrace flow chains by category, a job's tied kernels */
TEST(flows_as_ids_intern_the_strings_in_the_order_of_events)
{
    char pf[PATH_MAX];
    snprintf(pf, sizeof pf, "%s",
             tp_test_write_text(
                 "flows_names.json",
                 "{\"traceEvents\":[\n"
                 "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
                 "\"args\":{\"correlation\":1}},\n"
                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5,\"args\":{\"correlation\":1}},\n"
                 "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":10},\n"
                 "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"yy\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":11},\n"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":10},\n"
                 "{\"ph\":\"s\",\"cat\":\"zz\",\"name\":\"n\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":1},\n"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":10},\n"
                 "{\"ph\":\"f\",\"cat\":\"zz\",\"name\":\"n\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":21,\"bp\":\"e\"},\n"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":10},\n"
                 "{\"ph\":\"s\",\"cat\":\"yy\",\"name\":\"n\",\"id\":6,\"pid\":1,\"tid\":2,\"ts\":41},\n"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":10},\n"
                 "{\"ph\":\"f\",\"cat\":\"yy\",\"name\":\"n\",\"id\":6,\"pid\":1,\"tid\":2,\"ts\":61,\"bp\":\"e\"}]}\n"));
    check_convert(pf, "", false);
    /* two ranks whose kernels kA and kB tie before the all-reduce: a noted flow named kB comes first */
    char rank[2][PATH_MAX];
    for (int r = 0; r < 2; r++) {
        tp_buf b = {0};
        int pid = 100 + r, c = 1;
        tp_buf_printf(&b, "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":2,"
                          "\"pg_count\":1,\"pg_config\":[{\"pg_name\":\"0\",\"pg_desc\":\"default_pg\",\"backend_config\":"
                          "\"cuda:nccl\",\"pg_size\":2,\"ranks\":[0,1]}]},\"traceEvents\":[\n"
                          "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":9000,\"pid\":%d,\"tid\":%d,\"ts\":1.0},\n"
                          "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"kB\",\"id\":9001,\"pid\":%d,\"tid\":%d,\"ts\":1.0}",
                      r, pid, pid, pid, pid);
        for (int st = 0; st < 3; st++) {
            int t0 = 1000 + st * 1000;
            tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":%d,\"tid\":%d,"
                              "\"ts\":%d,\"dur\":900}", st, pid, pid, t0);
            for (int k = 0; k < 2; k++, c++)
                tp_buf_printf(&b,
                              ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,\"tid\":%d,"
                              "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}}"
                              ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":50,"
                              "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                              pid, pid, t0 + 10 + k * 10, c, k ? "kB" : "kA", t0 + 50 + k * 100, c);
            tp_buf_printf(&b,
                          ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":%d,\"tid\":%d,\"ts\":%d,"
                          "\"dur\":30,\"args\":{\"Collective name\":\"allreduce\",\"In msg nelems\":1024,\"Out msg nelems\":1024,"
                          "\"Group size\":2,\"dtype\":\"Float\",\"Process Group Name\":\"0\",\"Process Group Ranks\":\"[0, 1]\"}}"
                          ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,\"tid\":%d,\"ts\":%d,"
                          "\"dur\":5,\"args\":{\"correlation\":%d}}"
                          ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
                          "unsigned long, ncclWork*)\",\"pid\":0,\"tid\":30,\"ts\":%d,\"dur\":100,\"args\":{\"correlation\":%d,"
                          "\"device\":0,\"stream\":30}}",
                          pid, pid, t0 + 300 + r * 100, pid, pid, t0 + 305 + r * 100, c, t0 + 500, c);
            c++;
        }
        tp_buf_puts(&b, "\n]}\n");
        char name[32];
        snprintf(name, sizeof name, "flows_rank%d.json", r);
        snprintf(rank[r], sizeof rank[r], "%s", tp_test_write_text(name, b.data));
        tp_buf_free(&b);
    }
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd, "'%s' report '%s' '%s' -o '%%s' -q", tp_test_bin(), rank[0], rank[1]);
    same_folder(rank[0], "job report", "", cmd);
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "cat '%s'/ranks/*.rank.json", tp_test_tmp("fa_out"));
    tp_test_run(&out, "%s", cmd);
    CHECK(out && strstr(out, "[\"kB\",50000],[\"kA\",50000]")); /* the tie: kB seen first (the flow) */
    free(out);
}

/* diff reads both sides the same way */
TEST(flows_as_ids_diff_writes_what_flows_as_events_write)
{
    char a[PATH_MAX], b[PATH_MAX], cmd[PATH_MAX * 3];
    snprintf(a, sizeof a, "%s", odd_trace("flows_a.json", 1000, 0));
    snprintf(b, sizeof b, "%s", odd_trace("flows_b.json", 5000, 7));
    snprintf(cmd, sizeof cmd, "'%s' diff '%s' '%s' -o '%%s'", tp_test_bin(), a, b);
    same_folder(a, "diff", "", cmd);
}

TEST(flows_as_ids_shared_kineto_samples_write_what_flows_as_events_write)
{
    static const char *const samples[] = {
        "external/kineto/hta_nccl_data_2024.json.gz",
        "external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
        "external/hta/cupti_profiler_trace.json.gz",
        "external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz",
    };
    tp_test_each_shared(samples, sizeof samples / sizeof samples[0], check_same);
    check_same("golden/example.pt.trace.json");
    CHECK(noted_of("", "golden/example.pt.trace.json") > 0);
}
