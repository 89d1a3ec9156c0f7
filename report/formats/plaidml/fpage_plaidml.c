/* fpage_plaidml.c: the PlaidML report content (issue 6).  Kernels by mean
 * and by total time are the generic pages (top 80 charts, kernel statistics
 * table); this adds the highest-mean and highest-total kernel with the
 * temporary memory of their program, the "Program Run" timeline of one
 * ScheduleInvocation (report/formats/plaidml/plaidml_program_run.h; --invocation N, default
 * the eleventh) and, with --with-source, the top kernels' OpenCL source and
 * program text. */
#include "render/charts/chart_timeline.h"
#include "report/formats/plaidml/fpage_plaidml.h"
#include "render/text/units.h"
#include "convert/read/plaidml/plaidml_opts.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "render/charts/palette.h"
#include "report/formats/plaidml/plaidml_program_run.h"

#include <stdlib.h>
#include <string.h>

typedef struct pml_text {
    const char *title; /* "OpenCL source of kernel_c4_sdk_2" (owned by strs) */
    char *text;        /* unescaped */
} pml_text;

typedef struct pml_state {
    tp_pml_program_run r;
    bool with_source;
    tp_strs strs;
    pml_text texts[4];
    size_t ntexts;
} pml_state;

/* The unescaped string value of top-level `key` of a JSON object, malloc'ed, or NULL. */
static char *args_string(const char *p, const char *end, const char *key)
{
    const char *why, *s, *next;
    size_t len, klen = strlen(key);
    bool esc;
    p = tp_json_ws(p, end);
    if (p >= end || *p != '{')
        return NULL;
    for (p++;;) {
        p = tp_json_ws(p, end);
        if (p >= end || *p != '"' || tp_json_string(p, end, &s, &len, &esc, &next, &why) != TP_JL_OK)
            return NULL;
        bool match = !esc && len == klen && memcmp(s, key, len) == 0;
        p = tp_json_ws(next, end);
        if (p >= end || *p != ':')
            return NULL;
        const char *v = tp_json_ws(p + 1, end);
        if (match && v < end && *v == '"') {
            if (tp_json_string(v, end, &s, &len, &esc, &next, &why) != TP_JL_OK)
                return NULL;
            tp_buf b = {0};
            tp_json_unescape(&b, s, len, NULL);
            tp_buf_putc(&b, 0);
            return b.data;
        }
        if (tp_json_skip(v, end, &next, &why) != TP_JL_OK)
            return NULL;
        p = tp_json_ws(next, end);
        if (p >= end || *p != ',')
            return NULL;
        p++;
    }
}

static char *event_arg(const tp_trace *t, uint32_t ev, const char *key)
{
    if (ev == TP_NONE || ev >= t->nevents || !t->events[ev].args)
        return NULL;
    size_t n;
    const char *a = tp_args_get(t, t->events[ev].args, &n);
    return args_string(a, a + n, key);
}

/* The kernel's OpenCL source: the "source" of the event whose "kernel" is it. */
static char *kernel_source(const tp_trace *t, const char *kernel)
{
    for (size_t i = 0; i < t->nevents; i++) {
        if (!t->events[i].args)
            continue;
        size_t n;
        const char *a = tp_args_get(t, t->events[i].args, &n);
        if (!memmem(a, n, "\"source\"", 8))
            continue;
        char *k = args_string(a, a + n, "kernel");
        bool same = k && strcmp(k, kernel) == 0;
        free(k);
        if (same)
            return args_string(a, a + n, "source");
    }
    return NULL;
}

static void add_texts(const tp_trace *t, pml_state *st, const tp_pml_kernel_mem *m)
{
    if (!m->kernel)
        return;
    const char *name = tp_str_get(t, m->kernel);
    for (size_t i = 0; i < st->ntexts; i++)
        if (strstr(st->texts[i].title, name))
            return; /* the same kernel is highest by mean and by total */
    char *src = kernel_source(t, name);
    st->texts[st->ntexts++] = (pml_text){tp_strs_add(&st->strs, "OpenCL source of %s", name), src};
    char *code = event_arg(t, m->compile_event, "program_code");
    st->texts[st->ntexts++] =
        (pml_text){tp_strs_add(&st->strs, "Program text of %s (compiles %s)", m->program[0] ? m->program : "?", name),
                   code};
}

