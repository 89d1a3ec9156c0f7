/* Efficiency (issue 20): FLOPs and bytes per op invocation against every row
 * of TraceLens's own GEMM, SDPA, normalisation and elementwise sheets of
 * three real H100 traces, the rows' TFLOPS/s and TB/s, the documented
 * differences (convolution, reduce), and a planted trace with exact rates and
 * fractions of the roof. */
#include "report/analysis/summary.h"
#include "report/perf_models/op_models.h"
#include "render/text/units.h"
#include "tests/lib/csv.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "convert/pipeline/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    CHECK(tp_csv_next(&p, &head));
    int c_name = tp_csv_col(&head, "name"), c_gf = tp_csv_col(&head, "GFLOPS_first"),
        c_mb = tp_csv_col(&head, "Data Moved (MB)_first"), c_tfm = tp_csv_col(&head, "TFLOPS/s_mean"),
        c_tfd = tp_csv_col(&head, "TFLOPS/s_median"), c_tbm = tp_csv_col(&head, "TB/s_mean"),
        c_dims = tp_csv_col(&head, "Input Dims_first"), c_types = tp_csv_col(&head, "Input type_first"),
        c_str = tp_csv_col(&head, "Input Strides_first"), c_conc = tp_csv_col(&head, "Concrete Inputs_first"),
        c_n = tp_csv_col(&head, "name_count"), c_sum = tp_csv_col(&head, "Kernel Time (µs)_sum");
    CHECK(c_name >= 0 && c_gf >= 0 && c_mb >= 0 && c_tfm >= 0 && c_dims >= 0 && c_types >= 0 && c_conc >= 0 &&
          c_n >= 0 && c_sum >= 0 && c_str >= 0 && c_tbm >= 0 && c_tfd >= 0);
    tp_buf dims = {0}, types = {0}, strides = {0}, conc = {0}, args = {0};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    while (tp_csv_next(&p, &r)) {
        if (r.n != head.n) {
            tp_csv_free(&r);
            continue;
        }
        st->rows++;
        const char *name = r.f[c_name];
        tp_py_to_json(r.f[c_dims], &dims);
        tp_py_to_json(r.f[c_types], &types);
        tp_py_to_json(r.f[c_str], &strides);
        tp_py_to_json(r.f[c_conc], &conc);
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
        tp_csv_free(&r);
    }
    tp_csv_free(&head);
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
        if (tp_test_load_report(tp_test_shared(rel), &t, &s) != 0) {
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

/* ---- a planted trace: shapes, kernel times and a device, every figure known ---- */

typedef struct planted {
    tp_buf b;
    int corr;
    double ts; /* us */
} planted;

/* A host op (with args text or none) around one launch of one device
 * activity of `dur_us` (kind "kernel" or "gpu_memcpy"); `inner` wraps a
 * second op of that name inside (innermost-modelled-op checks). */
static void op(planted *p, const char *name, const char *args, const char *inner, const char *inner_args,
               const char *cat, const char *kname, double dur_us)
{
    int c = ++p->corr;
    double t0 = p->ts;
    tp_buf_printf(&p->b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":20%s%s}",
                  name, t0, args ? ",\"args\":" : "", args ? args : "");
    if (inner)
        tp_buf_printf(&p->b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":15,\"args\":%s}",
                      inner, t0 + 1, inner_args);
    tp_buf_printf(&p->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":5,"
                  "\"args\":{\"correlation\":%d}}",
                  strcmp(cat, "kernel") ? "cudaMemcpyAsync" : "cudaLaunchKernel", t0 + 2, c);
    tp_buf_printf(&p->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,"
                  "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                  cat, kname, t0 + 10, dur_us, c);
    p->ts += 20 + dur_us + 10;
}

#define MM_4096 "{\"Input Dims\":[[4096,4096],[4096,4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}"
#define ADD_1M                                                                                                        \
    "{\"Input Dims\":[[1024,1024],[1024,1024],[]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]," \
    "\"Concrete Inputs\":[\"\",\"\",\"1\"]}"

TEST(efficiency_planted_rates_and_roof)
{
    planted p = {.ts = 1000};
    tp_buf_puts(&p.b, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":85045870592,"
                      "\"computeMajor\":9,\"computeMinor\":0,\"numSms\":132}],\n\"traceEvents\":[\n"
                      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}");
    op(&p, "aten::mm", MM_4096, NULL, NULL, "kernel", "gemm_a", 190);
    op(&p, "aten::mm", MM_4096, NULL, NULL, "kernel", "gemm_a", 200);
    op(&p, "aten::mm", MM_4096, NULL, NULL, "kernel", "gemm_a", 210);
    op(&p, "aten::add", ADD_1M, NULL, NULL, "kernel", "add_kernel", 10);
    /* linear -> addmm: the kernel goes to the addmm */
    op(&p, "aten::linear",
       "{\"Input Dims\":[[64,1024],[4096,1024],[4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]}",
       "aten::addmm",
       "{\"Input Dims\":[[4096],[64,1024],[1024,4096],[],[]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\","
       "\"c10::BFloat16\",\"Scalar\",\"Scalar\"]}",
       "kernel", "gemm_b", 8);
    op(&p, "aten::mm", NULL, NULL, NULL, "kernel", "gemm_c", 5);               /* no shapes recorded */
    op(&p, "aten::mm", "{\"Input Dims\":[[8,16],[32,8]],\"Input type\":[\"float\",\"float\"]}", NULL, NULL, "kernel",
       "gemm_d", 4);                                                             /* K differs */
    op(&p, "aten::copy_", "{\"Input Dims\":[[1024],[1024],[]],\"Input type\":[\"float\",\"float\",\"Scalar\"]}", NULL,
       NULL, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 3);              /* host -> device only */
    op(&p, "aten::index_select", NULL, NULL, NULL, "kernel", "gather", 6);    /* no model */
    tp_buf_puts(&p.b, "\n]}\n");
    tp_buf_putc(&p.b, 0);
    const char *path = tp_test_write_text("planted_eff.json", p.b.data);
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(path, &t, &s) == 0);
    const tp_efficiency *e = &s.eff;
    CHECK(e->have_device && e->device.known);
    double peak = e->device.tflops[TP_PEAK_MATRIX_BF16], vec = e->device.tflops[TP_PEAK_VECTOR_FP32],
           bw = e->device.mem_tbps;
    CHECK(fabs(peak - 989.4) < 1 && fabs(bw - 3.35) < 0.01 && vec > 60 && vec < 70);
    CHECK_EQ_INT(e->n, 3);
    CHECK_EQ_INT(e->invocations, 5);
    CHECK_EQ_INT(e->skipped, 2);
    CHECK_EQ_INT(e->skipped_ns, 9000);
    CHECK_EQ_INT(e->host_copies, 1);
    CHECK_EQ_INT(e->modelled_ns, 618000);
    CHECK_EQ_INT(e->device_ns, 618000 + 9000 + 3000 + 6000);
    CHECK_EQ_INT(e->nskips, 2);
    if (e->n == 3) {
        /* mm 4096^3 bf16: 3 invocations of 190, 200, 210 us */
        const tp_eff_row *mm = &e->rows[0];
        double f = 2.0 * 4096 * 4096 * 4096;
        CHECK_STR(mm->op, "aten::mm");
        CHECK_EQ_INT(mm->flops, 137438953472ull);
        CHECK_EQ_INT(mm->bytes, 3ull * 4096 * 4096 * 2);
        CHECK_EQ_INT(mm->count, 3);
        CHECK_EQ_INT(mm->device_ns, 600000);
        CHECK_EQ_INT(mm->median_ns, 200000);
        CHECK(near(mm->tflops_mean, (f / 190e3 + f / 200e3 + f / 210e3) / 3 / 1e3, 1e-12));
        CHECK(near(mm->tflops_median, f / 200e3 / 1e3, 1e-12));
        CHECK(near(mm->tflops, 3 * f / 600e3 / 1e3, 1e-12));
        CHECK_EQ_INT(mm->bound, TP_BOUND_COMPUTE); /* intensity 1365 > ridge 989.4 / 3.35 */
        CHECK(near(mm->peak_fraction, (3 * f / 600e3 / 1e3) / peak, 1e-12));
        CHECK_EQ_INT(mm->opportunity_ns, (int64_t)(600000 * (1 - mm->peak_fraction) + 0.5));
        /* add 1024x1024 bf16: 10 us, memory-bound */
        const tp_eff_row *add = &e->rows[1];
        CHECK_STR(add->op, "aten::add");
        CHECK_EQ_INT(add->flops, 1048576);
        CHECK_EQ_INT(add->bytes, 6291456);
        CHECK_EQ_INT(add->bound, TP_BOUND_MEMORY);
        CHECK(near(add->tbps, 6291456 / 10e3 / 1e3, 1e-12));
        CHECK(near(add->peak_fraction, add->tbps / bw, 1e-9)); /* below the ridge, the roof is intensity x bandwidth */
        /* the addmm inside the linear */
        const tp_eff_row *am = &e->rows[2];
        CHECK_STR(am->op, "aten::addmm");
        CHECK_EQ_INT(am->flops, 2ull * 64 * 4096 * 1024 + 64 * 4096);
        CHECK_STR(am->input_dims, "[[4096],[64,1024],[1024,4096],[],[]]");
        /* opportunities: the mm first (its headroom is the largest) */
        CHECK_EQ_INT(e->nopportunities, 3);
        if (e->nopportunities == 3)
            CHECK(e->rows[e->by_opportunity[0]].opportunity_ns >= e->rows[e->by_opportunity[1]].opportunity_ns);
    }
    bool no_dims = false, k_differs = false;
    for (size_t i = 0; i < e->nskips; i++) {
        no_dims |= strcmp(e->skips[i].why, "no args recorded") == 0 && e->skips[i].device_ns == 5000;
        k_differs |= strcmp(e->skips[i].why, "inner dimensions that differ") == 0 && e->skips[i].device_ns == 4000;
    }
    CHECK(no_dims && k_differs);
    tp_summary_free(&s);
    tp_trace_free(&t);
    tp_buf_free(&p.b);
}

/* The cost of the first row of a TraceLens sheet, from its recorded
 * inputs, with the row's own numbers. */
static bool first_row_cost(const char *trace, const char *sheet, tp_op_cost *c, double *gflops, double *mib,
                           double *sum_us)
{
    char rel[256];
    snprintf(rel, sizeof rel, "external/tracelens/%s_perf_report_csvs/%s.csv", trace, sheet);
    char *text = tp_test_read_file(tp_test_shared(rel), NULL);
    if (!text)
        return false;
    const char *p = text;
    csv_row head = {0}, r = {0};
    bool ok = tp_csv_next(&p, &head) && tp_csv_next(&p, &r) && r.n == head.n;
    tp_buf dims = {0}, types = {0}, conc = {0}, args = {0};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    if (ok) {
        tp_py_to_json(r.f[tp_csv_col(&head, "Input Dims_first")], &dims);
        tp_py_to_json(r.f[tp_csv_col(&head, "Input type_first")], &types);
        tp_py_to_json(r.f[tp_csv_col(&head, "Concrete Inputs_first")], &conc);
        tp_buf_printf(&args, "{\"Input Dims\":%s,\"Input type\":%s,\"Concrete Inputs\":%s}", dims.data, types.data,
                      conc.data);
        tp_op_inputs in;
        const char *why;
        ok = tp_op_inputs_parse(args.data, args.len, &doc, &in, &why) == 0 &&
             tp_op_cost_of(r.f[tp_csv_col(&head, "name")], &in, c, &why) == 0;
        *gflops = strtod(r.f[tp_csv_col(&head, "GFLOPS_first")], NULL);
        *mib = strtod(r.f[tp_csv_col(&head, "Data Moved (MB)_first")], NULL);
        *sum_us = strtod(r.f[tp_csv_col(&head, "Kernel Time (µs)_sum")], NULL);
    }
    tp_csv_free(&head), tp_csv_free(&r);
    tp_buf_free(&dims), tp_buf_free(&types), tp_buf_free(&conc), tp_buf_free(&args);
    tp_jdoc_free(&doc);
    free(text);
    return ok;
}

static const tp_eff_row *row_named(const tp_summary *s, const char *op)
{
    for (size_t i = 0; i < s->eff.n; i++)
        if (strcmp(s->eff.rows[i].op, op) == 0)
            return &s->eff.rows[i];
    return NULL;
}

/* The two rows where a definition differs, written down in docs/REPORT.md */
TEST(efficiency_tracelens_differences_as_documented)
{
    tp_op_cost c;
    double gf, mib, sum_us;
    char rel[256];
    tp_trace t;
    tp_summary s;
    /* falcon's convolution: same FLOPs and bytes (no bias), TraceLens's time has the bias add_ too */
    CHECK(first_row_cost(traces[1], "CONV_fwd", &c, &gf, &mib, &sum_us));
    CHECK_EQ_INT(c.flops, (uint64_t)llround(gf * 1e9));
    CHECK_EQ_INT(c.bytes, (uint64_t)llround(mib * 1048576));
    snprintf(rel, sizeof rel, "external/tracelens/%s.json.gz", traces[1]);
    if (tp_test_load_report(tp_test_shared(rel), &t, &s) == 0) {
        const tp_eff_row *conv = row_named(&s, "aten::convolution"), *bias = row_named(&s, "aten::add_");
        CHECK(conv && bias);
        if (conv && bias) {
            CHECK_EQ_INT(conv->device_ns, 125632);
            CHECK_EQ_INT(bias->device_ns, 3968);
            CHECK(fabs(sum_us * 1e3 - (double)(conv->device_ns + bias->device_ns)) < 1);
        }
        tp_summary_free(&s);
    }
    tp_trace_free(&t);
    /* Qwen's mean over the last dim: TraceLens counts one output element, we 16 x 559 */
    CHECK(first_row_cost(traces[2], "Reduce_fwd", &c, &gf, &mib, &sum_us));
    CHECK_EQ_INT(c.flops, (uint64_t)llround(gf * 1e9));
    CHECK_EQ_INT((uint64_t)llround(mib * 1048576), 16ull * 559 * 1024 * 4 + 4);
    CHECK_EQ_INT(c.bytes, 16ull * 559 * 1024 * 4 + 16 * 559 * 4);
}

/* Inputs that do not fit a model get a reason, never a guess or a crash. */
TEST(efficiency_models_refuse_what_does_not_fit)
{
    static const struct {
        const char *op, *args, *why;
    } bad[] = {
        {"aten::mm", "{\"Input Dims\":[[2,3],[4,5]],\"Input type\":[\"float\",\"float\"]}", "inner dimensions that differ"},
        {"aten::mm", "{\"Input Dims\":[[2,3]],\"Input type\":[\"float\"]}", "fewer than two matrix inputs"},
        {"aten::mm", "{\"Input type\":[\"float\"]}", "no \"Input Dims\" recorded"},
        {"aten::mm", "{\"Input Dims\":[[2,3],[3,4]],\"Input type\":[\"float\"]}", "\"Input type\" missing or not one per input"},
        {"aten::mm", "{\"Input Dims\":[[2,-3],[3,4]],\"Input type\":[\"float\",\"float\"]}",
         "a tensor size that is not a non-negative integer"},
        {"aten::mm", "{\"Input Dims\":[[4294967296,4294967296],[4294967296,4294967296]],\"Input type\":[\"float\",\"float\"]}",
         "sizes too large to count"},
        {"aten::add", "{\"Input Dims\":[[2,3],[4,3]],\"Input type\":[\"float\",\"float\"]}", "inputs that do not broadcast"},
        {"aten::mm", "{\"Input Dims\":[[2,3],[3,4]],\"Input type\":[\"weird\",\"float\"]}", "a tensor of an unknown dtype"},
        {"aten::_flash_attention_forward",
         "{\"Input Dims\":[[10,8,64],[10,8,64],[10,8,64]],\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\"]}",
         "query, key and value that are not 4-D (variable-length attention is not modelled)"},
        {"aten::_scaled_dot_product_flash_attention",
         "{\"Input Dims\":[[1,2,3,4],[1,2,3,4],[1,2,3,4]],\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\"]}",
         "no causal flag recorded"},
        {"aten::layer_norm", "{\"Input Dims\":[[4,8],[]],\"Input type\":[\"float\",\"ScalarList\"],\"Concrete Inputs\":[\"\",\"[16]\"]}",
         "a normalized_shape that is not the input's last sizes"},
        {"aten::convolution", "{\"Input Dims\":[[1,3,8,8],[4,3,3,3]],\"Input type\":[\"float\",\"float\"]}",
         "fewer inputs than a convolution has"},
        {"aten::sum", "{\"Input Dims\":[[4,8],[]],\"Input type\":[\"float\",\"ScalarList\"],\"Concrete Inputs\":[\"\",\"[5]\"]}",
         "a reduced dimension out of range"},
        {"aten::nonexistent", "{\"Input Dims\":[],\"Input type\":[]}", "no model for this op"},
        {"aten::mm", "[1,2]", "args that are not a JSON object"},
        {"aten::mm", "{\"Input Dims\":[[2,1099511627777],[1099511627777,4]],\"Input type\":[\"float\",\"float\"]}",
         "a tensor size beyond 2^40"},
        /* padding 2^62 would overflow the output size: refused, no undefined behaviour */
        {"aten::convolution",
         "{\"Input Dims\":[[1,1,8],[1,1,1],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"\",\"ScalarList\","
         "\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"[1]\","
         "\"[4611686018427387904]\",\"[1]\",\"True\",\"[0]\",\"1\"]}",
         "a convolution size or parameter beyond 2^31"},
        /* groups 2^32 x 1 channel would wrap the channel check */
        {"aten::convolution",
         "{\"Input Dims\":[[1,4294967296,8],[1,1,1],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"\",\"ScalarList\","
         "\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"[1]\","
         "\"[0]\",\"[1]\",\"False\",\"[0]\",\"4294967296\"]}",
         "a convolution size or parameter beyond 2^31"},
        {"aten::batch_norm",
         "{\"Input Dims\":[[0,1099511627776,1],[],[],[],[],[]],\"Input type\":[\"float\",\"\",\"\",\"\",\"\",\"Scalar\"],"
         "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"True\"]}",
         "an empty input"},
        /* a dim argument without Concrete Inputs is not a full reduction */
        {"aten::mean", "{\"Input Dims\":[[32,2048,7,7],[],[]],\"Input type\":[\"float\",\"ScalarList\",\"Scalar\"]}",
         "the reduced dims not recorded (no Concrete Inputs)"},
        {"aten::sum", "{\"Input Dims\":[[4,8],[]],\"Input type\":[\"float\",\"ScalarList\"],\"Concrete Inputs\":[\"\",\"[-]\"]}",
         "reduced dims that are not integers"},
        {"aten::_softmax", "{\"Input Dims\":[[4,8],[],[]],\"Input type\":[\"c10::Half\",\"Scalar\",\"Scalar\"]}",
         "half_to_float not recorded for a half input"},
        {"aten::_scaled_dot_product_cudnn_attention",
         "{\"Input Dims\":[[1,2,3,8],[1,2,5,8],[1,2,5,8],[],[],[],[]],\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\","
         "\"\",\"Scalar\",\"Scalar\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"False\",\"0.\",\"True\"]}",
         "causal attention with Lq != Lkv whose mask alignment is not known (cuDNN)"},
    };
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tp_op_inputs in;
        tp_op_cost c;
        const char *why = "";
        tp_jdoc_reset(&doc);
        int rc = tp_op_inputs_parse(bad[i].args, strlen(bad[i].args), &doc, &in, &why);
        if (rc == 0)
            rc = tp_op_cost_of(bad[i].op, &in, &c, &why);
        CHECK(rc != 0);
        if (strcmp(why, bad[i].why) != 0)
            tp_test_fail(__FILE__, __LINE__, "%s %s: reason \"%s\", expected \"%s\"", bad[i].op, bad[i].args, why,
                         bad[i].why);
    }
    /* and what does fit: conv 2-D with stride 2 and groups 2, a causal GQA attention with Lq < Lkv */
    static const struct {
        const char *op, *args;
        uint64_t flops, bytes;
    } good[] = {
        /* out 1x4x4x4: 2 * 64 out elements * (4/2 channels per group) * 9 = 2304; bytes (256 + 72 + 64) * 4 */
        {"aten::convolution",
         "{\"Input Dims\":[[1,4,8,8],[4,2,3,3],[],[],[],[],[],[],[]],\"Input type\":[\"float\",\"float\",\"\",\"ScalarList\","
         "\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"[2, 2]\","
         "\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"2\"]}",
         2304, (256 + 72 + 64) * 4},
        /* q [1,4,2,8] (B,H,L,d) k/v [1,2,5,8], flash: bottom-right causal pairs 4 + 5 = 9; 2*1*4*9*(8+8) */
        {"aten::_scaled_dot_product_flash_attention",
         "{\"Input Dims\":[[1,4,2,8],[1,2,5,8],[1,2,5,8],[],[],[],[]],\"Input type\":[\"c10::Half\",\"c10::Half\","
         "\"c10::Half\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]}",
         2 * 1 * 4 * 9 * 16, (64 + 80 + 80 + 64) * 2},
        /* matmul [3,1,4,5] x [2,5,6]: batch 3 x 2 = 6, 2*6*4*6*5 */
        {"aten::matmul", "{\"Input Dims\":[[3,1,4,5],[2,5,6]],\"Input type\":[\"float\",\"float\"]}", 2 * 6 * 4 * 6 * 5,
         (60 + 60 + 6 * 24) * 4}, /* broadcast A read once */
        /* sum over dims 0 and 2 of [2,3,4]: out 3 */
        {"aten::sum", "{\"Input Dims\":[[2,3,4],[]],\"Input type\":[\"float\",\"ScalarList\"],\"Concrete Inputs\":[\"\",\"[0, -1]\"]}",
         24, (24 + 3) * 4},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        tp_op_inputs in;
        tp_op_cost c = {0};
        const char *why = "";
        tp_jdoc_reset(&doc);
        int rc = tp_op_inputs_parse(good[i].args, strlen(good[i].args), &doc, &in, &why);
        if (rc == 0)
            rc = tp_op_cost_of(good[i].op, &in, &c, &why);
        if (rc != 0 || c.flops != good[i].flops || c.bytes != good[i].bytes)
            tp_test_fail(__FILE__, __LINE__, "%s: rc %d (%s) flops %llu bytes %llu, expected %llu %llu", good[i].op, rc,
                         why, (unsigned long long)c.flops, (unsigned long long)c.bytes,
                         (unsigned long long)good[i].flops, (unsigned long long)good[i].bytes);
    }
    tp_jdoc_free(&doc);
}

