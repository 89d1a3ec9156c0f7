/* fpage_dvdt.c: the dv/dt (OpenCL) report content (issue 7), from
 * report/formats/dvdt/dvdt_analysis.h: per kernel pandas describe() of execution time
 * and queue wait, the per-position table, GEMM sizes with time and achieved
 * GFLOP/s, and for CK points the execution time per repetition (bar with
 * error bars) and the per-layer timing. */
#include "render/charts/chart_errbar.h"
#include "report/formats/dvdt/dvdt_analysis.h"
#include "report/formats/dvdt/fpage_dvdt.h"
#include "convert/codec/json_write.h"
#include "render/charts/palette.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dv_state {
    tp_dvdt_analysis a;
    bool ck; /* CK point: several repetitions or a time_fw_ms */
} dv_state;

static int dv_build(const tp_summary *s, const tp_fp_opts *o, void **state, tp_err *err)
{
    dv_state *st = tp_xcalloc(1, sizeof *st);
    tp_dvdt_analyse(s->t, &st->a);
    st->ck = st->a.nreps > 1;
    for (size_t i = 0; i < st->a.nreps; i++)
        st->ck = st->ck || st->a.reps[i].time_fw_ns >= 0;
    *state = st;
    return 0;
}

static void dv_free(void *p)
{
    dv_state *st = p;
    if (!st)
        return;
    tp_dvdt_analysis_free(&st->a);
    free(st);
}

/* ---- summary.json ---- */

static void jnum(tp_buf *b, double v)
{
    if (isnan(v))
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%.3f", v);
}

static void jdescribe(tp_buf *b, const tp_describe *d)
{
    tp_buf_printf(b, "{\"count\":%llu", (unsigned long long)d->count);
    static const char *const k[] = {"mean_ns", "std_ns", "min_ns", "p25_ns", "p50_ns", "p75_ns", "max_ns"};
    const double v[] = {d->mean, d->std, d->min, d->p25, d->p50, d->p75, d->max};
    for (int i = 0; i < 7; i++) {
        tp_buf_printf(b, ",\"%s\":", k[i]);
        jnum(b, v[i]);
    }
    tp_buf_putc(b, '}');
}

static void jname(tp_buf *b, const tp_trace *t, tp_str s)
{
    const char *n = tp_str_get(t, s);
    tp_json_put_string(b, n, strlen(n), NULL);
}

