/* test_batch_hardening.c: `tracepress batch` under pressure (issue 18,
 * items 10-11): one run per output folder (a lock, per shard), outputs that
 * record what made them (a run killed with other options is redone), the
 * parent's SIGTERM stopping its workers, input names that would be the
 * index's, and index.md escaped for GitHub Markdown. */
#include "report/batch/batch.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

/* The Kineto samples: enough work (seconds with -j 2) to be caught running. */
static const char *kineto(void) { return tp_test_shared("external/kineto"); }

/* Start a batch in its own session (pid = process group), stop it with
 * SIGSTOP once it has said how much it will do: it holds its lock. */
static void start_stopped(const char *args, const char *log, const char *pidfile)
{
    CHECK_EQ_INT(tp_test_run(NULL,
                             "setsid '%s' batch %s >/dev/null 2>'%s' & pid=$!; echo $pid > '%s'; "
                             "while kill -0 $pid 2>/dev/null && ! grep -q 'to do' '%s'; do sleep 0.02; done; "
                             "kill -STOP $pid",
                             tp_test_bin(), args, log, pidfile, log),
                 0);
}

static void resume(const char *pidfile)
{
    CHECK_EQ_INT(tp_test_run(NULL, "pid=$(cat '%s'); kill -CONT $pid; while kill -0 $pid 2>/dev/null; do sleep 0.05; done",
                             pidfile),
                 0);
}

TEST(batch_lock_one_run_per_folder)
{
    const char *dir = tp_test_tmp("lock.batch"), *log = tp_test_tmp("lock.log"), *pf = tp_test_tmp("lock.pid");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "'%s' -o '%s' -j 1", kineto(), dir);
    start_stopped(args, log, pf);
    char *pid = tp_test_read_file(pf, NULL);
    if (pid)
        pid[strcspn(pid, "\n")] = 0;
    /* a second run on the folder: refused at once, naming the first */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch golden/example.pt.trace.json -o '%s'", tp_test_bin(), dir), 2);
    char want[600];
    snprintf(want, sizeof want, "tracepress: %s: another batch is writing this folder (pid %s)\n", dir, pid ? pid : "?");
    CHECK(out && strcmp(out, want) == 0);
    free(out);
    /* a shard and a merge too */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch golden/example.pt.trace.json -o '%s' --shard 1/2", tp_test_bin(), dir), 2);
    CHECK(out && strstr(out, "another batch is writing this folder"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch --merge '%s'", tp_test_bin(), dir), 2);
    CHECK(out && strstr(out, "another batch is writing this folder"));
    free(out);
    /* --wait: waits for it, then runs */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch golden/example.pt.trace.json -o '%s' --wait >'%s.w' 2>&1 & "
                                   "sleep 0.3; kill -CONT $(cat '%s'); wait $!",
                             tp_test_bin(), dir, log, pf),
                 0);
    snprintf(want, sizeof want, "%s.w", log);
    out = tp_test_read_file(want, NULL);
    CHECK(out && strstr(out, "waiting for another batch writing this folder (pid ") && strstr(out, "1 ok, 0 failed"));
    free(out);
    resume(pf);
    free(pid);
}

