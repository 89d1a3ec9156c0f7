/* capture_out.c: the graph-capture merge in the outputs (capture_out.h). */
#include "report/inference/capture_out.h"
#include "report/inference/infer_figs.h"
#include "convert/codec/json_write.h"
#include "convert/pipeline/graph_capture.h"
#include "render/text/report_text.h"
#include "render/text/units.h"

#include <stdio.h>
#include <string.h>

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool merged(const tp_capture_stats *c) { return c && c->nfiles > 0; }

/* What execution_details.json said that was ignored, once (in the line, and summary.json's note). */
static void details(const tp_capture_stats *c, bool md, tp_buf *b)
{
    if (!c->details_ignored)
        return;
    tp_buf_puts(b, "; ");
    if (md)
        tp_md_text(b, c->details_note, sizeof c->details_note);
    else
        tp_buf_puts(b, c->details_note);
    if (c->details_ignored > 1)
        tp_buf_printf(b, " and %u more", c->details_ignored - 1);
}

/* The line, shared by summary.md and stats: `md` escapes the file names.  s: the summary whose graph-replay
 * totals to use (tp_infer_replay_ns), NULL: t's, counted here. */
static void line(const tp_trace *t, const tp_summary *s, const tp_capture_stats *c, bool md, tp_buf *b)
{
    char u[64], v[64];
    if (!merged(c)) {
        uint64_t n = 0;
        int64_t ns = s ? tp_infer_replay_ns(s, &n) : tp_graph_replay_ns(t, &n);
        if (n == 0)
            return;
        tp_fmt_dur(u, sizeof u, ns);
        tp_fmt_count(v, sizeof v, n);
        tp_buf_printf(b,
                      "graph replays ran %s of device time (%s kernels) without ops or shapes: a trace recorded while "
                      "the graphs were captured (--graph-capture FILE, or a capture_traces/ folder beside the trace) "
                      "would map them to the ops and shapes that launched them",
                      u, v);
        return;
    }
    tp_buf_puts(b, "graph capture: ");
    for (size_t k = 0; k < c->nfiles; k++) {
        const tp_capture_file *f = &c->files[k];
        tp_buf_puts(b, k ? ", " : "");
        const char *name = base_name(f->path);
        if (md) {
            tp_buf_putc(b, '`');
            for (const char *p = name; *p; p++) /* a code span: no backtick, no line break inside */
                tp_buf_putc(b, *p == '`' || *p == '\n' || *p == '\r' || *p == '|' ? '?' : *p);
            tp_buf_putc(b, '`');
        } else
            tp_buf_puts(b, name);
        if (f->batch_size > 0 || f->mode[0]) {
            tp_buf_puts(b, " (");
            if (f->batch_size > 0)
                tp_buf_printf(b, "batch %lld%s", (long long)f->batch_size, f->mode[0] ? ", " : "");
            if (md) /* the file's text: Markdown-escaped as every name a trace or a file chose */
                tp_md_text(b, f->mode, sizeof f->mode);
            else
                tp_buf_puts(b, f->mode);
            tp_buf_putc(b, ')');
        }
    }
    tp_fmt_count(u, sizeof u, c->mapped);
    tp_fmt_count(v, sizeof v, c->activities);
    double share = c->activities_ns > 0 ? 100.0 * (double)c->mapped_ns / (double)c->activities_ns : 0;
    tp_buf_printf(b,
                  "; %s of %s replayed kernels mapped to captured ops (%.1f%% of their device time), "
                  "%llu of %llu graph launches matched a captured graph, %llu kernels unmapped, "
                  "%llu captured launches not replayed",
                  u, v, share, (unsigned long long)c->launches_matched, (unsigned long long)c->graph_launches,
                  (unsigned long long)(c->activities - c->mapped), (unsigned long long)c->not_replayed);
    if (c->over_bound)
        tp_buf_printf(b, "; %llu graph launches left unmatched: the matching's work bound (docs/ERRORS.md)",
                      (unsigned long long)c->over_bound);
    details(c, md, b);
}

