/* Efficiency (issue 20): FLOPs and bytes per op invocation against every row
 * of TraceLens's own GEMM, SDPA, normalisation and elementwise sheets of
 * three real H100 traces, the rows' TFLOPS/s and TB/s, the documented
 * differences (convolution, reduce), and a planted trace with exact rates and
 * fractions of the roof. */
#include "report/analysis/summary.h"
#include "report/perf_models/op_models.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small CSV reader: quoted fields, "" inside quotes ---- */

#define MAX_COLS 64

typedef struct csv_row {
    char *f[MAX_COLS];
    int n;
} csv_row;

/* The next record from *p into r (fields are malloc'ed); false at the end. */
static bool csv_next(const char **p, csv_row *r)
{
    const char *s = *p;
    if (!*s)
        return false;
    r->n = 0;
    for (;;) {
        tp_buf b = {0};
        tp_buf_putc(&b, 0);
        b.len = 0;
        if (*s == '"') {
            for (s++; *s; s++) {
                if (*s == '"' && s[1] == '"')
                    tp_buf_putc(&b, '"'), s++;
                else if (*s == '"') {
                    s++;
                    break;
                } else
                    tp_buf_putc(&b, *s);
            }
        } else
            while (*s && *s != ',' && *s != '\n' && *s != '\r')
                tp_buf_putc(&b, *s++);
        tp_buf_putc(&b, 0);
        if (r->n < MAX_COLS)
            r->f[r->n++] = b.data;
        else
            free(b.data);
        if (*s == ',') {
            s++;
            continue;
        }
        while (*s == '\r' || *s == '\n')
            s++;
        break;
    }
    *p = s;
    return true;
}

static void csv_free(csv_row *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

static int col(const csv_row *head, const char *name)
{
    for (int i = 0; i < head->n; i++)
        if (strcmp(head->f[i], name) == 0)
            return i;
    return -1;
}

/* Python's repr of a list ("[[512], [141, 512]]", "['c10::BFloat16', '']")
 * as compact JSON */
static void py_to_json(const char *s, tp_buf *b)
{
    b->len = 0;
    for (; *s; s++)
        if (*s == '\'')
            tp_buf_putc(b, '"');
        else if (*s != ' ' || (b->len && b->data[b->len - 1] != ',' && b->data[b->len - 1] != '['))
            tp_buf_putc(b, *s);
    tp_buf_putc(b, 0);
    b->len--;
}

/* ---- loading as `report` does ---- */

static int load_report(const char *path, tp_trace *t, tp_summary *s)
{
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_efficiency_wants_args;
    lo.no_derive = true;
    tp_err err = {0};
    tp_trace_init(t);
    if (tp_load(path, &lo, t, &err) < 0) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return -1;
    }
    tp_report_opts ro = {path, NULL, 0, NULL, false, NULL};
    tp_summary_build(t, &ro, s);
    return 0;
}

static const char *const traces[] = {
    "h100_gaunernst_bert-small-uncased__1016001",
    "h100_Falconsai_nsfw_image_detection__1016002",
    "h100_Qwen_Qwen1.5-0.5B-Chat__1016005",
};

/* TraceLens reports a wrapper where we report the op that launched the
 * kernels (the innermost op with a model): the same kernels and FLOPs */
static const char *inner_op(const char *name)
{
    if (strcmp(name, "aten::layer_norm") == 0)
        return "aten::native_layer_norm";
    if (strcmp(name, "aten::_scaled_dot_product_flash_attention") == 0)
        return "aten::_flash_attention_forward";
    return name;
}

static bool near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

typedef struct sheet_stats {
    int rows, cost_equal, rate_equal;
} sheet_stats;

/* One TraceLens sheet: every row's FLOPs and bytes from its own recorded
 * inputs through our model, and our row's rates. */
