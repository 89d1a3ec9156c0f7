/* page_efficiency.c: "How efficient is it": the roofline of the op shapes
 * against the device's roof (the page and png/efficiency.png), then the
 * shapes with the most device time and the opportunities (device time x
 * (1 - fraction of the roof)) on a second page (docs/REPORT.md "The
 * efficiency page").  Traces without shapes, without a known device or
 * without device work get a note saying so instead of an empty chart. */
#include "convert/codec/json_value.h"
#include "render/charts/chart_roofline.h"
#include "render/charts/chart_table.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"
#include "report/pages/pages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FS 7.5
#define LABELLED 8  /* chart labels: the shapes with the most device time */
#define TOP_ROWS 24 /* the table of shapes, at most (fewer when the page is short) */
#define TOP_OPPS 8  /* opportunities */
#define MAX_SKIP_LINES 6

/* A family takes the colour of the category of the same name on "Where the
 * GPU time goes" (page_gpu_time.c cat_slots), so GEMM is its blue here too. */
/* ---- numbers and cells ---- */

/* A rate or an intensity: three significant digits, never an exponent. */
static const char *num(tp_strs *st, double v)
{
    if (!(v > 0))
        return "0";
    if (v >= 100)
        return tp_strs_add(st, "%.0f", v);
    if (v >= 10)
        return tp_strs_add(st, "%.1f", v);
    if (v < 1e-6)
        return "<0.000001";
    int dec = (int)ceil(-log10(v)) + 2;
    return tp_strs_add(st, "%.*f", dec > 6 ? 6 : dec, v);
}

static const char *pct_of_peak(tp_strs *st, double f)
{
    if (f < 0)
        return "-";
    if (f > 0 && f < 0.001)
        return "<0.1%";
    return tp_strs_add(st, "%.1f%%", f * 100);
}

/* A row above its roof is flagged "!" (its note says why). */
static const char *row_pct(tp_strs *st, const tp_eff_row *r)
{
    const char *p = pct_of_peak(st, r->peak_fraction);
    return r->roof_note ? tp_strs_add(st, "%s !", p) : p;
}

static const char *bound_text(int b) { return b == TP_BOUND_COMPUTE ? "compute" : b == TP_BOUND_MEMORY ? "memory" : "-"; }

/* One input's sizes: "2048x4096"; a list of tensors "(8x64, 8x64)"; a
 * scalar or a missing input ("[]", a string, null) nothing. */
static void dims_of(const tp_jv *v, tp_buf *b)
{
    if (!v || v->type != TP_JV_ARRAY || !v->n)
        return;
    if (tp_jv_at(v, 0)->type == TP_JV_ARRAY) {
        size_t start = b->len;
        tp_buf_putc(b, '(');
        for (size_t i = 0; i < v->n; i++) {
            if (b->len > start + 1)
                tp_buf_puts(b, ", ");
            dims_of(tp_jv_at(v, i), b);
        }
        tp_buf_putc(b, ')');
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const tp_jv *d = tp_jv_at(v, i);
        if (i)
            tp_buf_putc(b, 'x');
        tp_buf_printf(b, "%.*s", (int)(d->type == TP_JV_NUMBER ? d->len : 1), d->type == TP_JV_NUMBER ? d->s : "?");
    }
}

/* "[[2048,4096],[4096,4096],[]]" -> "2048x4096, 4096x4096"; "" (XLA) "-" */
static const char *shape_text(tp_strs *st, tp_jdoc *doc, const char *json)
{
    const tp_jv *v = NULL;
    tp_err err = {0};
    tp_jdoc_reset(doc);
    if (!json || !*json)
        return "-";
    if (tp_jv_parse_all(doc, json, strlen(json), &v, &err) != 0 || v->type != TP_JV_ARRAY)
        return json;
    tp_buf b = {0};
    for (size_t i = 0; i < v->n; i++) {
        size_t before = b.len;
        if (b.len)
            tp_buf_puts(&b, ", ");
        size_t mark = b.len;
        dims_of(tp_jv_at(v, i), &b);
        if (b.len == mark)
            b.len = before; /* nothing for a scalar */
    }
    const char *out = tp_strs_add(st, "%.*s", (int)b.len, b.data ? b.data : "");
    tp_buf_free(&b);
    return *out ? out : "scalars";
}