static void dv_json(const tp_summary *s, tp_buf *b)
{
    const dv_state *st = s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    const tp_trace *t = s->t;
    tp_buf_puts(b, "{\"kernels\":[");
    for (size_t i = 0; i < a->nkernels; i++) {
        const tp_dvdt_kernel_row *r = &a->kernels[i];
        tp_buf_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
        jname(b, t, r->name);
        tp_buf_printf(b, ",\"exec_total_ns\":%lld,\"exec\":", (long long)r->exec_total_ns);
        jdescribe(b, &r->exec);
        tp_buf_puts(b, ",\"queue_wait\":");
        jdescribe(b, &r->wait);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "],\n\"positions\":[");
    for (size_t i = 0; i < a->npositions; i++) {
        const tp_dvdt_position_row *r = &a->positions[i];
        tp_buf_printf(b, "%s{\"position\":%u,\"name\":", i ? ",\n" : "\n", r->position);
        jname(b, t, r->name);
        tp_buf_printf(b, ",\"mixed\":%s,\"exec\":", r->mixed ? "true" : "false");
        jdescribe(b, &r->exec);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "],\n\"gemms\":[");
    for (size_t i = 0; i < a->ngemms; i++) {
        const tp_dvdt_gemm_row *r = &a->gemms[i];
        tp_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        jname(b, t, r->name);
        tp_buf_printf(b, ",\"M\":%llu,\"N\":%llu,\"K\":%llu,\"count\":%llu,\"total_ns\":%lld,\"gflop\":%.6f,\"gflops\":",
                      (unsigned long long)r->m, (unsigned long long)r->n, (unsigned long long)r->k,
                      (unsigned long long)r->count, (long long)r->total_ns, r->gflop);
        jnum(b, r->gflops);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "],\n\"repetitions\":[");
    for (size_t i = 0; i < a->nreps; i++) {
        const tp_dvdt_rep_row *r = &a->reps[i];
        tp_buf_printf(b, "%s{\"repetition\":%d,\"kernels\":%llu,\"exec_total_ns\":%lld,\"time_fw_ns\":", i ? "," : "",
                      r->repetition, (unsigned long long)r->kernels, (long long)r->exec_total_ns);
        if (r->time_fw_ns >= 0)
            tp_buf_printf(b, "%lld}", (long long)r->time_fw_ns);
        else
            tp_buf_puts(b, "null}");
    }
    tp_buf_puts(b, "],\"repetition_exec\":");
    jdescribe(b, &a->rep_exec);
    tp_buf_puts(b, ",\"repetition_time_fw\":");
    jdescribe(b, &a->rep_time_fw);
    tp_buf_puts(b, ",\n\"layers\":[");
    for (size_t i = 0; i < a->nlayers; i++) {
        const tp_dvdt_layer_row *r = &a->layers[i];
        tp_buf_printf(b, "%s{\"repetition\":%d,\"label\":", i ? ",\n" : "\n", r->repetition);
        jname(b, t, r->label);
        tp_buf_printf(b, ",\"time_ns\":");
        if (r->time_ns >= 0)
            tp_buf_printf(b, "%lld", (long long)r->time_ns);
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"kernels\":%llu,\"kernel_ns\":%lld,\"parts\":[", (unsigned long long)r->kernels,
                      (long long)r->kernel_ns);
        for (size_t p = 0; p < r->nparts; p++) {
            const tp_dvdt_layer_part *q = &a->parts[r->first_part + p];
            tp_buf_puts(b, p ? ",{\"name\":" : "{\"name\":");
            jname(b, t, q->name);
            tp_buf_printf(b, ",\"count\":%llu,\"total_ns\":%lld}", (unsigned long long)q->count, (long long)q->total_ns);
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_printf(b, "],\"unassigned_kernels\":%llu}", (unsigned long long)a->unassigned);
}

/* ---- text ---- */

/* ns (a double from describe()) as us with 3 decimals; "-" for NaN (pandas' NaN). */
static const char *us3(tp_strs *S, double ns)
{
    if (isnan(ns))
        return "-";
    return tp_strs_add(S, "%.3f", ns / 1000.0);
}

static int64_t exec_sum(const tp_dvdt_analysis *a, uint64_t *n)
{
    int64_t tot = 0;
    *n = 0;
    for (size_t i = 0; i < a->nkernels; i++) {
        tot += a->kernels[i].exec_total_ns;
        *n += a->kernels[i].exec.count;
    }
    return tot;
}

static void dv_md(const tp_summary *s, tp_buf *b)
{
    const dv_state *st = s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    tp_strs S = {0};
    uint64_t n;
    char u[64];
    tp_fmt_us(u, sizeof u, exec_sum(a, &n));
    tp_buf_printf(b, "\n#### dv/dt (OpenCL)\n\n%llu kernel executions of %zu kernels, execution time %s.\n",
                  (unsigned long long)n, a->nkernels, u);
    if (a->nkernels) {
        tp_buf_puts(b, "\n| kernel | count | total (us) | mean (us) | std | min | 50% | max | wait mean (us) |\n"
                       "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < a->nkernels && i < 15; i++) {
            const tp_dvdt_kernel_row *r = &a->kernels[i];
            tp_buf_puts(b, "| ");
            tp_md_code(b, tp_str_get(s->t, r->name), SIZE_MAX);
            tp_buf_printf(b, " | %llu | %s | %s | %s | %s | %s | %s | %s |\n", (unsigned long long)r->exec.count, tp_strs_us(&S, r->exec_total_ns), us3(&S, r->exec.mean),
                          us3(&S, r->exec.std), us3(&S, r->exec.min), us3(&S, r->exec.p50), us3(&S, r->exec.max),
                          us3(&S, r->wait.mean));
        }
    }
    for (size_t i = 0; i < a->ngemms && i < 15; i++) {
        const tp_dvdt_gemm_row *r = &a->gemms[i];
        if (i == 0)
            tp_buf_puts(b, "\n| GEMM | M | N | K | count | total (us) | GFLOP/s |\n|---|---:|---:|---:|---:|---:|---:|\n");
        tp_buf_puts(b, "| ");
        tp_md_code(b, tp_str_get(s->t, r->name), SIZE_MAX);
        tp_buf_printf(b, " | %llu | %llu | %llu | %llu | %s | %.3f |\n", (unsigned long long)r->m, (unsigned long long)r->n, (unsigned long long)r->k,
                      (unsigned long long)r->count, tp_strs_us(&S, r->total_ns), r->gflops);
    }
    if (st->ck)
        tp_buf_printf(b, "\nCK point: %zu repetitions, kernel execution per repetition %s us mean (std %s us).\n",
                      a->nreps, us3(&S, a->rep_exec.mean), us3(&S, a->rep_exec.std));
    tp_strs_free(&S);
}

/* ---- pages ---- */

static void describe_cells(tp_strs *S, const tp_describe *d, const char **c)
{
    c[0] = tp_strs_add(S, "%llu", (unsigned long long)d->count);
    c[1] = us3(S, d->mean);
    c[2] = us3(S, d->std);
    c[3] = us3(S, d->min);
    c[4] = us3(S, d->p25);
    c[5] = us3(S, d->p50);
    c[6] = us3(S, d->p75);
    c[7] = us3(S, d->max);
}

#define DESC_COLS                                                                                                   \
    {"count", 1, TP_FIT_END, 0}, {"mean", 1, TP_FIT_END, 0}, {"std", 1, TP_FIT_END, 0}, {"min", 1, TP_FIT_END, 0}, \
        {"25%", 1, TP_FIT_END, 0}, {"50%", 1, TP_FIT_END, 0}, {"75%", 1, TP_FIT_END, 0}, {"max", 1, TP_FIT_END, 0}

static void pages_kernels(tp_canvas *cv, const tp_pagectx *pc, int wait)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    tp_strs S = {0};
    enum { NC = 10 };
    const size_t nc = wait ? NC - 1 : NC;
    const char **cells = tp_xcalloc(a->nkernels * NC + 1, sizeof *cells);
    for (size_t i = 0; i < a->nkernels; i++) {
        const tp_dvdt_kernel_row *r = &a->kernels[i];
        const char **c = cells + i * nc;
        c[0] = tp_str_get(pc->s->t, r->name);
        describe_cells(&S, wait ? &r->wait : &r->exec, c + 1);
        if (!wait)
            c[9] = tp_strs_us(&S, r->exec_total_ns);
    }
    tp_table_col cols[NC] = {{"kernel", 0, TP_FIT_MIDDLE, 1}, DESC_COLS, {"total", 1, TP_FIT_END, 0}};
    uint64_t n;
    int64_t tot = exec_sum(a, &n);
    const char *intro[2];
    intro[0] = tp_strs_add(&S, "%llu kernel executions of %zu kernels; execution time (end - start) %s us in all",
                           (unsigned long long)n, a->nkernels, tp_strs_us(&S, tot));
    intro[1] = "pandas describe(): std with ddof=1 (\"-\" for one value), quartiles by linear interpolation; "
               "microseconds, rounded to the ns; rows by total execution time";
    tp_table t = {wait ? "Queue wait (start - queued) per kernel, us" : "Execution time (end - start) per kernel, us", nc,
                  cols, a->nkernels, cells, 7.5, 1, NULL};
    tp_fp_paged_table(cv, pc, &t, wait ? "dv/dt: queue wait per kernel" : "dv/dt: execution time per kernel", intro, 2);
    free(cells);
    tp_strs_free(&S);
}

