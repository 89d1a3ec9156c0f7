/* summary_write.c: summary.json and summary.md from a summary (summary_write.h). */
#include "report/out/summary_write.h"
#include "render/text/md_fold.h"
#include "convert/codec/json_write.h"
#include "report/out/gpu_json.h"
#include "report/out/coll_out.h"
#include "report/out/eff_json.h"
#include "report/out/eff_md.h"
#include "report/out/find_out.h"
#include "report/out/idle_json.h"
#include "report/out/cp_out.h"
#include "report/out/mem_out.h"
#include "report/out/gpu_md.h"
#include "report/out/kernel_json.h"
#include "render/text/report_text.h"
#include "report/inference/capture_out.h"
#include "report/inference/iterations.h"
#include "render/labels/kname.h"
#include "render/text/font.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void step_json(const tp_summary *s, const tp_step_row *r, tp_buf *b)
{
    if (r->step >= 0)
        tp_buf_printf(b, "{\"step\":%lld,", (long long)r->step);
    else
        tp_buf_puts(b, "{");
    tp_buf_printf(b,
                  "\"host_ns\":%lld,\"launched_busy_ns\":%lld,\"launched_idle_ns\":%lld,\"stream_overlap_ns\":%lld,"
                  "\"device_events\":%llu,\"stream_busy_ns\":[",
                  (long long)r->host_ns, (long long)r->busy_ns, (long long)r->idle_ns, (long long)r->overlap_ns,
                  (unsigned long long)r->device_events);
    for (size_t k = 0; k < s->sf.nstreams; k++)
        tp_buf_printf(b, "%s%lld", k ? "," : "", (long long)r->stream_busy[k]);
    tp_buf_puts(b, "]}");
}

static const char *overhead_type(int type)
{
    static const char *const n[] = {"", "T1", "T2", "T3", "T4", "T5"};
    return type >= 1 && type <= 5 ? n[type] : "?";
}

