/* test_hardening3_inputs.c: issue 29 (round 3), the inputs no output may
 * replace or remove (docs/ERRORS.md "Round 3: inputs named by options and
 * job outputs"): a job report's rank traces among its own outputs or in
 * DIR/ranks, a symlinked DIR/ranks, files named by options (--categories,
 * --device-spec, --baseline, @lists) in every command; a report leaves no
 * member of an earlier report set it lacks; a refusal leaves no lock file. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXAMPLE "golden/example.pt.trace.json"
#define RULES "gemm kernel *gemm*\n"
#define DEVSPEC "device mydev\nmatch \"X*\"\nsource t https://example.org doc\nmatrix_bf16 100 t\n"

/* The binary by its absolute path: the commands run in their folder (cd). */
static const char *bin(void)
{
    static char abs[PATH_MAX];
    if (!abs[0] && !realpath(tp_test_bin(), abs))
        snprintf(abs, sizeof abs, "%s", tp_test_bin());
    return abs;
}

static int lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* The sorted listing of a folder, hidden entries too, recursively ("a b/c"). */
static char *listing(const char *dir)
{
    char *out = NULL;
    tp_test_run(&out, "cd '%s' && find . -mindepth 1 | sed 's|^\\./||' | LC_ALL=C sort | tr '\\n' ' '", dir);
    return out;
}

/* The refusal's words: "refusing to overwrite the input file X", or the
 * batch index's "X: is an input of this batch and would be replaced by its index". */
static bool refusal(const char *out)
{
    return strstr(out, "refusing to overwrite") || strstr(out, "would be replaced");
}

/* One run that must refuse: exit 2, one line naming the refused input. */
#define CHECK_REFUSED(cmd_out, rc)                                                                                     \
    do {                                                                                                               \
        CHECK_EQ_INT(rc, 2);                                                                                           \
        CHECK(cmd_out && refusal(cmd_out) && lines(cmd_out) == 1);                                                   \
        if (!(cmd_out && lines(cmd_out) == 1))                                                                         \
            fprintf(stderr, "  output: %s\n", cmd_out ? cmd_out : "(none)");                                          \
        free(cmd_out);                                                                                                 \
        cmd_out = NULL;                                                                                                \
    } while (0)

static bool same_file(const char *a, const char *b)
{
    return tp_test_run(NULL, "cmp -s '%s' '%s'", a, b) == 0;
}

/* Two rank traces (the example, twice) in a fresh folder W: W/r0.json, W/r1.json. */
static const char *ranks_dir(const char *name)
{
    const char *w = tp_test_tmp(name);
    tp_test_run(NULL, "rm -rf '%s' && mkdir -p '%s' && cp %s '%s/r0.json' && cp %s '%s/r1.json'", w, w, EXAMPLE, w,
                EXAMPLE, w);
    return w;
}

TEST(h3_job_rank_trace_that_is_an_output_is_refused_before_anything_is_written)
{
    const char *w = ranks_dir("h3_job_out");
    char *out = NULL;
    /* the trace at D/summary.json, named plainly, as ./D/../D/..., and through a symlink */
    const char *forms[] = {"%s/D/summary.json", "%s/D/../D/summary.json", "%s/link.json"};
    for (int f = 0; f < 3; f++) {
        tp_test_run(NULL, "cd '%s' && rm -rf D && mkdir D && cp r0.json D/summary.json && ln -sf D/summary.json link.json",
                    w);
        char in[4096];
        snprintf(in, sizeof in, forms[f], w);
        int rc = tp_test_run(&out, "cd '%s' && '%s' report r1.json '%s' -o D", w, bin(), in);
        CHECK_REFUSED(out, rc);
        char d[4096], kept[4096], orig[4096];
        snprintf(d, sizeof d, "%s/D", w);
        snprintf(kept, sizeof kept, "%s/D/summary.json", w);
        snprintf(orig, sizeof orig, "%s/r0.json", w);
        CHECK(same_file(kept, orig));
        char *l = listing(d); /* no lock file, no ranks/, no png/ */
        CHECK_STR(l, "summary.json ");
        free(l);
    }
    /* the same with the report's PDF */
    tp_test_run(NULL, "cd '%s' && rm -rf D && mkdir D && cp r0.json D/report.pdf", w);
    int rc = tp_test_run(&out, "cd '%s' && '%s' report r1.json D/report.pdf -o D", w, bin());
    CHECK_REFUSED(out, rc);
}

