/* render_demo_real: charts from a real Kineto trace (HTA ns_resolution
 * ResNet sample), the way report/ pages will draw them:
 *     TP_KEEP_TMP=1 build/tp_tests render_demo_real
 * writes top80_total.png, top80_mean.png, names*.png, grid*.png,
 * timeline.png and real.pdf.  Checks: files written, PDF text, every
 * kernel of the top 80 gets a distinct short label, no kernel is "other". */
#include "render/charts/axis.h"
#include "render/canvas.h"
#include "render/charts/chart_bar.h"
#include "render/charts/chart_grid.h"
#include "render/charts/chart_table.h"
#include "render/charts/chart_timeline.h"
#include "tests/lib/harness.h"
#include "tests/lib/categorize.h"
#include "report/analysis/kernel_table.h"
#include "render/labels/kname.h"
#include "render/charts/legend.h"
#include "render/charts/palette.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>

#define PAGE_W 842.0
#define PAGE_H 595.0
static const tp_rect AREA = {24, 24, PAGE_W - 48, PAGE_H - 48};

typedef void (*page_fn)(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt);

static int cmp_mean(const void *a, const void *b)
{
    const tp_kernel_row *x = a, *y = b;
    return x->mean_ns != y->mean_ns ? (x->mean_ns < y->mean_ns ? 1 : -1) : (x->name > y->name) - (x->name < y->name);
}

static void top80(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt, int by_mean)
{
    size_t n = kt->n < 80 ? kt->n : 80;
    tp_kernel_row *rows = malloc((kt->n ? kt->n : 1) * sizeof *rows);
    memcpy(rows, kt->rows, kt->n * sizeof *rows);
    if (by_mean)
        qsort(rows, kt->n, sizeof *rows, cmp_mean);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    tp_color *col = malloc((n ? n : 1) * sizeof *col);
    const char **fam = malloc((n ? n : 1) * sizeof *fam);
    for (size_t i = 0; i < n; i++) {
        names[i] = tp_str_get(t, rows[i].name);
        v[i] = by_mean ? rows[i].mean_ns : rows[i].total_ns;
        fam[i] = tp_test_category(names[i]);
        col[i] = tp_palette_key(fam[i]);
    }
    size_t nleg;
    tp_legend_item *leg = tp_legend_for_keys(fam, NULL, n, &nleg);
    tp_barchart c = {.title = by_mean ? "Top 80 kernels by mean time per call" : "Top 80 kernels by total time",
                     .value_label = by_mean ? "mean time" : "total time",
                     .n = n,
                     .labels = names,
                     .values = v,
                     .colors = col,
                     .shorten_names = 1,
                     .value_labels = 1,
                     .legend = leg,
                     .nlegend = nleg};
    tp_cv_begin_page(cv, PAGE_W, PAGE_H, c.title);
    tp_barchart_draw(cv, &c, AREA);
    tp_cv_end_page(cv);
    free(rows), free(names), free(v), free(col), free(fam), free(leg);
}
static void page_total(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt) { top80(cv, t, kt, 0); }
static void page_mean(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt) { top80(cv, t, kt, 1); }

static void page_names(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt)
{
    size_t n = kt->n < 80 ? kt->n : 80;
    const char **full = calloc(n ? n : 1, sizeof *full);
    for (size_t i = 0; i < n; i++)
        full[i] = tp_str_get(t, kt->rows[i].name);
    char **shorts = tp_kname_shorten(full, n);
    const char **cells = malloc((n ? n : 1) * 5 * sizeof *cells);
    char(*num)[2][32] = malloc((n ? n : 1) * sizeof *num);
    for (size_t i = 0; i < n; i++) {
        snprintf(num[i][0], 32, "%llu", (unsigned long long)kt->rows[i].count);
        tp_format_duration(num[i][1], 32, (double)kt->rows[i].total_ns);
        cells[i * 5 + 0] = shorts[i];
        cells[i * 5 + 1] = tp_test_category(full[i]);
        cells[i * 5 + 2] = num[i][0];
        cells[i * 5 + 3] = num[i][1];
        cells[i * 5 + 4] = full[i];
    }
    tp_table_col cols[] = {{"short name", 0, TP_FIT_MIDDLE, 0},
                           {"family", 0, TP_FIT_END, 0},
                           {"calls", 1, TP_FIT_END, 0},
                           {"total", 1, TP_FIT_END, 0},
                           {"full kernel name", 0, TP_FIT_WRAP, 1}};
    tp_table tb = {"Kernel names (top 80 by total time)", 5, cols, n, cells, 7, 12, NULL};
    tp_table_layout *L = tp_table_layout_new(&tb, AREA.w, AREA.h);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        tp_cv_begin_page(cv, PAGE_W, PAGE_H, p ? NULL : "Kernel names");
        tp_table_draw_page(cv, &tb, L, p, AREA);
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
    tp_kname_free(shorts, n);
    free(full), free(cells), free(num);
}