/* "Input type" names as people write dtypes */
static const char *dtype_short(const char *s, size_t n)
{
    static const char *const map[][2] = {
        {"c10::BFloat16", "bf16"},     {"c10::Half", "fp16"},         {"float", "fp32"},
        {"double", "fp64"},            {"c10::Float8_e4m3fn", "fp8"}, {"c10::Float8_e5m2", "fp8 e5m2"},
        {"c10::Float8_e4m3fnuz", "fp8"}, {"c10::Float8_e5m2fnuz", "fp8 e5m2"}, {"long int", "int64"},
        {"int", "int32"},              {"short int", "int16"},        {"signed char", "int8"},
        {"unsigned char", "uint8"},    {"bool", "bool"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == n && memcmp(map[i][0], s, n) == 0)
            return map[i][1];
    return NULL;
}

/* the distinct tensor dtypes, in order: "bf16", "fp32/bf16" */
static const char *dtype_text(tp_strs *st, tp_jdoc *doc, const char *json)
{
    const tp_jv *v = NULL;
    tp_err err = {0};
    tp_jdoc_reset(doc);
    if (!json || !*json || tp_jv_parse_all(doc, json, strlen(json), &v, &err) != 0 || v->type != TP_JV_ARRAY)
        return "-";
    char out[128] = "";
    for (size_t i = 0; i < v->n; i++) {
        size_t n = 0;
        const char *s = tp_jv_str(tp_jv_at(v, i), &n);
        if (!s || !n || (n >= 6 && memcmp(s, "Scalar", 6) == 0) || (n == 10 && memcmp(s, "TensorList", 10) == 0))
            continue;
        const char *m = dtype_short(s, n);
        char one[64];
        if (m)
            snprintf(one, sizeof one, "%s", m);
        else
            snprintf(one, sizeof one, "%.*s", (int)(n > 5 && memcmp(s, "c10::", 5) == 0 ? n - 5 : n),
                     n > 5 && memcmp(s, "c10::", 5) == 0 ? s + 5 : s);
        bool seen = false;
        for (char *p = out; (p = strstr(p, one)); p++)
            if ((p == out || p[-1] == '/') && (p[strlen(one)] == '/' || !p[strlen(one)]))
                seen = true;
        if (!seen && strlen(out) + strlen(one) + 2 < sizeof out)
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", *out ? "/" : "", one);
    }
    return *out ? tp_strs_add(st, "%s", out) : "-";
}

/* ---- the roofs: the peak classes the rows use, equal peaks as one ---- */

typedef struct roofs {
    tp_roof r[TP_PEAK_CLASSES];
    size_t n;
    char label[TP_PEAK_CLASSES][96];
    char bw[48];
} roofs;

static void class_name(int k, char *b, size_t n)
{
    snprintf(b, n, "%s", tp_peak_class_names[k]);
    for (char *p = b; *p; p++)
        if (*p == '_')
            *p = ' ';
}

static void roofs_of(const tp_efficiency *e, roofs *R)
{
    memset(R, 0, sizeof *R);
    const tp_device_peaks *d = &e->device;
    if (!d->known || !(d->mem_tbps > 0))
        return;
    bool used[TP_PEAK_CLASSES] = {0}, done[TP_PEAK_CLASSES] = {0};
    for (size_t i = 0; i < e->n; i++)
        if (e->rows[i].peak >= 0 && e->rows[i].peak < TP_PEAK_CLASSES)
            used[e->rows[i].peak] = true;
    for (int k = 0; k < TP_PEAK_CLASSES; k++) {
        if (!used[k] || done[k] || !(d->tflops[k] > 0))
            continue;
        char *lab = R->label[R->n], name[48];
        class_name(k, name, sizeof name);
        snprintf(lab, sizeof R->label[0], "%s", name);
        for (int j = k + 1; j < TP_PEAK_CLASSES; j++)
            if (used[j] && !done[j] && d->tflops[j] == d->tflops[k]) {
                done[j] = true;
                class_name(j, name, sizeof name);
                /* "matrix bf16, fp16": the class word once */
                const char *sp = strchr(name, ' ');
                size_t len = strlen(lab);
                snprintf(lab + len, sizeof R->label[0] - len, ", %s", sp && strncmp(name, lab, (size_t)(sp - name)) == 0 ? sp + 1 : name);
            }
        size_t len = strlen(lab);
        snprintf(lab + len, sizeof R->label[0] - len, " %.4g TFLOPS/s", d->tflops[k]);
        R->r[R->n] = (tp_roof){lab, d->tflops[k]};
        R->n++;
    }
    snprintf(R->bw, sizeof R->bw, "memory %.4g TB/s", d->mem_tbps);
}

/* ---- text lines ---- */

static double line(tp_canvas *cv, double x, double y, double w, tp_font f, double size, tp_color c, const char *s)
{
    return tp_page_para(cv, x, y, w, f, size, c, s, 3);
}

static const char *us(tp_strs *st, int64_t ns)
{
    char b[64];
    tp_fmt_dur(b, sizeof b, ns);
    return tp_strs_add(st, "%s", b);
}

static const char *share(tp_strs *st, int64_t part, int64_t whole)
{
    char b[32];
    tp_fmt_pct(b, sizeof b, part, whole);
    return tp_strs_add(st, "%s", b);
}

/* The device line: its peaks, or why there is no roof. */
static const char *device_text(tp_strs *st, const tp_efficiency *e, const roofs *R)
{
    const tp_device_peaks *d = &e->device;
    const char *mixed = e->mixed_devices ? tp_strs_add(st, " The trace describes %zu devices of different models: "
                                                           "the first one's peaks are used.", e->ndevices)
                                         : "";
    if (!e->have_device)
        return "The trace names no device: no roof and no % of peak.";
    if (!d->known) /* an XPlane GPU plane may describe a device without naming it */
        return tp_strs_add(st, "%s%s%s: %s. Without its peaks: no roof and no %% of peak.%s",
                           *d->trace_name ? "Device \"" : "The trace's device (its model unnamed)", d->trace_name,
                           *d->trace_name ? "\"" : "", tp_device_unknown_hint(), mixed);
    tp_buf b = {0};
    tp_buf_printf(&b, "Device: %s", d->label);
    if (*d->id && strcmp(d->id, d->label) != 0)
        tp_buf_printf(&b, " (table: %s)", d->id);
    tp_buf_printf(&b, ". Roof: %s", R->bw);
    for (size_t k = 0; k < R->n; k++)
        tp_buf_printf(&b, "; %s", R->r[k].label);
    tp_buf_printf(&b, " (dense peaks).%s", mixed);
    const char *out = tp_strs_add(st, "%s", b.data);
    tp_buf_free(&b);
    return out;
}

/* ---- page 1: the chart, or a note ---- */

void tp_chart_efficiency(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const tp_efficiency *e = &pc->s->eff;
    tp_strs st = {0};
    double x = r.x, w = r.w, y = r.y, bottom = r.y + r.h;
    char *title = tp_fit_end(TP_FONT_BOLD, 13, "How efficient is it", w);
    tp_cv_text(cv, x, y + 8 + tp_font_ascent(TP_FONT_BOLD, 13) / 2, TP_FONT_BOLD, 13, TP_COLOR_TEXT, TP_ALIGN_LEFT, 0,
               title);
    free(title);
    y += 20;
    if (e->device_ns <= 0) {
        line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT,
             "No device activity in this trace: no op ran on a device, nothing to compare with one.");
        tp_strs_free(&st);
        return;
    }
    roofs R;
    roofs_of(e, &R);
    if (e->n == 0) { /* why there is no chart, what got no cost, then the device */
        if (e->with_shapes == 0 && e->xla_costs == 0)
            y = line(cv, x, y, w, TP_FONT_BOLD, FS, TP_COLOR_TEXT,
                     tp_strs_add(&st, "This trace recorded no op shapes, so no op has FLOPs or bytes and there is no "
                                      "roofline. Record them with %s.", tp_eff_shapes_hint(e)));
        else
            y = line(cv, x, y, w, TP_FONT_BOLD, FS, TP_COLOR_TEXT,
                     "No op with a model (GEMM, convolution, attention, normalisation, softmax, elementwise, "
                     "reduce) launched device work with shapes the model can use: no roofline.");
        if (e->skipped)
            y = line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT,
                     tp_strs_add(&st, "%llu invocations of modelled ops got no cost (%s of device time):",
                                 (unsigned long long)e->skipped, us(&st, e->skipped_ns)));
        for (size_t i = 0; i < e->nskips && i < MAX_SKIP_LINES && y < bottom - 24; i++)
            y = line(cv, x + 8, y, w - 8, TP_FONT_REGULAR, FS, TP_COLOR_TEXT,
                     tp_strs_add(&st, "%s: %s (%llu, %s)", e->skips[i].op, e->skips[i].why,
                                 (unsigned long long)e->skips[i].count, us(&st, e->skips[i].device_ns)));
        if (e->nskips > MAX_SKIP_LINES)
            y = line(cv, x + 8, y, w - 8, TP_FONT_REGULAR, FS, TP_COLOR_MUTED,
                     tp_strs_add(&st, "%zu more: summary.json efficiency.no_cost", e->nskips - MAX_SKIP_LINES));
        line(cv, x, y + 3, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, device_text(&st, e, &R));
        tp_strs_free(&st);
        return;
    }
    y = line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_MUTED,
             "Achieved TFLOPS/s of each op and input shapes (one mark per shape, area by device time) against "
             "arithmetic intensity (FLOP per byte moved), under the device's roof: min(peak, intensity x memory "
             "bandwidth). docs/REPORT.md \"The efficiency page\".");
    y += 3;
    y = line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, device_text(&st, e, &R));
    /* coverage */
    tp_buf cov = {0};
    tp_buf_printf(&cov, "%zu shapes from %llu invocations: %s, %s of all device time (%s).", e->n,
                  (unsigned long long)e->invocations, us(&st, e->modelled_ns), share(&st, e->modelled_ns, e->device_ns),
                  us(&st, e->device_ns));
    if (e->skipped)
        tp_buf_printf(&cov, " %llu invocations got no cost (%s; why: summary.json efficiency.no_cost).",
                      (unsigned long long)e->skipped, us(&st, e->skipped_ns));
    if (e->host_copies)
        tp_buf_printf(&cov, " %llu only copied between host and device (not compared).",
                      (unsigned long long)e->host_copies);
    y = line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, cov.data);
    tp_buf_free(&cov);

    /* the marks coloured by their category (the one classification: the colour of the same
     * category on every page), the legend by category with its number of shapes */
    const tp_cat_rules *rules = pc->s->rules;
    tp_roofline_mark *m = tp_xcalloc(e->n, sizeof *m);
    size_t *cat_n = tp_xcalloc(rules->nnames + 1, sizeof *cat_n), nodraw = 0;
    int64_t nodraw_ns = 0;
    for (size_t i = 0; i < e->n; i++) {
        const tp_eff_row *row = &e->rows[i];
        uint32_t cat = row->category < rules->nnames ? row->category : rules->other;
        m[i] = (tp_roofline_mark){row->intensity, row->tflops, (double)row->device_ns, pc->cat_colors[cat],
                                  NULL, NULL, row->roof_note != NULL};
        if (i < LABELLED) {
            m[i].label = tp_strs_add(&st, "#%zu %s", i + 1, row->op);
            m[i].short_label = tp_strs_add(&st, "#%zu", i + 1);
        }
        cat_n[cat]++;
        if (!(row->intensity > 0) || !(row->tflops > 0))
            nodraw++, nodraw_ns += row->device_ns;
    }
    tp_legend_item *leg = tp_xcalloc(rules->nnames + 1, sizeof *leg);
    size_t nleg = 0;
    for (size_t k = 0; k < rules->nnames; k++)
        if (cat_n[k])
            leg[nleg++] = (tp_legend_item){tp_strs_add(&st, "%s (%zu)", rules->names[k], cat_n[k]), pc->cat_colors[k]};
    free(cat_n);
    const tp_eff_row *top = &e->rows[0];
    tp_buf foot = {0};
    tp_buf_printf(&foot, "Mark area by device time (the largest, #1: %s); #k = rank by device time, as in the "
                         "table on the next page.", us(&st, top->device_ns));
    if (nodraw)
        tp_buf_printf(&foot, " %zu shapes with no FLOPs or no bytes are not drawn (%s).", nodraw, us(&st, nodraw_ns));
    size_t above = 0;
    for (size_t i = 0; i < e->n; i++)
        above += e->rows[i].roof_note != NULL;
    double foot_h = FS * 1.4 * (above ? 3 : 2) + 4;
    tp_roofline c = {.x_title = "arithmetic intensity (FLOP/byte)",
                     .y_title = "achieved TFLOPS/s",
                     .bandwidth = R.n ? e->device.mem_tbps : 0,
                     .bandwidth_label = R.bw,
                     .roofs = R.r,
                     .nroofs = R.n,
                     .marks = m,
                     .n = e->n,
                     .legend = leg,
                     .nlegend = nleg,
                     .font_size = FS};
    tp_roofline_stats rs;
    y += 4;
    tp_roofline_draw(cv, &c, (tp_rect){x, y, w, bottom - y - foot_h}, &rs);
    if (rs.outside) /* the axes are sized by the shapes that carry time: say who fell outside */
        tp_buf_printf(&foot, " %zu more lie outside the axes (sized by the shapes with 0.1%% of the time or more).",
                      rs.outside);
    if (rs.ringed)
        tp_buf_printf(&foot, " %zu ringed: above their roof; why, on the next page (\"!\").", rs.ringed);
    line(cv, x, bottom - foot_h + 4, w, TP_FONT_REGULAR, FS, TP_COLOR_MUTED, foot.data);
    tp_buf_free(&foot);
    free(m);
    free(leg);
    tp_strs_free(&st);
}