#include "report/diff/diff_eff.h"

/* A small planted run: n mm invocations of dur_us each, and an add only when with_add. */
static const char *planted_run(const char *name, int n, double dur_us, bool with_add)
{
    static tp_buf keep[2];
    static int k;
    planted p = {.ts = 1000};
    tp_buf_puts(&p.b, "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"totalGlobalMem\":85045870592}],"
                      "\n\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,\"tid\":1,"
                      "\"ts\":1,\"dur\":1}");
    for (int i = 0; i < n; i++)
        op(&p, "aten::mm", MM_4096, NULL, NULL, "kernel", "gemm_a", dur_us);
    if (with_add)
        op(&p, "aten::add", ADD_1M, NULL, NULL, "kernel", "add_kernel", 10);
    tp_buf_puts(&p.b, "\n]}\n");
    tp_buf_putc(&p.b, 0);
    const char *path = tp_test_write_text(name, p.b.data);
    tp_buf_free(&keep[k & 1]);
    keep[k++ & 1] = p.b;
    return path;
}

TEST(efficiency_diff_matches_shapes)
{
    const char *a = planted_run("eff_base.json", 2, 200, true), *b = planted_run("eff_cand.json", 2, 250, false);
    tp_trace t[2];
    tp_summary s[2];
    CHECK(tp_test_load_report(a, &t[0], &s[0]) == 0);
    CHECK(tp_test_load_report(b, &t[1], &s[1]) == 0);
    tp_diff_eff d;
    tp_diff_eff_build(&s[0], &s[1], &d);
    CHECK_EQ_INT(d.n, 1);
    CHECK_EQ_INT(d.only[0], 1);
    CHECK_EQ_INT(d.only_ns[0], 10000);
    CHECK_EQ_INT(d.only[1], 0);
    if (d.n == 1) {
        CHECK_STR(d.rows[0].r[0]->op, "aten::mm");
        CHECK_EQ_INT(d.rows[0].delta_ns, 100000);
        CHECK(d.rows[0].has_rel && near(d.rows[0].tflops_rel, 200.0 / 250.0 - 1, 1e-12));
    }
    tp_buf md = {0}, js = {0};
    tp_diff_eff_md(&d, 10, &md);
    tp_diff_eff_json(&d, &js);
    tp_buf_putc(&md, 0);
    tp_buf_putc(&js, 0);
    CHECK(strstr(md.data, "| base (us) | candidate (us) | delta (us) |") &&
          strstr(md.data, "| `aten::mm` | 4096x4096, 4096x4096 | bf16 | 2 / 2 | 400.000 | 500.000 | +100.000 |"));
    CHECK(strstr(md.data, "-20.0% |"));
    CHECK(strstr(js.data, "\"tflops_per_s_rel\":-0.200000"));
    tp_buf_free(&md), tp_buf_free(&js);
    tp_diff_eff_free(&d);
    for (int k = 0; k < 2; k++) {
        tp_summary_free(&s[k]);
        tp_trace_free(&t[k]);
    }
}