void tp_summary_json(const tp_summary *s, tp_summary_extra extra, tp_buf *b)
{
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    tp_buf_puts(b, "{\"schema\":\"tracepress.summary/2\",\n\"source\":{\"file\":");
    tp_json_str(b, s->opts.path);
    tp_buf_puts(b, ",\"reader\":");
    tp_json_str(b, t->format);
    tp_buf_puts(b, ",\"name\":");
    tp_json_str(b, s->name);
    tp_buf_printf(b, ",\"events_read\":%llu},\n", (unsigned long long)t->events_in);
    tp_buf_puts(b, "\"trace\":{\"date\":");
    if (s->date[0])
        tp_json_str(b, s->date);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"devices\":[");
    for (size_t i = 0; i < s->ndevices; i++) {
        if (i)
            tp_buf_putc(b, ',');
        tp_json_str(b, s->devices[i]);
    }
    tp_buf_puts(b, "],\"streams\":[");
    for (size_t k = 0; k < sf->nstreams; k++) {
        char lab[256];
        tp_stream_label(t, sf->streams[k], lab, sizeof lab);
        if (k)
            tp_buf_putc(b, ',');
        tp_json_str(b, lab);
    }
    tp_buf_printf(b, "],\"start_ns\":%lld,\"span_ns\":%lld,\"slices\":%llu,\"steps\":%zu,\"distributed\":",
                  (long long)(t->base_ns + sf->span_start), (long long)(sf->span_end - sf->span_start),
                  (unsigned long long)s->slices, sf->nsteps);
    tp_dist_info_json(&s->dist, b);
    tp_buf_puts(b, "},\n");
    tp_buf_puts(b, "\"options\":{\"steps\":");
    if (s->opts.steps)
        tp_json_str(b, s->opts.steps);
    else
        tp_buf_puts(b, "null");
    if (s->opts.batch_size > 0)
        tp_buf_printf(b, ",\"batch_size\":%lld},\n", (long long)s->opts.batch_size);
    else
        tp_buf_puts(b, ",\"batch_size\":null},\n");

    /* headline numbers: each on one base, named so (docs/REPORT.md) */
    int64_t host = sf->steps_host_ns;
    const tp_gpu_figs *g = &s->gt.whole;
    tp_buf_printf(b, "\"headline\":{\"iterations\":%zu,\"host_steps_ns\":", sf->nsteps ? sf->nsteps : (size_t)1);
    if (sf->nsteps)
        tp_buf_printf(b, "%lld", (long long)host);
    else
        tp_buf_puts(b, "null");
    tp_buf_printf(b,
                  ",\"trace_span_ns\":%lld,\"gpu_span_ns\":%lld,\"gpu_busy_ns\":%lld,\"gpu_idle_ns\":%lld,"
                  "\"gpu_busy_share\":",
                  (long long)sf->whole.host_ns, (long long)g->span_ns, (long long)g->busy_ns, (long long)g->idle_ns);
    tp_fraction_json(b, g->busy_ns, g->span_ns);
    tp_buf_printf(b,
                  ",\"computation_ns\":%lld,\"exposed_communication_ns\":%lld,\"exposed_memcpy_ns\":%lld,"
                  "\"unlinked_ns\":%lld,\"device_total_ns\":%lld,\"kernel_total_ns\":%lld,\"kernel_instances\":%llu,"
                  "\"kernel_names\":%zu,\"memcpy_instances\":%llu,\"memset_instances\":%llu,\"top_category\":",
                  (long long)g->computation_ns, (long long)g->exposed_communication_ns, (long long)g->exposed_memcpy_ns,
                  (long long)g->unlinked_ns, (long long)s->kt.total_ns, (long long)s->kt.kernel_ns,
                  (unsigned long long)s->kt.kernels, s->kt.kernel_names, (unsigned long long)s->kt.memcpys,
                  (unsigned long long)s->kt.memsets);
    if (s->cat.n)
        tp_json_str(b, s->cat.rules->names[s->cat.rows[0].category]);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"median_step\":");
    if (sf->median != SIZE_MAX)
        tp_buf_printf(b, "%lld,\"median_step_host_ns\":%lld", (long long)sf->steps[sf->median].step,
                      (long long)sf->steps[sf->median].host_ns);
    else
        tp_buf_puts(b, "null,\"median_step_host_ns\":null");
    tp_buf_puts(b, ",\"samples_per_s\":");
    if (s->opts.batch_size > 0) {
        char f[48];
        tp_format_fixed(f, tp_throughput_milli(sf, s->opts.batch_size), 3);
        tp_buf_puts(b, f);
    } else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, "},\n");
    tp_gpu_time_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_categories_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_idle_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_efficiency_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_capture_json(s, b);
    tp_iterations_json(s, b);
    tp_collectives_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_critical_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_memory_json(s, b);
    tp_buf_puts(b, ",\n");
    tp_findings local;
    const tp_findings *fi = tp_findings_of(s, &local);
    tp_findings_json(fi, b);
    if (fi == &local)
        tp_findings_free(&local);
    tp_buf_puts(b, ",\n");

    /* the kernel table, as `stats --json` writes it */
    tp_buf_puts(b, "\"kernels\":[");
    for (size_t i = 0; i < s->kt.n; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        tp_kernel_row_json(b, t, &s->cls, &s->kt.rows[i]);
    }
    tp_buf_puts(b, "],\n\"ops\":");
    tp_op_kernels_json(t, &s->ob, "no_host_op", b);
    tp_buf_puts(b, ",\n\"steps\":[");
    for (size_t i = 0; i < sf->nsteps; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        step_json(s, &sf->steps[i], b);
    }
    tp_buf_puts(b, "],\n\"whole\":");
    step_json(s, &sf->whole, b);
    tp_buf_printf(b,
                  ",\n\"overheads\":{\"applicable\":%s,\"top_level_ops\":%llu,\"launches\":%llu,"
                  "\"constants_ns\":{\"cpu_event_overhead\":%d,\"gpu_event_overhead\":%d,"
                  "\"kernel_launch_length\":%d,\"t1_max_gap\":%d},\"rows\":[",
                  s->ov.applicable ? "true" : "false", (unsigned long long)s->ov.ops,
                  (unsigned long long)s->ov.launches, TP_CPU_EVENT_OVERHEAD, TP_GPU_EVENT_OVERHEAD,
                  TP_KERNEL_LAUNCH_LENGTH, TP_T1_MAX_GAP);
    for (size_t i = 0; i < s->ov.n; i++) {
        const tp_overhead_row *r = &s->ov.rows[i];
        tp_buf_printf(b, "%s{\"type\":\"%s\",\"name\":", i ? ",\n" : "\n", overhead_type(r->type));
        if (r->name)
            tp_json_str(b, tp_str_get(t, r->name));
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"count\":%llu,\"kept\":%llu,\"clamped\":%llu,\"mean_ns\":%lld,\"stddev_ns\":%lld,"
                         "\"min_ns\":%lld,\"max_ns\":%lld}",
                      (unsigned long long)r->count, (unsigned long long)r->kept, (unsigned long long)r->clamped,
                      (long long)r->mean_ns, (long long)r->stddev_ns, (long long)r->min_ns, (long long)r->max_ns);
    }
    tp_buf_puts(b, "]}");
    if (extra)
        extra(s, b);
    tp_buf_puts(b, "}\n");
}