/* ---- page 2: the shapes with the most time, the opportunities ---- */

enum { T_RANK, T_OP, T_DTYPE, T_SHAPE, T_COUNT, T_TIME, T_SHARE, T_TFLOPS, T_TBPS, T_INT, T_PEAK, T_BOUND, T_NC };
static const tp_table_col top_cols[T_NC] = {
    {"#", 1, 0, 0},          {"op", 0, TP_FIT_MIDDLE, 0},  {"dtype", 0, TP_FIT_END, 0}, {"input dims", 0, TP_FIT_END, 0},
    {"count", 1, 0, 0},      {"time", 1, 0, 0},       {"share", 1, 0, 0},               {"TFLOPS/s", 1, 0, 0},
    {"TB/s", 1, 0, 0},       {"FLOP/B", 1, 0, 0},          {"% of peak", 1, 0, 0},           {"bound", 1, 0, 0},
};
/* numbered in their own order (1, 2, 3: issue 36), each naming its row of the shapes' table and roofline mark */
enum { O_RANK, O_ROW, O_OP, O_DTYPE, O_SHAPE, O_TIME, O_PEAK, O_BOUND, O_HEAD, O_SHARE, O_NC };
static const tp_table_col opp_cols[O_NC] = {
    {"#", 1, 0, 0},         {"shape", 1, 0, 0},  {"op", 0, TP_FIT_MIDDLE, 0}, {"dtype", 0, TP_FIT_END, 0},   {"input dims", 0, TP_FIT_END, 0},
    {"time", 1, 0, 0}, {"% of peak", 1, 0, 0},      {"bound", 1, 0, 0},        {"headroom", 1, 0, 0},
    {"headroom share", 1, 0, 0},
};

