/* eff_md.c: summary.md's efficiency lead (eff_md.h). */
#include "report/out/eff_md.h"
#include "report/out/eff_text.h"
#include "render/text/report_text.h"
#include "render/text/units.h"

#include <stdio.h>
#include <string.h>

/* A cut of what a cell of a narrow column shows (a pull-request comment's column: issue 36 item 9). */
#define EFF_MD_CELL 30

/* Durations in the unit (units.h) named in the column's header.  The op and its shapes share one cell, on two
 * lines, so that the table stays within a comment's column (about 700 px at GitHub's font). */
static void row_md(const tp_eff_row *r, size_t rank, bool known, int ut, int uh, tp_buf *b)
{
    char shape[96], dtype[32], tf[24], tb[24], pct[24], u[64], head[64];
    tp_eff_shape(r, shape, sizeof shape);
    tp_eff_dtype(r, dtype, sizeof dtype);
    tp_eff_num(tf, sizeof tf, r->tflops);
    tp_eff_num(tb, sizeof tb, r->tbps);
    tp_fmt_dur_in(u, sizeof u, r->device_ns, ut);
    tp_buf_printf(b, "| %zu | ", rank);
    tp_md_code(b, r->op, EFF_MD_CELL);
    if (shape[0] || dtype[0]) {
        char sd[140];
        snprintf(sd, sizeof sd, "%s%s%s", shape, shape[0] && dtype[0] ? " " : "", dtype);
        tp_buf_puts(b, "<br>");
        tp_md_text(b, sd, EFF_MD_CELL);
    }
    char c[32];
    tp_fmt_count(c, sizeof c, r->count);
    tp_buf_printf(b, " | %s | %s |", u, c);
    if (known) {
        tp_eff_pct(pct, sizeof pct, r->peak_fraction);
        tp_fmt_dur_in(head, sizeof head, r->opportunity_ns, uh);
        tp_buf_printf(b, " %s%s %s | %s |", pct, r->roof_note ? " (above its roof: `roof_note`)" : "",
                      r->bound == TP_BOUND_COMPUTE ? "compute" : r->bound == TP_BOUND_MEMORY ? "memory" : "", head);
    } else
        tp_buf_printf(b, " %s | %s |", tf, tb);
    tp_buf_putc(b, '\n');
}

void tp_efficiency_md(const tp_summary *s, tp_buf *b)
{
    const tp_efficiency *e = &s->eff;
    if (e->device_ns <= 0)
        return;
    char pct[24];
    if (!e->with_shapes && !e->xla_costs) {
        const char *hint = tp_eff_shapes_hint(e), *tick = strchr(hint, ' ') ? "" : "`"; /* code in a code span */
        tp_buf_printf(b, "**Efficiency**: the trace recorded no shapes, so no op has FLOPs or bytes; record them with "
                         "%s%s%s.\n\n", tick, hint, tick);
        return;
    }
    if (!e->n) {
        tp_buf_printf(b, "**Efficiency**: no op with a cost model ran on the device (%llu invocations without a cost; "
                         "`summary.json` efficiency.no_cost says why).\n\n",
                      (unsigned long long)e->skipped);
        return;
    }
    tp_fmt_pct(pct, sizeof pct, e->modelled_ns, e->device_ns);
    int64_t mt = 0, mh = 0; /* each duration column's unit: that of its largest shown value */
    size_t nshow = 0;
    const char *dev = e->device.trace_name[0] ? e->device.trace_name : "";
    bool known = e->device.known && e->nopportunities;
    nshow = known ? (e->nopportunities < TP_EFF_MD_TOP ? e->nopportunities : TP_EFF_MD_TOP)
                  : (e->n < TP_EFF_MD_TOP ? e->n : TP_EFF_MD_TOP);
    for (size_t i = 0; i < nshow; i++) {
        const tp_eff_row *r = &e->rows[known ? e->by_opportunity[i] : i];
        mt = r->device_ns > mt ? r->device_ns : mt;
        mh = r->opportunity_ns > mh ? r->opportunity_ns : mh;
    }
    int ut = tp_dur_unit(mt), uh = tp_dur_unit(mh);
    if (known) {
        tp_buf_puts(b, "**Biggest opportunities** on ");
        tp_md_text(b, e->device.label[0] ? e->device.label : dev, 80);
        tp_buf_printf(b, " (device time x (1 - fraction of the roof); %s of the device time has a cost model):\n\n"
                         "| # | op, shapes | time (%s) | count | of roof | headroom (%s) |\n"
                         "|---:|---|---:|---:|---|---:|\n",
                      pct, tp_dur_unit_name(ut), tp_dur_unit_name(uh));
        for (size_t i = 0; i < nshow; i++)
            row_md(&e->rows[e->by_opportunity[i]], i + 1, true, ut, uh, b);
    } else {
        tp_buf_puts(b, "**Ops with a cost model, most time first** (");
        if (dev[0]) {
            tp_buf_puts(b, "no fraction of peak: the device ");
            tp_md_code(b, dev, 80);
            tp_buf_puts(b, " is not in the table of device peaks; add it with `--device-spec FILE`, "
                           "docs/REPORT.md \"Device peaks\"");
        } else
            tp_buf_puts(b, "the trace names no device, so no fraction of peak");
        tp_buf_printf(b, "; %s of the device time has a cost model):\n\n"
                         "| # | op, shapes | time (%s) | count | TFLOPS/s | TB/s |\n"
                         "|---:|---|---:|---:|---:|---:|\n",
                      pct, tp_dur_unit_name(ut));
        for (size_t i = 0; i < nshow; i++)
            row_md(&e->rows[i], i + 1, false, ut, uh, b);
    }
    tp_buf_putc(b, '\n');
}
