/* summary.c: build all analyses; write summary.json and summary.md. */
#include "report/analysis/summary.h"
#include "report/formats/format_pages.h"
#include "convert/codec/json_write.h"
#include "report/out/kernel_json.h"
#include "render/labels/kname.h"
#include "convert/base/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tp_fmt_us(char *buf, size_t n, int64_t ns)
{
    char f[48];
    tp_format_fixed(f, ns, 3);
    snprintf(buf, n, "%s us", f);
}

void tp_fmt_pct(char *buf, size_t n, int64_t part, int64_t whole)
{
    if (whole <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    __int128 permille = ((__int128)part * 2000 + whole) / (2 * (__int128)whole);
    snprintf(buf, n, "%lld.%lld%%", (long long)(permille / 10), (long long)(permille % 10));
}

void tp_trace_basename(const char *path, char *buf, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(buf, n, "%s", b);
    static const char *const suf[] = {".gz", ".json", ".pt.trace", ".trace", NULL};
    for (int i = 0; suf[i]; i++) {
        size_t l = strlen(buf), s = strlen(suf[i]);
        if (l > s && strcmp(buf + l - s, suf[i]) == 0)
            buf[l - s] = 0;
    }
}

/* Device names from the top-level "deviceProperties":[{..."name":"..."}]. */
static void find_devices(const tp_trace *t, tp_summary *s)
{
    const char *p = t->toplevel.data, *end = p ? p + t->toplevel.len : NULL;
    if (!p)
        return;
    const char *dp = memmem(p, t->toplevel.len, "\"deviceProperties\"", 18);
    if (!dp)
        return;
    const char *q = memchr(dp, '[', (size_t)(end - dp));
    if (!q)
        return;
    int depth = 0;
    size_t cap = 0;
    for (q++; q < end; q++) {
        if (*q == '"') {
            const char *str = q + 1, *e = str;
            while (e < end && *e != '"')
                e += (*e == '\\' && e + 1 < end) ? 2 : 1;
            if (e >= end)
                return;
            q = e;
            const char *c = q + 1;
            while (c < end && (*c == ' ' || *c == '\n' || *c == '\t' || *c == '\r'))
                c++;
            if (depth == 1 && (size_t)(e - str) == 4 && memcmp(str, "name", 4) == 0 && c < end && *c == ':') {
                c++;
                while (c < end && (*c == ' ' || *c == '\n' || *c == '\t'))
                    c++;
                if (c < end && *c == '"') {
                    const char *v = c + 1, *ve = v;
                    while (ve < end && *ve != '"')
                        ve += (*ve == '\\' && ve + 1 < end) ? 2 : 1;
                    if (ve >= end)
                        return;
                    TP_GROW(s->devices, cap, s->ndevices + 1);
                    s->devices[s->ndevices++] = tp_xstrndup(v, (size_t)(ve - v));
                    q = ve;
                }
            }
        } else if (*q == '{' || *q == '[')
            depth++;
        else if (*q == '}' || *q == ']') {
            if (depth-- == 0)
                return;
        }
    }
}

static void find_date(const tp_trace *t, tp_summary *s)
{
    s->date[0] = 0;
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    int64_t secs = 0;
    bool have = false;
    if (sde && *sde) {
        char *endp;
        long long v = strtoll(sde, &endp, 10);
        if (*endp == 0 && v >= 0) {
            secs = v;
            have = true;
        }
    }
    if (!have && s->slices) {
        /* the trace's own clock, when it is a plausible Unix time (2001..2100) */
        int64_t abs_ns = t->base_ns + s->sf.span_start;
        int64_t v = abs_ns / 1000000000;
        if (v >= 978307200 && v < 4102444800LL) {
            secs = v;
            have = true;
        }
    }
    if (!have)
        return;
    time_t tt = (time_t)secs;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(s->date, sizeof s->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the analyses, two at a time ---- */

static void *kernel_table_job(void *p)
{
    tp_summary *s = p;
    tp_kernel_table_build(s->t, &s->kt);
    return NULL;
}

static void *host_tree_job(void *p)
{
    tp_summary *s = p;
    tp_host_tree_build(s->t, &s->ht);
    return NULL;
}

static void *ops_and_steps_job(void *p)
{
    tp_summary *s = p;
    tp_op_kernels_build(s->t, &s->ht, &s->ob);
    tp_step_figures_build(s->t, &s->ht, &s->sf);
    return NULL;
}

static void *overheads_job(void *p)
{
    tp_summary *s = p;
    tp_overheads_build(s->t, &s->ht, &s->ov);
    return NULL;
}

/* side() on a second thread while here() runs on this one; both on this
 * thread with TP_THREADS=1 / TP_REPORT_THREADS=1 (the same results: the
 * tests compare the two). */
static void run_pair(void *(*side)(void *), tp_summary *s, void *(*here)(void *))
{
    tp_run_pair(side, s, here, s, "TP_REPORT_THREADS");
}

void tp_summary_build(const tp_trace *t, const tp_report_opts *o, tp_summary *s)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->opts = *o;
    tp_trace_basename(o->path, s->name, sizeof s->name);
    for (size_t i = 0; i < t->nevents; i++)
        s->slices += t->events[i].ph == 'X' &&
                     !(t->events[i].flags & (TP_EV_DROPPED | TP_EV_DERIVED)); /* derived lines are a view */
    /* two rounds on two threads: each analysis writes only its own member
     * and reads the trace (and the host tree, built in the first round) */
    run_pair(kernel_table_job, s, host_tree_job);
    run_pair(ops_and_steps_job, s, overheads_job);
    find_devices(t, s);
    find_date(t, s);
}

void tp_summary_free(tp_summary *s)
{
    tp_format_pages_free(s);
    tp_kernel_table_free(&s->kt);
    tp_op_kernels_free(&s->ob);
    tp_step_figures_free(&s->sf);
    tp_overheads_free(&s->ov);
    tp_host_tree_free(&s->ht);
    for (size_t i = 0; i < s->ndevices; i++)
        free(s->devices[i]);
    free(s->devices);
    memset(s, 0, sizeof *s);
}

static void jstr(tp_buf *b, const char *str) { tp_json_put_string(b, str, strlen(str), NULL); }

static void step_json(const tp_summary *s, const tp_step_row *r, tp_buf *b)
{
    if (r->step >= 0)
        tp_buf_printf(b, "{\"step\":%lld,", (long long)r->step);
    else
        tp_buf_puts(b, "{");
    tp_buf_printf(b,
                  "\"host_ns\":%lld,\"device_busy_ns\":%lld,\"device_idle_ns\":%lld,\"stream_overlap_ns\":%lld,"
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

void tp_summary_json(const tp_summary *s, tp_buf *b)
{
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    tp_buf_puts(b, "{\"schema\":\"tracepress.summary/1\",\n\"source\":{\"file\":");
    jstr(b, s->opts.path);
    tp_buf_puts(b, ",\"reader\":");
    jstr(b, t->format);
    tp_buf_puts(b, ",\"name\":");
    jstr(b, s->name);
    tp_buf_printf(b, ",\"events_read\":%llu},\n", (unsigned long long)t->events_in);
    tp_buf_puts(b, "\"trace\":{\"date\":");
    if (s->date[0])
        jstr(b, s->date);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"devices\":[");
    for (size_t i = 0; i < s->ndevices; i++) {
        if (i)
            tp_buf_putc(b, ',');
        jstr(b, s->devices[i]);
    }
    tp_buf_puts(b, "],\"streams\":[");
    for (size_t k = 0; k < sf->nstreams; k++) {
        char lab[256];
        tp_stream_label(t, sf->streams[k], lab, sizeof lab);
        if (k)
            tp_buf_putc(b, ',');
        jstr(b, lab);
    }
    tp_buf_printf(b, "],\"start_ns\":%lld,\"span_ns\":%lld,\"slices\":%llu,\"steps\":%zu},\n",
                  (long long)(t->base_ns + sf->span_start), (long long)(sf->span_end - sf->span_start),
                  (unsigned long long)s->slices, sf->nsteps);
    tp_buf_puts(b, "\"options\":{\"steps\":");
    if (s->opts.steps)
        jstr(b, s->opts.steps);
    else
        tp_buf_puts(b, "null");
    if (s->opts.batch_size > 0)
        tp_buf_printf(b, ",\"batch_size\":%lld},\n", (long long)s->opts.batch_size);
    else
        tp_buf_puts(b, ",\"batch_size\":null},\n");

    /* headline numbers */
    int64_t host = 0;
    for (size_t i = 0; i < sf->nsteps; i++)
        host += sf->steps[i].host_ns;
    if (!sf->nsteps)
        host = sf->whole.host_ns;
    tp_buf_printf(b,
                  "\"headline\":{\"iterations\":%zu,\"host_ns\":%lld,\"device_busy_ns\":%lld,"
                  "\"device_idle_ns\":%lld,\"stream_overlap_ns\":%lld,\"kernel_total_ns\":%lld,"
                  "\"kernel_instances\":%llu,\"kernel_names\":%zu,\"median_step\":",
                  sf->nsteps ? sf->nsteps : (size_t)1, (long long)host, (long long)sf->whole.busy_ns,
                  (long long)sf->whole.idle_ns, (long long)sf->whole.overlap_ns, (long long)s->kt.total_ns,
                  (unsigned long long)s->kt.instances, s->kt.n);
    if (sf->median != SIZE_MAX)
        tp_buf_printf(b, "%lld", (long long)sf->steps[sf->median].step);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"samples_per_s\":");
    if (s->opts.batch_size > 0) {
        char f[48];
        tp_format_fixed(f, tp_throughput_milli(sf, s->opts.batch_size), 3);
        tp_buf_puts(b, f);
    } else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, "},\n");

    /* the kernel table, as `stats --json` writes it */
    tp_buf_puts(b, "\"kernels\":[");
    for (size_t i = 0; i < s->kt.n; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        tp_kernel_row_json(b, t, &s->kt.rows[i]);
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
            jstr(b, tp_str_get(t, r->name));
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"count\":%llu,\"kept\":%llu,\"mean_ns\":%lld,\"stddev_ns\":%lld,\"min_ns\":%lld,\"max_ns\":%lld}",
                      (unsigned long long)r->count, (unsigned long long)r->kept, (long long)r->mean_ns,
                      (long long)r->stddev_ns, (long long)r->min_ns, (long long)r->max_ns);
    }
    tp_buf_puts(b, "]}");
    tp_format_pages_json(s, b);
    tp_buf_puts(b, "}\n");
}

