/* cp_out.c: the critical path in the text outputs (cp_out.h; docs/REPORT.md
 * "Critical path" defines every key). */
#include "report/out/cp_out.h"
#include "convert/codec/json_write.h"
#include "report/out/gpu_json.h"
#include "render/text/report_text.h"
#include "render/text/units.h"

#include <stdio.h>
#include <string.h>

static void path_json(const tp_summary *s, const tp_cp_path *p, tp_buf *b)
{
    const tp_trace *t = s->t;
    tp_buf_puts(b, "{\"step\":");
    if (p->step >= 0)
        tp_buf_printf(b, "%lld", (long long)p->step);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"window\":");
    if (p->window_ev != TP_NONE)
        tp_json_str(b, tp_str_get(t, t->events[p->window_ev].name));
    else
        tp_buf_puts(b, "null");
    tp_buf_printf(b,
                  ",\"start_ns\":%lld,\"length_ns\":%lld,\"weighted_ns\":%lld,\"graph\":{\"nodes\":%u,\"edges\":%u,"
                  "\"edges_by_type\":{",
                  (long long)(t->base_ns + p->ws), (long long)p->length_ns, (long long)p->weighted_ns, p->nodes, p->edges);
    for (int k = 0; k < TP_CPE_COUNT; k++)
        tp_buf_printf(b, "%s\"%s\":%u", k ? "," : "", tp_cp_edge_name(k), p->edges_of[k]);
    tp_buf_printf(b, "},\"sync_edges_weighted\":%u,\"negative_weights\":%u,", p->sync_nonzero, p->negative);
    if (p->sync_skipped) /* only past the budget (docs/REPORT.md "Critical path"): no key otherwise */
        tp_buf_printf(b, "\"sync_edges_skipped\":%llu,", (unsigned long long)p->sync_skipped);
    tp_buf_printf(b, "\"cycle\":%s", p->cycle ? "true" : "false");
    if (p->skipped) /* past the work budget (docs/REPORT.md "Critical path"): no key otherwise */
        tp_buf_puts(b, ",\"skipped\":true");
    tp_buf_puts(b, "},");
    tp_buf_printf(b, "\"path_events\":%u,\"path_edges\":%zu,\"path_edges_by_type\":{", p->path_events, p->path_edges);
    for (int k = 0; k < TP_CPE_COUNT; k++)
        tp_buf_printf(b, "%s\"%s\":%u", k ? "," : "", tp_cp_edge_name(k), p->path_edges_of[k]);
    tp_buf_puts(b, "},\"bound_ns\":{");
    for (int k = 0; k < TP_CPB_COUNT; k++)
        tp_buf_printf(b, "%s\"%s\":%lld", k ? "," : "", tp_cp_bound_name(k), (long long)p->bound_ns[k]);
    tp_buf_puts(b, "},\"bound_share\":{");
    for (int k = 0; k < TP_CPB_COUNT; k++) {
        tp_buf_printf(b, "%s\"%s\":", k ? "," : "", tp_cp_bound_name(k));
        tp_fraction_json(b, p->bound_ns[k], p->length_ns);
    }
    tp_buf_puts(b, "},\"top\":[");
    for (size_t i = 0; i < p->ntop; i++) {
        tp_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        tp_json_str(b, tp_str_get(t, p->top[i].name));
        tp_buf_printf(b, ",\"bound\":\"%s\",\"ns\":%lld,\"share\":", tp_cp_bound_name(p->top[i].bound),
                      (long long)p->top[i].ns);
        tp_fraction_json(b, p->top[i].ns, p->length_ns);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "],\"longest_cpu_op\":");
    if (p->longest_cpu_ns > 0) {
        tp_buf_puts(b, "{\"name\":");
        tp_json_str(b, tp_str_get(t, p->longest_cpu_name));
        tp_buf_printf(b, ",\"ns\":%lld}", (long long)p->longest_cpu_ns);
    } else
        tp_buf_puts(b, "null");
    tp_buf_putc(b, '}');
}

void tp_critical_json(const tp_summary *s, tp_buf *b)
{
    tp_buf_puts(b, "\"critical_path\":[");
    for (size_t i = 0; i < s->cp.n; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        path_json(s, &s->cp.paths[i], b);
    }
    tp_buf_puts(b, "]");
}

const tp_cp_path *tp_critical_shown(const tp_summary *s, size_t *index)
{
    if (!s->cp.n)
        return NULL;
    size_t i = !s->cp.annotation && s->sf.median != SIZE_MAX && s->sf.median < s->cp.n ? s->sf.median : 0;
    if (index)
        *index = i;
    return &s->cp.paths[i];
}

/* "62.0% CPU op, 20.1% kernel, ..." the bound types over 1% of the path, largest first */
static void shares_text(const tp_cp_path *p, tp_buf *b)
{
    int order[TP_CPB_COUNT];
    for (int k = 0; k < TP_CPB_COUNT; k++)
        order[k] = k;
    for (int i = 1; i < TP_CPB_COUNT; i++) /* insertion sort: largest first, ties in type order */
        for (int j = i; j > 0 && p->bound_ns[order[j]] > p->bound_ns[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int shown = 0;
    for (int i = 0; i < TP_CPB_COUNT; i++) {
        int k = order[i];
        if (p->bound_ns[k] <= 0 || (shown && p->bound_ns[k] * 100 < p->length_ns))
            continue;
        char pct[32];
        tp_fmt_pct(pct, sizeof pct, p->bound_ns[k], p->length_ns);
        tp_buf_printf(b, "%s%s %s", shown++ ? ", " : "", pct, tp_cp_bound_name(k));
    }
}

void tp_critical_md(const tp_summary *s, tp_buf *b)
{
    size_t i;
    const tp_cp_path *p = tp_critical_shown(s, &i);
    if (!p || p->length_ns <= 0)
        return;
    char d[64], lab[160];
    tp_md_dur(d, sizeof d, p->length_ns);
    if (s->cp.annotation)
        snprintf(lab, sizeof lab, "the window");
    else if (p->step >= 0)
        snprintf(lab, sizeof lab, "median step #%lld", (long long)p->step);
    else
        snprintf(lab, sizeof lab, "whole trace");
    tp_buf_printf(b, "\n**Critical path** (%s, %s): ", lab, d);
    shares_text(p, b);
    if (p->longest_cpu_ns > 0) {
        tp_md_dur(d, sizeof d, p->longest_cpu_ns);
        tp_buf_puts(b, "; longest host op on it ");
        tp_md_code(b, tp_str_get(s->t, p->longest_cpu_name), 80);
        tp_buf_printf(b, " %s", d);
    }
    tp_buf_puts(b, ".\n");
}

void tp_critical_text(const tp_summary *s)
{
    if (!s->cp.n)
        return;
    printf("\nCritical path (docs/REPORT.md \"Critical path\"; shares of each window):\n");
    for (size_t i = 0; i < s->cp.n; i++) {
        const tp_cp_path *p = &s->cp.paths[i];
        char d[64];
        tp_fmt_dur(d, sizeof d, p->length_ns);
        tp_buf b = {0};
        shares_text(p, &b);
        if (p->step >= 0)
            printf("  step %lld: %s: %s\n", (long long)p->step, d, b.data ? b.data : "");
        else
            printf("  %s: %s: %s\n", s->cp.annotation ? "window" : "whole trace", d, b.data ? b.data : "");
        tp_buf_free(&b);
    }
}
