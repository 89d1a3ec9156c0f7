/* fpage_xplane.c: the XPlane (TensorFlow / JAX / XLA) report content
 * (issue 4): Launch Stats per step and device (report/formats/xplane/launch_stats.h), and
 * the dominating-op grid of the generic pages keyed by the kernels' TF op
 * and by their HLO op instead of the host op that launched them (the
 * TensorFlow Ops and XLA Ops lines' keys, from what the reader kept:
 * convert/read/xplane/xplane.h tp_xplane_data). */
#include "render/charts/chart_bar.h"
#include "report/formats/xplane/fpage_xplane.h"
#include "render/text/units.h"
#include "report/out/kernel_json.h"
#include "report/pages/pages.h"
#include "convert/codec/json_write.h"
#include "report/formats/xplane/launch_stats.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XP_CHART_ROWS 80 /* (step, device) bars in the charts */
#define XP_MD_ROWS 20    /* launch rows and ops in summary.md */

typedef struct xp_state {
    tp_launch_stats ls;
    tp_op_kernels tf, hlo;
    uint64_t tf_events, hlo_events; /* device events with a key */
} xp_state;

static bool counted(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}

typedef struct order_ctx {
    const tp_trace *t;
    const uint32_t *logical;
} order_ctx;

static int cmp_stream_time(const void *a, const void *b, void *vc)
{
    const order_ctx *c = vc;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const tp_event *x = &c->t->events[i], *y = &c->t->events[j];
    uint32_t sx = c->logical[x->track], sy = c->logical[y->track];
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (i > j) - (i < j);
}

/* Occurrences: runs of consecutive device events on one stream with the
 * same `full` key (as the derived lines merge them); keys[ev].name = shown. */
static void key_runs(const tp_trace *t, const uint32_t *by_stream, size_t n, const uint32_t *logical,
                     const tp_str *full, const tp_str *shown, tp_opk_key *keys)
{
    uint32_t occ = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t ev = by_stream[k];
        if (!shown[ev])
            continue;
        bool cont = k > 0 && logical[t->events[by_stream[k - 1]].track] == logical[t->events[ev].track] &&
                    full[by_stream[k - 1]] == full[ev] && shown[by_stream[k - 1]] == shown[ev];
        if (!cont)
            occ++;
        keys[ev] = (tp_opk_key){shown[ev], occ, false};
    }
}

static int xp_build(const tp_summary *s, const tp_fp_opts *o, void **state, tp_err *err)
{
    const tp_trace *t = s->t;
    const tp_xplane_data *xd = tp_xplane_report_data(t); /* NULL when the reader was not asked to keep it */
    xp_state *st = tp_xcalloc(1, sizeof *st);
    tp_launch_stats_build(t, xd, &st->ls);

    tp_str *tf_full = tp_xcalloc(t->nevents + 1, sizeof *tf_full);
    tp_str *tf_type = tp_xcalloc(t->nevents + 1, sizeof *tf_type);
    tp_str *hlo = tp_xcalloc(t->nevents + 1, sizeof *hlo);
    for (size_t i = 0; xd && i < xd->nops; i++) {
        const tp_xplane_opkey *k = &xd->ops[i];
        if (k->event >= t->nevents || !counted(&t->events[k->event]))
            continue;
        tf_full[k->event] = k->tf_op;
        tf_type[k->event] = k->tf_type;
        hlo[k->event] = k->hlo_op;
        st->tf_events += k->tf_type != 0;
        st->hlo_events += k->hlo_op != 0;
    }
    uint32_t *by_stream = tp_xmalloc((t->nevents + 1) * sizeof *by_stream);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (counted(&t->events[i]))
            by_stream[n++] = (uint32_t)i;
    order_ctx oc = {t, s->ht.logical};
    qsort_r(by_stream, n, sizeof *by_stream, cmp_stream_time, &oc);
    tp_opk_key *keys = tp_xcalloc(t->nevents + 1, sizeof *keys);
    key_runs(t, by_stream, n, s->ht.logical, tf_full, tf_type, keys);
    tp_op_kernels_build_keyed(t, keys, "(no TF op)", &st->tf);
    memset(keys, 0, (t->nevents + 1) * sizeof *keys);
    key_runs(t, by_stream, n, s->ht.logical, hlo, hlo, keys);
    tp_op_kernels_build_keyed(t, keys, "(no HLO op)", &st->hlo);
    free(keys);
    free(by_stream);
    free(hlo);
    free(tf_type);
    free(tf_full);
    *state = st;
    return 0;
}