TEST(batch_lock_shards_share_a_folder)
{
    /* shards of one folder run at once (docs/SCALING.md); the same shard twice does not */
    const char *dir = tp_test_tmp("lockshard.batch"), *log = tp_test_tmp("ls.log"), *pf = tp_test_tmp("ls.pid");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "'%s' -o '%s' -j 1 --shard 1/2", kineto(), dir);
    start_stopped(args, log, pf);
    int rc = tp_test_run(&out, "'%s' batch golden/example.pt.trace.json -o '%s' --shard 2/2", tp_test_bin(), dir);
    CHECK(rc == 0 || rc == 2);
    CHECK(out && !strstr(out, "another batch"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch golden/example.pt.trace.json -o '%s' --shard 1/2", tp_test_bin(), dir), 2);
    CHECK(out && strstr(out, "another batch is writing shard 1/2 of this folder (pid "));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch golden/example.pt.trace.json -o '%s'", tp_test_bin(), dir), 2);
    CHECK(out && strstr(out, "another batch is writing this folder (pid "));
    free(out);
    resume(pf);
}

/* A run killed (SIGKILL, no cleanup at all) while doing --steps, then a run
 * with the defaults: every trace ends up as a default run makes it. */
TEST(batch_killed_run_with_other_options_is_redone)
{
    const char *in = tp_test_tmp("killed-in");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp golden/example.pt.trace.json '%s/a.json' && "
                                   "cp golden/example.pt.trace.json '%s/b.json' && cp golden/example.pt.trace.json '%s/c.json'",
                             in, in, in, in),
                 0);
    const char *dir = tp_test_tmp("killed.batch"), *ref = tp_test_tmp("killed-ref.batch"), *log = tp_test_tmp("k.log");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch '%s' -o '%s' -j 1 2>/dev/null", tp_test_bin(), in, ref), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch '%s' -o '%s' -j 1 2>/dev/null", tp_test_bin(), in, dir), 0);
    /* --steps 2:2 (the example has steps 1..3): other outputs; killed after its first trace */
    CHECK_EQ_INT(tp_test_run(NULL,
                             "setsid '%s' batch '%s' -o '%s' -j 1 --steps 2:2 2>'%s' & pid=$!; "
                             "while kill -0 $pid 2>/dev/null && ! grep -q '\\[1/' '%s'; do sleep 0.01; done; "
                             "kill -KILL -- -$pid 2>/dev/null; wait $pid; true",
                             tp_test_bin(), in, dir, log, log),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s' -j 1", tp_test_bin(), in, dir), 0);
    CHECK(out && !strstr(out, "3 unchanged"));
    free(out);
    static const char *const names[] = {"a", "b", "c"};
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/%s/report/summary.json' '%s/%s/report/summary.json'", dir, names[i],
                                 ref, names[i]),
                     0);
        CHECK_EQ_INT(tp_test_run(NULL, "cmp '%s/%s/trace.json.gz' '%s/%s/trace.json.gz'", dir, names[i], ref, names[i]),
                     0);
    }
    /* and the record says what made them */
    char p[1024];
    snprintf(p, sizeof p, "%s/a/made-by.json", dir);
    char *rec = tp_test_read_file(p, NULL);
    CHECK(rec && strstr(rec, "\"schema\":\"tracepress.batch-trace/1\"") && strstr(rec, "\"made_with\":\"") &&
          strstr(rec, "\"status\":\"ok\"") && strstr(rec, "\"mtime_ns\":"));
    free(rec);
    /* a record of other options, or none, is redone; a matching one is not */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s' -j 1", tp_test_bin(), in, dir), 0);
    CHECK(out && strstr(out, "3 unchanged (skipped), 0 to do"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "rm '%s' && '%s' batch '%s' -o '%s' -j 1", p, tp_test_bin(), in, dir), 0);
    CHECK(out && strstr(out, "2 unchanged (skipped), 1 to do"));
    free(out);
}

/* SIGTERM to the parent alone (not its process group): the workers stop
 * with it, no temporary file stays, the previous index is untouched. */
TEST(batch_sigterm_stops_the_workers)
{
    const char *dir = tp_test_tmp("term.batch"), *log = tp_test_tmp("term.log");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch golden/example.pt.trace.json -o '%s' 2>/dev/null", tp_test_bin(), dir),
                 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/index.json", dir);
    char *before = tp_test_read_file(p, NULL);
    char *out = NULL;
    /* prints: the parent's exit status, then the processes of its group still there */
    CHECK_EQ_INT(tp_test_run(&out,
                             "setsid '%s' batch '%s' golden/example.pt.trace.json -o '%s' -j 2 2>'%s' & pid=$!; "
                             "while kill -0 $pid 2>/dev/null && ! grep -q '\\[1/' '%s'; do sleep 0.01; done; "
                             "kill -TERM $pid; wait $pid; echo \"rc=$?\"; pgrep -g $pid | sed 's/^/left /'; true",
                             tp_test_bin(), kineto(), dir, log, log),
                 0);
    CHECK(out && strstr(out, "rc=143")); /* 128 + SIGTERM: ended by the signal */
    CHECK(out && !strstr(out, "left "));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "find '%s' -name '*.tmp.*' | grep -q .", dir), 1);
    free(out);
    char *after = tp_test_read_file(p, NULL);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    char *l = tp_test_read_file(log, NULL);
    CHECK(l && strstr(l, "stopped by Terminated"));
    free(l);
}

TEST(batch_names_never_the_index)
{
    tp_strlist paths = {0}, names = {0};
    static const char *const in[] = {"a/index.json.json", "a/index.md", "a/index.pdf", "a/index-1-of-2.json.json",
                                     "a/INDEX.MD",        "a/index.json", "a/indexes.json"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        tp_strlist_add(&paths, in[i]);
    tp_batch_names(&paths, &names);
    CHECK_STR(names.v[0], "_index.json");
    CHECK_STR(names.v[1], "_index.md");
    CHECK_STR(names.v[2], "_index.pdf");
    CHECK_STR(names.v[3], "_index-1-of-2.json");
    CHECK_STR(names.v[4], "_INDEX.MD");
    CHECK_STR(names.v[5], "index"); /* DIR/index/ is no index file */
    CHECK_STR(names.v[6], "indexes");
    tp_strlist_free(&paths);
    tp_strlist_free(&names);

    /* and for real: the index is written, each trace has its folder */
    const char *d = tp_test_tmp("idxnames");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && for n in index.json.json index.md index-1-of-2.json.json; do "
                                   "cp golden/example.pt.trace.json '%s'/$n; done",
                             d, d),
                 0);
    const char *dir = tp_test_tmp("idxnames.batch");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s/index.json.json' '%s/index.md' '%s/index-1-of-2.json.json' -o '%s'",
                             tp_test_bin(), d, d, d, dir),
                 0);
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/index.json", dir);
    char *js = tp_test_read_file(p, NULL);
    CHECK(js && tp_test_count(js, "\"status\":\"ok\"") == 3);
    free(js);
    CHECK_EQ_INT(tp_test_run(NULL, "test -f '%s/index.md' && test -f '%s/index.pdf' && test -f '%s/_index.md/trace.json.gz'",
                             dir, dir, dir),
                 0);
    /* shards' indexes too */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s' --shard 1/2; '%s' batch '%s' -o '%s' --shard 2/2; "
                                   "'%s' batch --merge '%s'",
                             tp_test_bin(), d, dir, tp_test_bin(), d, dir, tp_test_bin(), dir),
                 0);
    free(out);
}

