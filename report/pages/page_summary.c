/* page_summary.c: page 1: what the trace is, the headline numbers, the top ops. */
#include "render/charts/chart_table.h"
#include "convert/codec/json_write.h"
#include "report/pages/pages.h"
#include "render/charts/palette.h"

#include <stdio.h>
#include <string.h>

#define TOP_OPS 12

/* "Pages:" and a link to each section (tp_cv_link_page goes by the page's
 * bookmark title, so these must be the titles the pages begin with). */
void tp_page_summary(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_summary *s = pc->s;
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    double m = TP_PAGE_MARGIN, w = pc->pw - 2 * m;
    tp_cv_begin_page(cv, pc->pw, pc->ph, "Summary");
    double y = m;
    y = tp_page_line(cv, m, y, TP_FONT_BOLD, 14, TP_COLOR_TEXT, "The trace and its headline numbers");
    y += 4;

    tp_strs st = {0};
    const char *cells[2 * 24];
    size_t n = 0;
#define ROW(k, v)                                                                                                     \
    do {                                                                                                              \
        cells[2 * n] = (k);                                                                                           \
        cells[2 * n + 1] = (v);                                                                                       \
        n++;                                                                                                          \
    } while (0)
    ROW("trace", s->name);
    ROW("format", t->format);
    if (s->ndevices) {
        /* "8 x NVIDIA A100" when all are the same */
        bool same = true;
        for (size_t i = 1; i < s->ndevices; i++)
            same = same && strcmp(s->devices[i], s->devices[0]) == 0;
        if (same)
            ROW("devices", s->ndevices > 1 ? tp_strs_add(&st, "%zu x %s", s->ndevices, s->devices[0]) : s->devices[0]);
        else
            ROW("devices", tp_strs_add(&st, "%s and %zu more", s->devices[0], s->ndevices - 1));
    }
    ROW("date", s->date[0] ? s->date : "unknown");
    ROW("trace span (host and device)", tp_strs_dur(&st, sf->span_end - sf->span_start));
    ROW("events read / slices",
        tp_strs_add(&st, "%s / %s", tp_strs_count(&st, t->events_in), tp_strs_count(&st, s->slices)));
    if (sf->nsteps) {
        char a[160], b[160], c[160];
        tp_step_label(t, sf, &sf->steps[0], a, sizeof a);
        tp_step_label(t, sf, &sf->steps[sf->nsteps - 1], b, sizeof b);
        tp_step_label(t, sf, &sf->steps[sf->median], c, sizeof c);
        ROW("steps", tp_strs_add(&st, "%zu (%s to %s), median %s", sf->nsteps, a, b, c));
    } else
        ROW("steps", "none (figures over the whole trace)");
    ROW("device streams", tp_strs_add(&st, "%zu", sf->nstreams));
    tp_table_col kv[] = {{"property", 0, TP_FIT_END, 0}, {"value", 0, TP_FIT_MIDDLE, 0}};
    double th = 16 * (double)(n + 1) + 36;
    tp_draw_small_table(cv, "Trace", kv, 2, cells, n, (tp_rect){m, y, w, th});
    y += th + 6;

    /* headline numbers: each on the base its name says (docs/REPORT.md) */
    n = 0;
    int64_t host = sf->steps_host_ns;
    const tp_gpu_figs *g = &s->gt.whole;
    char pct[32];
    if (sf->nsteps) {
        ROW("host time of the steps (sum)", tp_strs_dur(&st, host));
        ROW("median step (host time)", tp_strs_dur(&st, sf->steps[sf->median].host_ns));
    }
    if (s->gt.ndevices > 1) /* each device's own span, added: device-time, not wall time */
        ROW(tp_strs_add(&st, "GPU span (sum over %zu devices)", s->gt.ndevices),
            tp_strs_dur(&st, g->span_ns));
    else
        ROW("GPU span (first to last device activity)", tp_strs_dur(&st, g->span_ns));
#define GPU_ROW(label, v)                                                                                             \
    do {                                                                                                              \
        tp_fmt_pct(pct, sizeof pct, (v), g->span_ns);                                                                 \
        ROW(label, tp_strs_add(&st, "%s (%s of the GPU span)", tp_strs_dur(&st, (v)), pct));                       \
    } while (0)
    GPU_ROW("GPU busy (any stream)", g->busy_ns);
    GPU_ROW("GPU idle", g->idle_ns);
    GPU_ROW("computation", g->computation_ns);
    if (g->communication_ns)
        GPU_ROW("exposed communication", g->exposed_communication_ns);
    if (g->memcpy_ns)
        GPU_ROW("exposed memcpy", g->exposed_memcpy_ns);
    if (g->unlinked_ns)
        GPU_ROW("busy with no launch call", g->unlinked_ns);
#undef GPU_ROW
    ROW("kernels: instances / names / time (sum)",
        tp_strs_add(&st, "%s / %s / %s", tp_strs_count(&st, s->kt.kernels), tp_strs_count(&st, s->kt.kernel_names),
                    tp_strs_dur(&st, s->kt.kernel_ns)));
    ROW("memcpy / memset instances",
        tp_strs_add(&st, "%s / %s", tp_strs_count(&st, s->kt.memcpys), tp_strs_count(&st, s->kt.memsets)));
    if (s->cat.n) {
        tp_fmt_pct(pct, sizeof pct, s->cat.rows[0].device_ns, s->cat.total_ns);
        ROW("top category", tp_strs_add(&st, "%s (%s of device time)", s->cat.rules->names[s->cat.rows[0].category], pct));
    }
    if (s->opts.batch_size > 0) {
        char f[48];
        tp_format_fixed(f, tp_throughput_milli(sf, s->opts.batch_size), 3);
        ROW("throughput", tp_strs_add(&st, "%s samples/s (batch size %lld)", f, (long long)s->opts.batch_size));
    } else
        ROW("throughput", "not computed (give --batch-size N)");
    th = 16 * (double)(n + 1) + 36;
    tp_draw_small_table(cv, "Headline numbers", kv, 2, cells, n, (tp_rect){m, y, w, th});
    y += th + 6;
#undef ROW

    /* top ops */
    size_t nops = s->ob.nops < TOP_OPS ? s->ob.nops : TOP_OPS;
    if (nops) {
        const char *oc[5 * TOP_OPS];
        for (size_t i = 0; i < nops; i++) {
            const tp_opk_op *op = &s->ob.ops[i];
            char p[32];
            tp_fmt_pct(p, sizeof p, op->total_ns, s->ob.total_ns);
            oc[5 * i] = tp_opk_op_name(t, op);
            oc[5 * i + 1] = tp_strs_dur(&st, op->total_ns);
            oc[5 * i + 2] = tp_strs_add(&st, "%s", p);
            oc[5 * i + 3] = tp_strs_count(&st, op->occurrences);
            oc[5 * i + 4] = tp_strs_add(&st, "%zu", op->n);
        }
        tp_table_col cols[] = {{"top-level op", 0, TP_FIT_MIDDLE, 0},
                               {"device time", 1, TP_FIT_END, 0},
                               {"share", 1, TP_FIT_END, 0},
                               {"calls", 1, TP_FIT_END, 0},
                               {"kernel mixes", 1, TP_FIT_END, 0}};
        th = 16 * (double)(nops + 1) + 36;
        if (y + th > pc->ph - m)
            th = pc->ph - m - y;
        tp_draw_small_table(cv, tp_strs_add(&st, "Top ops by device time (%zu of %zu)", nops, s->ob.nops), cols, 5, oc,
                            nops, (tp_rect){m, y, w, th});
    } else
        tp_page_line(cv, m, y, TP_FONT_REGULAR, 10, TP_COLOR_MUTED, "No device activity: no op breakdown.");
    tp_cv_end_page(cv);
    tp_strs_free(&st);
}