static void xp_free(void *p)
{
    xp_state *st = p;
    if (!st)
        return;
    tp_launch_stats_free(&st->ls);
    tp_op_kernels_free(&st->tf);
    tp_op_kernels_free(&st->hlo);
    free(st);
}

/* ---- labels ---- */

static const char *step_label(tp_strs *S, const tp_launch_row *r)
{
    return r->group == TP_DERIVE_NO_GROUP ? "no step" : tp_strs_add(S, "#%lld", (long long)r->group);
}

static const char *device_label(tp_strs *S, const tp_trace *t, uint32_t device)
{
    char b[160];
    tp_launch_device_label(t, device, b, sizeof b);
    return tp_strs_add(S, "%s", b);
}

static size_t device_index(const tp_launch_stats *ls, uint32_t device)
{
    for (size_t k = 0; k < ls->ndevices; k++)
        if (ls->devices[k] == device)
            return k;
    return 0;
}

/* ---- summary.json ---- */

static void xp_json(const tp_summary *s, tp_buf *b)
{
    const xp_state *st = s->fp_state;
    const tp_launch_stats *ls = &st->ls;
    const tp_trace *t = s->t;
    char lab[160];
    tp_buf_printf(b,
                  "{\"launch_stats\":{\"launches\":%llu,\"steps\":%zu,\"device_from_link\":%llu,"
                  "\"without_step\":%llu,\"devices\":[",
                  (unsigned long long)ls->launches, ls->nsteps, (unsigned long long)ls->by_link,
                  (unsigned long long)ls->ungrouped);
    for (size_t k = 0; k < ls->ndevices; k++) {
        if (k)
            tp_buf_putc(b, ',');
        if (ls->devices[k] == TP_NONE) {
            tp_buf_puts(b, "null");
            continue;
        }
        tp_launch_device_label(t, ls->devices[k], lab, sizeof lab);
        tp_json_put_string(b, lab, strlen(lab), NULL);
    }
    tp_buf_puts(b, "],\"rows\":[");
    for (size_t i = 0; i < ls->n; i++) {
        const tp_launch_row *r = &ls->rows[i];
        tp_buf_puts(b, i ? ",\n{\"step\":" : "\n{\"step\":");
        if (r->group == TP_DERIVE_NO_GROUP)
            tp_buf_puts(b, "null");
        else
            tp_buf_printf(b, "%lld", (long long)r->group);
        tp_buf_puts(b, ",\"device\":");
        if (r->device == TP_NONE)
            tp_buf_puts(b, "null");
        else {
            tp_launch_device_label(t, r->device, lab, sizeof lab);
            tp_json_put_string(b, lab, strlen(lab), NULL);
        }
        tp_buf_printf(b,
                      ",\"launches\":%llu,\"max_ns\":%lld,\"avg_ns\":%lld,\"min_ns\":%lld,\"total_ns\":%lld,"
                      "\"span_ns\":%lld}",
                      (unsigned long long)r->count, (long long)r->max_ns, (long long)r->avg_ns, (long long)r->min_ns,
                      (long long)r->sum_ns, (long long)(r->end - r->start));
    }
    tp_buf_puts(b, "]},\n\"tf_ops\":");
    tp_op_kernels_json(t, &st->tf, "no_tf_op", b);
    tp_buf_puts(b, ",\n\"hlo_ops\":");
    tp_op_kernels_json(t, &st->hlo, "no_hlo_op", b);
    tp_buf_putc(b, '}');
}

/* ---- summary.md ---- */