static void pages_positions(tp_canvas *cv, const tp_pagectx *pc)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    tp_strs S = {0};
    enum { NC = 10 };
    const char **cells = tp_xcalloc(a->npositions * NC + 1, sizeof *cells);
    for (size_t i = 0; i < a->npositions; i++) {
        const tp_dvdt_position_row *r = &a->positions[i];
        const char **c = cells + i * NC;
        c[0] = tp_strs_add(&S, "%u", r->position);
        c[1] = r->mixed ? tp_strs_add(&S, "%s (others in some repetitions)", tp_str_get(pc->s->t, r->name))
                        : tp_str_get(pc->s->t, r->name);
        describe_cells(&S, &r->exec, c + 2);
    }
    tp_table_col cols[NC] = {{"position", 1, TP_FIT_END, 0}, {"kernel (first repetition)", 0, TP_FIT_MIDDLE, 1},
                             DESC_COLS};
    const char *intro[1] = {tp_strs_add(&S,
                                        "The Nth kernel execution of each repetition (%zu repetition%s), described "
                                        "across repetitions; execution time in us",
                                        a->nreps, a->nreps == 1 ? "" : "s")};
    tp_table t = {"Execution time per position, us", NC, cols, a->npositions, cells, 7.5, 1, NULL};
    tp_fp_top_table(cv, pc, &t, "dv/dt: per position", intro, 1, "summary.json \"dvdt.positions\"");
    free(cells);
    tp_strs_free(&S);
}