static int pml_build(const tp_summary *s, const tp_fp_opts *o, void **state, tp_err *err)
{
    pml_state *st = tp_xcalloc(1, sizeof *st);
    size_t asked = tp_plaidml_opts_of(&o->read)->invocation;
    size_t n = asked ? asked : TP_PML_DEFAULT_INVOCATION;
    if (tp_pml_program_run_analyze(s->t, n, asked == 0, &st->r, err) < 0) {
        tp_pml_program_run_free(&st->r);
        free(st);
        return -1;
    }
    st->with_source = tp_plaidml_opts_of(&o->read)->with_source;
    if (st->with_source) {
        add_texts(s->t, st, &st->r.top_mean);
        add_texts(s->t, st, &st->r.top_total);
    }
    *state = st;
    return 0;
}

static void pml_free(void *p)
{
    pml_state *st = p;
    if (!st)
        return;
    tp_pml_program_run_free(&st->r);
    for (size_t i = 0; i < st->ntexts; i++)
        free(st->texts[i].text);
    tp_strs_free(&st->strs);
    free(st);
}

static void jstr(tp_buf *b, const char *s) { tp_json_put_string(b, s, strlen(s), NULL); }

static void pairs_json(tp_buf *b, const tp_pml_size_count *p, size_t n)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++)
        tp_buf_printf(b, "%s[%llu,%llu]", i ? "," : "", (unsigned long long)p[i].size, (unsigned long long)p[i].count);
    tp_buf_putc(b, ']');
}

static void kmem_json(const tp_trace *t, const tp_pml_kernel_mem *m, tp_buf *b)
{
    if (!m->kernel) {
        tp_buf_puts(b, "null");
        return;
    }
    tp_buf_puts(b, "{\"kernel\":");
    jstr(b, tp_str_get(t, m->kernel));
    tp_buf_printf(b, ",\"runs\":%llu,\"total_ns\":%lld,\"mean_ns\":%lld,\"program\":", (unsigned long long)m->runs,
                  (long long)m->total_ns, (long long)m->mean_ns);
    if (m->program[0])
        jstr(b, m->program);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"tmp_sizes\":");
    pairs_json(b, m->tmp, m->ntmp);
    tp_buf_printf(b, ",\"tmp_count\":%llu,\"tmp_bytes\":%llu,\"alloc_sizes\":", (unsigned long long)m->tmp_count,
                  (unsigned long long)m->tmp_bytes);
    pairs_json(b, m->alloc, m->nalloc);
    tp_buf_printf(b, ",\"alloc_count\":%llu,\"alloc_bytes\":%llu}", (unsigned long long)m->alloc_count,
                  (unsigned long long)m->alloc_bytes);
}

static void pml_json(const tp_summary *s, tp_buf *b)
{
    const pml_state *st = s->fp_state;
    const tp_pml_program_run *r = &st->r;
    tp_buf_printf(b, "{\"invocations\":%zu,\"program_run\":", r->ninvocations);
    if (r->invocation)
        tp_buf_printf(b,
                      "{\"invocation\":%zu,\"items\":%zu,\"descendants\":%zu,\"kernel_executions\":%zu,"
                      "\"mapping_events\":%zu,\"span_ns\":%lld}",
                      r->invocation, r->nitems, r->ndescendants, r->nexecutions, r->nmapping,
                      (long long)(r->t1 - r->t0));
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"top_mean\":");
    kmem_json(s->t, &r->top_mean, b);
    tp_buf_puts(b, ",\"top_total\":");
    kmem_json(s->t, &r->top_total, b);
    tp_buf_putc(b, '}');
}

static void pml_md(const tp_summary *s, tp_buf *b)
{
    const pml_state *st = s->fp_state;
    const tp_pml_program_run *r = &st->r;
    char u[64], v[64];
    tp_buf_puts(b, "\n#### PlaidML\n\n");
    if (r->invocation) {
        tp_md_dur(u, sizeof u, r->t1 - r->t0);
        tp_buf_printf(b,
                      "Program Run: ScheduleInvocation %zu of %zu, %zu descendants (%zu kernel executions), "
                      "%zu buffer-mapping events, %s.\n",
                      r->invocation, r->ninvocations, r->ndescendants, r->nexecutions, r->nmapping, u);
    } else if (!r->top_total.kernel)
        tp_buf_puts(b, "The log has no ScheduleInvocation and no kernel executions: nothing to show.\n");
    else
        tp_buf_puts(b, "The log has no ScheduleInvocation.\n");
    const tp_pml_kernel_mem *m[2] = {&r->top_mean, &r->top_total};
    static const char *const what[2] = {"highest mean", "highest total"};
    if (!m[0]->kernel)
        return;
    int ut = tp_dur_unit(m[0]->total_ns > m[1]->total_ns ? m[0]->total_ns : m[1]->total_ns);
    int um = tp_dur_unit(m[0]->mean_ns > m[1]->mean_ns ? m[0]->mean_ns : m[1]->mean_ns);
    tp_buf_printf(b, "\n| kernel | ranked by | runs | total (%s) | mean (%s) | program | temporaries | allocations |\n"
                     "|---|---|---:|---:|---:|---|---:|---:|\n",
                  tp_dur_unit_name(ut), tp_dur_unit_name(um));
    for (int i = 0; i < 2; i++) {
        tp_fmt_dur_in(u, sizeof u, m[i]->total_ns, ut);
        tp_fmt_dur_in(v, sizeof v, m[i]->mean_ns, um);
        tp_buf_puts(b, "| ");
        tp_md_code(b, tp_str_get(s->t, m[i]->kernel), SIZE_MAX);
        tp_buf_printf(b, " | %s | %llu | %s | %s | ", what[i], (unsigned long long)m[i]->runs, u, v);
        tp_md_text(b, m[i]->program[0] ? m[i]->program : "-", SIZE_MAX);
        tp_buf_printf(b, " | %llu (%llu bytes) | %llu (%llu bytes) |\n", (unsigned long long)m[i]->tmp_count,
                      (unsigned long long)m[i]->tmp_bytes, (unsigned long long)m[i]->alloc_count,
                      (unsigned long long)m[i]->alloc_bytes);
    }
}

