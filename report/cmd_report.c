/* cmd_report.c: `tracepress report`: PDF, PNG charts, summary.json, summary.md. */
#include "convert/base/cli.h"
#include "convert/io/dir_lock.h"
#include "convert/io/output.h"
#include "report/assemble/report_write.h"
#include "convert/pipeline/pipeline.h"
#include "report/perf_models/devices.h"
#include "report/analysis/summary.h"
#include "convert/pipeline/graph_capture.h"
#include "report/job/job_run.h"
#include "report/diff/diff.h"
#include "report/findings/findings.h"
#include "render/text/report_text.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* The charts a finished report left in DIR/png: counted from the folder,
 * so the success line says what is there whoever wrote it. */
static size_t png_count(const char *dir)
{
    char pngdir[PATH_MAX];
    snprintf(pngdir, sizeof pngdir, "%s/png", dir);
    DIR *d = opendir(pngdir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        n += len > 4 && strcmp(e->d_name + len - 4, ".png") == 0;
    }
    if (d)
        closedir(d);
    return n;
}

/* The one line on success (as `convert` prints one): where the report went.
 * WHAT says whose report it is ("job of 4 ranks", a trace's file name). */
static void report_written(const char *dir, const char *what)
{
    size_t n = png_count(dir);
    fputs("tracepress report: ", stderr);
    tp_put_printable(stderr, what);
    fputs("; wrote ", stderr);
    tp_put_printable(stderr, dir);
    fputs("/report.pdf, summary.md, summary.json", stderr);
    fprintf(stderr, " and %zu chart%s in png/\n", n, n == 1 ? "" : "s");
}

/* Inputs that look like a job (a folder, a glob) holding one trace: that
 * trace's path in BUF, the files skipped said as a job's would be. */
static bool one_trace(char **args, int nargs, const char *dir, char *buf, size_t n)
{
    size_t not_traces = 0;
    char *one = tp_inputs_single(args, nargs, dir, &not_traces);
    bool ok = one && strlen(one) < n;
    if (ok) {
        snprintf(buf, n, "%s", one);
        tp_inputs_warn_not_regular("report");
        tp_inputs_warn_not_traces("report", not_traces);
    }
    free(one);
    return ok;
}

/* The job's inputs, before anything is written (no folder, no lock file:
 * a refusal leaves nothing behind).  0, or an exit code with the line printed. */
static int job_inputs(char **args, int nargs, const char *dir, tp_strlist *inputs)
{
    tp_err err = {0};
    size_t not_traces = 0;
    if (tp_inputs_expand(args, nargs, dir, inputs, &not_traces, &err) < 0) {
        tp_report_error("report", &err);
        return TP_EXIT_INPUT;
    }
    if (!inputs->n) /* as before: the count, then why there is nothing to do */
        tp_inputs_warn_not_traces("report", not_traces);
    if (!inputs->n) {
        char ro[PATH_MAX], ri[PATH_MAX];
        for (int i = 0; i < nargs; i++) /* the one folder given is the output folder: its traces are skipped */
            if (realpath(dir, ro) && realpath(args[i], ri) && strcmp(ro, ri) == 0) {
                fputs("tracepress: ", stderr);
                tp_put_printable(stderr, dir); /* a folder's name: one line, no terminal control */
                fputs(": the output folder is the input folder: give another -o\n", stderr);
                return TP_EXIT_USAGE;
            }
        tp_inputs_warn_not_regular("report"); /* why there is none, when FIFOs ... were all there was */
        fprintf(stderr, "tracepress: report: no trace among the inputs\n");
        return TP_EXIT_INPUT;
    }
    const char *failed = NULL;
    if (tp_job_check_outputs(inputs, dir, &failed, &err) < 0) { /* a refusal is its one line */
        tp_report_error(failed, &err);
        return TP_EXIT_INPUT;
    }
    tp_inputs_warn_not_regular("report"); /* after the checks, as the count below: a refusal is one line */
    tp_inputs_warn_not_traces("report", not_traces);
    return 0;
}

