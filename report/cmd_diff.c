/* cmd_diff.c: `tracepress diff BASE CANDIDATE`: diff.md, diff.json, diff.pdf,
 * png/<chart>.png, and the regression gates (exit code 3). */
#include "convert/base/cli.h"
#include "report/diff/diff.h"
#include "convert/io/output.h"
#include "convert/pipeline/pipeline.h"
#include "convert/pipeline/graph_capture.h"
#include "report/perf_models/devices.h"
#include "render/text/report_text.h"
#include "report/job/job_diff.h"
#include "report/job/job_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>


static int parse_pct(const char *cmd, const char *opt, const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (*s == 0 || (*end && strcmp(end, "%") != 0) || !(x >= 0 && x <= 1e6)) {
        tp_usage_error(cmd, "%s takes a percentage, e.g. 5 or 2.5 (got '%s')", opt, s);
        return -1;
    }
    *v = x;
    return 0;
}

static int load(const char *path, const tp_load_opts *lo, tp_trace *t, tp_capture_stats *capture)
{
    tp_err err = {0};
    tp_trace_init(t);
    tp_out_protect(path);
    tp_load_opts side = *lo; /* each side's graph capture: the --graph-capture files, else its own capture_traces/ */
    side.capture = capture, side.discover_captures = true;
    if (tp_load(path, &side, t, &err) < 0) {
        tp_report_error(path, &err);
        return -1;
    }
    return 0;
}

/* One side of a job diff: a job report folder (its ranks/ summaries) or
 * traces (a folder, a glob, an @list) analysed in memory. */
static int load_job(const char *arg, const tp_job_opts *jo, tp_job *job)
{
    tp_err err = {0};
    char ranks[4096];
    snprintf(ranks, sizeof ranks, "%s/ranks", arg);
    struct stat st;
    if (stat(ranks, &st) == 0 && S_ISDIR(st.st_mode)) {
        char failed[4400];
        if (tp_job_read_ranks(arg, job, failed, sizeof failed, &err) < 0) {
            tp_report_error(failed, &err);
            return -1;
        }
        return 0;
    }
    tp_strlist inputs = {0};
    size_t not_traces = 0;
    char *args[1] = {(char *)arg};
    const char *failed = arg;
    int rc = tp_inputs_expand(args, 1, NULL, &inputs, &not_traces, &err);
    if (rc == 0) {
        tp_inputs_warn_not_regular(arg);
        if (inputs.n) /* without a trace, the error line below says it: one line */
            tp_inputs_warn_not_traces(arg, not_traces);
    }
    if (rc == 0 && !inputs.n)
        rc = not_traces ? tp_fail_at(&err, "", "no trace among the inputs (%zu file%s no reader recognises)", not_traces,
                                     not_traces == 1 ? "" : "s")
                        : tp_fail_at(&err, "", "no trace among the inputs");
    if (rc == 0)
        rc = tp_job_collect(&inputs, jo, job, &failed, &err);
    if (rc < 0)
        tp_report_error(failed, &err);
    tp_strlist_free(&inputs);
    return rc;
}

/* "tracepress: CANDIDATE: gate: REASON", one line per reason of why (lines
 * ending in '\n'); the reasons name kernels, so they are escaped as the
 * path is. */
static void print_gates(const char *candidate, const tp_buf *why)
{
    size_t start = 0;
    for (size_t i = 0; i <= why->len; i++) {
        if (i < why->len && why->data[i] != '\n')
            continue;
        if (i > start) {
            char *line = tp_xstrndup(why->data + start, i - start);
            fputs("tracepress: ", stderr);
            tp_put_printable(stderr, candidate);
            fputs(": gate: ", stderr);
            tp_put_printable(stderr, line);
            fputc('\n', stderr);
            free(line);
        }
        start = i + 1;
    }
}

/* --fail-on-finding over the job's findings: the two-trace gate
 * (diff_find.h) over the job diff's rows, so both say the same. */