/* Dominating-op grid: kernels grouped by the host op that launched them;
 * per op call, the families' times form its mix; calls with the same set
 * of families share one bar (times summed).  Top 24 ops by device time. */
typedef struct {
    uint32_t op; /* event index of the op call */
    tp_str op_name;
    const char *fam;
    int64_t ns;
} kev;
static int cmp_kev(const void *a, const void *b)
{
    const kev *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    return strcmp(x->fam, y->fam);
}
typedef struct {
    tp_str name;
    char *key;
    tp_mix_part parts[24];
    size_t nparts;
    int64_t total;
} opmix;
static int cmp_opmix(const void *a, const void *b)
{
    const opmix *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void page_grid(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt)
{
    (void)kt;
    kev *k = malloc((t->nevents ? t->nevents : 1) * sizeof *k);
    size_t nk = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if ((e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET) && e->op != TP_NONE &&
            !(e->flags & TP_EV_DROPPED))
            k[nk++] = (kev){e->op, t->events[e->op].name, tp_test_category(tp_str_get(t, e->name)), e->dur};
    }
    qsort(k, nk, sizeof *k, cmp_kev);
    /* one mix per op call */
    opmix *m = calloc(nk ? nk : 1, sizeof *m);
    size_t nm = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        opmix *o = &m[nm++];
        o->name = k[i].op_name;
        tp_buf key = {0};
        while (j < nk && k[j].op == k[i].op) {
            if (o->nparts == 0 || strcmp(o->parts[o->nparts - 1].family, k[j].fam) != 0) {
                if (o->nparts < 24)
                    o->parts[o->nparts++] = (tp_mix_part){k[j].fam, 0, 0};
                tp_buf_printf(&key, "%s;", k[j].fam);
            }
            o->parts[o->nparts - 1].ns += k[j].ns;
            o->total += k[j].ns;
            j++;
        }
        o->key = key.data;
        i = j;
    }
    /* merge calls of the same op with the same family set */
    qsort(m, nm, sizeof *m, cmp_opmix);
    size_t w = 0;
    for (size_t i = 0; i < nm; i++) {
        if (w > 0 && m[w - 1].name == m[i].name && strcmp(m[w - 1].key, m[i].key) == 0) {
            for (size_t p = 0; p < m[i].nparts; p++)
                m[w - 1].parts[p].ns += m[i].parts[p].ns;
            m[w - 1].total += m[i].total;
            free(m[i].key);
        } else {
            m[w++] = m[i];
        }
    }
    nm = w;
    /* ops (text before '#'), by total device time */
    tp_op_breakdown *ops = calloc(nm ? nm : 1, sizeof *ops);
    tp_kernel_mix *mixes = calloc(nm ? nm : 1, sizeof *mixes);
    int64_t *tot = calloc(nm ? nm : 1, sizeof *tot);
    size_t nops = 0;
    for (size_t i = 0; i < nm;) {
        size_t j = i;
        ops[nops] = (tp_op_breakdown){tp_str_get(t, m[i].name), mixes + i, 0, 0};
        while (j < nm && m[j].name == m[i].name) {
            mixes[j] = (tp_kernel_mix){m[j].parts, m[j].nparts, NULL, 0};
            tot[nops] += m[j].total;
            ops[nops].nmixes++;
            j++;
        }
        nops++;
        i = j;
    }
    for (size_t a = 1; a < nops; a++) /* insertion sort by total, few hundred ops */
        for (size_t b = a; b > 0 && tot[b] > tot[b - 1]; b--) {
            tp_op_breakdown to = ops[b];
            ops[b] = ops[b - 1], ops[b - 1] = to;
            int64_t tt = tot[b];
            tot[b] = tot[b - 1], tot[b - 1] = tt;
        }
    tp_grid_chart g = {"Dominating ops: kernel breakdown by family", ops, nops < 24 ? nops : 24};
    tp_grid_layout *L = tp_grid_layout_new(&g, AREA.w, AREA.h);
    for (size_t p = 0; p < tp_grid_pages(L); p++) {
        tp_cv_begin_page(cv, PAGE_W, PAGE_H, p ? NULL : "Dominating ops");
        tp_grid_draw_page(cv, &g, L, p, AREA);
        tp_cv_end_page(cv);
    }
    tp_grid_layout_free(L);
    for (size_t i = 0; i < nm; i++)
        free(m[i].key);
    free(k), free(m), free(ops), free(mixes), free(tot);
}

