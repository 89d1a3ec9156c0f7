/* cmd_stats.c: `tracepress stats`: the numbers every reader is checked by. */
#include "convert/base/cli.h"
#include "convert/codec/json_write.h"
#include "report/out/mem_out.h"
#include "report/out/gpu_json.h"
#include "report/out/idle_json.h"
#include "report/out/cp_out.h"
#include "report/out/find_out.h"
#include "report/findings/findings.h"
#include "render/text/report_text.h"
#include "report/out/kernel_json.h"
#include "report/analysis/summary.h"
#include "report/inference/capture_out.h"
#include "convert/pipeline/graph_capture.h"
#include "convert/pipeline/pipeline.h"
#include "report/perf_models/devices.h"
#include "report/formats/stats_sections.h"
#include "convert/model/clock_align.h"
#include "report/job/job_out.h"
#include "report/job/job_run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct step numbers: XPlane marks a step on every device it ran on. */
static uint64_t count_steps(const tp_trace *t)
{
    uint64_t *ids = tp_xmalloc((t->nevents + 1) * sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if ((t->events[i].flags & TP_EV_STEP) && !(t->events[i].flags & TP_EV_DROPPED))
            ids[n++] = t->events[i].id;
    qsort(ids, n, sizeof *ids, cmp_u64);
    uint64_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || ids[i] != ids[i - 1];
    free(ids);
    return distinct;
}

static uint64_t count_tracks(const tp_trace *t)
{
    bool *used = tp_xcalloc(t->ntracks + 1, sizeof *used);
    uint64_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!(e->flags & TP_EV_DROPPED) && e->ph != 'M' && !used[e->track]) {
            used[e->track] = true;
            n++;
        }
    }
    free(used);
    return n;
}

static int print_json(const tp_summary *s, const char *path, const tp_read_opts *ro, tp_err *err)
{
    const tp_trace *t = s->t;
    const tp_kernel_table *kt = &s->kt;
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"format\":");
    tp_json_put_string(&b, t->format, strlen(t->format), NULL);
    tp_buf_puts(&b, ",\"file\":");
    tp_json_put_string(&b, path, strlen(path), NULL);
    tp_buf_printf(&b, ",\"events\":%llu,\"tracks\":%llu,\"steps\":%llu", (unsigned long long)t->events_in,
                  (unsigned long long)count_tracks(t), (unsigned long long)count_steps(t));
    tp_buf_printf(&b, ",\"kernel_total_ns\":%lld,\"kernel_instances\":%llu", (long long)kt->total_ns,
                  (unsigned long long)kt->instances);
    tp_buf_puts(&b, ",\"kernels\":[");
    for (size_t i = 0; i < kt->n; i++) {
        tp_buf_putc(&b, i ? ',' : '\n');
        if (i)
            tp_buf_putc(&b, '\n');
        tp_kernel_row_json(&b, t, &s->cls, &kt->rows[i]);
    }
    tp_buf_printf(&b,
                  "],\n\"kernels_only\":{\"instances\":%llu,\"names\":%zu,\"total_ns\":%lld},\"memcpy_instances\":%llu,"
                  "\"memset_instances\":%llu",
                  (unsigned long long)kt->kernels, kt->kernel_names, (long long)kt->kernel_ns,
                  (unsigned long long)kt->memcpys, (unsigned long long)kt->memsets);
    if (s->cat.rules) { /* not with --kernels-only */
        tp_buf_puts(&b, ",\n");
        tp_gpu_time_json(s, &b);
        tp_buf_puts(&b, ",\n");
        tp_categories_json(s, &b);
        tp_buf_puts(&b, ",\n");
        tp_idle_json(s, &b);
        tp_buf_puts(&b, ",\n");
        tp_critical_json(s, &b);
        tp_buf_puts(&b, ",\n");
        tp_findings_json(s->findings, &b);
        tp_buf_puts(&b, ",\n");
        tp_capture_json(s, &b); /* "graph_capture":{...},\n or nothing */
        tp_memory_json(s, &b);
    }
    /* format-specific sections (stats_sections.c) go inside the object */
    if (tp_stats_sections_json(t, path, ro, &b, err) < 0) {
        tp_buf_free(&b);
        return -1;
    }
    tp_buf_puts(&b, "}\n");
    fwrite(b.data, 1, b.len, stdout);
    tp_buf_free(&b);
    return 0;
}