/* The job report: map (every input, or shard K/N's) and reduce, or the reduce alone (--merge). */
static int report_job_locked(const tp_strlist *inputs, const tp_job_opts *jo, bool merge, const tp_page_opts *po,
                             const char *dir, bool quiet)
{
    tp_err err = {0};
    if (!merge) {
        const char *failed = NULL;
        int rc = tp_job_map(inputs, jo, dir, &failed, &err);
        if (rc < 0 && failed)
            tp_report_error(failed, &err);
        if (rc < 0)
            return TP_EXIT_INPUT;
        if (jo->shard_n) { /* the merge writes the report */
            if (!quiet) {
                fprintf(stderr, "tracepress report: shard %d/%d: wrote the rank summaries in ", jo->shard_k, jo->shard_n);
                tp_put_printable(stderr, dir);
                fputs("/ranks/ (report --merge DIR once every shard is done)\n", stderr);
            }
            return TP_EXIT_OK;
        }
    }
    tp_job job;
    char failed[4400];
    if (tp_job_read_ranks(dir, &job, failed, sizeof failed, &err) < 0) {
        tp_report_error(failed, &err);
        return TP_EXIT_INPUT;
    }
    tp_job_late_read(&job, jo); /* what the straggler ran while the others waited; the --rules file's rules */
    tp_timing("job");
    int rc = TP_EXIT_OK;
    if (tp_job_write(&job, po, dir, &err) < 0) {
        tp_report_error(dir, &err);
        rc = TP_EXIT_INPUT;
    } else if (!quiet) {
        char what[64];
        snprintf(what, sizeof what, "job of %zu rank%s", job.nranks, job.nranks == 1 ? "" : "s");
        report_written(dir, what);
    }
    tp_job_free(&job);
    return rc;
}

static int report_job(char **args, int nargs, const tp_job_opts *jo, bool merge, const tp_page_opts *po,
                      const char *dir, bool quiet)
{
    tp_err err = {0};
    tp_strlist inputs = {0};
    int rc = 0;
    if (!merge)
        rc = job_inputs(args, nargs, dir, &inputs);
    else {
        const char *failed = NULL;
        char ranks[4200];
        snprintf(ranks, sizeof ranks, "%s/ranks", dir);
        struct stat st;
        if (stat(ranks, &st) != 0 || !S_ISDIR(st.st_mode)) { /* nothing to merge: no folder, no lock file made */
            tp_print_line("%s: %s (run the shards first: report --shard K/N ... -o %s)", ranks,
                    stat(ranks, &st) != 0 ? strerror(errno) : "not a folder", dir);
            rc = TP_EXIT_INPUT;
        } else if (tp_job_check_outputs(NULL, dir, &failed, &err) < 0) { /* the files options name */
            tp_report_error(failed, &err);
            rc = TP_EXIT_INPUT;
        }
    }
    /* one run per folder (shards share it): two at once mixed their ranks */
    if (rc == 0 && tp_mkdirs(dir, &err) < 0) {
        tp_report_error(dir, &err);
        rc = TP_EXIT_INPUT;
    }
    int lockfd = rc == 0 ? tp_dir_lock(dir, "job report", jo->shard_k, jo->shard_n, false) : -1;
    if (rc == 0 && lockfd < 0)
        rc = TP_EXIT_INPUT;
    if (rc == 0) {
        rc = report_job_locked(&inputs, jo, merge, po, dir, quiet);
        tp_dir_unlock(lockfd, false);
    }
    tp_strlist_free(&inputs);
    return rc;
}

/* --baseline OLD: OLD loaded and analysed as `diff` does, compared with the
 * report's trace (report/diff), and the comparison's line for summary.md. */