/* Device activity of the first step, coloured by kernel family. */
static void page_timeline(tp_canvas *cv, const tp_trace *t, const tp_kernel_table *kt)
{
    (void)kt;
    const tp_event *step = NULL;
    for (size_t i = 0; i < t->nevents && !step; i++)
        if (t->events[i].flags & TP_EV_STEP)
            step = &t->events[i];
    uint32_t *row_of = malloc((t->ntracks ? t->ntracks : 1) * sizeof *row_of);
    const char **labels = malloc((t->ntracks ? t->ntracks : 1) * sizeof *labels);
    char(*lb)[64] = malloc((t->ntracks ? t->ntracks : 1) * sizeof *lb);
    size_t nrows = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        row_of[i] = TP_NONE;
        if (t->tracks[i].role == TP_TRACK_DEVICE) {
            const char *nm = tp_str_get(t, t->tracks[i].name);
            snprintf(lb[nrows], 64, "%s", nm && *nm ? nm : "device");
            if (!(nm && *nm))
                snprintf(lb[nrows], 64, "stream %lld", (long long)t->tracks[i].tid);
            labels[nrows] = lb[nrows];
            row_of[i] = (uint32_t)nrows++;
        }
    }
    tp_tl_item *it = malloc((t->nevents ? t->nevents : 1) * sizeof *it);
    const char **full = malloc((t->nevents ? t->nevents : 1) * sizeof *full);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (row_of[e->track] == TP_NONE || e->ph != 'X' || (e->flags & TP_EV_DROPPED) ||
            !(e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET))
            continue;
        if (step && (e->ts < step->ts || e->ts > step->ts + step->dur))
            continue;
        full[n] = tp_str_get(t, e->name);
        it[n] = (tp_tl_item){row_of[e->track], e->ts, e->dur, NULL, tp_test_category(full[n]), 0};
        n++;
    }
    char **shorts = tp_kname_shorten(full, n);
    for (size_t i = 0; i < n; i++)
        it[i].name = shorts[i];
    tp_timeline tl = {"First profiler step: device activity by kernel family", nrows, labels, n, it, 0};
    tp_cv_begin_page(cv, PAGE_W, PAGE_H, "Timeline");
    tp_timeline_draw(cv, &tl, (tp_rect){AREA.x, AREA.y, AREA.w, 200});
    tp_cv_end_page(cv);
    tp_kname_free(shorts, n);
    free(row_of), free(labels), free(lb), free(it), free(full);
}

static const struct {
    const char *png;
    page_fn fn;
} pages[] = {{"top80_total", page_total},
             {"top80_mean", page_mean},
             {"names", page_names},
             {"grid", page_grid},
             {"timeline", page_timeline}};

TEST(render_demo_real_trace)
{
    const char *path = tp_test_shared("external/kineto/hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz");
    if (!tp_test_file_exists(path)) {
        fprintf(stderr, "  (skipping: %s not found)\n", path);
        return;
    }
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts o = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_load(path, &o, &t, &err), 0);
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    CHECK(kt.n > 20);

    /* by name alone (no leaf op), every kernel but the concatenation copies (which TraceLens files
     * under "other" too) has a category; top-80 short labels are distinct */
    size_t n = kt.n < 80 ? kt.n : 80;
    const char **full = malloc(n * sizeof *full);
    for (size_t i = 0; i < kt.n; i++) {
        const char *nm = tp_str_get(&t, kt.rows[i].name);
        if (i < n)
            full[i] = nm;
        if (strcmp(tp_test_category(nm), "other") == 0 && !strstr(nm, "CatArray"))
            tp_test_fail(__FILE__, __LINE__, "no category but other for %.120s", nm);
    }
    char **shorts = tp_kname_shorten(full, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK(strcmp(shorts[i], shorts[j]) != 0);
    tp_kname_free(shorts, n);
    free(full);

    char dir[600], p[700];
    snprintf(dir, sizeof dir, "%s", tp_test_tmp("real"));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    snprintf(p, sizeof p, "%s/real.pdf", dir);
    tp_canvas *pdf = tp_canvas_pdf(p, &(tp_pdf_meta){.title = "ResNet V100 sample"}, &err);
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        pages[i].fn(pdf, &t, &kt);
        snprintf(p, sizeof p, "%s/%s.png", dir, pages[i].png);
        tp_canvas *png = tp_canvas_png(p, 2, &err);
        pages[i].fn(png, &t, &kt);
        CHECK_EQ_INT(tp_canvas_close(png, &err), 0);
    }
    CHECK_EQ_INT(tp_canvas_close(pdf, &err), 0);
    if (getenv("TP_KEEP_TMP"))
        fprintf(stderr, "  real-trace charts in %s\n", dir);
    if (tp_test_have("pdftotext")) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s/real.pdf' - 2>/dev/null", dir), 0);
        CHECK(out && strstr(out, "Top 80 kernels by total time") && strstr(out, "Dominating ops"));
        free(out);
    }
    tp_kernel_table_free(&kt);
    tp_trace_free(&t);
}