/* Causal pairs by formula against a count of the mask, for both
 * alignments and every Lq, Lkv up to 40. */
TEST(efficiency_causal_pairs_match_the_mask)
{
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    tp_buf args = {0};
    int bad = 0;
    for (int lq = 1; lq <= 40; lq++)
        for (int lkv = 1; lkv <= 40; lkv++)
            for (int br = 0; br < 2; br++) {
                /* _flash_attention_forward is bottom-right; _efficient_attention_forward with mask type 1 top-left */
                args.len = 0;
                if (br)
                    tp_buf_printf(&args, "{\"Input Dims\":[[1,%d,1,4],[1,%d,1,4],[1,%d,1,4],[],[],[],[],[],[]],\"Input type\":"
                                         "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],"
                                         "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"True\"]}",
                                  lq, lkv, lkv);
                else
                    tp_buf_printf(&args, "{\"Input Dims\":[[1,%d,1,4],[1,%d,1,4],[1,%d,1,4],[],[],[],[],[],[],[]],\"Input type\":"
                                         "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],"
                                         "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0.\",\"1\"]}",
                                  lq, lkv, lkv);
                uint64_t pairs = 0;
                for (int i = 0; i < lq; i++) {
                    int seen = br ? i + 1 + (lkv - lq) : i + 1;
                    pairs += seen <= 0 ? 0 : (uint64_t)(seen > lkv ? lkv : seen);
                }
                uint64_t want = lq == lkv ? 2ull * lq * lkv * 8 / 2 : 2 * pairs * 8;
                tp_op_inputs in;
                tp_op_cost c;
                const char *why = "";
                tp_jdoc_reset(&doc);
                if (tp_op_inputs_parse(args.data, args.len, &doc, &in, &why) != 0 ||
                    tp_op_cost_of(br ? "aten::_flash_attention_forward" : "aten::_efficient_attention_forward", &in, &c,
                                  &why) != 0 ||
                    c.flops != want) {
                    if (bad++ < 5)
                        tp_test_fail(__FILE__, __LINE__, "Lq %d Lkv %d %s: %s flops %llu, expected %llu", lq, lkv,
                                     br ? "bottom-right" : "top-left", why, (unsigned long long)c.flops,
                                     (unsigned long long)want);
                }
            }
    CHECK_EQ_INT(bad, 0);
    tp_buf_free(&args);
    tp_jdoc_free(&doc);
}