static int summary_baseline(const char *old, const tp_load_opts *lo, const tp_report_opts *ro, const tp_summary *s,
                            tp_buf *brief)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    tp_out_protect(old);
    if (tp_load(old, lo, &t, &err) < 0) {
        tp_report_error(old, &err);
        tp_trace_free(&t);
        return -1;
    }
    tp_report_opts bo = *ro;
    bo.path = old;
    tp_summary bs;
    tp_summary_build(&t, &bo, &bs);
    tp_diff d;
    tp_diff_build(&bs, s, &d);
    tp_diff_brief_md(&d, brief);
    tp_diff_free(&d);
    tp_summary_free(&bs);
    tp_trace_free(&t);
    return 0;
}

static int tp_cmd_report(int argc, char **argv)
{
    tp_load_opts lo = {0};
    const char *path = NULL, *steps = NULL, *dir = NULL, *batch = NULL, *paper = "a4", *scale = NULL,
               *cats = NULL, *devspec = NULL, *shard = NULL, *jobs = NULL, *imgurl = NULL, *baseline = NULL,
               *findrules = NULL, *tokens = NULL, *cp_window = NULL;
    char **args = tp_xcalloc((size_t)argc + 1, sizeof *args);
    int nargs = 0;
    bool merge = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        if ((k = tp_opt_value(argc, argv, &i, "--steps", &steps)) != 0 || /* kept as text for the report */
            (k = tp_opt_value(argc, argv, &i, "-o", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--output", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--batch-size", &batch)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--tokens", &tokens)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--paper", &paper)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--scale", &scale)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--image-base-url", &imgurl)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--baseline", &baseline)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--categories", &cats)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--rules", &findrules)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--device-spec", &devspec)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--shard", &shard)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "-j", &jobs)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--jobs", &jobs)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--critical-path-window", &cp_window)) != 0) {
            if (k < 0)
                return free(args), TP_EXIT_USAGE;
        } else if ((k = tp_parse_load_option(argc, argv, &i, &lo)) != 0) {
            if (k < 0)
                return free(args), TP_EXIT_USAGE;
        } else if (tp_opt_flag(argv, i, "--help") || tp_opt_flag(argv, i, "-h"))
            return free(args), tp_print_help(argv[0]);
        else if (tp_opt_flag(argv, i, "--merge"))
            merge = true;
        else if (tp_opt_flag(argv, i, "-q") || tp_opt_flag(argv, i, "--quiet"))
            quiet = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return free(args), tp_usage_error(argv[0], "unknown option %s", argv[i]);
        else
            args[nargs++] = argv[i];
    }
    bool job = merge || shard || (nargs && tp_inputs_are_job(args, nargs));
    char single[PATH_MAX];
    if (job && !merge && !shard && one_trace(args, nargs, dir, single, sizeof single)) {
        job = false; /* a folder of one trace and other files: that trace's report, not a job of one rank */
        args[0] = single;
        nargs = 1;
    }
    if (merge && nargs == 1 && !dir)
        dir = args[0]; /* report --merge DIR */
    else if (merge && nargs)
        return free(args), tp_usage_error(argv[0], "--merge reads the rank summaries of -o DIR: give no input");
    if (!job && !nargs)
        return free(args), tp_usage_error(argv[0], "no input file");
    if (job && !dir)
        return free(args), tp_usage_error(argv[0], "a job (several inputs, a folder, --shard or --merge) needs -o DIR");
    if (merge && shard)
        return free(args), tp_usage_error(argv[0], "--merge and --shard do not go together");
    int shard_k = 0, shard_n = 0;
    if (shard) {
        if (tp_parse_shard(shard, &shard_k, &shard_n) < 0)
            return free(args), tp_usage_error(argv[0], "--shard takes K/N with 1 <= K <= N <= 2147483647 (got '%s')", shard);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = cpus >= 2 ? 2 : 1; /* two ranks at once: both cores, two ranks' memory */
    if (jobs) {
        char *end;
        long v = strtol(jobs, &end, 10);
        if (*jobs == 0 || *end || v < 1 || v > 64)
            return free(args), tp_usage_error(argv[0], "-j takes a number from 1 to 64 (got '%s')", jobs);
        workers = (int)v;
    }
    path = nargs ? args[0] : NULL;
    tp_report_opts ro = {path, steps, 0, NULL, false, NULL, false, NULL};
    if (batch) {
        char *end;
        long long v = strtoll(batch, &end, 10);
        if (*batch == 0 || *end || v <= 0 || v > 1000000000LL)
            return free(args), tp_usage_error(argv[0], "--batch-size takes a positive whole number (got '%s')", batch);
        ro.batch_size = v;
    }
    int64_t tokens_per_iteration = 0;
    if (tokens) {
        char *end;
        long long v = strtoll(tokens, &end, 10);
        if (*tokens == 0 || *end || v <= 0 || v > 1000000000LL)
            return free(args), tp_usage_error(argv[0], "--tokens takes a positive whole number (got '%s')", tokens);
        tokens_per_iteration = v;
    }
    tp_page_opts po = {595, 842, 2};
    if (strcmp(paper, "letter") == 0) {
        po.page_w = 612;
        po.page_h = 792;
    } else if (strcmp(paper, "a4") != 0)
        return free(args), tp_usage_error(argv[0], "--paper takes a4 or letter (got '%s')", paper);
    if (scale) {
        char *end;
        double v = strtod(scale, &end);
        if (*scale == 0 || *end || !(v >= 0.5 && v <= 8))
            return free(args), tp_usage_error(argv[0], "--scale takes a number from 0.5 to 8 (got '%s')", scale);
        po.png_scale = 2 * v; /* --scale 1 = 2 px per pt (an A4 page: 1684 px wide before cropping), 2 = twice that */
    }
    if (steps) {
        if (tp_parse_steps(steps, &lo.step_first, &lo.step_last) != 0)
            return free(args), tp_usage_error(argv[0], "--steps takes A:B, A:, :B or N (got '%s')", steps);
        lo.has_steps = true;
    }
    if (job && (imgurl || baseline))
        return free(args), tp_usage_error(argv[0], "--image-base-url and --baseline are for the report of one trace");
    const char *bad;
    if (imgurl && tp_md_url_check(imgurl, &bad) < 0) {
        tp_err e = {0};
        tp_fail_at(&e, "", "%s: %s", imgurl, bad); /* the URL escaped: one line */
        tp_report_error("--image-base-url", &e);
        return free(args), TP_EXIT_INPUT;
    }
    if (job) {
        tp_cat_rules rules;
        tp_device_table devices;
        if (tp_cat_rules_for_command(cats, &rules) != 0)
            return free(args), TP_EXIT_INPUT;
        if (tp_device_table_for_command(devspec, &devices) != 0) {
            tp_cat_rules_free(&rules);
            return free(args), TP_EXIT_INPUT;
        }
        tp_find_rules frules; /* a trace's and the job's rules, read before any work */
        if (tp_job_rules_for_command(findrules, &frules) != 0) {
            tp_cat_rules_free(&rules);
            tp_device_table_free(&devices);
            return free(args), TP_EXIT_INPUT;
        }
        tp_job_opts jo = {&lo, steps, &rules, &devices, shard_k, shard_n, workers, &frules};
        int rc = report_job(args, nargs, &jo, merge, &po, dir, quiet);
        tp_find_rules_free(&frules);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        free(args);
        return rc;
    }
    free(args);
    tp_fp_opts fo = {lo.read};
    char defdir[300];
    if (!dir) {
        char base[256];
        tp_trace_basename(path, base, sizeof base);
        snprintf(defdir, sizeof defdir, "%s.report", base);
        dir = defdir;
    }
    tp_find_rules frules;
    if (tp_find_rules_for_command(findrules, &frules) != 0)
        return TP_EXIT_INPUT;
    ro.find_rules = &frules;
    tp_cat_rules rules;
    if (tp_cat_rules_for_command(cats, &rules) != 0) {
    tp_find_rules_free(&frules);
        return TP_EXIT_INPUT;
    }
    ro.rules = &rules;
    tp_device_table devices;
    if (tp_device_table_for_command(devspec, &devices) != 0) {
        tp_cat_rules_free(&rules);
        tp_find_rules_free(&frules);
        return TP_EXIT_INPUT;
    }
    ro.devices = &devices;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    lo.read.keep_args = false;
    lo.read.keep_args_of = tp_summary_wants_args; /* the shapes of the ops that have a model */
    lo.read.flows_as_ids = true; /* analysed, not written */
    lo.no_derive = true;        /* derived lines are a view for trace viewers: 7% of a report's time */
    lo.read.report_data = true; /* what format pages need beyond the model (XPlane) */
    tp_capture_stats capture;
    lo.capture = &capture, lo.discover_captures = true;
    tp_out_protect(path);
    if (!lo.ncaptures) /* the capture traces found beside it are inputs too: checked before any output */
        tp_graph_capture_protect(path);
    char clash[4400];
    const char *in = tp_report_output_input(dir, clash, sizeof clash);
    if (in) { /* refused before anything is read or written */
        tp_print_line("%s: refusing to overwrite the input file %s", clash, in);
        tp_trace_free(&t);
        tp_cat_rules_free(&rules);
        tp_find_rules_free(&frules);
        tp_device_table_free(&devices);
        return TP_EXIT_INPUT;
    }
    if (tp_load(path, &lo, &t, &err) < 0) {
        tp_report_error(path, &err);
        tp_trace_free(&t);
        tp_cat_rules_free(&rules);
        tp_find_rules_free(&frules);
        tp_device_table_free(&devices);
        return TP_EXIT_INPUT;
    }
    tp_print_warnings(path, &t);
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    s.capture = &capture;
    s.tokens_per_iteration = tokens_per_iteration;
    tp_timing("summary");
    int rc = TP_EXIT_OK;
    char cp_err[300];
    if (cp_window && tp_summary_critical_window(&s, cp_window, cp_err, sizeof cp_err) < 0) {
        tp_fail_at(&err, "", "%s", cp_err); /* no such window: nothing is written */
        tp_report_error(path, &err);
        rc = TP_EXIT_INPUT;
    }
    tp_buf brief = {0};
    if (baseline && summary_baseline(baseline, &lo, &ro, &s, &brief) < 0)
        rc = TP_EXIT_INPUT;
    s.baseline_md = brief.data;
    s.image_base_url = imgurl;
    int wr = rc == TP_EXIT_OK ? tp_report_write(&s, &fo, &po, dir, &err) : 0;
    if (wr < 0) { /* a write error names the output (its message names the file), the rest the input */
        tp_report_error(wr == TP_REPORT_WRITE_FAILED || err.where[0] || !err.msg[0] ? dir : path, &err);
        rc = TP_EXIT_INPUT;
    } else if (rc == TP_EXIT_OK && !quiet) {
        const char *slash = strrchr(path, '/');
        report_written(dir, slash && slash[1] ? slash + 1 : path);
    }
    tp_buf_free(&brief);
    tp_summary_free(&s);
    tp_trace_free(&t);
    tp_cat_rules_free(&rules);
    tp_find_rules_free(&frules);
    tp_device_table_free(&devices);
    return rc;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_report = {"report", "write a PDF report, PNG charts, summary.json and summary.md for a trace",
    "usage: tracepress report INPUT [-o DIR] [options]\n"
    "       tracepress report RANK_TRACE... | FOLDER | 'GLOB' | @LIST -o DIR [-j N] [--shard K/N]\n"
    "       tracepress report --merge DIR\n"
    "\n"
    "Writes DIR/report.pdf (an overview: the top findings, what holds the trace\n"
    "back with the time each could save, its evidence and the next step to try;\n"
    "each step's time split into computation,\n"
    "exposed communication, exposed memcpy, idle and host only, links to the pages;\n"
    "summary; where the GPU time goes per device and step, the op categories with\n"
    "their top ops; top kernels, op breakdown, timeline of the median step,\n"
    "statistics, CPU overheads, the full kernel names; a page with nothing to show\n"
    "is a line on the overview), DIR/png/<chart>.png, DIR/summary.json\n"
    "(schema tracepress.summary/2: headline numbers and tables for dashboards) and\n"
    "DIR/summary.md (Markdown for a pull-request comment, its first line the top\n"
    "finding's verdict; docs/REPORT.md \"Findings\").  Every number is\n"
    "defined in docs/REPORT.md.  Outputs are byte-identical for the same input;\n"
    "dates come from SOURCE_DATE_EPOCH or the trace, never the clock.\n"
    "Some formats add their own pages after the first three (ETDump: the ExecuTorch\n"
    "Inspector's event blocks, top operators, time per module with --etrecord;\n"
    "PlaidML: top kernels' temporary memory, the Program Run of one invocation;\n"
    "dv/dt: describe() per kernel and position, GEMM GFLOP/s, CK repetitions).\n"
    "\n"
    "Several traces (or a folder, a glob, an @list of them) are the ranks of one\n"
    "distributed job: the job report (docs/REPORT.md \"Jobs\") has per rank and\n"
    "step the computation, communication, exposed communication and idle time,\n"
    "the ranks' clocks aligned on collective ends, the stragglers with their\n"
    "evidence (who arrived last at collectives and how long the others waited),\n"
    "the collectives across ranks (transfer time, algbw and busbw as nccl-tests\n"
    "defines them, the slowest rank) and the spread of every figure across ranks,\n"
    "in DIR/summary.json (tracepress.job/1), DIR/summary.md, DIR/report.pdf and\n"
    "DIR/png/.  Each rank is analysed and freed in turn, leaving DIR/ranks/\n"
    "<n>-<name>.rank.json; --shard K/N writes only the rank summaries of the\n"
    "K-th of N parts of the inputs, --merge DIR writes the job report from them\n"
    "(docs/SCALING.md \"Jobs\": Slurm, Kubernetes, GNU parallel).\n"
    "\n"
    "options:\n"
    "  -o, --output DIR    output folder (default: <input base name>.report; a job needs it)\n"
    "  -j, --jobs N        a job's ranks analysed at once, in forked workers of one\n"
    "                      thread each (default 2 on 2 or more cores; memory: N ranks)\n"
    "  --shard K/N         a job's part K of N: rank summaries only, no report\n"
    "  --merge             the job report from DIR/ranks/ (after every shard ran)\n"
    "  -q, --quiet         no line on stderr saying where the report was written\n"
    "  --batch-size N      samples per step: adds throughput (samples/s); tokens per decode iteration\n"
    "                      when the inference annotations carry no count\n"
    "  --tokens N          tokens per inference iteration, for tokens/s (docs/REPORT.md \"Inference figures\")\n"
    "  --paper a4|letter   PDF page size (default a4)\n"
    "  --scale S           PNG resolution factor (1 = 2 px per pt, about 1700 px wide, default)\n"
    "  --image-base-url URL  summary.md shows the charts from URL/png/ (where CI\n"
    "                      publishes png/); without it, it names the files\n"
    "  --baseline OLD      summary.md's second line compares with trace OLD (as\n"
    "                      `tracepress diff OLD INPUT` does: verdict, top changes)\n"
    "  --critical-path-window NAME[#N]  the critical path of the N-th (from 0) event whose\n"
    "                      name holds NAME (default: of each step; docs/REPORT.md \"Critical path\")\n"
    TP_CATEGORIES_HELP TP_RULES_HELP TP_DEVICE_SPEC_HELP
    TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
    "\nexample: tracepress report worker0.pt.trace.json.gz -o out --batch-size 2048\n",
    tp_cmd_report, true};