static void md_ops(const tp_trace *t, const tp_op_kernels *ob, const char *what, const char *one, uint64_t keyed,
                   tp_buf *b)
{
    tp_buf_printf(b, "\n#### XPlane: dominating %s\n\n", what);
    if (!keyed) {
        tp_buf_printf(b, "No kernel or copy names its %s.\n", one);
        return;
    }
    size_t n = ob->nops < XP_MD_ROWS ? ob->nops : XP_MD_ROWS;
    int64_t mx = 0; /* the column's unit: that of its largest value */
    for (size_t i = 0; i < n; i++)
        mx = ob->ops[i].total_ns > mx ? ob->ops[i].total_ns : mx;
    int ut = tp_dur_unit(mx);
    tp_buf_printf(b, "| %s | device time (%s) | share | occurrences | kernel mixes |\n|---|---:|---:|---:|---:|\n", one,
                  tp_dur_unit_name(ut));
    for (size_t i = 0; i < n; i++) {
        const tp_opk_op *op = &ob->ops[i];
        char u[64], v[64], c[32];
        tp_fmt_dur_in(u, sizeof u, op->total_ns, ut);
        tp_fmt_count(c, sizeof c, op->occurrences);
        tp_fmt_pct(v, sizeof v, op->total_ns, ob->total_ns);
        tp_buf_puts(b, "| ");
        tp_md_code(b, tp_opk_op_name(t, op), SIZE_MAX);
        tp_buf_printf(b, " | %s | %s | %s | %zu |\n", u, v, c, op->n);
    }
    if (ob->nops > n)
        tp_buf_printf(b, "\n%zu more in summary.json.\n", ob->nops - n);
}

static void xp_md(const tp_summary *s, tp_buf *b)
{
    const xp_state *st = s->fp_state;
    const tp_launch_stats *ls = &st->ls;
    tp_strs S = {0};
    tp_buf_puts(b, "\n#### XPlane: Launch Stats\n\n");
    if (!ls->launches)
        tp_buf_puts(b, "The trace has no launch calls (host calls with a correlation id): nothing to count.\n");
    else {
        tp_buf_printf(b, "Launch calls: %llu; steps: %zu; devices: %zu.\n\n", (unsigned long long)ls->launches,
                      ls->nsteps, ls->ndevices);
        size_t n = ls->n < XP_MD_ROWS ? ls->n : XP_MD_ROWS;
        int64_t mx = 0, ma = 0; /* each column's unit: that of its largest value */
        for (size_t i = 0; i < n; i++) {
            mx = ls->rows[i].max_ns > mx ? ls->rows[i].max_ns : mx;
            ma = ls->rows[i].avg_ns > ma ? ls->rows[i].avg_ns : ma;
        }
        int ux = tp_dur_unit(mx), ua = tp_dur_unit(ma);
        tp_buf_printf(b, "| step | device | launches | max (%s) | avg (%s) |\n|---|---|---:|---:|---:|\n",
                      tp_dur_unit_name(ux), tp_dur_unit_name(ua));
        for (size_t i = 0; i < n; i++) {
            const tp_launch_row *r = &ls->rows[i];
            char u[64], v[64], c[32];
            tp_fmt_dur_in(u, sizeof u, r->max_ns, ux);
            tp_fmt_dur_in(v, sizeof v, r->avg_ns, ua);
            tp_fmt_count(c, sizeof c, r->count);
            tp_buf_printf(b, "| %s | ", step_label(&S, r));
            tp_md_text(b, device_label(&S, s->t, r->device), SIZE_MAX);
            tp_buf_printf(b, " | %s | %s | %s |\n", c, u, v);
        }
        if (ls->n > n)
            tp_buf_printf(b, "\n%zu more rows in report.pdf and summary.json.\n", ls->n - n);
    }
    md_ops(s->t, &st->tf, "TF ops", "TF op", st->tf_events, b);
    md_ops(s->t, &st->hlo, "XLA ops", "HLO op", st->hlo_events, b);
    tp_strs_free(&S);
}

/* ---- pages ---- */