/* ---- pages ---- */

static const char *short_verb(const char *v)
{
    const char *p = strrchr(v, ':');
    return p && p[1] ? p + 1 : v;
}

static void chart_run(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const pml_state *st = pc->s->fp_state;
    const tp_pml_program_run *pr = &st->r;
    const tp_trace *t = pc->s->t;
    tp_strs S = {0};
    if (!pr->invocation) {
        tp_page_line(cv, r.x, r.y, TP_FONT_REGULAR, 10, TP_COLOR_MUTED,
                     "The log has no plaidml::invoker::ScheduleInvocation: no Program Run to show.");
        return;
    }
    const char **labels = tp_xcalloc(pr->nrows + 1, sizeof *labels);
    tp_tl_item *it = tp_xcalloc(pr->nitems + 1, sizeof *it);
    for (size_t i = 0; i < pr->nitems; i++) {
        const tp_event *e = &t->events[pr->items[i].event];
        const char *verb = tp_str_get(t, e->cat);
        const char *name = tp_str_get(t, e->name);
        bool device = e->track < t->ntracks && t->tracks[e->track].role == TP_TRACK_DEVICE;
        uint32_t row = pr->items[i].row;
        /* kernel names on device bars (their name is the kernel), the verb's last part elsewhere */
        it[i] = (tp_tl_item){row, e->ts, e->dur, device ? name : short_verb(verb), verb, 0};
        /* row label: what the row holds (several kinds: joined) */
        const char *kind = pr->items[i].role == TP_PML_ITEM_INVOCATION ? "invocation"
                           : pr->items[i].role == TP_PML_ITEM_MAPPING  ? "mapping"
                           : device                                    ? "device"
                                      : tp_strs_add(&S, "depth %u", pr->items[i].depth);
        if (!labels[row])
            labels[row] = kind;
        else if (!strstr(labels[row], kind))
            labels[row] = tp_strs_add(&S, "%s, %s", labels[row], kind);
    }
    for (size_t k = 0; k < pr->nrows; k++)
        if (!labels[k])
            labels[k] = "";
    char span[64];
    tp_md_dur(span, sizeof span, pr->t1 - pr->t0);
    tp_page_line(cv, r.x, r.y + r.h - 11, TP_FONT_REGULAR, 8, TP_COLOR_MUTED,
                            tp_strs_add(&S,
                                        "%zu descendants (%zu kernel executions, named on their bars) and the %zu "
                                        "buffer-mapping events before the next invocation; %s; colour = verb",
                                        pr->ndescendants, pr->nexecutions, pr->nmapping, span));
    tp_timeline tl = {tp_strs_add(&S, "Program Run: ScheduleInvocation %zu of %zu", pr->invocation, pr->ninvocations),
                      pr->nrows, labels, pr->nitems, it, 0};
    tp_timeline_draw(cv, &tl, (tp_rect){r.x, r.y, r.w, r.h - 14});
    free(it);
    free(labels);
    tp_strs_free(&S);
}