TEST(h3_job_never_removes_rank_summaries_that_are_inputs)
{
    const char *w = ranks_dir("h3_job_ranks");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json r1.json -o O", w, bin()), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir keep && cp O/ranks/*.rank.json keep/", w), 0);
    /* report OUT/ranks/(glob).rank.json -o OUT: the stale-summary cleanup deleted them */
    int rc = tp_test_run(&out, "cd '%s' && '%s' report 'O/ranks/*.rank.json' -o O", w, bin());
    CHECK_REFUSED(out, rc);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && for f in keep/*; do cmp -s \"$f\" O/ranks/$(basename \"$f\") || exit 1; "
                                   "done", w), 0);
    /* a hard link to a rank summary, elsewhere, as a rank trace */
    rc = tp_test_run(&out, "cd '%s' && ln -f O/ranks/000000-r0.rank.json hard.json && '%s' report hard.json r1.json -o O",
                     w, bin());
    CHECK_REFUSED(out, rc);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cmp -s keep/000000-r0.rank.json O/ranks/000000-r0.rank.json", w), 0);
}

TEST(h3_job_symlinked_ranks_folder_is_refused_and_left_alone)
{
    const char *w = ranks_dir("h3_job_link");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json r1.json -o O", w, bin()), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir foreign && cp O/ranks/* foreign/ && mkdir O2 && "
                                   "ln -s ../foreign O2/ranks && ls foreign > before", w), 0);
    int rc = tp_test_run(&out, "cd '%s' && '%s' report r0.json r1.json -o O2", w, bin());
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "symbolic link") && lines(out) == 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && ls foreign | cmp -s before -", w), 0);
    char o2[4096];
    snprintf(o2, sizeof o2, "%s/O2", w);
    char *l = listing(o2);
    CHECK_STR(l, "ranks ");
    free(l);
}

/* Run CMD (with %s for the binary) in W; it must refuse, leave FILE as it
 * was and DIR (relative to W) holding only what it held. */
static void refused_in(const char *w, const char *dir, const char *file, const char *cmd)
{
    char before[4096], path[4096], full[8192];
    snprintf(path, sizeof path, "%s/%s", w, dir);
    char *l0 = listing(path);
    snprintf(before, sizeof before, "%s/%s.before", w, "h3");
    tp_test_run(NULL, "cd '%s' && cp '%s' '%s'", w, file, before);
    snprintf(full, sizeof full, "cd '%s' && ", w);
    size_t n = strlen(full);
    snprintf(full + n, sizeof full - n, cmd, bin());
    char *out = NULL;
    int rc = tp_test_run(&out, "%s", full);
    if (rc != 2 || !out || !refusal(out) || lines(out) != 1)
        fprintf(stderr, "  %s\n  -> %d: %s\n", full, rc, out ? out : "");
    CHECK_REFUSED(out, rc);
    snprintf(path, sizeof path, "%s/%s", w, file);
    CHECK(same_file(path, before));
    snprintf(path, sizeof path, "%s/%s", w, dir);
    char *l1 = listing(path);
    CHECK_STR(l1, l0);
    free(l0);
    free(l1);
}