/* the rows of a table that fit in one page of r (at least 1) */
static size_t rows_that_fit(const tp_table *t, tp_rect r)
{
    tp_table tt = *t;
    while (tt.nrows > 1) {
        tp_table_layout *L = tp_table_layout_new(&tt, r.w, r.h);
        size_t pages = tp_table_pages(L);
        tp_table_layout_free(L);
        if (pages <= 1)
            break;
        tt.nrows--;
    }
    return tt.nrows;
}

/* "! above its roof: #2, #5: WHY. #3: WHY.": the rows of the first n
 * flagged, grouped by reason; NULL when none is. */
static const char *above_notes(tp_strs *st, const tp_efficiency *e, size_t n)
{
    tp_buf b = {0};
    const char *done[8];
    size_t ndone = 0;
    for (size_t i = 0; i < n; i++) {
        const char *why = e->rows[i].roof_note;
        bool seen = false;
        for (size_t k = 0; k < ndone; k++)
            seen |= done[k] == why;
        if (!why || seen || ndone == 8)
            continue;
        done[ndone++] = why;
        tp_buf_puts(&b, b.len ? " " : "! above its roof (summary.json roof_note): ");
        for (size_t j = i, first = 1; j < n; j++)
            if (e->rows[j].roof_note == why)
                tp_buf_printf(&b, "%s#%zu", first ? "" : ", ", j + 1), first = 0;
        tp_buf_printf(&b, ": %s.", why);
    }
    const char *out = b.len ? tp_strs_add(st, "%s", b.data) : NULL;
    tp_buf_free(&b);
    return out;
}