static void print_gpu_time(const tp_summary *s);

static void print_text(const tp_summary *s, const char *path)
{
    const tp_trace *t = s->t;
    const tp_kernel_table *kt = &s->kt;
    tp_put_printable(stdout, path);
    printf(": %s trace, %llu events, %llu tracks, %llu steps\n", t->format,
           (unsigned long long)t->events_in, (unsigned long long)count_tracks(t),
           (unsigned long long)count_steps(t));
    printf("%llu kernel/memcpy/memset instances of %zu names, %lld ns in total\n",
           (unsigned long long)kt->instances, kt->n, (long long)kt->total_ns);
    printf("(%llu kernels of %zu names, %lld ns; %llu memcpy; %llu memset)\n\n", (unsigned long long)kt->kernels,
           kt->kernel_names, (long long)kt->kernel_ns, (unsigned long long)kt->memcpys,
           (unsigned long long)kt->memsets);
    if (kt->n == 0) {
        printf("(no device kernels)\n");
        if (s->cat.rules && s->mem.events) /* the memory holds without kernels */
            tp_memory_text(s, stdout);
        return;
    }
    /* the layout of `nsys stats` so CI logs read the same */
    printf(" Time (%%)  Total Time (ns)  Instances   Avg (ns)     Med (ns)     Min (ns)     Max (ns)    StdDev (ns)  "
           "Name\n");
    printf(" --------  ---------------  ---------  -----------  -----------  -----------  -----------  -----------  "
           "----\n");
    tp_buf name = {0};
    for (size_t i = 0; i < kt->n; i++) {
        const tp_kernel_row *r = &kt->rows[i];
        double pct = kt->total_ns ? 100.0 * (double)r->total_ns / (double)kt->total_ns : 0.0;
        const char *tag = r->kind == TP_KIND_MEMCPY ? "[memcpy] " : r->kind == TP_KIND_MEMSET ? "[memset] " : "";
        name.len = 0; /* invalid UTF-8 repaired as in the JSON outputs */
        tp_buf_put_utf8(&name, tp_str_get(t, r->name), tp_str_len(t, r->name), NULL);
        printf(" %8.1f  %15lld  %9llu  %11lld  %11lld  %11lld  %11lld  %11lld  %s", pct, (long long)r->total_ns,
               (unsigned long long)r->count, (long long)r->mean_ns, (long long)r->p50_ns, (long long)r->min_ns,
               (long long)r->max_ns, (long long)r->stddev_ns, tag);
        tp_put_printable(stdout, name.data); /* a name with ESC or a newline cannot drive the terminal */
        putchar('\n');
    }
    tp_buf_free(&name);
    if (s->gt.devices)
        print_gpu_time(s);
    if (s->cat.rules) /* not with --kernels-only */
        tp_memory_text(s, stdout);
    if (s->findings)
        tp_findings_text(s->findings, stdout);
    tp_buf cl = {0};
    tp_capture_text(t, s->capture, &cl);
    if (cl.len) {
        cl.data[cl.len - 1] = 0; /* the line's newline: written after */
        putchar('\n');
        tp_put_printable(stdout, cl.data); /* file names are the user's text */
        putchar('\n');
    }
    tp_buf_free(&cl);
}

static void us(char *buf, size_t n, int64_t ns) { tp_fmt_us(buf, n, ns); }

