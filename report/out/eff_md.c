/* eff_md.c: summary.md's efficiency lead (eff_md.h). */
#include "report/out/eff_md.h"
#include "report/out/eff_text.h"
#include "report/out/text.h"

#include <stdio.h>

static void row_md(const tp_eff_row *r, size_t rank, bool known, tp_buf *b)
{
    char shape[96], dtype[32], tf[24], tb[24], pct[24], u[64], head[64];
    tp_eff_shape(r, shape, sizeof shape);
    tp_eff_dtype(r, dtype, sizeof dtype);
    tp_eff_num(tf, sizeof tf, r->tflops);
    tp_eff_num(tb, sizeof tb, r->tbps);
    tp_md_dur(u, sizeof u, r->device_ns);
    tp_buf_printf(b, "| %zu | ", rank);
    tp_md_code(b, r->op, 80);
    tp_buf_puts(b, " | ");
    if (shape[0])
        tp_md_text(b, shape, 90);
    tp_buf_puts(b, " | ");
    if (dtype[0])
        tp_md_text(b, dtype, 30);
    tp_buf_printf(b, " | %s | %llu | %s | %s |", u, (unsigned long long)r->count, tf, tb);
    if (known) {
        tp_eff_pct(pct, sizeof pct, r->peak_fraction);
        tp_md_dur(head, sizeof head, r->opportunity_ns);
        tp_buf_printf(b, " %s | %s | %s |",
                      pct, r->bound == TP_BOUND_COMPUTE ? "compute" : r->bound == TP_BOUND_MEMORY ? "memory" : "-",
                      head);
    }
    tp_buf_putc(b, '\n');
}

void tp_efficiency_md(const tp_summary *s, tp_buf *b)
{
    const tp_efficiency *e = &s->eff;
    if (e->device_ns <= 0)
        return;
    char pct[24];
    if (!e->with_shapes && !e->xla_costs) {
        tp_buf_puts(b, "**Efficiency**: the trace recorded no shapes, so no op has FLOPs or bytes; record them with `"
                       TP_EFF_RECORD_SHAPES "`.\n\n");
        return;
    }
    if (!e->n) {
        tp_buf_printf(b, "**Efficiency**: no op with a cost model ran on the device (%llu invocations without a cost; "
                         "`summary.json` efficiency.no_cost says why).\n\n",
                      (unsigned long long)e->skipped);
        return;
    }
    tp_fmt_pct(pct, sizeof pct, e->modelled_ns, e->device_ns);
    const char *dev = e->device.trace_name[0] ? e->device.trace_name : "";
    bool known = e->device.known && e->nopportunities;
    if (known) {
        tp_buf_puts(b, "**Biggest opportunities** on ");
        tp_md_text(b, e->device.label[0] ? e->device.label : dev, 80);
        tp_buf_printf(b, " (device time x (1 - fraction of the roof); %s of the device time has a cost model):\n\n"
                         "| # | op | shapes | dtype | time | count | TFLOPS/s | TB/s | of roof | bound | headroom |\n"
                         "|---:|---|---|---|---:|---:|---:|---:|---:|---|---:|\n",
                      pct);
        for (size_t i = 0; i < e->nopportunities && i < TP_EFF_MD_TOP; i++)
            row_md(&e->rows[e->by_opportunity[i]], i + 1, true, b);
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
                         "| # | op | shapes | dtype | time | count | TFLOPS/s | TB/s |\n"
                         "|---:|---|---|---|---:|---:|---:|---:|\n",
                      pct);
        for (size_t i = 0; i < e->n && i < TP_EFF_MD_TOP; i++)
            row_md(&e->rows[i], i + 1, false, b);
    }
    tp_buf_putc(b, '\n');
}
