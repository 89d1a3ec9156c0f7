/* diff_eff.c: efficiency rows matched per shape (diff_eff.h). */
#include "report/diff/diff_eff.h"
#include "convert/base/strset.h"
#include "report/out/eff_json.h"
#include "report/out/eff_text.h"
#include "render/text/report_text.h"
#include "convert/codec/json_write.h"

#include <stdlib.h>
#include <string.h>

static void key_of(const tp_eff_row *r, tp_buf *k)
{
    k->len = 0;
    /* the row's whole key: rows of one run differ in FLOPs or bytes when
     * their recorded inputs are equal (a sum over another dim) */
    tp_buf_printf(k, "%s\x1f%s\x1f%s\x1f%s\x1f%llu\x1f%llu", r->op, r->input_dims, r->dtypes, r->strides,
                  (unsigned long long)r->flops, (unsigned long long)r->bytes);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const tp_diff_eff_row *a = pa, *b = pb;
    int64_t x = llabs(a->delta_ns), y = llabs(b->delta_ns);
    if (x != y)
        return x > y ? -1 : 1;
    const tp_eff_row *ra = a->r[0], *rb = b->r[0];
    int c = strcmp(ra->op, rb->op);
    if (!c)
        c = strcmp(ra->input_dims, rb->input_dims);
    if (!c)
        c = strcmp(ra->dtypes, rb->dtypes);
    return c ? c : strcmp(ra->strides, rb->strides);
}

void tp_diff_eff_build(const tp_summary *base, const tp_summary *cand, tp_diff_eff *d)
{
    memset(d, 0, sizeof *d);
    const tp_efficiency *e[2] = {&base->eff, &cand->eff};
    tp_strset keys = {0};
    tp_buf k = {0};
    /* base rows by key (ids 1..n in row order: keys are unique per run) */
    for (size_t i = 0; i < e[0]->n; i++) {
        key_of(&e[0]->rows[i], &k);
        tp_strset_add(&keys, k.data, k.len);
    }
    bool *matched = tp_xcalloc(e[0]->n + 1, 1);
    size_t cap = 0;
    for (size_t i = 0; i < e[1]->n; i++) {
        const tp_eff_row *c = &e[1]->rows[i];
        key_of(c, &k);
        size_t before = keys.n;
        uint32_t id = tp_strset_add(&keys, k.data, k.len);
        if (keys.n > before || id > e[0]->n) {
            d->only[1]++;
            d->only_ns[1] += c->device_ns;
            continue;
        }
        const tp_eff_row *b = &e[0]->rows[id - 1];
        matched[id - 1] = true;
        TP_GROW(d->rows, cap, d->n + 1);
        tp_diff_eff_row *r = &d->rows[d->n++];
        r->r[0] = b, r->r[1] = c;
        r->delta_ns = c->device_ns - b->device_ns;
        r->has_rel = b->tflops > 0;
        r->tflops_rel = r->has_rel ? c->tflops / b->tflops - 1 : 0;
    }
    for (size_t i = 0; i < e[0]->n; i++)
        if (!matched[i]) {
            d->only[0]++;
            d->only_ns[0] += e[0]->rows[i].device_ns;
        }
    free(matched);
    tp_buf_free(&k);
    tp_strset_free(&keys);
    if (d->n)
        qsort(d->rows, d->n, sizeof *d->rows, cmp_rows);
}

void tp_diff_eff_free(tp_diff_eff *d)
{
    free(d->rows);
    memset(d, 0, sizeof *d);
}

