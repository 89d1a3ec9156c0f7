/* mem_out.c: see mem_out.h */
#include "report/out/mem_out.h"

#include "convert/codec/json_write.h"
#include "render/text/units.h"
#include "render/text/report_text.h"

#include <string.h>

#define MEM_JSON_HOLDERS 20

void tp_memory_caveats(const tp_memory *m, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
#define ADD(...) (k += (size_t)snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__), k = k < n ? k : n - 1)
    /* one or many: "1 memory event lacks", "2 lack" */
#define S(n) ((n) == 1 ? "" : "s")
#define VS(n) ((n) == 1 ? "s" : "")
    if (m->lacking)
        ADD("%s%llu memory event%s lack%s Device Type or Bytes (skipped)", k ? "; " : "", (unsigned long long)m->lacking,
            S(m->lacking), VS(m->lacking));
    if (m->no_levels)
        ADD("%s%llu lack%s Total Allocated/Total Reserved (no levels from them)", k ? "; " : "",
            (unsigned long long)m->no_levels, VS(m->no_levels));
    if (m->no_addr)
        ADD("%s%llu lack%s Addr (not in the holders)", k ? "; " : "", (unsigned long long)m->no_addr, VS(m->no_addr));
    if (m->past_devices)
        ADD("%s%llu event%s of devices past the first %d (not modelled)", k ? "; " : "",
            (unsigned long long)m->past_devices, S(m->past_devices), TP_MEM_MAX_DEVICES);
    if (m->unmatched_frees) /* a block of before the trace, or one freed twice */
        ADD("%s%llu free%s without an allocation in the trace (made before it began, or freed twice)", k ? "; " : "",
            (unsigned long long)m->unmatched_frees, S(m->unmatched_frees));
#undef S
#undef VS
#undef ADD
}

static void step_or_null(tp_buf *b, int64_t step)
{
    if (step >= 0)
        tp_buf_printf(b, "%lld", (long long)step);
    else
        tp_buf_puts(b, "null");
}

static void holders_json(const tp_trace *t, tp_buf *b, const tp_mem_holder *h, size_t n)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < n && i < MEM_JSON_HOLDERS; i++) {
        tp_buf_puts(b, i ? ",{\"op\":" : "{\"op\":");
        if (h[i].op)
            tp_json_str(b, tp_str_get(t, h[i].op));
        else
            tp_buf_puts(b, "null");
        tp_buf_puts(b, ",\"module\":");
        if (h[i].module)
            tp_json_str(b, tp_str_get(t, h[i].module));
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"bytes\":%lld,\"allocations\":%llu}", (long long)h[i].bytes,
                      (unsigned long long)h[i].allocations);
    }
    tp_buf_putc(b, ']');
}

