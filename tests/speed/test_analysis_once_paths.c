/* test_analysis_once_paths.c: the analyses that now ask once what they asked
 * per event (issue 37) give what they gave.  Efficiency: a launched op's
 * recorded inputs read in prepare (the walk of its args ends at the fourth
 * member: a later duplicate "Input Dims" is not the one), an op above an
 * unmodelled launching op read in build, both from the device activities
 * prepare noted, a row's median from its sorted times; the classification: a
 * kernel ran compiled by its own name or its leaf op's, kept per (leaf, kernel)
 * pair (one kernel name under a compiled region and under a plain op); the op
 * kernels: each device event's top-level op found in the one walk. */
#include "report/analysis/summary.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"

#include <stdio.h>
#include <string.h>

typedef struct planted {
    tp_buf b;
    int corr;
    double ts; /* us */
} planted;

/* A host op `name` (args text or none) around an optional inner op, around
 * one launch of one kernel of dur_us. */
static void op(planted *p, const char *name, const char *args, const char *inner, const char *kname, double dur_us)
{
    int c = ++p->corr;
    double t0 = p->ts;
    tp_buf_printf(&p->b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":20%s%s}",
                  name, t0, args ? ",\"args\":" : "", args ? args : "");
    if (inner)
        tp_buf_printf(&p->b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":15}",
                      inner, t0 + 1);
    tp_buf_printf(&p->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%.3f,"
                  "\"dur\":5,\"args\":{\"correlation\":%d}}",
                  t0 + 2, c);
    tp_buf_printf(&p->b,
                  ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,"
                  "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                  kname, t0 + 10, dur_us, c);
    p->ts += 20 + dur_us + 10;
}

/* the four members, then more, then a second "Input Dims" (not the op's: the first counts) */
#define MM_ARGS(id, dims)                                                                                             \
    "{\"External id\":" #id ",\"Input Dims\":" dims ",\"Input type\":[\"float\",\"float\"],"                         \
    "\"Input Strides\":[[16,1],[32,1]],\"Concrete Inputs\":[\"\",\"\"],\"Input Dims\":[[1,1],[1,1]],\"Ev Idx\":" #id "}"
#define ADDMM_ARGS                                                                                                    \
    "{\"Input Dims\":[[32],[8,16],[16,32],[],[]],\"Input type\":[\"float\",\"float\",\"float\",\"Scalar\","          \
    "\"Scalar\"]}"

static const tp_eff_row *row_of(const tp_efficiency *e, const char *op)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->rows[i].op, op) == 0)
            return &e->rows[i];
    return NULL;
}

TEST(analyses_asked_once_give_what_they_gave)
{
    planted p = {.ts = 1000};
    tp_buf_puts(&p.b, "{\"traceEvents\":[\n"
                      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}");
    op(&p, "aten::mm", MM_ARGS(1, "[[8,16],[16,32]]"), NULL, "gemm_x", 30);
    op(&p, "aten::mm", MM_ARGS(2, "[[8,16],[16,32]]"), NULL, "gemm_x", 10);
    op(&p, "aten::mm", MM_ARGS(3, "[[8, 16], [16, 32]]"), NULL, "gemm_x", 40); /* other bytes, the same row */
    op(&p, "aten::mm", MM_ARGS(4, "[[8,16],[16,32]]"), NULL, "gemm_x", 20);
    op(&p, "aten::addmm", ADDMM_ARGS, "my::unmodelled", "gemm_y", 50); /* read by build */
    op(&p, "CompiledFunction", NULL, NULL, "gemm_x", 7);               /* gemm_x ran compiled here only */
    op(&p, "aten::add", NULL, NULL, "triton_poi_fused_add_0", 3);       /* compiled by its own name */
    tp_buf_puts(&p.b, "\n]}\n");
    tp_buf_putc(&p.b, 0);
    const char *path = tp_test_write_text("analysis_once.json", p.b.data);
    tp_trace t;
    tp_summary s;
    CHECK(tp_test_load_report(path, &t, &s) == 0);

    const tp_efficiency *e = &s.eff;
    const tp_eff_row *mm = row_of(e, "aten::mm"), *addmm = row_of(e, "aten::addmm");
    CHECK(mm && addmm);
    if (mm && addmm) {
        CHECK_STR(mm->input_dims, "[[8,16],[16,32]]");
        CHECK_STR(mm->strides, "[[16,1],[32,1]]");
        CHECK_EQ_INT(mm->count, 4);
        CHECK_EQ_INT(mm->flops, 2 * 8 * 16 * 32);
        CHECK_EQ_INT(mm->device_ns, 100000);
        CHECK_EQ_INT(mm->median_ns, 25000); /* 10 20 | 30 40 */
        CHECK_STR(addmm->input_dims, "[[32],[8,16],[16,32],[],[]]");
        CHECK_EQ_INT(addmm->count, 1);
        CHECK_EQ_INT(addmm->device_ns, 50000);
    }
    CHECK_EQ_INT(e->with_shapes, 5);
    CHECK_EQ_INT(e->invocations, 5);
    CHECK_EQ_INT(e->device_ns, 160000);

    int kernels = 0, compiled = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *k = &t.events[i];
        if (!tp_is_device_activity(k))
            continue;
        kernels++;
        const char *kn = tp_str_get(&t, k->name);
        uint32_t leaf = s.at.leaf[i];
        const char *ln = leaf != TP_NONE ? tp_str_get(&t, t.events[leaf].name) : "";
        bool want = strncmp(kn, "triton_", 7) == 0 || strcmp(ln, "CompiledFunction") == 0;
        CHECK_EQ_INT(s.cls.ran[i] == TP_RAN_COMPILED, want);
        compiled += want;
    }
    CHECK_EQ_INT(kernels, 7);
    CHECK_EQ_INT(compiled, 2);

    /* the op kernels: every kernel under its top-level op */
    CHECK_EQ_INT(s.ob.total_ns, 160000);
    uint64_t mm_occ = 0, ops_instances = 0;
    for (size_t i = 0; i < s.ob.nops; i++) {
        ops_instances += s.ob.ops[i].instances;
        if (strcmp(tp_opk_op_name(&t, &s.ob.ops[i]), "aten::mm") == 0)
            mm_occ = s.ob.ops[i].occurrences;
    }
    CHECK_EQ_INT(mm_occ, 4);
    CHECK_EQ_INT(ops_instances, 7);
    CHECK_EQ_INT(s.ob.nops, 4);
    tp_summary_free(&s);
    tp_trace_free(&t);
    tp_buf_free(&p.b);
}