void tp_diff_eff_json(const tp_diff_eff *d, tp_buf *b)
{
    tp_buf_printf(b, "\"efficiency\":{\"base_only\":{\"shapes\":%zu,\"device_ns\":%lld},"
                     "\"candidate_only\":{\"shapes\":%zu,\"device_ns\":%lld},\"matched\":[",
                  d->only[0], (long long)d->only_ns[0], d->only[1], (long long)d->only_ns[1]);
    for (size_t i = 0; i < d->n; i++) {
        const tp_diff_eff_row *r = &d->rows[i];
        tp_buf_puts(b, i ? ",\n{\"op\":" : "\n{\"op\":");
        tp_json_put_string(b, r->r[0]->op, strlen(r->r[0]->op), NULL);
        tp_buf_printf(b, ",\"input_dims\":%s,\"dtypes\":%s,\"input_strides\":%s,\"flops\":%llu,\"bytes\":%llu",
                      r->r[0]->input_dims[0] ? r->r[0]->input_dims : "null",
                      r->r[0]->dtypes[0] ? r->r[0]->dtypes : "null", r->r[0]->strides[0] ? r->r[0]->strides : "null",
                      (unsigned long long)r->r[0]->flops, (unsigned long long)r->r[0]->bytes);
        for (int k = 0; k < 2; k++) {
            tp_buf_printf(b, ",\"%s\":{\"count\":%llu,\"device_ns\":%lld,\"tflops_per_s\":", k ? "candidate" : "base",
                          (unsigned long long)r->r[k]->count, (long long)r->r[k]->device_ns);
            tp_eff_number_json(b, r->r[k]->tflops);
            tp_buf_puts(b, ",\"peak_fraction\":");
            tp_eff_number_json(b, r->r[k]->peak_fraction);
            tp_buf_puts(b, "}");
        }
        tp_buf_printf(b, ",\"delta_ns\":%lld,\"tflops_per_s_rel\":", (long long)r->delta_ns);
        if (r->has_rel)
            tp_buf_printf(b, "%.6f", r->tflops_rel + 0.0);
        else
            tp_buf_puts(b, "null");
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "]}");
}

void tp_diff_eff_md(const tp_diff_eff *d, size_t top, tp_buf *b)
{
    size_t *pick = tp_xcalloc(d->n + 1, sizeof *pick), shown = 0;
    int64_t mt = 0, md = 0; /* each column's unit: that of its largest value */
    for (size_t i = 0; i < d->n && shown < top; i++) {
        const tp_diff_eff_row *r = &d->rows[i];
        if (!r->delta_ns && r->r[0]->count == r->r[1]->count)
            continue;
        pick[shown++] = i;
        for (int k = 0; k < 2; k++)
            mt = r->r[k]->device_ns > mt ? r->r[k]->device_ns : mt;
        int64_t m = r->delta_ns < 0 ? -r->delta_ns : r->delta_ns;
        md = m > md ? m : md;
    }
    int ut = tp_dur_unit(mt), ud = tp_dur_unit(md);
    if (shown)
        tp_buf_printf(b, "#### TFLOPS/s per matched shape (largest time change first)\n\n"
                         "| op | shapes | dtype | count | base (%s) | candidate (%s) | delta (%s) | base TFLOPS/s | "
                         "candidate TFLOPS/s | change |\n"
                         "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
                      tp_dur_unit_name(ut), tp_dur_unit_name(ut), tp_dur_unit_name(ud));
    for (size_t k = 0; k < shown; k++) {
        const tp_diff_eff_row *r = &d->rows[pick[k]];
        char shape[96], dtype[32], t0[64], t1[64], dl[64], f0[24], f1[24], rel[32] = "-";
        tp_eff_shape(r->r[0], shape, sizeof shape);
        tp_eff_dtype(r->r[0], dtype, sizeof dtype);
        tp_fmt_dur_in(t0, sizeof t0, r->r[0]->device_ns, ut);
        tp_fmt_dur_in(t1, sizeof t1, r->r[1]->device_ns, ut);
        tp_fmt_dur_in(dl + 1, sizeof dl - 1, r->delta_ns < 0 ? -r->delta_ns : r->delta_ns, ud);
        dl[0] = r->delta_ns < 0 ? '-' : '+';
        tp_eff_num(f0, sizeof f0, r->r[0]->tflops);
        tp_eff_num(f1, sizeof f1, r->r[1]->tflops);
        if (r->has_rel)
            snprintf(rel, sizeof rel, "%+.1f%%", r->tflops_rel * 100 + 0.0);
        tp_buf_puts(b, "| ");
        tp_md_code(b, r->r[0]->op, 80);
        tp_buf_puts(b, " | ");
        if (shape[0])
            tp_md_text(b, shape, 90);
        tp_buf_puts(b, " | ");
        if (dtype[0])
            tp_md_text(b, dtype, 30);
        char c0[32], c1[32];
        tp_fmt_count(c0, sizeof c0, r->r[0]->count);
        tp_fmt_count(c1, sizeof c1, r->r[1]->count);
        tp_buf_printf(b, " | %s / %s | %s | %s | %s | %s | %s | %s |\n", c0, c1, t0, t1, dl, f0, f1, rel);
    }
    free(pick);
    if (shown)
        tp_buf_printf(b, "\n<sub>Shapes only in base: %zu, only in candidate: %zu.</sub>\n\n", d->only[0], d->only[1]);
}