static int job_finding_gate(const tp_job_diff *d, const char *value, tp_buf *why)
{
    tp_diff_findings f = {tp_xcalloc(d->nfinds + 1, sizeof *f.rows), 0};
    for (size_t i = 0; i < d->nfinds; i++) {
        const tp_job_diff_finding *x = &d->finds[i];
        tp_diff_finding r = {tp_xstrdup(x->rule->id), tp_xstrdup(x->rule->title), x->rule->severity, x->status,
                             {x->m[0] != NULL, x->m[1] != NULL}, {0, 0}, {0, 0}, NULL, {"", ""}, false};
        for (int k = 0; k < 2; k++)
            if (x->m[k]) {
                r.impact_ns[k] = x->m[k]->impact_ns;
                r.impact_milli[k] = x->m[k]->impact_milli;
                free(r.impact_base);
                r.impact_base = tp_xstrdup(x->m[k]->impact_base);
            }
        f.rows[f.n++] = r;
    }
    int n = tp_diff_finding_gate(&f, value, why);
    tp_diff_findings_free(&f);
    return n;
}

static int diff_jobs(const char *const *paths, const tp_job_opts *jo, const char *dir, const tp_diff_gates *g, bool quiet)
{
    tp_job job[2];
    if (load_job(paths[0], jo, &job[0]) < 0)
        return TP_EXIT_INPUT;
    if (load_job(paths[1], jo, &job[1]) < 0) {
        tp_job_free(&job[0]);
        return TP_EXIT_INPUT;
    }
    tp_job_findings_use(&job[0], jo->find_rules); /* both under the same rules */
    tp_job_findings_use(&job[1], jo->find_rules);
    tp_job_diff d;
    tp_job_diff_build(&job[0], &job[1], &d);
    tp_buf why = {0}, json = {0}, md = {0};
    bool tripped = g->slower && tp_job_diff_slower(&d, g->slower_pct, &why);
    if (g->fail_on_finding && job_finding_gate(&d, g->fail_on_finding, &why) > 0)
        tripped = true;
    tp_job_diff_json(&d, &why, tripped, &json);
    tp_job_diff_md(&d, &why, tripped, &md);
    tp_err err = {0};
    int rc = TP_EXIT_OK;
    tp_outset *set = tp_outset_new(), *prev = tp_outset_use(set);
    int wrc = tp_mkdirs(dir, &err);
    if (wrc == 0 && (tp_out_write_file(dir, "diff.json", json.data, json.len, &err) < 0 ||
                     tp_out_write_file(dir, "diff.md", md.data, md.len, &err) < 0))
        wrc = -1;
    wrc = tp_outset_finish(set, prev, wrc, &err);
    if (wrc < 0) {
        tp_report_error(dir, &err);
        rc = TP_EXIT_INPUT;
    } else {
        if (!quiet) {
            char a[48], b[48];
            tp_fmt_dur(a, sizeof a, d.head[0]);
            tp_fmt_dur(b, sizeof b, d.head[1]);
            fprintf(stderr, "tracepress diff: job median step %s -> %s, %s; wrote ", a, b, d.verdict);
            tp_put_printable(stderr, dir);
            fputs("/diff.md\n", stderr);
        }
        if (tripped) {
            print_gates(paths[1], &why);
            rc = TP_EXIT_GATE;
        }
    }
    tp_buf_free(&why);
    tp_buf_free(&json);
    tp_buf_free(&md);
    tp_job_diff_free(&d);
    tp_job_free(&job[0]);
    tp_job_free(&job[1]);
    return rc;
}

/* An input (a trace, a file an option names) that is one of the files a
 * diff in DIR writes: refused before anything is read or written.  0, or
 * TP_EXIT_INPUT with the line printed. */
/* A folder given to diff is a job: its traces and its report's rank
 * summaries (DIR/ranks/\*.rank.json) are inputs too, protected before the
 * check as one trace is (a summary is read only later). */
static void protect_job_folder(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    char ranks[4400];
    snprintf(ranks, sizeof ranks, "%s/ranks", path);
    DIR *d = opendir(ranks);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 10 && strcmp(e->d_name + n - 10, ".rank.json") == 0) {
            char f[4700];
            snprintf(f, sizeof f, "%s/%s", ranks, e->d_name);
            tp_out_protect(f); /* regular files only: a FIFO is neither opened nor protected */
        }
    }
    if (d)
        closedir(d);
    tp_strlist files = {0};
    size_t not_traces = 0;
    tp_err err = {0};
    char *args[1] = {(char *)path};
    if (tp_inputs_expand(args, 1, NULL, &files, &not_traces, &err) == 0) /* an error is said when it is read */
        for (size_t i = 0; i < files.n; i++)
            tp_out_protect(files.v[i]);
    tp_strlist_free(&files);
}