static void check_sheet(const char *trace, const char *sheet, const tp_summary *s, sheet_stats *st)
{
    char rel[256];
    snprintf(rel, sizeof rel, "external/tracelens/%s_perf_report_csvs/%s.csv", trace, sheet);
    char *text = tp_test_read_file(tp_test_shared(rel), NULL);
    if (!text)
        return; /* the trace has no such sheet */
    const char *p = text;
    csv_row head = {0}, r = {0};
    CHECK(csv_next(&p, &head));
    int c_name = col(&head, "name"), c_gf = col(&head, "GFLOPS_first"), c_mb = col(&head, "Data Moved (MB)_first"),
        c_tfm = col(&head, "TFLOPS/s_mean"), c_tfd = col(&head, "TFLOPS/s_median"), c_tbm = col(&head, "TB/s_mean"),
        c_dims = col(&head, "Input Dims_first"), c_types = col(&head, "Input type_first"),
        c_str = col(&head, "Input Strides_first"), c_conc = col(&head, "Concrete Inputs_first"),
        c_n = col(&head, "name_count"), c_sum = col(&head, "Kernel Time (µs)_sum");
    CHECK(c_name >= 0 && c_gf >= 0 && c_mb >= 0 && c_tfm >= 0 && c_dims >= 0 && c_types >= 0 && c_conc >= 0 &&
          c_n >= 0 && c_sum >= 0 && c_str >= 0 && c_tbm >= 0 && c_tfd >= 0);
    tp_buf dims = {0}, types = {0}, strides = {0}, conc = {0}, args = {0};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    while (csv_next(&p, &r)) {
        if (r.n != head.n) {
            csv_free(&r);
            continue;
        }
        st->rows++;
        const char *name = r.f[c_name];
        py_to_json(r.f[c_dims], &dims);
        py_to_json(r.f[c_types], &types);
        py_to_json(r.f[c_str], &strides);
        py_to_json(r.f[c_conc], &conc);
        args.len = 0;
        tp_buf_printf(&args, "{\"Input Dims\":%s,\"Input type\":%s,\"Input Strides\":%s,\"Concrete Inputs\":%s}",
                      dims.data, types.data, strides.data, conc.data);
        /* FLOPs: GFLOPS x 1e9 exactly; bytes: MiB x 2^20 exactly */
        double gf = strtod(r.f[c_gf], NULL), mb = strtod(r.f[c_mb], NULL);
        uint64_t want_flops = (uint64_t)llround(gf * 1e9), want_bytes = (uint64_t)llround(mb * 1048576.0);
        tp_op_inputs in;
        tp_op_cost cost;
        const char *why = "";
        tp_jdoc_reset(&doc);
        bool ok = tp_op_inputs_parse(args.data, args.len, &doc, &in, &why) == 0 &&
                  tp_op_cost_of(name, &in, &cost, &why) == 0;
        if (!ok)
            fprintf(stderr, "%s %s %s: no cost: %s\n", trace, sheet, name, why);
        CHECK(ok);
        if (ok && cost.flops == want_flops && cost.bytes == want_bytes)
            st->cost_equal++;
        else if (ok)
            fprintf(stderr, "%s %s %s %s: flops %llu bytes %llu, TraceLens %llu %llu\n", trace, sheet, name, dims.data,
                    (unsigned long long)cost.flops, (unsigned long long)cost.bytes, (unsigned long long)want_flops,
                    (unsigned long long)want_bytes);
        /* our row: the same op and recorded inputs (a wrapper: its inner op
         * with the same FLOPs, bytes and count) */
        const char *op = inner_op(name);
        bool wrapper = op != name;
        uint64_t count = (uint64_t)strtoull(r.f[c_n], NULL, 10);
        const tp_eff_row *mine = NULL;
        for (size_t i = 0; i < s->eff.n; i++) {
            const tp_eff_row *e = &s->eff.rows[i];
            if (strcmp(e->op, op) != 0)
                continue;
            if (wrapper ? e->flops == want_flops && e->bytes == want_bytes && e->count == count
                        : strcmp(e->input_dims, dims.data) == 0 && strcmp(e->strides, strides.data) == 0 &&
                              strcmp(e->dtypes, types.data) == 0)
                mine = e;
        }
        if (!mine) {
            fprintf(stderr, "%s %s %s %s: no row of ours\n", trace, sheet, name, dims.data);
            CHECK(mine);
        } else {
            double tfm = strtod(r.f[c_tfm], NULL), tfd = strtod(r.f[c_tfd], NULL), tbm = strtod(r.f[c_tbm], NULL),
                   sum_us = strtod(r.f[c_sum], NULL);
            bool rates = mine->count == count && near(mine->tflops_mean, tfm, 0.005) &&
                         near(mine->tflops_median, tfd, 0.005) && near(mine->tbps_mean, tbm, 0.005) &&
                         fabs((double)mine->device_ns - sum_us * 1e3) < 0.5 * (double)count + 1;
            if (rates)
                st->rate_equal++;
            else
                fprintf(stderr, "%s %s %s %s: count %llu/%llu tflops %g/%g median %g/%g tb %g/%g time %lld/%g\n",
                        trace, sheet, name, dims.data, (unsigned long long)mine->count, (unsigned long long)count,
                        mine->tflops_mean, tfm, mine->tflops_median, tfd, mine->tbps_mean, tbm,
                        (long long)mine->device_ns, sum_us * 1e3);
        }
        csv_free(&r);
    }
    csv_free(&head);
    tp_buf_free(&dims), tp_buf_free(&types), tp_buf_free(&strides), tp_buf_free(&conc), tp_buf_free(&args);
    tp_jdoc_free(&doc);
    free(text);
}

TEST(efficiency_equals_tracelens_row_by_row)
{
    static const char *const sheets[] = {"GEMM", "SDPA_fwd", "Normalization", "BinaryElementwise",
                                         "UnaryElementwise"};
    sheet_stats all = {0};
    for (size_t k = 0; k < sizeof traces / sizeof *traces; k++) {
        char rel[256];
        snprintf(rel, sizeof rel, "external/tracelens/%s.json.gz", traces[k]);
        tp_trace t;
        tp_summary s;
        if (load_report(tp_test_shared(rel), &t, &s) != 0) {
            CHECK(!"trace loads");
            tp_trace_free(&t);
            continue;
        }
        CHECK(s.eff.with_shapes > 0);
        CHECK_EQ_INT(s.eff.skipped, 0);
        for (size_t i = 0; i < sizeof sheets / sizeof *sheets; i++)
            check_sheet(traces[k], sheets[i], &s, &all);
        tp_summary_free(&s);
        tp_trace_free(&t);
    }
    /* 4+1+2+2 bert, 4+1+2+3 Falcon, 5+1+9+10 Qwen */
    CHECK_EQ_INT(all.rows, 44);
    CHECK_EQ_INT(all.cost_equal, all.rows);
    CHECK_EQ_INT(all.rate_equal, all.rows);
}