/* The two charts side by side in r: launches per step, launch time per step. */
static void chart_launches(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const xp_state *st = pc->s->fp_state;
    const tp_launch_stats *ls = &st->ls;
    const tp_trace *t = pc->s->t;
    size_t n = ls->n < XP_CHART_ROWS ? ls->n : XP_CHART_ROWS;
    tp_strs S = {0};
    const char **labels = tp_xcalloc(n + 1, sizeof *labels);
    int64_t *v = tp_xcalloc(4 * n + 1, sizeof *v);
    tp_color *col = tp_xcalloc(n + 1, sizeof *col);
    bool several = ls->ndevices > 1;
    for (size_t i = 0; i < n; i++) {
        const tp_launch_row *x = &ls->rows[i];
        labels[i] = several ? tp_strs_add(&S, "%s %s", step_label(&S, x), device_label(&S, t, x->device))
                            : step_label(&S, x);
        v[i] = (int64_t)x->count;
        v[n + i] = x->avg_ns;
        v[2 * n + i] = x->min_ns;
        v[3 * n + i] = x->max_ns;
        col[i] = tp_palette(device_index(ls, x->device));
    }
    tp_legend_item *leg = tp_xcalloc(ls->ndevices + 1, sizeof *leg);
    for (size_t k = 0; k < ls->ndevices; k++)
        leg[k] = (tp_legend_item){device_label(&S, t, ls->devices[k]), tp_palette(k)};
    const char *more = ls->n > n ? tp_strs_add(&S, " (first %zu of %zu)", n, ls->n) : "";
    double gap = 16, w = (r.w - gap) / 2;
    bool steps = pc->s->sf.nsteps > 0; /* without steps every row is "no step": no per-step wording */
    tp_barchart a = {.title = tp_strs_add(&S, steps ? "Launches per step%s" : "Launches per device (no steps)%s", more),
                     .value_label = "launches",
                     .n = n,
                     .labels = labels,
                     .values = v,
                     .colors = col,
                     .value_labels = 1,
                     .legend = several ? leg : NULL,
                     .nlegend = several ? ls->ndevices : 0,
                     .counts = 1};
    tp_barchart_draw(cv, &a, (tp_rect){r.x, r.y, w, r.h});
    tp_barchart b = {.title = tp_strs_add(&S, steps ? "Launch time per step: average, min..max (log scale)%s"
                                                    : "Launch time: average, min..max (log scale)%s", more),
                     .value_label = "launch time",
                     .n = n,
                     .labels = labels,
                     .values = v + n,
                     .err_lo = v + 2 * n,
                     .err_hi = v + 3 * n,
                     .colors = col,
                     .log_scale = 1, /* the max is often 100x the average */
                     .value_labels = 1,
                     .legend = several ? leg : NULL,
                     .nlegend = several ? ls->ndevices : 0};
    tp_barchart_draw(cv, &b, (tp_rect){r.x + w + gap, r.y, w, r.h});
    free(leg);
    free(col);
    free(v);
    free(labels);
    tp_strs_free(&S);
}

/* Muted 9 pt text wrapped to w; returns the y below it. */
static double wrapped(tp_canvas *cv, double x, double y, double w, const char *text)
{
    char **lines = NULL;
    size_t n = tp_wrap(TP_FONT_REGULAR, 9, text, w, 6, &lines);
    for (size_t i = 0; i < n; i++)
        y = tp_page_line(cv, x, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED, lines[i]);
    tp_wrap_free(lines, n);
    return y;
}

