/* fpage_etdump.c: the ETDump report content (issue 5): the ExecuTorch
 * Inspector's event blocks as tables (per event count, p10/p50/p90, avg,
 * min, max in ms, op types, delegated or not), the top operators, and the
 * time per module when an ETRecord is given; summary.json gets the same
 * "etdump_inspector" object as `stats --json`. */
#include "render/charts/chart_bar.h"
#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/etdump/etrecord.h"
#include "report/formats/etdump/etdump_stats.h"
#include "report/formats/etdump/fpage_etdump.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "convert/base/sort.h"
#include "convert/base/strset.h"

#include <stdlib.h>
#include <string.h>

#define MD_EVENTS 15

typedef struct ed_op {
    const char *name;   /* points into the inspector */
    int64_t total_ns;   /* every sample of every event of that name */
    uint64_t samples;
    bool delegated;
    const char *backend;
} ed_op;

typedef struct ed_state {
    tp_inspector in;
    bool etrecord;      /* --etrecord given */
    ed_op *ops;         /* by total time, largest first, then name */
    size_t nops;
} ed_state;

static bool shown(const tp_insp_event *ev) { return !ev->excluded && ev->n > 0; }

#define OP_LESS(x, y, c) \
    ((x)->total_ns > (y)->total_ns || ((x)->total_ns == (y)->total_ns && strcmp((x)->name, (y)->name) < 0))
TP_SORT_DEFINE(sort_ops, ed_op, int, OP_LESS)

/* Operators: the events the Inspector's table shows, framework events
 * (Method::execute, ...) left out, summed by name over blocks and runs. */
static void collect_ops(ed_state *st)
{
    const tp_inspector *in = &st->in;
    size_t cap = 0;
    tp_strset keys = {0}; /* name, NUL, delegated -> the op's index + 1 */
    tp_buf key = {0};
    for (size_t b = 0; b < in->nblocks; b++)
        for (size_t j = 0; j < in->blocks[b].nevents; j++) {
            const tp_insp_event *ev = &in->blocks[b].events[j];
            if (!shown(ev) || ev->framework)
                continue;
            key.len = 0;
            tp_buf_put(&key, ev->name, strlen(ev->name) + 1);
            tp_buf_putc(&key, ev->delegated ? 'd' : '-');
            size_t k = tp_strset_add(&keys, key.data, key.len) - 1;
            if (k == st->nops) {
                TP_GROW(st->ops, cap, st->nops + 1);
                st->ops[st->nops++] = (ed_op){ev->name, 0, 0, ev->delegated, ev->backend};
            }
            for (size_t r = 0; r < ev->n; r++)
                st->ops[k].total_ns += ev->raw_ns[r];
            st->ops[k].samples += ev->n;
        }
    tp_buf_free(&key);
    tp_strset_free(&keys);
    sort_ops(st->ops, st->nops, 0); /* stable: equal rows keep their first-seen order */
}

static int ed_build(const tp_summary *s, const tp_fp_opts *o, void **state, tp_err *err)
{
    ed_state *st = tp_xcalloc(1, sizeof *st);
    if (tp_etdump_inspect_trace(s->t, s->opts.path, &o->read, &st->in, &st->etrecord, err) < 0) {
        free(st);
        return -1;
    }
    collect_ops(st);
    *state = st;
    return 0;
}

static void ed_free(void *p)
{
    ed_state *st = p;
    if (!st)
        return;
    tp_inspector_free(&st->in);
    free(st->ops);
    free(st);
}

static void ed_json(const tp_summary *s, tp_buf *b)
{
    const ed_state *st = s->fp_state;
    tp_inspector_json(&st->in, b);
}

static const char *ms(tp_strs *S, int64_t cns)
{
    char b[48];
    tp_insp_ms(b, cns);
    return tp_strs_add(S, "%s", b);
}

/* A page's duration (units.h), from hundredths of a ns rounded to whole ns. */
static const char *dur(tp_strs *S, int64_t cns) { return tp_strs_dur(S, (cns + (cns < 0 ? -50 : 50)) / 100); }

/* ["aten.mul.Tensor","x"] -> "aten.mul.Tensor, x"; "" for none. */
static const char *op_types_text(tp_strs *S, const char *json)
{
    if (!json)
        return "";
    char *out = tp_xmalloc(strlen(json) + 1);
    size_t n = 0;
    bool in_str = false;
    for (const char *c = json; *c; c++) {
        if (*c == '"' && (c == json || c[-1] != '\\'))
            in_str = !in_str;
        else if (in_str)
            out[n++] = *c;
        else if (*c == ',') {
            out[n++] = ',';
            out[n++] = ' ';
        }
    }
    out[n] = 0;
    const char *r = tp_strs_add(S, "%s", out);
    free(out);
    return r;
}