static void kmem_rows(const tp_trace *t, const tp_pml_kernel_mem *m, const char *what, tp_strs *S, const char **c)
{
    c[0] = what;
    c[1] = tp_str_get(t, m->kernel);
    c[2] = tp_strs_add(S, "%llu", (unsigned long long)m->runs);
    c[3] = tp_strs_dur(S, m->total_ns);
    c[4] = tp_strs_dur(S, m->mean_ns);
    c[5] = m->program[0] ? m->program : "(no Compile lists it)";
    c[6] = tp_strs_add(S, "%llu in %zu sizes", (unsigned long long)m->tmp_count, m->ntmp);
    c[7] = tp_strs_add(S, "%llu", (unsigned long long)m->tmp_bytes);
    c[8] = tp_strs_add(S, "%llu in %zu sizes", (unsigned long long)m->alloc_count, m->nalloc);
    c[9] = tp_strs_add(S, "%llu", (unsigned long long)m->alloc_bytes);
}

static void page_memory(tp_canvas *cv, const tp_pagectx *pc)
{
    const pml_state *st = pc->s->fp_state;
    const tp_pml_program_run *r = &st->r;
    const tp_trace *t = pc->s->t;
    double m = TP_PAGE_MARGIN, w = pc->lw - 2 * m;
    tp_strs S = {0};
    tp_cv_begin_page(cv, pc->lw, pc->lh, "PlaidML: top kernels and their memory");
    double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 14, TP_COLOR_TEXT, "PlaidML: top kernels and their memory");
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                     "Kernels by total and by mean execution time: the pages \"Top kernels by total time\", \"Top "
                     "kernels by mean time\" and \"Kernel statistics\".");
    y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                     "Temporary memory: tmp_sizes and alloc_sizes of the CompilationInfo of the program whose "
                     "Compile lists the kernel (sizes in bytes).");
    if (!st->with_source)
        y = tp_page_line(cv, m, y, TP_FONT_REGULAR, 9, TP_COLOR_MUTED,
                         "--with-source adds the OpenCL source and program text of these kernels.");
    y += 6;
    if (!r->top_total.kernel) {
        tp_page_line(cv, m, y, TP_FONT_REGULAR, 10, TP_COLOR_MUTED, "The log has no kernel executions.");
        tp_cv_end_page(cv);
        tp_strs_free(&S);
        return;
    }
    enum { NC = 10 };
    const char *cells[2 * NC];
    kmem_rows(t, &r->top_mean, "highest mean", &S, cells);
    kmem_rows(t, &r->top_total, "highest total", &S, cells + NC);
    tp_table_col cols[NC] = {{"", 0, TP_FIT_END, 0},           {"kernel", 0, TP_FIT_MIDDLE, 1},
                             {"runs", 1, TP_FIT_END, 0},       {"total", 1, TP_FIT_END, 0},
                             {"mean", 1, TP_FIT_END, 0},  {"program", 0, TP_FIT_MIDDLE, 1},
                             {"temporaries", 1, TP_FIT_END, 0}, {"tmp bytes", 1, TP_FIT_END, 0},
                             {"allocations", 1, TP_FIT_END, 0}, {"alloc bytes", 1, TP_FIT_END, 0}};
    double th = 16 * 3 + 36;
    tp_draw_small_table(cv, "Highest-mean and highest-total kernel", cols, NC, cells, 2, (tp_rect){m, y, w, th});
    y += th + 10;
    /* size -> count tables, side by side: one pair per distinct program */
    const tp_pml_kernel_mem *km[2] = {&r->top_mean, &r->top_total};
    size_t nk = strcmp(r->top_mean.program, r->top_total.program) == 0 ? 1 : 2;
    double cw = (w - 30) / (2 * (double)nk);
    if (cw > 170)
        cw = 170;
    for (size_t k = 0; k < nk; k++) {
        const tp_pml_kernel_mem *x = km[nk == 1 ? 1 : k];
        for (int which = 0; which < 2; which++) {
            const tp_pml_size_count *p = which ? x->alloc : x->tmp;
            size_t n = which ? x->nalloc : x->ntmp;
            size_t shown = n < 24 ? n : 24;
            const char **c = tp_xcalloc(2 * shown + 1, sizeof *c);
            for (size_t i = 0; i < shown; i++) {
                c[2 * i] = tp_strs_add(&S, "%llu", (unsigned long long)p[i].size);
                c[2 * i + 1] = tp_strs_add(&S, "%llu", (unsigned long long)p[i].count);
            }
            tp_table_col sc[2] = {{"size (bytes)", 1, TP_FIT_END, 0}, {"count", 1, TP_FIT_END, 0}};
            const char *title = tp_strs_add(&S, "%s of %s%s", which ? "alloc_sizes" : "tmp_sizes",
                                            x->program[0] ? x->program : "?", n > shown ? " (first 24)" : "");
            double x0 = m + (double)(2 * k + (size_t)which) * (cw + 10);
            tp_draw_small_table(cv, title, sc, 2, c, shown, (tp_rect){x0, y, cw, pc->lh - m - y});
            free(c);
        }
    }
    tp_cv_end_page(cv);
    tp_strs_free(&S);
}