#define MD_TOP 15
#define MD_KNAME_CHARS 40 /* a kernel name in summary.md's table, at most (issue 36 item 9) */

/* The first line: what a reviewer needs before any table (docs/REPORT.md
 * "summary.md"): the median step and its spread, the GPU time split, the
 * biggest category. */
void tp_md_devices(tp_buf *b, const tp_summary *s)
{
    for (size_t i = 0; i < s->ndevices;) {
        size_t j = i;
        while (j < s->ndevices && strcmp(s->devices[j], s->devices[i]) == 0)
            j++;
        if (i)
            tp_buf_puts(b, ", ");
        if (j - i > 1)
            tp_buf_printf(b, "%zu x ", j - i);
        tp_md_text(b, s->devices[i], 80);
        i = j;
    }
}

static void lead_md(const tp_summary *s, tp_buf *b)
{
    const tp_step_figures *sf = &s->sf;
    const tp_gpu_figs *g = &s->gt.whole;
    char u[64], v[64];
    tp_buf_puts(b, "**tracepress report** ");
    tp_md_text(b, s->name, 120);
    tp_buf_puts(b, ": ");
    if (sf->median != SIZE_MAX) {
        tp_step_spread sp;
        tp_step_spread_of(sf, &sp);
        tp_fmt_dur_sig(u, sizeof u, sp.median, sp.median, TP_NBSP); /* a summary: three significant digits */
        tp_buf_printf(b, "median step **%s**", u);
        if (sp.median_of >= 2) {
            tp_fmt_dur_sig(v, sizeof v, sp.iqr / 2, sp.median, TP_NBSP); /* in the median's unit and precision */
            tp_buf_printf(b, " ± %s (half the IQR of %zu steps)", v, sp.median_of);
        } else
            tp_buf_puts(b, " (one step)");
    } else {
        tp_md_dur(u, sizeof u, sf->span_end - sf->span_start);
        tp_buf_printf(b, "no steps, trace span **%s**", u);
    }
    if (g->span_ns > 0) {
        char p[5][32];
        tp_fmt_pct(p[0], sizeof p[0], g->computation_ns, g->span_ns);
        tp_fmt_pct(p[1], sizeof p[1], g->exposed_communication_ns, g->span_ns);
        tp_fmt_pct(p[2], sizeof p[2], g->exposed_memcpy_ns, g->span_ns);
        tp_fmt_pct(p[3], sizeof p[3], g->idle_ns, g->span_ns);
        tp_buf_printf(b, "; GPU time: computation %s, exposed communication %s, exposed memcpy %s, idle %s", p[0],
                      p[1], p[2], p[3]);
    } else
        tp_buf_puts(b, "; no device activity");
    if (s->cat.n) {
        tp_fmt_pct(v, sizeof v, s->cat.rows[0].device_ns, s->cat.total_ns);
        tp_buf_puts(b, "; biggest category ");
        tp_md_text(b, s->cat.rules->names[s->cat.rows[0].category], 80);
        tp_buf_printf(b, " (%s of device time)", v);
    }
    tp_buf_puts(b, ".\n\n");
    if (s->baseline_md)
        tp_buf_printf(b, "%s\n\n", s->baseline_md);
}