static const char *delegated_text(tp_strs *S, const tp_insp_event *ev)
{
    if (!ev->delegated)
        return "no";
    return ev->backend ? tp_strs_add(S, "yes (%s)", ev->backend) : "yes";
}

static const char *runs_text(tp_strs *S, const tp_insp_block *ob)
{
    if (ob->nruns == 1)
        return tp_strs_add(S, "run %u", ob->runs[0]);
    return tp_strs_add(S, "%zu identical runs merged (%u..%u)", ob->nruns, ob->runs[0], ob->runs[ob->nruns - 1]);
}

static void chart_ops(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const ed_state *st = pc->s->fp_state;
    size_t n = st->nops < TP_CHART_TOP ? st->nops : TP_CHART_TOP;
    const char **labels = tp_xmalloc((n + 1) * sizeof *labels);
    int64_t *vals = tp_xmalloc((n + 1) * sizeof *vals);
    tp_color *cols = tp_xmalloc((n + 1) * sizeof *cols);
    bool any_del = false, any_cpu = false;
    const tp_color cpu = tp_palette(0), del = tp_palette(1);
    tp_strs S = {0};
    for (size_t i = 0; i < n; i++) {
        /* delegated events are named by their delegate id: say whose */
        labels[i] = st->ops[i].delegated && st->ops[i].backend
                        ? tp_strs_add(&S, "%s [%s]", st->ops[i].name, st->ops[i].backend)
                        : st->ops[i].name;
        vals[i] = st->ops[i].total_ns;
        cols[i] = st->ops[i].delegated ? del : cpu;
        any_del = any_del || st->ops[i].delegated;
        any_cpu = any_cpu || !st->ops[i].delegated;
    }
    tp_legend_item leg[2];
    size_t nleg = 0;
    if (any_cpu)
        leg[nleg++] = (tp_legend_item){"not delegated", cpu};
    if (any_del)
        leg[nleg++] = (tp_legend_item){"delegated (run inside a backend)", del};
    const char *title = tp_strs_add(&S, "Top %zu operators by total time (of %zu; all runs, framework events left out)",
                                    n, st->nops);
    tp_barchart c = {.title = title,
                     .value_label = "total time",
                     .n = n,
                     .labels = labels,
                     .values = vals,
                     .colors = cols,
                     .value_labels = 1,
                     .legend = leg,
                     .nlegend = nleg};
    tp_barchart_draw(cv, &c, r);
    tp_strs_free(&S);
    free(cols);
    free(vals);
    free(labels);
}

static bool has_modules(const tp_summary *s) { return ((const ed_state *)s->fp_state)->in.nmodules > 0; }

static void chart_modules(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const ed_state *st = pc->s->fp_state;
    const tp_inspector *in = &st->in;
    size_t n = in->nmodules < TP_CHART_TOP ? in->nmodules : TP_CHART_TOP;
    const char **labels = tp_xmalloc((n + 1) * sizeof *labels);
    int64_t *vals = tp_xmalloc((n + 1) * sizeof *vals);
    for (size_t i = 0; i < n; i++) {
        labels[i] = in->modules[i].name;
        vals[i] = in->modules[i].total_ns;
    }
    tp_strs S = {0};
    tp_barchart c = {.title = tp_strs_add(&S, "Time per module (innermost module, from the ETRecord; top %zu of %zu)", n,
                                          in->nmodules),
                     .value_label = "total time",
                     .n = n,
                     .labels = labels,
                     .values = vals,
                     .value_labels = 1};
    tp_barchart_draw(cv, &c, r);
    tp_strs_free(&S);
    free(vals);
    free(labels);
}