TEST(h3_files_named_by_options_are_inputs_in_every_command)
{
    const char *w = ranks_dir("h3_opts");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir S DD J B L R C && printf '" RULES "' > S/summary.json && "
                                   "ln -s S/summary.json rules_link && ln -f S/summary.json rules_hard && "
                                   "printf '" RULES "' > DD/diff.json && mkdir -p J/png && "
                                   "printf '" DEVSPEC "' > J/png/job_heatmap.png && "
                                   "mkdir -p B/r0/report && printf '" RULES "' > B/r0/report/summary.md && "
                                   "printf '" RULES "' > B/index.md && "
                                   "printf '%%s\\n' \"$PWD/r0.json\" \"$PWD/r1.json\" > L/summary.md && "
                                   "cp L/summary.md list.txt && cp r0.json R/summary.json",
                             w), 0);
    /* report: --categories as the summary, through a symlink, a hard link, ./S/../S/ */
    refused_in(w, "S", "S/summary.json", "'%s' report r0.json -o S --categories S/summary.json");
    refused_in(w, "S", "S/summary.json", "'%s' report r0.json -o S --categories rules_link");
    refused_in(w, "S", "S/summary.json", "'%s' report r0.json -o S --categories rules_hard");
    refused_in(w, "S", "S/summary.json", "'%s' report r0.json -o S --categories=./S/../S/summary.json");
    /* report --baseline, diff --categories, job report --device-spec, an @list, --merge */
    refused_in(w, "R", "R/summary.json", "'%s' report r1.json -o R --baseline R/summary.json");
    refused_in(w, "DD", "DD/diff.json", "'%s' diff r0.json r1.json -o DD --categories DD/diff.json");
    refused_in(w, "J", "J/png/job_heatmap.png", "'%s' report r0.json r1.json -o J --device-spec J/png/job_heatmap.png");
    refused_in(w, "L", "L/summary.md", "'%s' report @L/summary.md -o L");
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json r1.json -o C && printf '" RULES "' > C/summary.md",
                             w, bin()), 0);
    free(out);
    refused_in(w, "C", "C/summary.md", "'%s' report --merge C --categories C/summary.md");
    /* batch: a row's report and the index */
    refused_in(w, "B", "B/r0/report/summary.md", "'%s' batch r0.json -o B --categories B/r0/report/summary.md");
    refused_in(w, "B", "B/index.md", "'%s' batch r0.json -o B --categories B/index.md");
    /* batch --merge: the index was written file by file, its PDF before the refusal */
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' batch r0.json r1.json -o BM --shard 1/2 && '%s' batch r0.json "
                                   "r1.json -o BM --shard 2/2 && rm BM/.tracepress-batch.lock && "
                                   "printf '" RULES "' > BM/index.md",
                             w, bin(), bin()), 0);
    free(out);
    refused_in(w, "BM", "BM/index.md", "'%s' batch --merge BM --categories BM/index.md");
    /* convert: the output is the @list; stats reads only */
    refused_in(w, ".", "list.txt", "'%s' convert -q @list.txt -o list.txt");
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' stats r0.json --categories S/summary.json >/dev/null", w,
                             bin()), 0);
    free(out);
}

/* An earlier report's members the new report lacks are removed; what is
 * not a member (a user's file, a symbolic link) and inputs stay. */
TEST(h3_report_leaves_no_member_of_an_earlier_set)
{
    const char *w = ranks_dir("h3_stale");
    char *out = NULL;
    /* one trace's report (7 charts), then a job's into the same folder */
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json -o M", w, bin()), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && test -f M/png/gpu_time.png && touch M/png/mine.png && "
                                   "echo keep > target && rm M/png/steps.png && ln -s ../../target M/png/steps.png", w), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json r1.json -o M", w, bin()), 0);
    free(out);
    char m[4096];
    snprintf(m, sizeof m, "%s/M/png", w);
    char *l = listing(m);
    CHECK_STR(l, "job_heatmap.png job_ranks.png mine.png steps.png ");
    free(l);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && test -L M/png/steps.png && grep -q keep target", w), 0);
    /* and back: one trace's report leaves no job chart; an efficiency chart an
     * earlier trace with shapes had goes too (this trace has none) */
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && rm M/png/steps.png && echo old > M/png/efficiency.png", w), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report r0.json -o M", w, bin()), 0);
    free(out);
    l = listing(m);
    CHECK_STR(l, "breakdown.png gpu_time.png kernels_mean.png kernels_total.png mine.png overview.png steps.png "
                 "timeline.png ");
    free(l);
}

TEST(h3_refusal_leaves_no_lock_file)
{
    const char *w = ranks_dir("h3_lock");
    char *out = NULL;
    /* report DIR -o DIR */
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir X && cp r0.json X/a.json && cp r1.json X/b.json", w), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report X -o X", w, bin()), 1);
    CHECK(out && lines(out) == 1);
    free(out);
    char x[4096];
    snprintf(x, sizeof x, "%s/X", w);
    char *l = listing(x);
    CHECK_STR(l, "a.json b.json ");
    free(l);
    /* a batch whose input is its index, refused under the lock */
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir Y && cp r0.json Y/index.json", w), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' batch Y/index.json -o Y", w, bin()), 2);
    free(out);
    snprintf(x, sizeof x, "%s/Y", w);
    l = listing(x);
    CHECK_STR(l, "index.json ");
    free(l);
    /* --merge of a folder that is not there creates nothing */
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' report --merge NOPE", w, bin()), 2);
    CHECK(out && lines(out) == 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && test ! -e NOPE", w), 0);
}

/* One mechanism for every option that names a file: the commands parse it
 * with tp_opt_file (cli.h), never tp_opt_value, so no output replaces it.
 * Any option the help texts document with a FILE or OLD value must be. */