static void print_figs(const char *what, const tp_gpu_figs *f)
{
    char a[48], b[48], c[48], d[48], e[48], g[48], pct[32];
    us(a, sizeof a, f->span_ns);
    us(b, sizeof b, f->busy_ns);
    tp_fmt_pct(pct, sizeof pct, f->busy_ns, f->span_ns);
    us(c, sizeof c, f->computation_ns);
    us(d, sizeof d, f->exposed_communication_ns);
    us(e, sizeof e, f->exposed_memcpy_ns);
    us(g, sizeof g, f->idle_ns);
    fputs("  ", stdout);
    tp_put_printable(stdout, what); /* a device label is trace text */
    printf("%*s span %s: busy %s (%s), computation %s, exposed communication %s, exposed memcpy %s, idle %s",
           strlen(what) < 12 ? (int)(12 - strlen(what)) : 0, "", a, b, pct, c, d, e, g);
    if (f->unlinked_ns) {
        us(a, sizeof a, f->unlinked_ns);
        printf("; %s busy with no launch call", a);
    }
    putchar('\n');
}

/* The GPU time model and the op categories (docs/REPORT.md) after the table. */
static void print_gpu_time(const tp_summary *s)
{
    const tp_gpu_time *g = &s->gt;
    if (!g->ndevices)
        return;
    printf("\nGPU time (docs/REPORT.md \"GPU time model\"; shares of the GPU span):\n");
    if (g->ndevices > 1)
        printf("  (all devices: each device's figures added, spans included)\n");
    print_figs("all devices", &g->whole);
    for (size_t d = 0; g->ndevices > 1 && d < g->ndevices; d++)
        print_figs(g->devices[d].label, &g->devices[d].whole);
    const tp_categories *c = &s->cat;
    printf("\nOp categories (device time: sum of durations):\n");
    printf(" Time (%%)  Total Time (ns)  Instances  Category         Top op\n");
    printf(" --------  ---------------  ---------  ---------------  ------\n");
    for (size_t i = 0; i < c->n; i++) {
        const tp_cat_row *r = &c->rows[i];
        double pct = c->total_ns ? 100.0 * (double)r->device_ns / (double)c->total_ns : 0.0;
        const char *name = c->rules->names[r->category]; /* a --categories file's: printed as trace text is */
        printf(" %8.1f  %15lld  %9llu  ", pct, (long long)r->device_ns, (unsigned long long)r->count);
        tp_put_printable(stdout, name);
        printf("%*s  ", strlen(name) < 15 ? (int)(15 - strlen(name)) : 0, "");
        if (r->ntop)
            tp_put_printable(stdout, c->leaves[r->top[0]].name);
        putchar('\n');
    }
    tp_critical_text(s);
    if (!s->idle.n)
        return;
    printf("\nIdle time per stream (docs/REPORT.md \"Idle attribution\"; ns):\n");
    printf("      Idle (ns)  Host wait (ns)  Kernel wait (ns)     Other (ns)  Launch delay p50/p90/max (ns)  "
           "Queue max  Stream\n");
    for (size_t i = 0; i < s->idle.n; i++) {
        const tp_idle_stream *r = &s->idle.streams[i];
        char lab[256], dl[96] = "-";
        tp_stream_label(s->t, r->track, lab, sizeof lab);
        if (r->launched)
            snprintf(dl, sizeof dl, "%lld/%lld/%lld", (long long)r->delay_p50_ns, (long long)r->delay_p90_ns,
                     (long long)r->delay_max_ns);
        printf(" %14lld  %14lld  %16lld  %13lld  %29s  %9llu  ", (long long)r->idle_ns, (long long)r->host_wait_ns,
               (long long)r->kernel_wait_ns, (long long)r->other_ns, dl, (unsigned long long)r->queue_max);
        tp_put_printable(stdout, lab);
        putchar('\n');
    }
}