/* Markdown table cell: no pipes, backticks or newlines. */
static void md_cell(tp_buf *b, const char *s, size_t max)
{
    size_t n = 0;
    for (const char *c = s; *c && n < max; c++, n++) {
        if (*c == '|')
            tp_buf_puts(b, "\\|");
        else if (*c == '`' || *c == '\n' || *c == '\r')
            tp_buf_putc(b, ' ');
        else
            tp_buf_putc(b, *c);
    }
    if (strlen(s) > max)
        tp_buf_puts(b, "...");
}

#define MD_TOP 15

void tp_summary_md(const tp_summary *s, const char *const *png_names, tp_buf *b)
{
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    char u[64], v[64], w[64];
    tp_buf_puts(b, "### tracepress report: ");
    md_cell(b, s->name, 200);
    tp_buf_puts(b, "\n\n| | |\n|---|---|\n");
    tp_buf_printf(b, "| format | %s |\n", t->format);
    if (s->ndevices) {
        tp_buf_puts(b, "| devices | ");
        for (size_t i = 0; i < s->ndevices;) {
            size_t j = i;
            while (j < s->ndevices && strcmp(s->devices[j], s->devices[i]) == 0)
                j++;
            if (i)
                tp_buf_puts(b, ", ");
            if (j - i > 1)
                tp_buf_printf(b, "%zu x ", j - i);
            md_cell(b, s->devices[i], 80);
            i = j;
        }
        tp_buf_puts(b, " |\n");
    }
    if (s->date[0])
        tp_buf_printf(b, "| date | %s |\n", s->date);
    tp_fmt_us(u, sizeof u, sf->span_end - sf->span_start);
    tp_buf_printf(b, "| time span | %s |\n| slices | %llu |\n| steps | %zu |\n", u, (unsigned long long)s->slices,
                  sf->nsteps);
    if (sf->median != SIZE_MAX) {
        tp_fmt_us(u, sizeof u, sf->steps[sf->median].host_ns);
        char lab[160];
        tp_step_label(t, sf, &sf->steps[sf->median], lab, sizeof lab);
        tp_buf_printf(b, "| median step | %s, %s |\n", lab, u);
    }
    tp_fmt_us(u, sizeof u, sf->whole.busy_ns);
    tp_fmt_pct(v, sizeof v, sf->whole.busy_ns, sf->whole.host_ns);
    tp_buf_printf(b, "| device busy | %s (%s of the span) |\n", u, v);
    tp_fmt_us(u, sizeof u, sf->whole.idle_ns);
    tp_buf_printf(b, "| device idle | %s |\n", u);
    if (sf->nstreams > 1) {
        tp_fmt_us(u, sizeof u, sf->whole.overlap_ns);
        tp_buf_printf(b, "| stream overlap | %s |\n", u);
    }
    tp_fmt_us(u, sizeof u, s->kt.total_ns);
    tp_buf_printf(b, "| kernel time | %s in %llu instances of %zu kernels |\n", u,
                  (unsigned long long)s->kt.instances, s->kt.n);
    if (s->opts.batch_size > 0) {
        char f[48];
        tp_format_fixed(f, tp_throughput_milli(sf, s->opts.batch_size), 3);
        tp_buf_printf(b, "| throughput | %s samples/s (batch %lld) |\n", f, (long long)s->opts.batch_size);
    }
    if (s->kt.n) {
        size_t n = s->kt.n < MD_TOP ? s->kt.n : MD_TOP;
        const char **names = tp_xmalloc(n * sizeof *names);
        for (size_t i = 0; i < n; i++)
            names[i] = tp_str_get(t, s->kt.rows[i].name);
        char **shorts = tp_kname_shorten(names, n);
        tp_buf_printf(b, "\n#### Top kernels by total time\n\n| # | kernel | time %% | total | count | mean | median |\n"
                         "|---:|---|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < n; i++) {
            const tp_kernel_row *r = &s->kt.rows[i];
            tp_fmt_pct(v, sizeof v, r->total_ns, s->kt.total_ns);
            tp_fmt_us(u, sizeof u, r->total_ns);
            tp_buf_printf(b, "| %zu | `", i + 1);
            md_cell(b, shorts[i], 90);
            tp_buf_printf(b, "` | %s | %s | %llu | ", v, u, (unsigned long long)r->count);
            tp_fmt_us(w, sizeof w, r->mean_ns);
            tp_buf_printf(b, "%s | ", w);
            tp_fmt_us(w, sizeof w, r->p50_ns);
            tp_buf_printf(b, "%s |\n", w);
        }
        if (s->kt.n > n)
            tp_buf_printf(b, "\n%zu more kernels in report.pdf and summary.json.\n", s->kt.n - n);
        tp_kname_free(shorts, n);
        free(names);
    }
    tp_format_pages_md(s, b);
    if (png_names && png_names[0]) {
        tp_buf_puts(b, "\n#### Charts\n\n");
        for (size_t i = 0; png_names[i]; i++)
            tp_buf_printf(b, "- [%s](%s)\n", png_names[i], png_names[i]);
    }
    tp_buf_puts(b, "\nFull report: `report.pdf`; numbers for dashboards: `summary.json` (schema tracepress.summary/1).\n");
}
