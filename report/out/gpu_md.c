/* gpu_md.c: the GPU time split and the op categories in summary.md
 * (gpu_md.h).  Category names may come from a user's rule file and op names
 * from the trace: both go through tp_md_text / tp_md_code. */
#include "report/out/gpu_md.h"
#include "render/text/report_text.h"

void tp_gpu_time_md(const tp_summary *s, tp_buf *b)
{
    const tp_gpu_figs *g = &s->gt.whole;
    char u[64], p[4][32];
    if (g->span_ns <= 0) {
        tp_buf_puts(b, "\n**GPU time**: no device activity.\n");
        return;
    }
    /* busy = computation + exposed communication + exposed memcpy, exactly
     * in ns (each share is rounded on its own) */
    tp_md_dur(u, sizeof u, g->span_ns);
    tp_buf_printf(b, "\n**GPU time** (shares of the GPU span, first to last device activity: %s", u);
    if (s->gt.ndevices > 1)
        tp_buf_printf(b, " summed over %zu devices", s->gt.ndevices);
    tp_fmt_pct(p[0], sizeof p[0], g->busy_ns, g->span_ns);
    tp_fmt_pct(p[1], sizeof p[1], g->computation_ns, g->span_ns);
    tp_fmt_pct(p[2], sizeof p[2], g->exposed_communication_ns, g->span_ns);
    tp_fmt_pct(p[3], sizeof p[3], g->exposed_memcpy_ns, g->span_ns);
    tp_buf_printf(b, "): busy %s (computation %s, exposed communication %s, exposed memcpy %s), ", p[0], p[1], p[2],
                  p[3]);
    tp_fmt_pct(p[0], sizeof p[0], g->idle_ns, g->span_ns);
    tp_buf_printf(b, "idle %s.\n", p[0]);

    const tp_categories *c = &s->cat;
    if (!c->n)
        return;
    size_t n = c->n < TP_MD_CATEGORIES ? c->n : TP_MD_CATEGORIES;
    int64_t most = 0; /* the column's unit: that of its largest value */
    for (size_t i = 0; i < n; i++)
        most = c->rows[i].device_ns > most ? c->rows[i].device_ns : most;
    int unit = tp_dur_unit(most);
    tp_buf_printf(b, "\n#### Categories\n\n| category | device time (%s) | share | top op |\n|---|---:|---:|---|\n",
                  tp_dur_unit_name(unit));
    for (size_t i = 0; i < n; i++) {
        const tp_cat_row *r = &c->rows[i];
        tp_buf_puts(b, "| ");
        tp_md_text(b, c->rules->names[r->category], 80);
        tp_fmt_dur_in(u, sizeof u, r->device_ns, unit);
        tp_fmt_pct(p[0], sizeof p[0], r->device_ns, c->total_ns);
        tp_buf_printf(b, " | %s | %s | ", u, p[0]);
        if (r->ntop)
            tp_md_code(b, c->leaves[r->top[0]].name, 40); /* a comment's column (issue 36 item 9) */
        tp_buf_puts(b, " |\n");
    }
    if (c->n > n)
        tp_buf_printf(b, "\n%zu more %s in report.pdf and summary.json.\n", c->n - n,
                      c->n - n == 1 ? "category" : "categories");
}