#define SUM_DIM(d)                                                                                                    \
    "{\"Input Dims\":[[64,32],[],[]],\"Input type\":[\"float\",\"ScalarList\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"[" d \
    "]\",\"False\"]}"

/* Two rows with the same recorded dims but other FLOPs and bytes (a sum
 * over another dim) are two shapes, matched to their own. */
TEST(efficiency_diff_keeps_shapes_with_equal_dims_apart)
{
    const char *path[2];
    for (int k = 0; k < 2; k++) {
        planted p = {.ts = 1000};
        tp_buf_puts(&p.b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,"
                          "\"tid\":1,\"ts\":1,\"dur\":1}");
        op(&p, "aten::sum", SUM_DIM("0"), NULL, NULL, "kernel", "reduce_a", k ? 6 : 5);
        op(&p, "aten::sum", SUM_DIM("1"), NULL, NULL, "kernel", "reduce_b", k ? 9 : 7);
        op(&p, "aten::mm", MM_4096, NULL, NULL, "kernel", "gemm_a", 100);
        tp_buf_puts(&p.b, "\n]}\n");
        tp_buf_putc(&p.b, 0);
        path[k] = tp_test_write_text(k ? "dup_b.json" : "dup_a.json", p.b.data);
        tp_buf_free(&p.b);
    }
    tp_trace t[2];
    tp_summary s[2];
    CHECK(tp_test_load_report(path[0], &t[0], &s[0]) == 0);
    CHECK(tp_test_load_report(path[1], &t[1], &s[1]) == 0);
    tp_diff_eff d;
    tp_diff_eff_build(&s[0], &s[1], &d);
    CHECK_EQ_INT(d.n, 3);
    CHECK_EQ_INT(d.only[0] + d.only[1], 0);
    for (size_t i = 0; i < d.n; i++) {
        const tp_diff_eff_row *r = &d.rows[i];
        CHECK_STR(r->r[0]->op, r->r[1]->op);
        CHECK_EQ_INT(r->r[0]->bytes, r->r[1]->bytes);
        CHECK_EQ_INT(r->r[0]->flops, r->r[1]->flops);
        /* sum over dim 0 keeps 32 values: (2048 + 32) x 4 bytes; over dim 1 64 */
        if (strcmp(r->r[0]->op, "aten::sum") == 0)
            CHECK_EQ_INT(r->delta_ns, r->r[0]->bytes == (2048 + 32) * 4 ? 1000 : 2000);
    }
    tp_diff_eff_free(&d);
    for (int k = 0; k < 2; k++) {
        tp_summary_free(&s[k]);
        tp_trace_free(&t[k]);
    }
}
