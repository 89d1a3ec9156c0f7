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