static void page_launches(tp_canvas *cv, const tp_pagectx *pc)
{
    const xp_state *st = pc->s->fp_state;
    const tp_launch_stats *ls = &st->ls;
    const tp_trace *t = pc->s->t;
    tp_strs S = {0};
    if (!ls->launches) {
        tp_page_note(pc, "Launch Stats",
                        tp_xplane_report_data(t)
                            ? "no launch calls: no host call carries a correlation id that ties it to a kernel or copy it launched "
                              "(TPU programs, for one, are not launched kernel by kernel), so there are no launches to "
                              "count."
                            : "no launch calls: the reader kept no launch data for this trace, so there are no launches to count.");
        tp_strs_free(&S);
        return;
    }
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m;
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Launch Stats");
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 14, TP_COLOR_TEXT, "Launch Stats");
    y = wrapped(cv, m, y, w,
                "Host launch calls per step and device, as XProf's Launch Stats line counts them: host calls "
                "with a correlation id, CUDA driver calls (cu*) left out; times are the calls' durations.");
    y = wrapped(
        cv, m, y, w,
        tp_strs_add(&S,
                    "Launch calls: %llu; steps: %zu; devices: %zu. Placed on their device through the work they "
                    "launched (their device_id names no GPU plane, or they have none): %llu; without a group_id "
                    "(\"no step\"): %llu.",
                    (unsigned long long)ls->launches, ls->nsteps, ls->ndevices, (unsigned long long)ls->by_link,
                    (unsigned long long)ls->ungrouped));
    y += 6;
    double ch = (pc->lh - m - y) * 0.5;
    chart_launches(cv, pc, (tp_rect){m, y, w, ch});
    y += ch + 10;
    enum { NC = 8 };
    const char **cells = tp_xcalloc(ls->n * NC + 1, sizeof *cells);
    for (size_t i = 0; i < ls->n; i++) {
        const tp_launch_row *r = &ls->rows[i];
        const char **c = cells + i * NC;
        c[0] = step_label(&S, r);
        c[1] = device_label(&S, t, r->device);
        c[2] = tp_strs_add(&S, "%llu", (unsigned long long)r->count);
        c[3] = tp_strs_dur(&S, r->max_ns);
        c[4] = tp_strs_dur(&S, r->avg_ns);
        c[5] = tp_strs_dur(&S, r->min_ns);
        c[6] = tp_strs_dur(&S, r->sum_ns);
        c[7] = tp_strs_dur(&S, r->end - r->start);
    }
    static const tp_table_col cols[NC] = {
        {"step", 0, TP_FIT_END, 0},     {"device", 0, TP_FIT_END, 0},   {"launches", 1, TP_FIT_END, 0},
        {"max", 1, TP_FIT_END, 0}, {"avg", 1, TP_FIT_END, 0}, {"min", 1, TP_FIT_END, 0},
        {"total", 1, TP_FIT_END, 0}, {"first to last", 1, TP_FIT_END, 0}};
    tp_table tb = {pc->s->sf.nsteps ? "Launches per step and device" : "Launches per device (no steps)", NC, cols, ls->n,
                   cells, 8, 2, NULL};
    tp_rect tr = {m, y, w, pc->lh - m - y};
    tp_table_layout *L = tp_table_layout_new(&tb, tr.w, tr.h);
    bool fits = tp_table_pages(L) == 1;
    if (fits)
        tp_table_draw_page(cv, &tb, L, 0, tr);
    tp_table_layout_free(L);
    if (!fits)
        tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                     tp_strs_add(&S, "The %zu rows of the table are on the next pages.", ls->n));
    tp_cv_end_page(cv);
    if (!fits)
        tp_fp_paged_table(cv, pc, &tb, "Launch Stats: launches per step and device", NULL, 0);
    free(cells);
    tp_strs_free(&S);
}

static void page_ops(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, uint64_t keyed, const char *what,
                     const char *why)
{
    if (keyed) {
        tp_pages_breakdown_of(cv, pc, ob, what, pc->lw, pc->lh);
        return;
    }
    tp_strs S = {0};
    tp_page_note(pc, tp_strs_add(&S, "Dominating %s", what), tp_strs_add(&S, "none: %s", why));
    tp_strs_free(&S);
}

static void xp_draw(tp_canvas *cv, const tp_pagectx *pc)
{
    const xp_state *st = pc->s->fp_state;
    page_launches(cv, pc);
    page_ops(cv, pc, &st->tf, st->tf_events, "TF ops",
             "No kernel or copy carries a TF op (a tf_op stat, TensorFlow 2020's `level 0`, or JAX's op path in "
             "`name`): the grid by TF op would be empty.");
    page_ops(cv, pc, &st->hlo, st->hlo_events, "XLA ops",
             "No kernel or copy carries an hlo_op stat (TensorFlow without XLA; on TPUs the device ops are the HLO "
             "ops themselves, see the kernel pages): the grid by HLO op would be empty.");
}

static void png_launches(tp_canvas *cv, const tp_pagectx *pc, tp_rect r) { chart_launches(cv, pc, r); }

static void png_tf(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    tp_chart_breakdown_of(cv, pc, &((const xp_state *)pc->s->fp_state)->tf, "TF ops", r);
}

static void png_hlo(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    tp_chart_breakdown_of(cv, pc, &((const xp_state *)pc->s->fp_state)->hlo, "XLA ops", r);
}

static bool has_launches(const tp_summary *s) { return ((const xp_state *)s->fp_state)->ls.launches > 0; }
static bool has_tf(const tp_summary *s) { return ((const xp_state *)s->fp_state)->tf_events > 0; }
static bool has_hlo(const tp_summary *s) { return ((const xp_state *)s->fp_state)->hlo_events > 0; }

static const tp_fp_png xp_pngs[] = {
    {"png/xplane_launch_stats.png", png_launches, has_launches},
    {"png/xplane_tf_ops.png", png_tf, has_tf},
    {"png/xplane_xla_ops.png", png_hlo, has_hlo},
};

const tp_format_pages tp_fpages_xplane = {
    "xplane", "xplane", xp_build, xp_free, xp_json, xp_md, xp_draw, xp_pngs, sizeof xp_pngs / sizeof xp_pngs[0],
};