/* Monospace text over as many portrait pages as it needs; long lines wrap. */
static void text_pages(tp_canvas *cv, const tp_pagectx *pc, const char *title, const char *text)
{
    const double m = TP_PAGE_MARGIN, size = 7, lh = size * 1.3;
    double w = pc->pw - 2 * m;
    size_t cols = (size_t)(w / tp_text_width(TP_FONT_MONO, size, "M"));
    if (cols < 20)
        cols = 20;
    if (!text) {
        tp_cv_begin_page(cv, pc->pw, pc->ph, title);
        double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 12, TP_COLOR_TEXT, title);
        tp_page_line(cv, m, y + 4, TP_FONT_REGULAR, 10, TP_COLOR_MUTED, "Not in the log.");
        tp_cv_end_page(cv);
        return;
    }
    /* every page holds the same number of lines below its title */
    double y0 = m + tp_font_ascent(TP_FONT_BOLD, 11) + tp_font_descent(TP_FONT_BOLD, 11) + 11 * 0.35 + 4;
    size_t per_page = 0;
    for (double y = y0; y + lh <= pc->ph - m; y += lh)
        per_page++;
    if (per_page == 0)
        per_page = 1;
    size_t nlines = 0; /* after wrapping, as drawn below */
    for (const char *q = text; *q;) {
        size_t n = 0;
        while (q[n] && q[n] != '\n' && n < cols)
            n++;
        q += n;
        if (*q == '\n')
            q++;
        nlines++;
    }
    size_t pages = nlines ? (nlines + per_page - 1) / per_page : 1;
    const char *p = text;
    size_t page = 0;
    tp_strs S = {0};
    char *line = tp_xmalloc(cols + 1);
    while (*p || page == 0) {
        tp_cv_begin_section_page(cv, pc->pw, pc->ph, title, page, pages);
        double y = tp_page_line(cv, m, m, TP_FONT_BOLD, 11, TP_COLOR_TEXT,
                                page == 0 ? title : tp_strs_add(&S, "%s (continued)", title));
        y += 4;
        for (size_t i = 0; *p && i < per_page; i++) {
            size_t n = 0;
            while (p[n] && p[n] != '\n' && n < cols)
                n++;
            size_t k = 0;
            for (size_t j = 0; j < n; j++) /* tabs as 4 spaces would exceed the line: one space */
                line[k++] = p[j] == '\t' ? ' ' : p[j];
            line[k] = 0;
            tp_cv_text(cv, m, y + tp_font_ascent(TP_FONT_MONO, size), TP_FONT_MONO, size, TP_COLOR_TEXT, TP_ALIGN_LEFT,
                       0, line);
            y += lh;
            p += n;
            if (*p == '\n')
                p++;
        }
        tp_cv_end_page(cv);
        page++;
    }
    free(line);
    tp_strs_free(&S);
}

static void pml_draw(tp_canvas *cv, const tp_pagectx *pc)
{
    const pml_state *st = pc->s->fp_state;
    double m = TP_PAGE_MARGIN;
    if (!st->r.invocation && !st->r.top_total.kernel) {
        tp_strs S = {0};
        tp_page_note(pc, "PlaidML",
                        tp_strs_add(&S,
                                    "nothing to show: the log has no ScheduleInvocation and no kernel executions "
                                    "(%llu events read, "
                                    "%llu slices): no Program Run, no kernels, no memory to show.",
                                    (unsigned long long)pc->s->t->events_in, (unsigned long long)pc->s->slices));
        tp_strs_free(&S);
        return;
    }
    page_memory(cv, pc);
    tp_cv_begin_page(cv, pc->lw, pc->lh, "Program Run");
    chart_run(cv, pc, (tp_rect){m, m, pc->lw - 2 * m, pc->lh - 2 * m});
    tp_cv_end_page(cv);
    for (size_t i = 0; i < st->ntexts; i++)
        text_pages(cv, pc, st->texts[i].title, st->texts[i].text);
}

static bool has_run(const tp_summary *s) { return ((const pml_state *)s->fp_state)->r.invocation > 0; }

static const tp_fp_png pml_pngs[] = {
    {"png/plaidml_program_run.png", chart_run, has_run},
};

const tp_format_pages tp_fpages_plaidml = {
    "plaidml", "plaidml", pml_build, pml_free, pml_json, pml_md, pml_draw, pml_pngs, sizeof pml_pngs / sizeof pml_pngs[0],
};