static void tables_page(tp_canvas *cv, const tp_pagectx *pc)
{
    const tp_efficiency *e = &pc->s->eff;
    double m = TP_PAGE_MARGIN, x = m, w = pc->lw - 2 * m, y = m, bottom = pc->lh - m;
    tp_strs st = {0};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    tp_cv_begin_subpage(cv, pc->lw, pc->lh, "Op shapes by time, opportunities");
    y = tp_page_line(cv, x, y, TP_FONT_BOLD, 11, TP_COLOR_TEXT, "How efficient is it: op shapes by device time, opportunities");
    y = line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_MUTED,
             "Per op and input shapes: time = device time of its invocations, share = of all device time, rates over "
             "all its invocations, FLOP/B = arithmetic intensity, % of peak = of the roof at that intensity, bound = "
             "which part of the roof applies. All rows: summary.json efficiency.ops.");
    y += 4;

    /* the opportunities first: the shapes' table gets the room they leave */
    size_t nopp = e->nopportunities < TOP_OPPS ? e->nopportunities : TOP_OPPS;
    const char **oc = tp_xcalloc(nopp * O_NC + 1, sizeof *oc);
    for (size_t k = 0; k < nopp; k++) {
        size_t i = e->by_opportunity[k];
        const tp_eff_row *r = &e->rows[i];
        const char **c = oc + k * O_NC;
        c[O_RANK] = tp_strs_add(&st, "%zu", k + 1);
        c[O_ROW] = tp_strs_add(&st, "#%zu", i + 1);
        c[O_OP] = r->op;
        c[O_SHAPE] = shape_text(&st, &doc, r->input_dims);
        c[O_DTYPE] = dtype_text(&st, &doc, r->dtypes);
        c[O_TIME] = tp_strs_dur(&st, r->device_ns);
        c[O_PEAK] = row_pct(&st, r);
        c[O_BOUND] = bound_text(r->bound);
        c[O_HEAD] = tp_strs_dur(&st, r->opportunity_ns);
        c[O_SHARE] = share(&st, r->opportunity_ns, e->device_ns);
    }
    tp_table ot = {NULL, O_NC, opp_cols, nopp, oc, FS, 1, NULL};
    tp_table_layout *OL = tp_table_layout_new(&ot, w, bottom - y);
    double opp_h = 16 + (nopp ? tp_table_page_height(&ot, OL, 0) : FS * 1.4) + 14;

    /* the shapes with the most time */
    size_t n = e->n < TOP_ROWS ? e->n : TOP_ROWS;
    const char **cells = tp_xcalloc(n * T_NC + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const tp_eff_row *r = &e->rows[i];
        const char **c = cells + i * T_NC;
        c[T_RANK] = tp_strs_add(&st, "%zu", i + 1);
        c[T_OP] = r->op;
        c[T_SHAPE] = shape_text(&st, &doc, r->input_dims);
        c[T_DTYPE] = dtype_text(&st, &doc, r->dtypes);
        c[T_COUNT] = tp_strs_add(&st, "%llu", (unsigned long long)r->count);
        c[T_TIME] = tp_strs_dur(&st, r->device_ns);
        c[T_SHARE] = share(&st, r->device_ns, e->device_ns);
        c[T_TFLOPS] = num(&st, r->tflops);
        c[T_TBPS] = num(&st, r->tbps);
        c[T_INT] = r->bytes ? num(&st, r->intensity) : "-";
        c[T_PEAK] = row_pct(&st, r);
        c[T_BOUND] = bound_text(r->bound);
    }
    tp_table t = {NULL, T_NC, top_cols, n, cells, FS, 1, NULL};
    const char *notes = above_notes(&st, e, n);
    double notes_h = notes ? tp_page_para(NULL, x, 0, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, notes, 6) + 2 : 0;
    tp_rect tr = {x, y + 16, w, fmax(60, bottom - y - 16 - opp_h - notes_h)};
    t.nrows = rows_that_fit(&t, tr);
    y = tp_page_line(cv, x, y, TP_FONT_BOLD, 9, TP_COLOR_TEXT,
                     t.nrows < e->n ? tp_strs_add(&st, "The %zu op shapes with the most device time (of %zu)", t.nrows, e->n)
                                    : tp_strs_add(&st, "Op shapes by device time (%zu)", e->n));
    tp_table_layout *L = tp_table_layout_new(&t, tr.w, tr.h);
    tp_table_draw_page(cv, &t, L, 0, (tp_rect){x, y, w, tr.h});
    y += tp_table_page_height(&t, L, 0) + 14;
    tp_table_layout_free(L);
    if (notes)
        y = tp_page_para(cv, x, y - 10, w, TP_FONT_REGULAR, FS, TP_COLOR_TEXT, notes, 6) + 4;
    free(cells);

    y = tp_page_line(cv, x, y, TP_FONT_BOLD, 9, TP_COLOR_TEXT,
                     nopp < e->nopportunities
                         ? tp_strs_add(&st, "Opportunities: device time x (1 - fraction of the roof), the largest %zu of %zu "
                                            "(shape: its # above and on the roofline)", nopp, e->nopportunities)
                         : "Opportunities: device time x (1 - fraction of the roof), largest first (shape: its # above and "
                           "on the roofline)");
    if (nopp)
        tp_table_draw_page(cv, &ot, OL, 0, (tp_rect){x, y, w, bottom - y});
    else
        line(cv, x, y, w, TP_FONT_REGULAR, FS, TP_COLOR_MUTED,
             e->device.known ? "None: no shape has a fraction of the roof (no FLOPs, no bytes or no peak for its dtype)."
                             : "None: they need the device's peaks (see the device line on the previous page).");
    tp_table_layout_free(OL);
    free(oc);
    tp_cv_end_page(cv);
    tp_jdoc_free(&doc);
    tp_strs_free(&st);
}