/* The overview: what the ETDump holds, then the top operators chart. */
static void page_overview(tp_canvas *cv, const tp_pagectx *pc)
{
    const ed_state *st = pc->s->fp_state;
    const tp_inspector *in = &st->in;
    double m = TP_PAGE_MARGIN;
    tp_strs S = {0};
    tp_cv_begin_page(cv, pc->lw, pc->lh, "ExecuTorch Inspector");
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 14, TP_COLOR_TEXT, "ExecuTorch Inspector");
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                     tp_strs_add(&S,
                                 "%llu run%s, %llu profile events, %llu debug events, %llu program outputs; "
                                 "%zu event blocks; times in the ETDump are %s, shown in ms",
                                 (unsigned long long)in->nruns, in->nruns == 1 ? "" : "s",
                                 (unsigned long long)in->nprofile,
                                 (unsigned long long)in->ndebug, (unsigned long long)in->noutputs, in->nblocks,
                                 in->unit));
    if (in->nalloc_skipped || in->nwraparound || in->nbad_time)
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                         tp_strs_add(&S, "%llu allocation events skipped, %llu uint32 wraparounds, %llu bad times",
                                     (unsigned long long)in->nalloc_skipped, (unsigned long long)in->nwraparound,
                                     (unsigned long long)in->nbad_time));
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                     !st->etrecord     ? "No ETRecord given: --etrecord FILE adds op types and time per module."
                     : in->nmodules    ? "ETRecord given: op types, modules and backends come from it."
                                       : "ETRecord given, but it maps no event to a module or op type.");
    y += 6;
    tp_rect r = {m, y, pc->lw - 2 * m, pc->lh - m - y};
    if (st->nops)
        chart_ops(cv, pc, r);
    else
        tp_page_line(cv, m, y, TP_FONT_REGULAR, 10, TP_COLOR_MUTED, "The ETDump has no operator events to chart.");
    tp_cv_end_page(cv);
    tp_strs_free(&S);
}

static void page_block(tp_canvas *cv, const tp_pagectx *pc, size_t bi)
{
    const ed_state *st = pc->s->fp_state;
    const tp_insp_block *ob = &st->in.blocks[bi];
    tp_strs S = {0};
    enum { NC = 12 };
    const char **cells = tp_xcalloc(ob->nevents * NC + 1, sizeof *cells);
    size_t n = 0, hidden = 0, debug_only = 0;
    bool modules = false; /* the module column only when the ETRecord gave some */
    for (size_t j = 0; j < ob->nevents; j++)
        modules = modules || ob->events[j].module;
    const size_t nc = modules ? NC : NC - 1;
    for (size_t j = 0; j < ob->nevents; j++) {
        const tp_insp_event *ev = &ob->events[j];
        if (ev->excluded) {
            hidden++;
            continue;
        }
        if (!ev->n) {
            debug_only++;
            continue;
        }
        const char **c = cells + n++ * nc;
        c[0] = ev->name;
        c[1] = ev->instruction_id < 0 ? "-" : tp_strs_add(&S, "%d", ev->instruction_id);
        c[2] = tp_strs_add(&S, "%zu", ev->n);
        c[3] = dur(&S, ev->p10_cns);
        c[4] = dur(&S, ev->p50_cns);
        c[5] = dur(&S, ev->p90_cns);
        c[6] = dur(&S, ev->avg_cns);
        c[7] = dur(&S, ev->min_ns * 100);
        c[8] = dur(&S, ev->max_ns * 100);
        c[9] = op_types_text(&S, ev->op_types);
        c[10] = delegated_text(&S, ev);
        if (modules)
            c[11] = ev->module ? ev->module : "";
    }
    tp_table_col cols[NC] = {{"event", 0, TP_FIT_MIDDLE, 1},      {"instr", 1, TP_FIT_END, 0},
                             {"count", 1, TP_FIT_END, 0},         {"p10", 1, TP_FIT_END, 0},
                             {"p50", 1, TP_FIT_END, 0},      {"p90", 1, TP_FIT_END, 0},
                             {"avg", 1, TP_FIT_END, 0},      {"min", 1, TP_FIT_END, 0},
                             {"max", 1, TP_FIT_END, 0},      {"op types", 0, TP_FIT_WRAP, 1},
                             {"delegated", 0, TP_FIT_END, 0},     {"module", 0, TP_FIT_MIDDLE, 0}};
    const char *intro[3];
    size_t ni = 0;
    intro[ni++] = tp_strs_add(&S, "%s; %zu events shown%s", runs_text(&S, ob), n,
                              ob->bundled_input_index >= 0
                                  ? tp_strs_add(&S, "; bundled input %d", ob->bundled_input_index)
                                  : "");
    if (ob->has_tax)
        intro[ni++] = tp_strs_add(&S, "framework tax (Method::execute minus the instruction calls, average over runs): %s",
                                  dur(&S, ob->framework_tax_cns));
    if (hidden || debug_only)
        intro[ni++] = tp_strs_add(&S,
                                  "%zu OPERATOR_CALL events hidden as the Inspector's table hides them; %zu events with "
                                  "debug data only (all in summary.json)",
                                  hidden, debug_only);
    const char *title = tp_strs_add(&S, "Events of block \"%s\"", ob->name);
    tp_table t = {title, nc, cols, n, cells, 7.5, 3, NULL};
    const char *heading = tp_strs_add(&S, "Inspector: event block \"%s\"", ob->name);
    if (n)
        tp_fp_paged_table(cv, pc, &t, heading, intro, ni);
    else
        tp_page_note(pc, heading, "no event of this block has profiling data.");
    free(cells);
    tp_strs_free(&S);
}