/* The chart links: images when the CI says where png/ is published,
 * else where the files are (a relative link is dead in a comment). */
static void charts_md(const tp_summary *s, const char *const *png_names, tp_buf *b)
{
    if (!png_names || !png_names[0])
        return;
    const char *url = s->image_base_url;
    if (!url) {
        tp_buf_puts(b, "\n**Charts**: ");
        for (size_t i = 0; png_names[i]; i++)
            tp_buf_printf(b, "%s`%s`", i ? ", " : "", png_names[i]);
        tp_buf_puts(b, " next to this file; give `--image-base-url URL` to show them here.\n");
        return;
    }
    size_t l = strlen(url);
    bool slash = l && url[l - 1] == '/';
    tp_buf_puts(b, "\n#### Charts\n\n");
    for (size_t i = 0; png_names[i]; i++)
        tp_buf_printf(b, "![%s](%s%s%s)\n\n", png_names[i], url, slash ? "" : "/", png_names[i]);
}

void tp_summary_md(const tp_summary *s, const char *const *png_names, tp_summary_extra extra, tp_buf *b)
{
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    char u[64], v[64], w[64];
    const bool whole = b->len == 0; /* the fold below reads the whole comment */
    tp_findings local;
    const tp_findings *fi = tp_findings_of(s, &local);
    tp_findings_md(fi, b); /* the verdict first (docs/REPORT.md "summary.md") */
    if (fi == &local)
        tp_findings_free(&local);
    lead_md(s, b);
    tp_memory_md(s, b);
    tp_efficiency_md(s, b);
    tp_capture_md(s, b);
    tp_iterations_md(s, b);
    tp_buf_puts(b, "| trace | ");
    tp_md_text(b, s->name, 200);
    tp_buf_puts(b, " |\n|---|---|\n");
    tp_buf_printf(b, "| format | %s |\n", t->format);
    if (s->ndevices) {
        tp_buf_puts(b, "| devices | ");
        tp_md_devices(b, s);
        tp_buf_puts(b, " |\n");
    }
    if (s->date[0])
        tp_buf_printf(b, "| date | %s |\n", s->date);
    tp_md_dur(u, sizeof u, sf->span_end - sf->span_start);
    tp_fmt_count(v, sizeof v, s->slices);
    tp_buf_printf(b, "| trace span | %s |\n| slices | %s |\n| steps | %zu |\n", u, v, sf->nsteps);
    if (sf->nsteps) {
        tp_md_dur(u, sizeof u, sf->steps_host_ns);
        tp_buf_printf(b, "| host time of the steps | %s |\n", u);
    }
    if (sf->median != SIZE_MAX) {
        tp_md_dur(u, sizeof u, sf->steps[sf->median].host_ns);
        char lab[160];
        tp_step_label(t, sf, &sf->steps[sf->median], lab, sizeof lab);
        /* "#N" or "#N <device>": the '#' is no heading inside a cell, the device name is the trace's */
        tp_buf_puts(b, "| median step | ");
        if (lab[0] == '#')
            tp_buf_putc(b, '#');
        tp_md_text(b, lab + (lab[0] == '#'), SIZE_MAX);
        tp_buf_printf(b, ", %s |\n", u);
    }
    /* kernels apart from memcpy and memset; the GPU time line below has busy and idle */
    tp_md_dur(u, sizeof u, s->kt.kernel_ns);
    tp_fmt_count(v, sizeof v, s->kt.kernels);
    tp_fmt_count(w, sizeof w, s->kt.kernel_names);
    tp_buf_printf(b, "| kernels | %s in %s instances of %s kernels |\n", u, v, w);
    if (s->kt.memcpys || s->kt.memsets) {
        tp_fmt_count(v, sizeof v, s->kt.memcpys);
        tp_fmt_count(w, sizeof w, s->kt.memsets);
        tp_buf_printf(b, "| memcpy / memset | %s / %s instances |\n", v, w);
    }
    if (s->opts.batch_size > 0) {
        char f[48];
        tp_format_fixed(f, tp_throughput_milli(sf, s->opts.batch_size), 3);
        tp_buf_printf(b, "| throughput | %s samples/s (batch %lld) |\n", f, (long long)s->opts.batch_size);
    }
    tp_gpu_time_md(s, b);
    tp_critical_md(s, b);
    tp_collectives_md(s, b);
    if (s->kt.n) {
        size_t n = s->kt.n < MD_TOP ? s->kt.n : MD_TOP;
        /* short names over the whole table, as the PDF and PNG charts make them, so all show the same text */
        const char **names = tp_xmalloc(s->kt.n * sizeof *names);
        for (size_t i = 0; i < s->kt.n; i++)
            names[i] = tp_str_get(t, s->kt.rows[i].name);
        char **shorts = tp_kname_shorten(names, s->kt.n);
        const tp_kernel_row *rows = s->kt.rows;
        int64_t mt = 0, mm = 0; /* a column's unit: that of its largest shown value */
        for (size_t i = 0; i < n; i++) {
            mt = rows[i].total_ns > mt ? rows[i].total_ns : mt;
            mm = rows[i].mean_ns > mm ? rows[i].mean_ns : mm;
        }
        /* a comment's column (about 700 px at GitHub's font, issue 36 item 9): names cut to MD_KNAME_CHARS and kept
         * apart (a monospace font: width is characters), the median left to report.pdf and summary.json */
        double room[MD_TOP];
        const char *shown[MD_TOP];
        for (size_t i = 0; i < n; i++) {
            room[i] = tp_text_width(TP_FONT_MONO, 10, "0") * MD_KNAME_CHARS;
            shown[i] = shorts[i];
        }
        char **fit = tp_fit_apart(TP_FONT_MONO, 10, shown, n, room, tp_fit_middle);
        int ut = tp_dur_unit(mt), um = tp_dur_unit(mm);
        tp_buf_printf(b,
                      "\n#### Top kernels by total time\n\n| # | kernel | time %% | total (%s) | count | mean (%s) |\n"
                      "|---:|---|---:|---:|---:|---:|\n",
                      tp_dur_unit_name(ut), tp_dur_unit_name(um));
        for (size_t i = 0; i < n; i++) {
            const tp_kernel_row *r = &rows[i];
            char c[32];
            tp_fmt_pct(v, sizeof v, r->total_ns, s->kt.total_ns);
            tp_fmt_dur_in(u, sizeof u, r->total_ns, ut);
            tp_fmt_count(c, sizeof c, r->count);
            tp_buf_printf(b, "| %zu | ", i + 1);
            tp_md_code(b, fit[i], SIZE_MAX);
            tp_buf_printf(b, " | %s | %s | %s | ", v, u, c);
            tp_fmt_dur_in(w, sizeof w, r->mean_ns, um);
            tp_buf_printf(b, "%s |\n", w);
        }
        tp_fit_apart_free(fit, n);
        if (s->kt.n > n)
            tp_buf_printf(b, "\n%zu more kernels: summary.json `kernels` has every row.\n", s->kt.n - n);
        tp_kname_free(shorts, s->kt.n);
        free(names);
    }
    if (extra)
        extra(s, b);
    charts_md(s, png_names, b);
    tp_buf_puts(b, "\nFull report: `report.pdf`; numbers for dashboards: `summary.json` (schema tracepress.summary/2).\n");
    if (whole) /* a pull-request comment: its head within the budget, the rest folded (issue 36 item 9) */
        tp_md_fold(b, TP_MD_HEAD_LINES);
}
