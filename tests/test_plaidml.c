/* test_plaidml.c: the PlaidML event log reader on the real 2017 sample and on
 * synthetic logs of the current schema (encoded here with pbenc.h), the
 * Program Run analysis, truncations, and the command line. */
#include "formats.h"
#include "harness.h"
#include "model.h"

#include <stdlib.h>

/* Read PATH with the PlaidML reader; 0 or -1 (err filled). */
static int load(const char *path, tp_trace *t, bool keep_args, bool with_source, tp_err *err)
{
    tp_trace_init(t);
    t->keep_args = keep_args;
    tp_input *in = tp_input_open(path, err);
    if (!in)
        return -1;
    tp_read_opts o = {0};
    o.keep_args = keep_args;
    o.with_source = with_source;
    int rc = tp_format_plaidml.read(in, t, &o, err);
    tp_input_close(in);
    return rc;
}

/* Kernel executions grouped by name: count, total. */
typedef struct kstat {
    tp_str name;
    uint64_t count;
    int64_t total;
} kstat;

static size_t group_kernels(const tp_trace *t, kstat **out, uint64_t *runs, int64_t *total)
{
    kstat *ks = NULL;
    size_t n = 0, cap = 0;
    *runs = 0;
    *total = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        size_t j = 0;
        while (j < n && ks[j].name != e->name)
            j++;
        if (j == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                ks = realloc(ks, cap * sizeof *ks);
            }
            ks[n++] = (kstat){e->name, 0, 0};
        }
        ks[j].count++;
        ks[j].total += e->dur;
        (*runs)++;
        *total += e->dur;
    }
    *out = ks;
    return n;
}

TEST(plaidml_2017_sample_kernel_totals)
{
    tp_trace t;
    tp_err err = {0};
    int rc = load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &t, false, false, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(t.events_in, 145823);
    kstat *ks;
    uint64_t runs;
    int64_t total;
    size_t n = group_kernels(&t, &ks, &runs, &total);
    CHECK_EQ_INT(runs, 19598);
    CHECK_EQ_INT(n, 193);
    CHECK_EQ_INT(total, 3485728682LL);
    size_t top = 0;
    for (size_t i = 1; i < n; i++)
        if (ks[i].total > ks[top].total)
            top = i;
    CHECK_STR(tp_str_get(&t, ks[top].name), "kernel_c4_sdk_2");
    CHECK_EQ_INT(ks[top].count, 156);
    CHECK_EQ_INT(ks[top].total, 746985832LL);
    free(ks);
    tp_trace_free(&t);
}

#include "plaidml_program_run.h"

TEST(plaidml_2017_program_run_eleventh_invocation)
{
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &t, false, false, &err), 0);
    tp_pml_program_run r;
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, TP_PML_DEFAULT_INVOCATION, false, &r, &err), 0);
    /* cross-checked with an independent Python decode of the sample */
    CHECK_EQ_INT(r.ninvocations, 473);
    CHECK_EQ_INT(r.invocation, 11);
    CHECK_EQ_INT(r.nitems, 278);
    CHECK_EQ_INT(r.ndescendants, 262);
    CHECK_EQ_INT(r.nexecutions, 65);
    CHECK_EQ_INT(r.nmapping, 15);
    CHECK_EQ_INT(r.t1 - r.t0, 29585986);
    CHECK_EQ_INT(r.items[0].event, r.event);
    CHECK_EQ_INT(r.items[0].role, TP_PML_ITEM_INVOCATION);
    CHECK_STR(tp_str_get(&t, r.top_total.kernel), "kernel_c4_sdk_2");
    CHECK_EQ_INT(r.top_total.runs, 156);
    CHECK_EQ_INT(r.top_total.total_ns, 746985832);
    CHECK_STR(tp_str_get(&t, r.top_mean.kernel), "kernel_c4_sdk_2");
    CHECK_EQ_INT(r.top_mean.mean_ns, 4788370);
    /* program c4_sdk: tmp_sizes 8 sizes, 67 temporaries; alloc_sizes 8 sizes, 30 allocations */
    CHECK_STR(r.top_total.program, "c4_sdk");
    CHECK_EQ_INT(r.top_total.ntmp, 8);
    CHECK_EQ_INT(r.top_total.tmp_count, 67);
    CHECK_EQ_INT(r.top_total.tmp_bytes, 6370696);
    CHECK_EQ_INT(r.top_total.nalloc, 8);
    CHECK_EQ_INT(r.top_total.alloc_count, 30);
    CHECK_EQ_INT(r.top_total.alloc_bytes, 1383264);
    CHECK_EQ_INT(r.top_total.tmp[0].size, 401408);
    CHECK_EQ_INT(r.top_total.tmp[0].count, 12);
    tp_pml_program_run_free(&r);
    /* asking for more invocations than there are */
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, 474, false, &r, &err), -1);
    tp_pml_program_run_free(&r);
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, 474, true, &r, &err), 0);
    CHECK_EQ_INT(r.invocation, 473);
    tp_pml_program_run_free(&r);
    tp_trace_free(&t);
}