static void print_csv(const tp_trace *t, const tp_kernel_table *kt)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "name,kind,count,total_ns,mean_ns,min_ns,max_ns,p10_ns,p50_ns,p90_ns,stddev_ns\n");
    for (size_t i = 0; i < kt->n; i++) {
        const tp_kernel_row *r = &kt->rows[i];
        tp_csv_text(&b, tp_str_get(t, r->name), tp_str_len(t, r->name), false);
        tp_buf_printf(&b, ",%s,%llu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", tp_kind_name((tp_kind)r->kind),
                      (unsigned long long)r->count, (long long)r->total_ns, (long long)r->mean_ns,
                      (long long)r->min_ns, (long long)r->max_ns, (long long)r->p10_ns, (long long)r->p50_ns,
                      (long long)r->p90_ns, (long long)r->stddev_ns);
    }
    fwrite(b.data, 1, b.len, stdout);
    tp_buf_free(&b);
}

/* A job's ranks, one row each, as CSV. */
static void job_csv(const tp_job *j)
{
    printf("rank,file,clock_offset_ns,alignment,steps,median_step_ns,gpu_span_ns,gpu_span_computation_ns,"
           "gpu_span_communication_ns,gpu_span_exposed_communication_ns,gpu_span_idle_ns,waited_ns,wait_caused_ns,"
           "last_arrivals,flags,top_finding,top_finding_impact_ns\n");
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_job_rank *x = &j->ranks[r];
        char fl[48];
        tp_job_flags_text(x->flags, fl, sizeof fl);
        tp_buf b = {0};
        tp_csv_text(&b, x->sum.path, strlen(x->sum.path), true);
        printf("%lld,%s", (long long)x->rank, b.data);
        printf(",%lld,%s,%zu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%llu,\"%s\",", (long long)x->offset_ns,
               tp_align_method_name(x->align_method), x->sum.nsteps, (long long)x->median_step_ns,
               (long long)x->span_ns, (long long)x->computation_ns, (long long)x->communication_ns,
               (long long)x->exposed_communication_ns, (long long)x->idle_ns, (long long)x->waited_ns,
               (long long)x->wait_caused_ns, (unsigned long long)x->last_arrivals, fl);
        /* the rank's own top finding (its id as read from its summary: quoted as any text) */
        if (x->sum.top.present) {
            b.len = 0;
            tp_csv_text(&b, x->sum.top.id, strlen(x->sum.top.id), true);
            printf("%.*s,%lld\n", (int)b.len, b.data, (long long)x->sum.top.impact_ns);
        } else
            puts(",");
        tp_buf_free(&b);
    }
}

/* `stats` of a job: the job's tables (summary.md's text), its summary.json (--json) or its ranks as CSV. */
static int stats_job(char **args, int nargs, const tp_job_opts *jo, bool json, bool csv)
{
    tp_err err = {0};
    tp_strlist inputs = {0};
    size_t not_traces = 0;
    if (tp_inputs_expand(args, nargs, NULL, &inputs, &not_traces, &err) < 0) {
        tp_report_error("stats", &err);
        tp_strlist_free(&inputs);
        return TP_EXIT_INPUT;
    }
    tp_inputs_warn_not_regular("stats");
    tp_inputs_warn_not_traces("stats", not_traces);
    if (!inputs.n) {
        fprintf(stderr, "tracepress: stats: no trace among the inputs\n");
        tp_strlist_free(&inputs);
        return TP_EXIT_INPUT;
    }
    tp_job job;
    const char *failed = NULL;
    if (tp_job_collect(&inputs, jo, &job, &failed, &err) < 0) {
        tp_report_error(failed, &err);
        tp_strlist_free(&inputs);
        return TP_EXIT_INPUT;
    }
    tp_job_late_read(&job, jo); /* what the straggler ran while the others waited; the --rules file's rules */
    tp_buf b = {0};
    if (csv)
        job_csv(&job);
    else {
        if (json)
            tp_job_json(&job, &b);
        else
            tp_job_md(&job, NULL, &b);
        fwrite(b.data, 1, b.len, stdout);
    }
    tp_buf_free(&b);
    tp_job_free(&job);
    tp_strlist_free(&inputs);
    return TP_EXIT_OK;
}