static void pages_gemm(tp_canvas *cv, const tp_pagectx *pc)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    tp_strs S = {0};
    enum { NC = 8 };
    const char **cells = tp_xcalloc(a->ngemms * NC + 1, sizeof *cells);
    for (size_t i = 0; i < a->ngemms; i++) {
        const tp_dvdt_gemm_row *r = &a->gemms[i];
        const char **c = cells + i * NC;
        c[0] = tp_str_get(pc->s->t, r->name);
        c[1] = tp_strs_add(&S, "%llu", (unsigned long long)r->m);
        c[2] = tp_strs_add(&S, "%llu", (unsigned long long)r->n);
        c[3] = tp_strs_add(&S, "%llu", (unsigned long long)r->k);
        c[4] = tp_strs_add(&S, "%llu", (unsigned long long)r->count);
        c[5] = tp_strs_us(&S, r->total_ns);
        c[6] = tp_strs_add(&S, "%.6f", r->gflop);
        c[7] = isnan(r->gflops) ? "-" : tp_strs_add(&S, "%.3f", r->gflops);
    }
    tp_table_col cols[NC] = {{"GEMM kernel", 0, TP_FIT_MIDDLE, 1}, {"M", 1, TP_FIT_END, 0},
                             {"N", 1, TP_FIT_END, 0},              {"K", 1, TP_FIT_END, 0},
                             {"count", 1, TP_FIT_END, 0},          {"total (us)", 1, TP_FIT_END, 0},
                             {"GFLOP", 1, TP_FIT_END, 0},          {"GFLOP/s", 1, TP_FIT_END, 0}};
    const char *intro[1] = {"M, N, K = integer kernel arguments 0, 1, 2; GFLOP = 2*M*N*K*count / 1e9; "
                            "GFLOP/s = GFLOP / total execution time"};
    tp_table t = {"GEMM sizes", NC, cols, a->ngemms, cells, 8, 1, NULL};
    tp_fp_paged_table(cv, pc, &t, "dv/dt: GEMM sizes and GFLOP/s", intro, 1);
    free(cells);
    tp_strs_free(&S);
}

static bool has_ck(const tp_summary *s) { return ((const dv_state *)s->fp_state)->ck; }

static void chart_reps(tp_canvas *cv, const tp_pagectx *pc, tp_rect r)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    int64_t *ex = tp_xcalloc(a->nreps + 1, sizeof *ex), *fw = tp_xcalloc(a->nreps + 1, sizeof *fw);
    size_t nfw = 0;
    for (size_t i = 0; i < a->nreps; i++) {
        ex[i] = a->reps[i].exec_total_ns;
        if (a->reps[i].time_fw_ns >= 0)
            fw[nfw++] = a->reps[i].time_fw_ns;
    }
    tp_strs S = {0};
    tp_rep_series s1 = {"kernel execution (sum per repetition)", ex, a->nreps};
    tp_rep_series s2 = {"time_fw_ms (CK)", fw, nfw};
    /* two charts side by side: the two differ by orders of magnitude */
    double w = nfw ? (r.w - 20) / 2 : r.w;
    tp_errbar_draw(cv,
                   tp_strs_add(&S, "Kernel execution per repetition (n=%zu), +-1 std", a->nreps),
                   "time", &s1, 1, TP_ERR_STDDEV, (tp_rect){r.x, r.y, w, r.h});
    if (nfw)
        tp_errbar_draw(cv, tp_strs_add(&S, "CK time_fw_ms (n=%zu), +-1 std", nfw), "time", &s2, 1,
                       TP_ERR_STDDEV, (tp_rect){r.x + w + 20, r.y, w, r.h});
    tp_strs_free(&S);
    free(ex);
    free(fw);
}