/* Render index.md as GitHub does (cmark-gfm with tables) and count. */
static char *render(const char *md)
{
    char *html = NULL;
    CHECK_EQ_INT(tp_test_run(&html, "cmark-gfm -e table -e autolink -e strikethrough '%s'", md), 0);
    return html;
}

static void check_table(const char *html, size_t rows)
{
    /* every row has the header's 8 cells */
    size_t tr = tp_test_count(html, "<tr>"), td = tp_test_count(html, "<td"), th = tp_test_count(html, "<th") - tp_test_count(html, "<thead");
    CHECK_EQ_INT(tr, rows + 1);
    CHECK_EQ_INT(th, 8);
    CHECK_EQ_INT(td, 8 * rows);
}

TEST(batch_index_md_escaped_for_github)
{
    if (!tp_test_have("cmark-gfm")) {
        fprintf(stderr, "  (skipping: cmark-gfm not installed; scripts/setup installs it)\n");
        return;
    }
    /* a corrupt trace whose path is markup: its error row shows the path */
    const char *top = tp_test_tmp("md");
    const char *folder = "x<img src=a>@someone|[l](http:";
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s/%s' && head -c 3000 '%s' > '%s/%s/e.x)`|.json.gz'", top, folder,
                             tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz"), top, folder),
                 0);
    const char *dir = tp_test_tmp("md.batch");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s/%s/e.x)`|.json.gz' golden/example.pt.trace.json -o '%s'",
                             tp_test_bin(), top, folder, dir),
                 2);
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/index.md", dir);
    char *html = render(p);
    CHECK(html && !strstr(html, "<img"));
    CHECK(html && tp_test_count(html, "<a href") == 3); /* the ok row's three links, none from the name */
    CHECK(html && !strstr(html, "href=\"http"));
    /* the mention is inside code, where GitHub links none */
    const char *at = html ? strstr(html, "@someone") : NULL;
    const char *code = html ? strstr(html, "<code>") : NULL;
    CHECK(at && code && code < at);
    if (html)
        check_table(html, 2);
    free(html);

    /* rows straight (a merged index.json can hold anything): backticks,
     * pipes, line breaks, a backslash before a pipe, folders with spaces */
    tp_batch_rows rs = {0};
    static const char *const nm[] = {"a`b``c", "`x|y\\|z", "  sp  ", "l1\nl2\r|"};
    for (size_t i = 0; i < 4; i++) {
        TP_GROW(rs.v, rs.cap, rs.n + 1);
        tp_batch_row *r = &rs.v[rs.n++];
        memset(r, 0, sizeof *r);
        r->path = tp_xstrdup(nm[i]);
        r->name = tp_xstrdup(nm[i]);
        r->dir = tp_xstrdup(i == 0 ? "../my site (2)/<a>|b" : nm[i]);
        r->format = tp_xstrdup("chrome");
        r->status = tp_xstrdup(i == 3 ? "error" : "ok");
        r->error = i == 3 ? tp_xstrdup("x: <b>[l](u) @y") : NULL;
        r->median_step_ns = -1;
    }
    tp_buf md = {0};
    tp_batch_index_md(&rs, &md);
    const char *mdp = tp_test_write("rows.md", md.data, md.len);
    CHECK(strstr(md.data, "| ```a`b``c``` |"));
    CHECK(strstr(md.data, "[report](../my%20site%20%282%29/%3Ca%3E%7Cb/report/report.pdf)"));
    html = render(mdp);
    if (html) {
        check_table(html, 4);
        CHECK(strstr(html, "<code>a`b``c</code>"));
        /* tp_md_code: a zero-width space keeps the backslash from escaping GFM's pipe escape */
        CHECK(strstr(html, "<code>`x|y\\\xe2\x80\x8b|z</code>"));
        CHECK(strstr(html, "<code>  sp  </code>"));
        CHECK(strstr(html, "<code>l1 l2 |</code>"));
        CHECK(strstr(html, "<code>x: &lt;b&gt;[l](u) @y</code>"));
        CHECK(!strstr(html, "<b>"));
        CHECK(strstr(html, "href=\"../my%20site%20%282%29/%3Ca%3E%7Cb/report/report.pdf\""));
    }
    free(html);
    tp_buf_free(&md);
    tp_batch_rows_free(&rs);
}