/* ", the most: OP: WHY (count, time)": the first reason, by device time. */
static const char *top_skip(tp_strs *st, const tp_efficiency *e)
{
    if (!e->nskips)
        return "";
    return tp_strs_add(st, ", the most: %s: %s (%llu, %s)", e->skips[0].op, e->skips[0].why,
                       (unsigned long long)e->skips[0].count, us(st, e->skips[0].device_ns));
}

void tp_page_efficiency(tp_canvas *cv, const tp_pagectx *pc)
{
    double m = TP_PAGE_MARGIN;
    const tp_efficiency *e = &pc->s->eff;
    if (e->device_ns <= 0 || e->n == 0) { /* no roofline: one line on the overview */
        tp_strs st = {0};
        roofs R;
        roofs_of(e, &R);
        const char *nocost =
            e->skipped ? tp_strs_add(&st, "; %llu invocations of modelled ops (%s of device time) got no cost "
                                          "(summary.json efficiency.no_cost)%s",
                                     (unsigned long long)e->skipped, us(&st, e->skipped_ns), top_skip(&st, e))
                       : "";
        const char *why =
            e->device_ns <= 0 ? "no device activity in this trace, nothing to compare with a device."
            : e->with_shapes == 0 && e->xla_costs == 0
                ? tp_strs_add(&st, "no roofline: the trace recorded no op shapes (record them with %s)%s. %s",
                              tp_eff_shapes_hint(e), nocost, device_text(&st, e, &R))
                : tp_strs_add(&st, "no roofline: no modelled op (GEMM, convolution, attention, normalisation, "
                                   "softmax, elementwise, reduce) launched device work with shapes the model can "
                                   "use%s. %s", nocost, device_text(&st, e, &R));
        tp_page_note(pc, "How efficient is it", why);
        tp_strs_free(&st);
        return;
    }
    tp_cv_begin_page(cv, pc->lw, pc->lh, "How efficient is it");
    tp_chart_efficiency(cv, pc, (tp_rect){m, m, pc->lw - 2 * m, pc->lh - 2 * m});
    tp_cv_end_page(cv);
    tables_page(cv, pc);
}