void tp_memory_json(const tp_summary *s, tp_buf *b)
{
    const tp_memory *m = &s->mem;
    const tp_trace *t = s->t;
    int64_t t0 = s->sf.span_start;
    tp_buf_printf(b,
                  "\"memory\":{\"events\":%llu,\"lacking_fields\":%llu,\"without_levels\":%llu,\"without_addr\":%llu,"
                  "\"frees_without_allocation\":%llu,\"allocations\":%llu,\"frees\":%llu,\"events_past_devices\":%llu,"
                  "\"devices\":[",
                  (unsigned long long)m->events, (unsigned long long)m->lacking, (unsigned long long)m->no_levels,
                  (unsigned long long)m->no_addr, (unsigned long long)m->unmatched_frees,
                  (unsigned long long)m->allocations, (unsigned long long)m->frees,
                  (unsigned long long)m->past_devices);
    size_t nd = 0;
    for (size_t j = 0; j < m->ndev; j++) {
        const tp_mem_device *d = &m->dev[j];
        if (!d->events)
            continue;
        tp_buf_puts(b, nd++ ? ",\n{\"device\":" : "\n{\"device\":");
        tp_json_str(b, d->label);
        tp_buf_printf(b, ",\"type\":%lld,\"id\":%lld,\"events\":%llu,\"capacity_bytes\":", (long long)d->type,
                      (long long)d->id, (unsigned long long)d->events);
        if (d->capacity)
            tp_buf_printf(b, "%lld", (long long)d->capacity);
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"peak_allocated_bytes\":%lld,\"peak_allocated_at_ns\":%lld,\"peak_allocated_step\":",
                      (long long)d->peak_allocated, (long long)(d->peak_allocated_ts - t0));
        step_or_null(b, d->peak_allocated_step);
        tp_buf_printf(b, ",\"peak_reserved_bytes\":%lld,\"peak_reserved_at_ns\":%lld,\"peak_reserved_step\":",
                      (long long)d->peak_reserved, (long long)(d->peak_reserved_ts - t0));
        step_or_null(b, d->peak_reserved_step);
        tp_buf_printf(b,
                      ",\"start_allocated_bytes\":%lld,\"end_allocated_bytes\":%lld,\"end_reserved_bytes\":%lld,"
                      "\"held_at_peak_seen_bytes\":%lld,\"held_at_peak_before_trace_bytes\":%lld,\"holders_count\":%zu,"
                      "\"holders\":",
                      (long long)d->first_allocated, (long long)d->last_allocated, (long long)d->last_reserved,
                      (long long)d->held_seen, (long long)d->held_before, d->nholders);
        holders_json(t, b, d->holders, d->nholders);
        tp_buf_puts(b, ",\"holders_innermost\":");
        holders_json(t, b, d->holders_inner, d->nholders_inner);
        tp_buf_puts(b, ",\"steps\":[");
        for (size_t k = 0; k < d->nsteps; k++) {
            const tp_mem_step *st = &d->steps[k];
            tp_buf_printf(b,
                          "%s{\"step\":%lld,\"start_bytes\":%lld,\"peak_bytes\":%lld,\"end_bytes\":%lld,"
                          "\"peak_reserved_bytes\":%lld,\"events\":%llu}",
                          k ? "," : "", (long long)st->step, (long long)st->start, (long long)st->peak,
                          (long long)st->end, (long long)st->peak_reserved, (unsigned long long)st->events);
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_puts(b, "]}");
}

static const char *holder_name(const tp_trace *t, const tp_mem_holder *h)
{
    return h->op ? tp_str_get(t, h->op) : "(no op)";
}

void tp_memory_md(const tp_summary *s, tp_buf *b)
{
    const tp_memory *m = &s->mem;
    if (!m->events)
        return;
    tp_buf_puts(b, "**Memory**: ");
    size_t nd = 0;
    for (size_t j = 0; j < m->ndev; j++) {
        const tp_mem_device *d = &m->dev[j];
        if (!d->events)
            continue;
        char a[48], r[48];
        tp_mem_bytes(a, sizeof a, d->peak_allocated);
        tp_mem_bytes(r, sizeof r, d->peak_reserved);
        /* the largest peak in bold: two bold spans a line at most (the lead's) */
        tp_buf_printf(b, d == tp_memory_top(m) ? "%s%s peak allocated **%s**" : "%s%s peak allocated %s",
                      nd++ ? "; " : "", d->label, a);
        if (d->peak_allocated_step >= 0)
            tp_buf_printf(b, " in step %lld", (long long)d->peak_allocated_step);
        tp_buf_printf(b, " (reserved peak %s)", r);
        if (d->nholders) {
            tp_mem_bytes(a, sizeof a, d->holders[0].bytes);
            tp_buf_puts(b, ", top holder ");
            tp_md_code(b, holder_name(s->t, &d->holders[0]), 120);
            tp_buf_printf(b, " %s", a);
        }
    }
    if (!nd)
        tp_buf_printf(b, "%llu memory events, none with levels", (unsigned long long)m->events);
    char c[400];
    tp_memory_caveats(m, c, sizeof c);
    if (c[0])
        tp_buf_printf(b, " (%s)", c);
    tp_buf_puts(b, ".\n\n");
}

void tp_memory_text(const tp_summary *s, FILE *f)
{
    const tp_memory *m = &s->mem;
    if (!m->events) {
        fprintf(f, "\nMemory: no [memory] events (record with profile_memory=True)\n");
        return;
    }
    fprintf(f, "\nMemory (docs/REPORT.md \"Memory\"; bytes): %llu events, %llu allocations, %llu frees\n",
            (unsigned long long)m->events, (unsigned long long)m->allocations, (unsigned long long)m->frees);
    for (size_t j = 0; j < m->ndev; j++) {
        const tp_mem_device *d = &m->dev[j];
        if (!d->events)
            continue;
        fprintf(f, "  %-8s peak allocated %lld", d->label, (long long)d->peak_allocated);
        if (d->peak_allocated_step >= 0)
            fprintf(f, " (step %lld)", (long long)d->peak_allocated_step);
        fprintf(f, ", peak reserved %lld, end allocated %lld", (long long)d->peak_reserved,
                (long long)d->last_allocated);
        if (d->nholders)
            fprintf(f, ", top holder %s %lld", holder_name(s->t, &d->holders[0]), (long long)d->holders[0].bytes);
        fputc('\n', f);
    }
    char c[400];
    tp_memory_caveats(m, c, sizeof c);
    if (c[0])
        fprintf(f, "  (%s)\n", c);
}