static int refuse_input_output(const char *const paths[2], const char *dir)
{
    static const char *const outs[] = {"diff.json", "diff.md", "diff.pdf", "png/changes.png", "png/steps.png"};
    tp_out_protect(paths[0]);
    tp_out_protect(paths[1]);
    protect_job_folder(paths[0]);
    protect_job_folder(paths[1]);
    for (size_t k = 0; k < sizeof outs / sizeof *outs; k++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, outs[k]);
        const char *in = tp_out_protected(p);
        if (in) {
            tp_print_line("%s: refusing to overwrite the input file %s", p, in);
            return TP_EXIT_INPUT;
        }
    }
    return 0;
}

static int tp_cmd_diff(int argc, char **argv)
{
    tp_load_opts lo = {0};
    const char *paths[2] = {NULL, NULL}, *dir = "diff", *steps = NULL, *slower = NULL, *kslower = NULL,
               *minshare = NULL, *scale = NULL, *cats = NULL, *devspec = NULL, *imgurl = NULL,
               *onfinding = NULL, *findrules = NULL, *memhigher = NULL;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        if ((k = tp_opt_value(argc, argv, &i, "-o", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--output", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--steps", &steps)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--fail-if-slower", &slower)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--fail-if-kernel-slower", &kslower)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--kernel-min-share", &minshare)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--fail-on-finding", &onfinding)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--fail-if-memory-higher", &memhigher)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--scale", &scale)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--image-base-url", &imgurl)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--categories", &cats)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--rules", &findrules)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--device-spec", &devspec)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if ((k = tp_parse_load_option(argc, argv, &i, &lo)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if (tp_opt_flag(argv, i, "-q") || tp_opt_flag(argv, i, "--quiet"))
            quiet = true;
        else if (tp_opt_flag(argv, i, "--help") || tp_opt_flag(argv, i, "-h"))
            return tp_print_help(argv[0]);
        else if (argv[i][0] == '-' && argv[i][1])
            return tp_usage_error(argv[0], "unknown option %s", argv[i]);
        else if (!paths[0])
            paths[0] = argv[i];
        else if (!paths[1])
            paths[1] = argv[i];
        else
            return tp_usage_error(argv[0], "two input files: BASE and CANDIDATE");
    }
    if (!paths[1])
        return tp_usage_error(argv[0], "needs two input files: BASE and CANDIDATE");
    const char *bad;
    if (imgurl && tp_md_url_check(imgurl, &bad) < 0) {
        tp_err e = {0};
        tp_fail_at(&e, "", "%s: %s", imgurl, bad); /* the URL escaped: one line */
        tp_report_error("--image-base-url", &e);
        return TP_EXIT_INPUT;
    }
    tp_diff_gates g = {0};
    g.kernel_min_share_pct = 1.0;
    if (slower) {
        if (parse_pct(argv[0], "--fail-if-slower", slower, &g.slower_pct) < 0)
            return TP_EXIT_USAGE;
        g.slower = true;
    }
    if (kslower) {
        if (parse_pct(argv[0], "--fail-if-kernel-slower", kslower, &g.kernel_pct) < 0)
            return TP_EXIT_USAGE;
        g.kernel_slower = true;
    }
    if (minshare && parse_pct(argv[0], "--kernel-min-share", minshare, &g.kernel_min_share_pct) < 0)
        return TP_EXIT_USAGE;
    int gate_ok = onfinding ? tp_diff_finding_gate_check(onfinding, findrules) : 0;
    if (gate_ok == -2)
        return tp_usage_error(argv[0], "--fail-on-finding %s: --rules %s turns that rule off, so the gate could never trip",
                              onfinding, findrules);
    if (gate_ok < 0 && !tp_job_finding_id_known(onfinding))
        return tp_usage_error(argv[0], "--fail-on-finding takes a finding ID (built in, a job's, or of --rules FILE) "
                                       "or high, medium, low");
    g.fail_on_finding = onfinding;
    if (memhigher && tp_mem_gate_parse(memhigher, &g.mem_higher) < 0)
        return tp_usage_error(argv[0], "--fail-if-memory-higher takes a percentage (5, 5%%) or bytes (512MiB, 2GB, "
                                       "1048576B) (got '%s')", memhigher);
    double png_scale = 2;
    if (scale) {
        char *end;
        double v = strtod(scale, &end);
        if (*scale == 0 || *end || !(v >= 0.5 && v <= 8))
            return tp_usage_error(argv[0], "--scale takes a number from 0.5 to 8 (got '%s')", scale);
        png_scale = 2 * v;
    }
    if (steps) {
        if (tp_parse_steps(steps, &lo.step_first, &lo.step_last) != 0)
            return tp_usage_error(argv[0], "--steps takes A:B, A:, :B or N (got '%s')", steps);
        lo.has_steps = true;
    }
    if (refuse_input_output(paths, dir) != 0)
        return TP_EXIT_INPUT;
    tp_cat_rules rules; /* one rule table for both sides */
    if (tp_cat_rules_for_command(cats, &rules) != 0)
        return TP_EXIT_INPUT;
    lo.read.keep_args_of = tp_summary_wants_args; /* the shapes of the ops that have a model */
    lo.read.flows_as_ids = true; /* analysed, not written */
    tp_device_table devices; /* and one device table */
    if (tp_device_table_for_command(devspec, &devices) != 0) {
        tp_cat_rules_free(&rules);
        return TP_EXIT_INPUT;
    }
    if (tp_inputs_are_job((char **)&paths[0], 1) || tp_inputs_are_job((char **)&paths[1], 1)) {
        if (kslower || memhigher) { /* a job diff gates on its findings and steps (--rules applies there) */
            tp_cat_rules_free(&rules);
            tp_device_table_free(&devices);
            return tp_usage_error(argv[0], "%s is for two traces, not two jobs",
                                  kslower ? "--fail-if-kernel-slower" : "--fail-if-memory-higher");
        }
        tp_find_rules frules; /* a trace's and the job's rules, read before any work */
        if (tp_job_rules_for_command(findrules, &frules) != 0) {
            tp_cat_rules_free(&rules);
            tp_device_table_free(&devices);
            return TP_EXIT_INPUT;
        }
        tp_job_opts jo = {&lo, steps, &rules, &devices, 0, 0, 1, &frules};
        int rc = diff_jobs(paths, &jo, dir, &g, quiet);
        tp_find_rules_free(&frules);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        return rc;
    }
    tp_find_rules frules; /* one finding rule table for both sides, read before the traces */
    if (tp_find_rules_for_command(findrules, &frules) != 0) {
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        return TP_EXIT_INPUT;
    }
    tp_trace t[2];
    tp_capture_stats capture[2];
    if (load(paths[0], &lo, &t[0], &capture[0]) < 0) {
        tp_trace_free(&t[0]);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        tp_find_rules_free(&frules);
        return TP_EXIT_INPUT;
    }
    if (load(paths[1], &lo, &t[1], &capture[1]) < 0) {
        tp_trace_free(&t[0]);
        tp_trace_free(&t[1]);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        tp_find_rules_free(&frules);
        return TP_EXIT_INPUT;
    }
    tp_summary s[2];
    for (int k = 0; k < 2; k++) {
        tp_report_opts ro = {paths[k], steps, 0, &rules, false, &devices, false, &frules};
        tp_summary_build(&t[k], &ro, &s[k]);
        s[k].capture = &capture[k];
    }
    tp_diff d;
    tp_diff_build(&s[0], &s[1], &d);
    tp_buf why = {0}, json = {0}, md = {0};
    int tripped = tp_diff_check(&d, &g, &why);
    int rc = TP_EXIT_OK;
    tp_err err = {0};
    const char **pngs = NULL;
    char pngdir[4096];
    snprintf(pngdir, sizeof pngdir, "%s/png", dir);
    /* diff.pdf, the PNGs, diff.json and diff.md as one set: renamed together
     * at the end, so a failure or a signal leaves the previous diff whole */
    tp_outset *set = tp_outset_new(), *prev = tp_outset_use(set);
    int wrc = 0;
    if (tp_mkdirs(pngdir, &err) < 0 || tp_diff_pages(&d, dir, png_scale, &pngs, &err) < 0)
        wrc = -1;
    else {
        tp_diff_json(&d, &g, &why, tripped, &json);
        tp_diff_md(&d, &g, &why, tripped, imgurl, pngs, &md);
        if (tp_out_write_file(dir, "diff.json", json.data, json.len, &err) < 0 ||
            tp_out_write_file(dir, "diff.md", md.data, md.len, &err) < 0)
            wrc = -1;
    }
    wrc = tp_outset_finish(set, prev, wrc, &err);
    if (wrc < 0) {
        tp_report_error(dir, &err);
        rc = TP_EXIT_INPUT;
        goto done;
    }
    if (!quiet) {
        char a[48], b[48];
        tp_fmt_dur(a, sizeof a, d.head[0]);
        tp_fmt_dur(b, sizeof b, d.head[1]);
        fprintf(stderr, "tracepress diff: %s %s -> %s", strcmp(d.headline, "median_step_time") == 0 ?
                "median step time" : "total device time", a, b);
        if (d.head_has_rel)
            fprintf(stderr, " (%+.1f%%)", d.head_rel * 100.0 + 0.0);
        fprintf(stderr, ", %s; wrote ", tp_diff_verdict_name(d.verdict));
        tp_put_printable(stderr, dir); /* one line whatever the folder is called */
        fputs("/diff.md\n", stderr);
    }
    if (tripped) {
        print_gates(paths[1], &why);
        rc = TP_EXIT_GATE;
    }
done:
    free(pngs);
    tp_buf_free(&why);
    tp_buf_free(&json);
    tp_buf_free(&md);
    tp_diff_free(&d);
    for (int k = 0; k < 2; k++) {
        tp_summary_free(&s[k]);
        tp_trace_free(&t[k]);
    }
    tp_cat_rules_free(&rules);
    tp_device_table_free(&devices);
    tp_find_rules_free(&frules);
    return rc;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_diff = {"diff", "compare two traces: what got slower, with a regression gate for CI",
    "usage: tracepress diff BASE CANDIDATE [-o DIR] [options]\n"
    "\n"
    "Compares two traces of any supported formats: kernels, top-level ops and\n"
    "steps are matched by name (then by shortened kernel name), with count,\n"
    "total and mean in both, the change and the share of the net change each\n"
    "explains; step times with their median and interquartile range (IQR),\n"
    "and a verdict: no change, within noise, slower, faster, or no noise\n"
    "estimate.  A change of the median step time counts when it is larger\n"
    "than the noise = max(1.5 x IQR of either run, 1% of the base median);\n"
    "a run with a single step, or traces without steps, give no noise\n"
    "estimate.  Writes DIR/diff.md (a pull-request comment), DIR/diff.json\n"
    "(schema tracepress.diff/2), DIR/diff.pdf and DIR/png/changes.png,\n"
    "DIR/png/steps.png.  Definitions: docs/DIFF.md.\n"
    "\n"
    "Two jobs (each a job report folder with its ranks/ summaries, or a folder,\n"
    "glob or @list of rank traces): ranks matched by rank, collectives by kind,\n"
    "size, dtype and group; DIR/diff.md and DIR/diff.json (tracepress.jobdiff/1)\n"
    "with the job's median step, its noise and verdict, per rank and per\n"
    "collective, and the job findings new, gone or grown; --fail-if-slower gates\n"
    "the job's median step, --fail-on-finding its findings (docs/DIFF.md \"Jobs\").\n"
    "\n"
    "options:\n"
    "  -o, --output DIR              output folder (default: diff)\n"
    "  --fail-if-slower PCT          exit 3 when the median step time (total device\n"
    "                                time without steps) grew by more than PCT% and\n"
    "                                the verdict is slower (or no noise estimate);\n"
    "                                a change within the noise never trips it\n"
    "  --fail-if-kernel-slower PCT   exit 3 when any kernel's total time grew by more\n"
    "                                than PCT% (kernels under --kernel-min-share ignored)\n"
    "  --kernel-min-share PCT        smallest share of device time a kernel needs to be\n"
    "                                gated (default 1)\n"
    "  --fail-on-finding ID|SEVERITY exit 3 when a finding with this ID, or of this\n"
    "                                severity or above (high, medium, low), is new in\n"
    "                                the candidate or grew (docs/DIFF.md \"Findings\")\n"
    "  --fail-if-memory-higher PCT|BYTES  exit 3 when a device's peak allocated memory\n"
    "                                grew by more than PCT% (5, 5%) or BYTES (512MiB,\n"
    "                                2GB, 1048576B) (docs/DIFF.md \"Memory\"; two traces)\n"
    "  --scale S                     PNG resolution factor (default 1)\n"
    "  --image-base-url URL          diff.md shows the charts from URL/png/ (where CI\n"
    "                                publishes them); without it, it names the files\n"
    "  -q, --quiet                   no summary line on stderr\n"
    TP_CATEGORIES_HELP TP_RULES_HELP
    "                      (the same rules for both sides; of two jobs, a job's too)\n"
    TP_DEVICE_SPEC_HELP
    "load options (applied to both traces):\n" TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
    "\nexample: tracepress diff main.pt.trace.json.gz pr.pt.trace.json.gz -o out --fail-if-slower 5\n",
    tp_cmd_diff, true};