TEST(h3_file_options_are_parsed_as_inputs)
{
    static const char *const srcs[] = {"convert/cmd_convert.c", "report/cmd_report.c", "report/cmd_diff.c",
                                       "report/cmd_batch.c", "report/cmd_stats.c"};
    /* the help texts: the commands' own and the shared option paragraphs */
    char *help = NULL;
    CHECK_EQ_INT(tp_test_run(&help, "cat convert/cmd_*.c report/cmd_*.c report/rules/cat_rules.h "
                                    "report/perf_models/devices.h convert/pipeline/*.h"), 0);
    int checked = 0;
    for (size_t f = 0; f < sizeof srcs / sizeof *srcs; f++) {
        char *src = tp_test_read_file(srcs[f], NULL);
        CHECK(src != NULL);
        static const char call[] = "tp_opt_value(argc, argv, &i, \"";
        for (const char *p = src ? strstr(src, call) : NULL; p; p = strstr(p + 1, call)) {
            const char *name = p + sizeof call - 1, *end = strchr(name, '"');
            if (!end || end - name > 40)
                continue;
            char opt[48];
            snprintf(opt, sizeof opt, "%.*s", (int)(end - name), name);
            if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0)
                continue; /* the output itself */
            static const char *const values[] = {" FILE", " OLD", " LIST"};
            for (size_t v = 0; v < 3; v++) {
                char doc[64];
                snprintf(doc, sizeof doc, "  %s%s", opt, values[v]);
                if (help && strstr(help, doc))
                    tp_test_fail(__FILE__, __LINE__, "%s: %s names a file (help: '%s'): parse it with tp_opt_file",
                                 srcs[f], opt, doc + 2);
            }
            checked++;
        }
        free(src);
    }
    CHECK(checked > 10);
    CHECK(help && strstr(help, "  --categories FILE") && strstr(help, "  --baseline OLD"));
    free(help);
}

/* A job diff's inputs are the two reports' rank summaries: one hard-linked
 * as an output of the diff is refused before anything is read, in one line
 * naming the output, and stays intact. */
TEST(h3_job_diff_refuses_a_rank_summary_as_output)
{
    const char *t = tp_test_tmp("jdiff_traces"), *j1 = tp_test_tmp("jdiff_j1"), *j2 = tp_test_tmp("jdiff_j2"),
               *r = tp_test_tmp("jdiff_out");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 2 --steps 2 --out '%s' -q && '%s' report '%s' -o '%s' && "
                                   "'%s' report '%s' -o '%s' && mkdir -p '%s' && ln '%s/ranks/000000-rank-0.rank.json' "
                                   "'%s/diff.md'",
                             t, tp_test_bin(), t, j1, tp_test_bin(), t, j2, r, j1, r),
                 0);
    char *before = tp_test_read_in(j1, "ranks/000000-rank-0.rank.json"), *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff '%s' '%s' -o '%s' 2>&1", tp_test_bin(), j1, j2, r), 2);
    CHECK(out && strstr(out, "/diff.md: refusing to overwrite the input file") && !strchr(strchr(out, '\n') + 1, '\n'));
    char *after = tp_test_read_in(j1, "ranks/000000-rank-0.rank.json");
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    free(out);
}

/* convert --split: a launch link whose two ends fall in two parts cannot be
 * drawn; it is counted on the summary line, never dropped in silence: the
 * flows drawn plus the links cut equal the flows of the whole trace. */
static unsigned long long count_after(const char *out, const char *what)
{
    const char *p = out ? strstr(out, what) : NULL;
    while (p && p > out && p[-1] == ' ')
        p--;
    while (p && p > out && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return p ? strtoull(p, NULL, 10) : 0;
}

TEST(h3_split_counts_launch_links_across_parts)
{
    const char *in = tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz");
    if (!tp_test_file_exists(in))
        return;
    char *whole = NULL, *split = NULL;
    CHECK_EQ_INT(tp_test_run(&whole, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("whole.json")), 0);
    CHECK_EQ_INT(tp_test_run(&split, "'%s' convert '%s' -o '%s' --split size=100KB", tp_test_bin(), in,
                             tp_test_tmp("parts.json")),
                 0);
    unsigned long long all = count_after(whole, " launch flows"), drawn = count_after(split, " launch flows"),
                       cut = count_after(split, " launch links across parts");
    CHECK(all > 3000 && cut > 0 && drawn + cut == all);
    free(whole);
    free(split);
}

TEST(h3_batch_of_a_missing_input_leaves_no_folder)
{
    const char *dir = tp_test_tmp("batch_missing_out");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s'", tp_test_bin(), tp_test_tmp("no_such_trace.json"), dir), 2);
    CHECK(out && strstr(out, "No such file") && !tp_test_file_exists(dir));
    free(out);
}