static void page_modules(tp_canvas *cv, const tp_pagectx *pc)
{
    const ed_state *st = pc->s->fp_state;
    const tp_inspector *in = &st->in;
    tp_strs S = {0};
    enum { NC = 3 };
    const char **cells = tp_xcalloc(in->nmodules * NC + 1, sizeof *cells);
    for (size_t i = 0; i < in->nmodules; i++) {
        cells[i * NC] = in->modules[i].name;
        cells[i * NC + 1] = dur(&S, in->modules[i].total_ns * 100);
        cells[i * NC + 2] = tp_strs_add(&S, "%u", in->modules[i].events);
    }
    tp_table_col cols[NC] = {{"module", 0, TP_FIT_WRAP, 1}, {"total", 1, TP_FIT_END, 0}, {"events", 1, TP_FIT_END, 0}};
    tp_table t = {"Time per module", NC, cols, in->nmodules, cells, 8, 3, NULL};
    tp_fp_chart_and_table(cv, pc, "Time per module", chart_modules, &t, NULL, NULL, 0);
    free(cells);
    tp_strs_free(&S);
}

static void ed_draw(tp_canvas *cv, const tp_pagectx *pc)
{
    const ed_state *st = pc->s->fp_state;
    page_overview(cv, pc);
    for (size_t b = 0; b < st->in.nblocks; b++)
        page_block(cv, pc, b);
    if (st->in.nmodules)
        page_modules(cv, pc);
    else if (st->etrecord)
        tp_page_note(pc, "Time per module", "the ETRecord maps no event of this ETDump to a module.");
}

static void ed_md(const tp_summary *s, tp_buf *b)
{
    const ed_state *st = s->fp_state;
    tp_strs S = {0};
    tp_buf_printf(b, "\n#### ExecuTorch Inspector\n\n%llu runs in %zu event blocks; times in ms.\n",
                  (unsigned long long)st->in.nruns, st->in.nblocks);
    for (size_t bi = 0; bi < st->in.nblocks; bi++) {
        const tp_insp_block *ob = &st->in.blocks[bi];
        tp_buf_puts(b, "\n**");
        tp_md_text(b, ob->name, SIZE_MAX);
        tp_buf_printf(b, "** (%s)", runs_text(&S, ob));
        if (ob->has_tax)
            tp_buf_printf(b, ", framework tax %s ms", ms(&S, ob->framework_tax_cns));
        tp_buf_puts(b, "\n\n| event | instr | count | p50 | avg | min | max | delegated |\n"
                       "|---|---:|---:|---:|---:|---:|---:|---|\n");
        size_t shown_n = 0, more = 0;
        for (size_t j = 0; j < ob->nevents; j++) {
            const tp_insp_event *ev = &ob->events[j];
            if (!shown(ev))
                continue;
            if (shown_n == MD_EVENTS) {
                more++;
                continue;
            }
            shown_n++;
            tp_buf_puts(b, "| ");
            tp_md_code(b, ev->name, SIZE_MAX);
            tp_buf_printf(b, " | %s | %zu | %s | %s | %s | %s | ",
                          ev->instruction_id < 0 ? "-" : tp_strs_add(&S, "%d", ev->instruction_id), ev->n,
                          ms(&S, ev->p50_cns), ms(&S, ev->avg_cns), ms(&S, ev->min_ns * 100), ms(&S, ev->max_ns * 100));
            tp_md_text(b, delegated_text(&S, ev), SIZE_MAX);
            tp_buf_puts(b, " |\n");
        }
        if (more)
            tp_buf_printf(b, "\n%zu more events in report.pdf and summary.json.\n", more);
    }
    tp_strs_free(&S);
}

static const tp_fp_png ed_pngs[] = {
    {"png/etdump_operators.png", chart_ops, NULL},
    {"png/etdump_modules.png", chart_modules, has_modules},
};

const tp_format_pages tp_fpages_etdump = {
    "etdump", "etdump_inspector", ed_build, ed_free, ed_json, ed_md, ed_draw, ed_pngs, sizeof ed_pngs / sizeof ed_pngs[0],
};
