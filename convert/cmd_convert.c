/* cmd_convert.c: `tracepress convert`. */
#include "convert/model/mem_counters.h"
#include "convert/write/chrome_write.h"
#include "convert/base/cli.h"
#include "convert/critical/critical.h"
#include "convert/write/pftrace_write.h"
#include "convert/model/names.h"
#include "convert/pipeline/inputs.h"
#include "convert/pipeline/job_merge.h"
#include "convert/pipeline/pipeline.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "launch flows: 9000, outside --steps: 12" */
static void print_counts(const tp_warning *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%s: %llu", i ? ", " : "", w[i].what, (unsigned long long)w[i].count);
}

/* --split: where each output's time window starts (sorted; first is INT64_MIN). */
typedef struct split_plan {
    int64_t *lo;
    int64_t *label; /* step number for --split steps, part number otherwise */
    size_t n;
    bool by_steps;
} split_plan;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* (start, step) pairs by step number, then start */
static int cmp_step_then_start(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static int cmp_start_then_step(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static int plan_steps(const tp_trace *t, split_plan *sp, tp_err *err)
{
    /* (start, step) pairs, sorted by start */
    int64_t *pairs = tp_xmalloc((t->nevents + 1) * 2 * sizeof *pairs);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if ((e->flags & TP_EV_STEP) && !(e->flags & TP_EV_DROPPED)) {
            pairs[2 * n] = e->ts;
            pairs[2 * n + 1] = (int64_t)e->id;
            n++;
        }
    }
    if (n == 0) {
        free(pairs);
        return tp_fail_at(err, "", "--split steps: the trace has no steps");
    }
    /* one window per step number, from its first start: the ranks of a job
     * (or two profiler sessions) each have a step 1, and two windows of one
     * name were one file written twice (the summary line counted both) */
    qsort(pairs, n, 2 * sizeof *pairs, cmp_step_then_start);
    size_t kept = 0;
    for (size_t k = 0; k < n; k++)
        if (kept == 0 || pairs[2 * k + 1] != pairs[2 * (kept - 1) + 1]) {
            pairs[2 * kept] = pairs[2 * k];
            pairs[2 * kept + 1] = pairs[2 * k + 1];
            kept++;
        }
    n = kept;
    qsort(pairs, n, 2 * sizeof *pairs, cmp_start_then_step);
    sp->lo = tp_xmalloc(n * sizeof *sp->lo);
    sp->label = tp_xmalloc(n * sizeof *sp->label);
    for (size_t k = 0; k < n; k++) {
        sp->lo[k] = k == 0 ? INT64_MIN : pairs[2 * k];
        sp->label[k] = pairs[2 * k + 1];
    }
    sp->n = n;
    sp->by_steps = true;
    free(pairs);
    return 0;
}

/* Cut the time line so that each part's estimated JSON size stays under
 * `limit` bytes (estimate: a fixed cost per event plus its name and args). */
static void plan_size(const tp_trace *t, uint64_t limit, split_plan *sp)
{
    int64_t *keys = tp_xmalloc((t->nevents + 1) * 2 * sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if ((e->flags & TP_EV_DROPPED) || e->ph == 'M')
            continue;
        size_t alen = 0;
        tp_args_get(t, e->args, &alen);
        keys[2 * n] = e->ts;
        keys[2 * n + 1] = (int64_t)(120 + tp_str_len(t, e->name) + alen);
        n++;
    }
    qsort(keys, n, 2 * sizeof *keys, cmp_i64);
    size_t cap = 16;
    sp->lo = tp_xmalloc(cap * sizeof *sp->lo);
    sp->label = tp_xmalloc(cap * sizeof *sp->label);
    sp->lo[0] = INT64_MIN;
    sp->label[0] = 1;
    sp->n = 1;
    uint64_t acc = 0, budget = limit - limit / 10; /* 10% for metadata and estimate error */
    for (size_t k = 0; k < n; k++) {
        acc += (uint64_t)keys[2 * k + 1];
        if (acc > budget && k + 1 < n && keys[2 * (k + 1)] > sp->lo[sp->n - 1] && keys[2 * (k + 1)] != keys[2 * k]) {
            TP_GROW(sp->lo, cap, sp->n + 1);
            sp->label = tp_xrealloc(sp->label, cap * sizeof *sp->label);
            sp->lo[sp->n] = keys[2 * (k + 1)];
            sp->label[sp->n] = (int64_t)sp->n + 1;
            sp->n++;
            acc = 0;
        }
    }
    sp->by_steps = false;
    free(keys);
}

/* OUT "a/trace.json.gz" -> "a/trace.step-12.json.gz" / "a/trace.part-003.json.gz" */
static char *part_name(const char *out, const split_plan *sp, size_t k)
{
    static const char *const exts[] = {".json.gz", ".json", ".gz", NULL};
    size_t n = strlen(out), stem = n;
    const char *ext = "";
    for (int e = 0; exts[e]; e++) {
        size_t l = strlen(exts[e]);
        if (n > l && strcmp(out + n - l, exts[e]) == 0) {
            stem = n - l;
            ext = exts[e];
            break;
        }
    }
    tp_buf b = {0};
    tp_buf_put(&b, out, stem);
    if (sp->by_steps)
        tp_buf_printf(&b, ".step-%lld%s", (long long)sp->label[k], ext);
    else
        tp_buf_printf(&b, ".part-%03lld%s", (long long)sp->label[k], ext);
    return b.data;
}

/* The Perfetto protobuf writer, with its counts in the JSON writer's terms
 * for the summary line. */
static void write_pftrace(tp_trace *t, tp_out *o, tp_write_stats *st)
{
    tp_pftrace_stats ps;
    tp_write_pftrace(t, o, &ps);
    memset(st, 0, sizeof *st);
    st->events_out = ps.slices + ps.instants + ps.counter_values;
    st->repaired = ps.repaired;
    st->bad_utf8 = ps.bad_utf8;
    st->flows = ps.flows;
    st->invalid_args = ps.invalid_args;
    if (ps.not_written)
        tp_warn(t, "async, flow and other events a .pftrace does not hold (not written)", ps.not_written);
    if (ps.clipped)
        tp_warn(t, "slices cut at their parent's end (nesting)", ps.clipped);
}

/* A job rather than one file: several arguments, or one that names several
 * files (a folder, a glob that is no file's name, an @list). */
static bool is_job(char **args, int n)
{
    if (n != 1)
        return n > 1;
    struct stat st;
    const char *a = args[0];
    if (stat(a, &st) == 0)
        return S_ISDIR(st.st_mode);
    return a[0] == '@' || strpbrk(a, "*?[") != NULL;
}

/* Load a job's ranks merged into t (job_merge.h); the exit code. */
/* An input (a trace, a file an option names) that the output would
 * replace: refused before the (long) load.  0, or TP_EXIT_INPUT with the
 * line printed.  out NULL: parts of a split (each refused as it is opened). */
static int refuse_input_output(const char *out)
{
    const char *in = out && strcmp(out, "-") != 0 ? tp_out_protected(out) : NULL;
    if (!in)
        return 0;
    tp_print_line("%s: refusing to overwrite the input file %s", out, in);
    return TP_EXIT_INPUT;
}

static int load_job(char **args, int nargs, const tp_load_opts *lo, tp_trace *t, bool quiet, const char *out)
{
    tp_strlist files = {0};
    size_t not_traces = 0;
    tp_err err = {0};
    if (tp_inputs_expand(args, nargs, NULL, &files, &not_traces, &err) < 0) {
        tp_report_error("job", &err);
        tp_strlist_free(&files);
        return TP_EXIT_INPUT;
    }
    if (!files.n) { /* the links and FIFOs skipped are named first: "0 files" is never all there is to say */
        tp_inputs_warn_not_regular("job");
        fprintf(stderr, TP_PROG ": job: no trace among the inputs (%zu file%s no reader recognises, %zu entr%s not a "
                        "regular file)\n", not_traces, not_traces == 1 ? "" : "s", tp_inputs_not_regular(),
                tp_inputs_not_regular() == 1 ? "y" : "ies");
        tp_strlist_free(&files);
        return TP_EXIT_INPUT;
    }
    for (size_t i = 0; i < files.n; i++)
        tp_out_protect(files.v[i]);
    if (refuse_input_output(out) != 0) {
        tp_strlist_free(&files);
        return TP_EXIT_INPUT;
    }
    if (!quiet)
        tp_inputs_warn_not_regular("job");
    if (!quiet)
        tp_inputs_warn_not_traces("job", not_traces);
    tp_merged_job job;
    const char *bad = NULL;
    int rc = TP_EXIT_OK;
    if (tp_merge_job((const char *const *)files.v, files.n, lo, t, &job, &bad, &err) < 0) {
        tp_report_error(bad ? bad : "job", &err);
        rc = TP_EXIT_INPUT;
    } else if (!quiet)
        tp_merge_print(&job);
    tp_merge_free(&job);
    tp_strlist_free(&files);
    return rc;
}

/* ins: room for the inputs named (argc) */
/* --critical-path: the path of each step (or of --critical-path-window's
 * annotation) drawn into the trace (convert/critical/critical.h). */
static int add_critical_path(tp_trace *t, const char *in, const char *spec)
{
    tp_cp_window *w = NULL;
    size_t n = 0;
    tp_err err = {0};
    char msg[300];
    if (tp_cp_windows(t, spec, &w, &n, msg, sizeof msg) < 0) {
        tp_fail_at(&err, "", "%s", msg);
        tp_report_error(in, &err);
        return -1;
    }
    tp_critical c;
    tp_critical_build(t, w, n, NULL, &c);
    tp_critical_overlay(t, &c);
    tp_critical_free(&c);
    free(w);
    tp_timing("critical path");
    return 0;
}

static int convert_main(int argc, char **argv, char **ins)
{
    tp_load_opts lo = {0};
    const char *in = NULL, *out = NULL, *split = NULL, *cp_window = NULL;
    bool quiet = false, critical = false;
    int nins = 0;
    for (int i = 1; i < argc; i++) {
        int k;
        if ((k = tp_parse_load_option(argc, argv, &i, &lo)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if ((k = tp_opt_value(argc, argv, &i, "--output", &out)) != 0 ||
                   (k = tp_opt_value(argc, argv, &i, "-o", &out)) != 0 ||
                   (k = tp_opt_value(argc, argv, &i, "--split", &split)) != 0 ||
                   (k = tp_opt_value(argc, argv, &i, "--critical-path-window", &cp_window)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if (tp_opt_flag(argv, i, "--critical-path"))
            critical = true;
        else if (tp_opt_flag(argv, i, "-q") || tp_opt_flag(argv, i, "--quiet"))
            quiet = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return tp_usage_error(argv[0], "unknown option %s", argv[i]);
        else
            ins[nins++] = argv[i];
    }
    in = nins ? ins[0] : NULL;
    bool job = is_job(ins, nins);
    char one[PATH_MAX];
    size_t one_not_traces = 0;
    char *single = job ? tp_inputs_single(ins, nins, NULL, &one_not_traces) : NULL;
    if (single && strlen(single) < sizeof one) { /* a folder of one trace and other files: that trace, as ever */
        job = false;
        in = strcpy(one, single);
        if (!quiet)
            tp_inputs_warn_not_regular("convert");
        if (!quiet)
            tp_inputs_warn_not_traces("convert", one_not_traces);
    }
    free(single);
    if (!in)
        return tp_usage_error(argv[0], "no input file");
    if (!out)
        return tp_usage_error(argv[0], job ? "no output file (-o OUTPUT): a job's ranks merge into one"
                                           : "no output file (-o OUTPUT)");
    bool pf = tp_pftrace_wanted(out); /* Perfetto protobuf: chosen by the output name */
    if (pf && split)
        return tp_usage_error(argv[0], "--split writes JSON only (not .pftrace)");
    uint64_t split_size = 0;
    if (split) {
        if (strncmp(split, "size=", 5) == 0) {
            const char *v = split + 5;
            char *endp;
            double x = strtod(v, &endp);
            uint64_t mul = 1;
            if (!strcasecmp(endp, "k") || !strcasecmp(endp, "kb"))
                mul = 1000;
            else if (!strcasecmp(endp, "m") || !strcasecmp(endp, "mb"))
                mul = 1000 * 1000;
            else if (!strcasecmp(endp, "g") || !strcasecmp(endp, "gb"))
                mul = 1000ull * 1000 * 1000;
            else if (*endp)
                x = -1;
            if (!(x >= 1))
                return tp_usage_error(argv[0], "--split size=N takes a size such as 500MB (got '%s')", v);
            split_size = (uint64_t)(x * (double)mul);
        } else if (strcmp(split, "steps") != 0)
            return tp_usage_error(argv[0], "--split takes steps or size=N (got '%s')", split);
    }
    lo.read.keep_args = true;
    /* one input: its launch flows noted as ids, as events again if nothing links (tp_load_opts.written);
     * a job's ranks keep them all as events */
    lo.written = true;
    lo.read.flows_as_ids = !job;
    double t0 = now_s();
    tp_out_install_signal_cleanup();
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (job) {
        int jrc = load_job(ins, nins, &lo, &t, quiet, split ? NULL : out);
        if (jrc != TP_EXIT_OK) {
            tp_trace_free(&t);
            return jrc;
        }
        in = "job"; /* what the messages below name; every input is protected (tp_input_open) */
    } else if (tp_out_protect(in), refuse_input_output(split ? NULL : out) != 0) {
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    } else if (tp_load(in, &lo, &t, &err) < 0) {
        tp_report_error(in, &err);
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    tp_name_unnamed(&t); /* a trace without metadata events: every process and track named (issue 36) */
    if ((critical || cp_window) && add_critical_path(&t, in, cp_window) != 0) {
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    tp_mem_counters_add(&t); /* the allocator's levels as counter tracks (mem_counters.h) */
    split_plan sp = {0};
    if (split && strcmp(split, "steps") == 0) {
        if (plan_steps(&t, &sp, &err) < 0) {
            tp_report_error(in, &err);
            tp_trace_free(&t);
            return TP_EXIT_INPUT;
        }
    } else if (split)
        plan_size(&t, split_size, &sp);
    else {
        sp.n = 1;
        sp.lo = tp_xmalloc(sizeof *sp.lo);
        sp.lo[0] = INT64_MIN;
    }

    tp_chrome_writer *cw = pf ? NULL : tp_chrome_writer_new(&t);
    tp_timing("writer setup");
    tp_write_stats total = {0};
    uint64_t bytes = 0;
    char **written = tp_xcalloc(sp.n + 1, sizeof *written);
    int rc = TP_EXIT_OK;
    tp_outset *set = tp_outset_new(); /* all parts or none; the previous ones stay until all are written */
    for (size_t k = 0; k < sp.n && rc == TP_EXIT_OK; k++) {
        char *name = split ? part_name(out, &sp, k) : tp_xstrdup(out);
        tp_out *o = tp_out_open_in(set, name, job ? NULL : in, &err);
        if (!o) {
            tp_report_error(name, &err);
            free(name);
            rc = TP_EXIT_INPUT;
            break;
        }
        tp_write_stats st = {0};
        if (pf)
            write_pftrace(&t, o, &st);
        else
            tp_chrome_writer_write(cw, o, sp.lo[k], k + 1 < sp.n ? sp.lo[k + 1] : INT64_MAX, &st);
        tp_timing("write");
        if ((st.bad_utf8 || st.invalid_args) && lo.read.strict) {
            tp_out_abort(o);
            fputs(TP_PROG ": ", stderr);
            tp_put_printable(stderr, in);
            fprintf(stderr, ": %llu invalid UTF-8 sequences, %llu invalid args (rejected by --strict)\n",
                    (unsigned long long)st.bad_utf8, (unsigned long long)st.invalid_args);
            free(name);
            rc = TP_EXIT_INPUT;
            break;
        }
        bytes += tp_out_bytes(o);
        int committed = tp_out_commit(o, &err);
        tp_timing("commit");
        if (committed < 0) {
            tp_report_error(name, &err);
            free(name);
            rc = TP_EXIT_INPUT;
            break;
        }
        written[k] = name;
        total.events_out += st.events_out;
        total.flows += st.flows;
        total.flows_cut += st.flows_cut;
        total.bad_utf8 += st.bad_utf8;
        total.invalid_args += st.invalid_args;
        total.repaired = st.repaired;
    }
    for (size_t d = 0; rc == TP_EXIT_OK && lo.read.strict && d < t.ndrops; d++)
        if (strstr(t.drops[d].what, "overlap rows")) { /* dropped to keep nesting: worse than a repair */
            fputs(TP_PROG ": ", stderr);
            tp_put_printable(stderr, in);
            fprintf(stderr, ": %s (dropped): %llu, rejected by --strict\n", t.drops[d].what,
                    (unsigned long long)t.drops[d].count);
            rc = TP_EXIT_INPUT;
        }
    if (rc != TP_EXIT_OK) {
        tp_outset_abort(set);
    } else if (tp_outset_publish(set, &err) < 0) {
        tp_report_error(out, &err);
        rc = TP_EXIT_INPUT;
    }
    if (cw)
        tp_chrome_writer_free(cw);
    if (rc == TP_EXIT_OK && !quiet) {
        if (total.bad_utf8)
            tp_warn(&t, "invalid UTF-8 (replaced)", total.bad_utf8);
        if (total.invalid_args)
            tp_warn(&t, "args that are not valid JSON (kept as a string)", total.invalid_args);
        const char *shown = split ? written[0] : out;
        fputs(TP_PROG ": ", stderr);
        tp_put_printable(stderr, shown); /* one line whatever the output is called */
        fprintf(stderr, "%s: %llu events in, %llu out, %llu repaired (moved to overlap tracks), %llu dropped",
                split ? (sp.n > 1 ? " ..." : "") : "", (unsigned long long)t.events_in,
                (unsigned long long)total.events_out, (unsigned long long)total.repaired,
                (unsigned long long)tp_dropped_total(&t));
        if (t.ndrops) {
            fputs(" (", stderr);
            print_counts(t.drops, t.ndrops);
            fputs(")", stderr);
        }
        fprintf(stderr, ", %llu launch flows", (unsigned long long)total.flows);
        if (total.flows_cut) /* a device event and its launch call in two parts of a --split */
            fprintf(stderr, " (%llu launch links across parts, not drawn)", (unsigned long long)total.flows_cut);
        if (t.nwarnings) {
            fputs(", warnings: ", stderr);
            print_counts(t.warnings, t.nwarnings);
        }
        if (split)
            fprintf(stderr, ", %zu files", sp.n);
        fprintf(stderr, ", %.1f MB, %.2f s\n", (double)bytes / 1e6, now_s() - t0);
        uint64_t per_file = bytes / (sp.n ? sp.n : 1);
        /* protobuf loads with far less memory than JSON: warn much later */
        if (pf ? per_file > 2000ull * 1000 * 1000
               : (per_file > 500u * 1000 * 1000 || total.events_out / (sp.n ? sp.n : 1) > 1000000)) {
            fputs(TP_PROG ": ", stderr);
            tp_put_printable(stderr, out);
            fprintf(stderr, ": warning: large output (%.0f MB, %llu events per file): Perfetto's web UI "
                            "may run out of memory; consider %s\n",
                    (double)per_file / 1e6, (unsigned long long)(total.events_out / (sp.n ? sp.n : 1)),
                    pf ? "--steps or --min-dur"
                       : "--split size=500MB, --steps, --min-dur, .json.gz or .pftrace (Perfetto's protobuf format)");
        }
    }
    for (size_t k = 0; k < sp.n; k++)
        free(written[k]);
    free(written);
    free(sp.lo);
    free(sp.label);
    tp_trace_free(&t);
    return rc;
}

static int tp_cmd_convert(int argc, char **argv)
{
    char **ins = tp_xcalloc((size_t)argc + 1, sizeof *ins);
    int rc = convert_main(argc, argv, ins);
    free(ins);
    return rc;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_convert = {"convert", "convert a trace to normalised Chrome Trace Event JSON (Perfetto-ready)",
    "usage: tracepress convert INPUT -o OUTPUT[.json|.json.gz|.pftrace] [options]\n"
    "       tracepress convert RANK_TRACE... | DIR | 'GLOB' | @LIST -o OUTPUT [options]\n"
    "\n"
    "Reads any supported trace (see `tracepress formats`) and writes one Chrome\n"
    "Trace Event JSON file that loads in Perfetto and chrome://tracing: numeric\n"
    "pids/tids with names, timestamps rebased to the trace start (the offset is\n"
    "kept in baseTimeNanoseconds), properly nested slices, launch flows bound to\n"
    "their slices.  An output name ending in .gz is written gzip'ed.  The output\n"
    "is written to a temporary file and renamed when complete.\n"
    "\n"
    "An output name ending in .pftrace (or .perfetto-trace, each optionally .gz)\n"
    "is written as a Perfetto protobuf trace instead: the same tracks, slices,\n"
    "instants, counters and flows, absolute timestamps in ns; Perfetto's UI loads\n"
    "it with far less memory than JSON (use it for traces over ~1 GB of JSON).\n"
    "Async events are not written there (counted in the summary line); --split\n"
    "writes JSON only.  See docs/PFTRACE.md.\n"
    "\n"
    "Several inputs (files, a folder, a glob, an @list of paths) are the ranks of\n"
    "one distributed job, written as one trace: ranks from distributedInfo (else\n"
    "the file name, else the order), clocks aligned on the ends of collective\n"
    "calls with the lowest rank as the reference (one line per rank on stderr:\n"
    "its offset and how many calls matched), processes named \"rank N: NAME\" and\n"
    "sorted by rank, pids kept unless a lower rank has them, the offsets in the\n"
    "JSON's \"tracepress_job\" key.  Traces of different jobs (world size, default\n"
    "group, a rank twice) are refused.  See README \"Jobs: the merged trace\".\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   output file (required; '-' writes the JSON to standard output)\n"
    "  --split steps       one file per step: OUTPUT.step-N.json[.gz], each a complete trace\n"
    "  --split size=SIZE   files of about SIZE each (500MB, 1GB): OUTPUT.part-NNN.json[.gz]\n"
    "  --critical-path     mark each step's critical path (args \"critical\":1, flows between\n"
    "                      its nodes, a \"Critical path\" track); docs/REPORT.md \"Critical path\"\n"
    "  --critical-path-window NAME[#N]  the path of the N-th (from 0) event whose name holds NAME\n"
    "  -q, --quiet         no summary line on stderr\n"
    TP_LOAD_OPTIONS_HELP
    "\n"
    "A summary line on stderr says: events in, events out, repaired (slices moved\n"
    "to overlap rows to keep every track nested, each counted once), dropped (with\n"
    "reasons), warnings, size and time; a warning follows when an output passes\n"
    "500 MB or a million events, 2 GB for .pftrace (Perfetto's web UI runs out of\n"
    "memory around 1-2 GB of JSON).  An existing OUTPUT is replaced; the input is\n"
    "never overwritten.  "
    "With --split, either every part is written or none is.\n" TP_EXIT_CODES_HELP
    "\nexample: tracepress convert worker0.pt.trace.json.gz -o worker0.perfetto.json.gz\n"
    "         tracepress convert big.pt.trace.json.gz -o big.pftrace\n"
    "         tracepress convert 'job/rank-*.json.gz' -o job.perfetto.json.gz\n",
    tp_cmd_convert, true};