void tp_capture_md(const tp_summary *s, tp_buf *b)
{
    size_t before = b->len;
    line(s->t, s, s->capture, true, b);
    if (b->len > before)
        tp_buf_puts(b, "\n\n");
}

void tp_capture_text(const tp_trace *t, const tp_capture_stats *c, tp_buf *b)
{
    size_t before = b->len;
    line(t, NULL, c, false, b);
    if (b->len > before)
        tp_buf_putc(b, '\n');
}

void tp_capture_json(const tp_summary *s, tp_buf *b)
{
    const tp_capture_stats *c = s->capture;
    uint64_t n = 0;
    int64_t ns = merged(c) ? c->activities_ns : tp_infer_replay_ns(s, &n);
    if (!merged(c) && n == 0)
        return;
    tp_buf_puts(b, "\"graph_capture\":{\"files\":[");
    for (size_t k = 0; merged(c) && k < c->nfiles; k++) {
        const tp_capture_file *f = &c->files[k];
        tp_buf_puts(b, k ? ",{\"file\":" : "{\"file\":");
        tp_json_str(b, f->path);
        if (f->batch_size > 0)
            tp_buf_printf(b, ",\"batch_size\":%lld", (long long)f->batch_size);
        else
            tp_buf_puts(b, ",\"batch_size\":null");
        tp_buf_puts(b, ",\"mode\":");
        tp_json_str_or_null(b, f->mode[0] ? f->mode : NULL);
        tp_buf_printf(b, ",\"graphs\":%u,\"launch_calls\":%llu}", f->graphs, (unsigned long long)f->calls);
    }
    if (merged(c))
        tp_buf_printf(b,
                      "],\"discovered\":%s,\"graph_launches\":%llu,\"launches_matched\":%llu,\"kernels\":%llu,"
                      "\"mapped\":%llu,\"unmapped\":%llu,\"device_ns\":%lld,\"mapped_ns\":%lld,\"not_replayed\":%llu,"
                      "\"ops_copied\":%llu,\"over_work_bound\":%llu,\"note\":",
                      c->discovered ? "true" : "false", (unsigned long long)c->graph_launches,
                      (unsigned long long)c->launches_matched, (unsigned long long)c->activities,
                      (unsigned long long)c->mapped, (unsigned long long)(c->activities - c->mapped), (long long)ns,
                      (long long)c->mapped_ns, (unsigned long long)c->not_replayed, (unsigned long long)c->ops_copied,
                      (unsigned long long)c->over_bound);
    if (merged(c)) {
        tp_buf tmp = {0};
        details(c, false, &tmp);
        tp_buf_putc(&tmp, 0);
        tp_json_str_or_null(b, c->details_ignored ? tmp.data + 2 : NULL);
        tp_buf_free(&tmp);
        tp_buf_puts(b, "},\n");
    } else {
        tp_buf_printf(b, "],\"discovered\":false,\"kernels\":%llu,\"device_ns\":%lld,\"note\":", (unsigned long long)n,
                      (long long)ns);
        tp_buf tmp = {0};
        line(s->t, s, c, false, &tmp);
        tp_buf_putc(&tmp, 0);
        tp_json_str(b, tmp.data);
        tp_buf_free(&tmp);
        tp_buf_puts(b, "},\n");
    }
}

void tp_capture_diff_md(const tp_summary *base, const tp_summary *cand, tp_buf *b)
{
    if (!merged(base->capture) && !merged(cand->capture))
        return; /* no capture on either side: diff.md as before */
    const tp_summary *side[2] = {base, cand};
    for (int k = 0; k < 2; k++) {
        tp_buf_puts(b, k ? "Candidate's " : "Base's ");
        size_t before = b->len;
        line(side[k]->t, side[k], side[k]->capture, true, b);
        if (b->len == before)
            tp_buf_puts(b, "graph capture: none (no graph replays)");
        tp_buf_puts(b, k ? "\n\n" : "  \n");
    }
    if (merged(base->capture) != merged(cand->capture))
        tp_buf_puts(b, "Only one side has its graph replays mapped to captured ops: op, category and efficiency "
                       "changes between them are partly the capture's, not the code's.\n\n");
}