static int tp_cmd_stats(int argc, char **argv)
{
    tp_load_opts lo = {0};
    const char *path = NULL, *cats = NULL, *devspec = NULL, *findrules = NULL;
    bool json = false, csv = false, kernels_only = false;
    char **args = tp_xcalloc((size_t)argc + 1, sizeof *args);
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        int k;
        if ((k = tp_parse_load_option(argc, argv, &i, &lo)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--categories", &cats)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--rules", &findrules)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--device-spec", &devspec)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if (tp_opt_flag(argv, i, "--json"))
            json = true;
        else if (tp_opt_flag(argv, i, "--csv"))
            csv = true;
        else if (tp_opt_flag(argv, i, "--kernels-only"))
            kernels_only = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return free(args), tp_usage_error(argv[0], "unknown option %s", argv[i]);
        else
            args[nargs++] = argv[i];
    }
    if (!nargs)
        return free(args), tp_usage_error(argv[0], "no input file");
    if (json && csv)
        return free(args), tp_usage_error(argv[0], "--json and --csv exclude each other");
    path = args[0];
    bool job = tp_inputs_are_job(args, nargs);
    size_t not_traces = 0;
    char *single = job ? tp_inputs_single(args, nargs, NULL, &not_traces) : NULL, one[PATH_MAX];
    if (single && strlen(single) < sizeof one) { /* a folder of one trace and other files: that trace, not a job */
        job = false;
        path = strcpy(one, single);
        tp_inputs_warn_not_regular("stats");
        tp_inputs_warn_not_traces("stats", not_traces);
    }
    free(single);
    if (job && kernels_only)
        return free(args), tp_usage_error(argv[0], "--kernels-only is for one trace, not a job");
    if (findrules && !job && (kernels_only || csv))
        return free(args), tp_usage_error(argv[0], "--rules is for the findings: not with --kernels-only or --csv");
    tp_cat_rules rules;
    if (tp_cat_rules_for_command(cats, &rules) != 0)
        return free(args), TP_EXIT_INPUT;
    tp_device_table devices;
    if (tp_device_table_for_command(devspec, &devices) != 0) {
        tp_cat_rules_free(&rules);
        return free(args), TP_EXIT_INPUT;
    }
    if (job) {
        tp_find_rules frules; /* a trace's and the job's rules, read before any work */
        if (tp_job_rules_for_command(findrules, &frules) != 0) {
            tp_cat_rules_free(&rules);
            tp_device_table_free(&devices);
            return free(args), TP_EXIT_INPUT;
        }
        tp_job_opts jo = {&lo, NULL, &rules, &devices, 0, 0, 1, &frules};
        int rc = stats_job(args, nargs, &jo, json, csv);
        tp_find_rules_free(&frules);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        free(args);
        return rc;
    }
    free(args);
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    lo.read.keep_args = false; /* the kernel table needs no args: keeps memory well below the input size */
    lo.no_derive = true;
    kernels_only = kernels_only || csv;
    /* the findings read what `report`'s read (the ops' shapes for the roofline, the collectives'
     * sizes, the "Ev Idx" that tells a partial trace): one trace, one verdict in both commands */
    lo.read.keep_args_of = kernels_only ? NULL : tp_summary_wants_args;
    lo.read.flows_as_ids = true; /* analysed, not written (--kernels-only links nothing: keep_flow) */
    lo.no_links = kernels_only; /* launch links only for the GPU time model and the categories */
    /* the kernel table, counts and steps alone: a reader may leave other events out
     * (formats.h; tp_load clears it when a filter needs every event) */
    lo.read.device_only = kernels_only;
    tp_capture_stats capture;
    if (!kernels_only) /* the categories see the captured ops */
        lo.capture = &capture, lo.discover_captures = true;
    tp_find_rules frules = {0};
    if (!kernels_only && tp_find_rules_for_command(findrules, &frules) != 0) {
        tp_trace_free(&t);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        return TP_EXIT_INPUT;
    }
    if (tp_load(path, &lo, &t, &err) < 0) {
        tp_report_error(path, &err);
        tp_find_rules_free(&frules);
        tp_trace_free(&t);
        tp_cat_rules_free(&rules);
        tp_device_table_free(&devices);
        return TP_EXIT_INPUT;
    }
    tp_print_warnings(path, &t);
    tp_summary s;
    tp_findings findings = {0};
    if (kernels_only) { /* the kernel table alone: half the time of the whole */
        memset(&s, 0, sizeof s);
        s.t = &t;
        tp_kernel_table_build(&t, &s.kt);
    } else {
        tp_report_opts sro = {path, NULL, 0, &rules, false /* the roofline and GEMM shapes, for the findings */, &devices, false, &frules};
        tp_summary_build_stats(&t, &sro, &s);
        s.capture = &capture;
        tp_findings_build(&s, &frules, &findings);
        s.findings = &findings;
    }
    int rc = TP_EXIT_OK;
    if (json) {
        if (print_json(&s, path, &lo.read, &err) < 0) {
            tp_report_error(path, &err);
            rc = TP_EXIT_INPUT;
        }
    } else if (csv)
        print_csv(&t, &s.kt);
    else
        print_text(&s, path);
    tp_findings_free(&findings);
    tp_find_rules_free(&frules);
    tp_summary_free(&s);
    tp_trace_free(&t);
    tp_cat_rules_free(&rules);
    tp_device_table_free(&devices);
    return rc;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_stats = {"stats", "print events, tracks, steps and the kernel table of a trace",
    "usage: tracepress stats INPUT [--json|--csv] [--kernels-only] [options]\n"
    "       tracepress stats RANK_TRACE... | FOLDER [--json|--csv] [options]\n"
    "\n"
    "Prints the number of events, tracks and steps, and a table of device kernels\n"
    "(memcpy and memset marked as such) sorted by total time, with count, total,\n"
    "mean, min, max, p10, p50, p90 and standard deviation in nanoseconds, in the\n"
    "layout of `nsys stats`, then the GPU time model (busy, idle, computation,\n"
    "exposed communication and memcpy within the GPU span), the device time\n"
    "per op category and the idle time per stream (host wait, kernel wait,\n"
    "other) with launch delays and queue lengths.  Means and percentiles are rounded half away from zero\n"
    "to whole ns; percentiles interpolate linearly between closest ranks (numpy's\n"
    "default); the standard deviation is the population one (numpy's default).\n"
    "\n"
    "Several traces, a folder, a glob or an @list are one distributed job: the\n"
    "job's tables (as the job report's summary.md: ranks, spread, stragglers,\n"
    "collectives across ranks), with --json its summary.json (tracepress.job/1),\n"
    "with --csv one row per rank (docs/REPORT.md \"Jobs\").\n"
    "\n"
    "options:\n"
    "  --json              one JSON object: format, events, tracks, steps, kernels[]\n"
    "                      (name, kind, count, total_ns, mean_ns, min_ns, max_ns,\n"
    "                      p10_ns, p50_ns, p90_ns, stddev_ns), gpu_time,\n"
    "                      categories, idle_attribution, findings and\n"
    "                      findings_unsure as in summary.json;\n"
    "                      ETDump input adds\n"
    "                      etdump_inspector (the ExecuTorch Inspector's event blocks)\n"
    "  --csv               the kernel table only, as CSV (same columns as --json)\n"
    "                      (names: bytes that are not UTF-8 become U+FFFD, as in\n"
    "                      --json and the text table; a text cell starting with\n"
    "                      = + - @ tab or CR gets a leading ' so a spreadsheet\n"
    "                      does not run it as a formula; numbers stay numbers)\n"
    "  --kernels-only      the kernel table without the GPU time model, the\n"
    "                      categories, the idle table and the findings (no launch\n"
    "                      links: about half the time)\n"
    TP_CATEGORIES_HELP TP_RULES_HELP TP_DEVICE_SPEC_HELP TP_LOAD_OPTIONS_HELP TP_EXIT_CODES_HELP
    "\nexample: tracepress stats trace.json.gz --json | jq '.kernels[0]'\n",
    tp_cmd_stats, true};