static void pages_ck(tp_canvas *cv, const tp_pagectx *pc)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    tp_strs S = {0};
    enum { NC = 4 };
    const char **cells = tp_xcalloc(a->nreps * NC + 1, sizeof *cells);
    for (size_t i = 0; i < a->nreps; i++) {
        const tp_dvdt_rep_row *r = &a->reps[i];
        const char **c = cells + i * NC;
        c[0] = tp_strs_add(&S, "%d", r->repetition);
        c[1] = tp_strs_add(&S, "%llu", (unsigned long long)r->kernels);
        c[2] = tp_strs_us(&S, r->exec_total_ns);
        c[3] = r->time_fw_ns >= 0 ? tp_strs_us(&S, r->time_fw_ns) : "-";
    }
    tp_table_col cols[NC] = {{"repetition", 1, TP_FIT_END, 0},
                             {"kernels", 1, TP_FIT_END, 0},
                             {"kernel execution (us)", 1, TP_FIT_END, 0},
                             {"time_fw (us)", 1, TP_FIT_END, 0}};
    const char *intro[1] = {tp_strs_add(&S, "kernel execution: mean %s us, std %s us; time_fw: mean %s us, std %s us",
                                        us3(&S, a->rep_exec.mean), us3(&S, a->rep_exec.std),
                                        us3(&S, a->rep_time_fw.mean), us3(&S, a->rep_time_fw.std))};
    tp_table t = {"Repetitions", NC, cols, a->nreps, cells, 8, 1, NULL};
    tp_fp_chart_and_table(cv, pc, "dv/dt: CK repetitions", chart_reps, &t, "dv/dt: CK repetitions (table)", intro,
                          1);
    free(cells);
    tp_strs_free(&S);
}

static void pages_layers(tp_canvas *cv, const tp_pagectx *pc)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    const tp_trace *t = pc->s->t;
    tp_strs S = {0};
    enum { NC = 6 };
    const char **cells = tp_xcalloc(a->nlayers * NC + 1, sizeof *cells);
    for (size_t i = 0; i < a->nlayers; i++) {
        const tp_dvdt_layer_row *r = &a->layers[i];
        const char **c = cells + i * NC;
        c[0] = tp_strs_add(&S, "%d", r->repetition);
        c[1] = tp_str_get(t, r->label);
        c[2] = r->time_ns >= 0 ? tp_strs_us(&S, r->time_ns) : "-";
        c[3] = tp_strs_add(&S, "%llu", (unsigned long long)r->kernels);
        c[4] = tp_strs_us(&S, r->kernel_ns);
        tp_buf parts = {0};
        for (size_t p = 0; p < r->nparts; p++) {
            const tp_dvdt_layer_part *q = &a->parts[r->first_part + p];
            tp_buf_printf(&parts, "%s%s x%llu %s", p ? "; " : "", tp_str_get(t, q->name),
                          (unsigned long long)q->count, tp_strs_us(&S, q->total_ns));
        }
        c[5] = tp_strs_add(&S, "%s", parts.data ? parts.data : "");
        tp_buf_free(&parts);
    }
    tp_table_col cols[NC] = {{"rep", 1, TP_FIT_END, 0},           {"layer", 0, TP_FIT_MIDDLE, 0},
                             {"time (us, CK)", 1, TP_FIT_END, 0}, {"kernels", 1, TP_FIT_END, 0},
                             {"kernel time (us)", 1, TP_FIT_END, 0}, {"kernels in the layer (count, us)", 0, TP_FIT_WRAP, 1}};
    const char *intro[1] = {tp_strs_add(&S,
                                        "CK per_layer_info: a kernel belongs to the first layer whose window holds its "
                                        "start; %llu kernels of repetitions with layers fall in no window",
                                        (unsigned long long)a->unassigned)};
    tp_table tb = {"Per-layer timing", NC, cols, a->nlayers, cells, 7.5, 3, NULL};
    tp_fp_paged_table(cv, pc, &tb, "dv/dt: per-layer timing", intro, 1);
    free(cells);
    tp_strs_free(&S);
}

static void dv_draw(tp_canvas *cv, const tp_pagectx *pc)
{
    const dv_state *st = pc->s->fp_state;
    const tp_dvdt_analysis *a = &st->a;
    if (!a->nkernels) {
        tp_page_note(pc, "dv/dt kernels", "nothing to show: the trace has no kernel executions with profiling times.");
        return;
    }
    pages_kernels(cv, pc, 0);
    pages_kernels(cv, pc, 1);
    if (a->npositions)
        pages_positions(cv, pc);
    if (a->ngemms)
        pages_gemm(cv, pc);
    if (st->ck)
        pages_ck(cv, pc);
    if (a->nlayers)
        pages_layers(cv, pc);
}

static const tp_fp_png dv_pngs[] = {
    {"png/dvdt_repetitions.png", chart_reps, has_ck},
};

const tp_format_pages tp_fpages_dvdt = {
    "dvdt", "dvdt", dv_build, dv_free, dv_json, dv_md, dv_draw, dv_pngs, sizeof dv_pngs / sizeof dv_pngs[0],
};
