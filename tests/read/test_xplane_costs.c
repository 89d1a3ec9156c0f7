/* test_xplane_costs.c: what the XPlane reader gives the efficiency analysis
 * (convert/read/xplane/xplane_costs.c): the device planes' descriptions
 * (t->devinfo) and the XLA ops' recorded flops / bytes_accessed
 * (t->costs, tp_cost_of), on the real samples (values as the files have
 * them, the op costs checked by hand against the HLO text of the ops) and
 * on synthetic XSpaces (two metadata of one name that disagree, an event
 * overriding its metadata, async ops); with args kept or not, on one
 * thread or two (xplane_parts.c), the same. */
#include "convert/read/xplane/xplane.h"
#include "tests/lib/harness.h"
#include "tests/lib/pbenc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPU_SAMPLE "external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"
#define TPU_SAMPLE "external/xplane/tpu_inference_2.xplane.pb"
#define AMD_SAMPLE "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"

enum { ONE_THREAD, TWO_PARTS };

/* Read buf with args kept or not, on one thread or split into two parts
 * (then *how is the split report: "joined", "read again"...). */
static int read_buf(const void *buf, size_t len, bool keep_args, int mode, tp_trace *t, char *how, size_t howlen)
{
    tp_read_opts o;
    memset(&o, 0, sizeof o);
    o.keep_args = keep_args;
    tp_err err;
    memset(&err, 0, sizeof err);
    tp_trace_init(t);
    t->keep_args = keep_args;
    if (mode == ONE_THREAD) {
        setenv("TP_READ_THREADS", "1", 1);
    } else {
        setenv("TP_READ_SPLIT_MIN", "0", 1);
        setenv("TP_READ_SPLIT_REPORT", "1", 1);
    }
    /* the split report goes to stderr: caught in a file */
    const char *log = tp_test_tmp("costs.split.log");
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        dup2(fd, 2);
    int rc = tp_xplane_read_mem(buf, len, t, &o, &err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (fd >= 0)
        close(fd);
    unsetenv("TP_READ_THREADS");
    unsetenv("TP_READ_SPLIT_MIN");
    unsetenv("TP_READ_SPLIT_REPORT");
    if (rc != 0)
        fprintf(stderr, "read: %s\n", err.msg);
    char *text = tp_test_read_file(log, NULL);
    const char *at = text ? strstr(text, ", ") : NULL;
    snprintf(how, howlen, "%s", at ? at + 2 : "none");
    how[strcspn(how, "\n")] = 0;
    free(text);
    return rc;
}

static int read_sample(const char *rel, bool keep_args, int mode, tp_trace *t, char *how, size_t howlen)
{
    size_t len;
    char *buf = tp_test_read_file(tp_test_shared(rel), &len);
    if (!buf) {
        tp_trace_init(t);
        return -1;
    }
    int rc = read_buf(buf, len, keep_args, mode, t, how, howlen);
    free(buf);
    return rc;
}

static const tp_name_cost *cost_named(const tp_trace *t, const char *name)
{
    tp_str id = tp_str_find(t, name, strlen(name));
    return id ? tp_cost_of(t, id) : NULL;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* devinfo and costs as text, names spelled out: comparable across traces */
static char *describe(const tp_trace *t)
{
    tp_buf b = {0};
    for (size_t i = 0; i < t->ndevinfo; i++) {
        const tp_device_info *d = &t->devinfo[i];
        tp_buf_printf(&b, "dev %lld '%s' '%s' %lld %d %d.%d %.9g %.9g\n", (long long)d->id, tp_str_get(t, d->name),
                      tp_str_get(t, d->vendor), (long long)d->memory_bytes, d->cores, d->cc_major, d->cc_minor,
                      d->peak_tflops, d->peak_mem_gbps);
    }
    /* in name order (the ids differ with args kept: more strings interned) */
    char **lines = calloc(t->ncosts + 1, sizeof *lines);
    for (size_t i = 0; i < t->ncosts; i++) {
        const tp_name_cost *c = &t->costs[i];
        if (i && t->costs[i - 1].name >= c->name)
            tp_buf_puts(&b, "NOT SORTED BY ID\n");
        tp_buf l = {0};
        tp_buf_printf(&l, "cost '%s' %llu %llu\n", tp_str_get(t, c->name), (unsigned long long)c->flops,
                      (unsigned long long)c->bytes);
        tp_buf_putc(&l, 0);
        lines[i] = l.data;
    }
    qsort(lines, t->ncosts, sizeof *lines, by_text);
    for (size_t i = 0; i < t->ncosts; i++) {
        tp_buf_puts(&b, lines[i]);
        free(lines[i]);
    }
    free(lines);
    tp_buf_putc(&b, 0);
    return b.data;
}

/* The same devinfo and costs with args or without, on one thread or two. */
static void same_every_way(const char *rel, const char *want_split)
{
    tp_trace t;
    char how[64];
    CHECK_EQ_INT(read_sample(rel, true, ONE_THREAD, &t, how, sizeof how), 0);
    char *want = describe(&t);
    tp_trace_free(&t);
    for (int k = 0; k < 3; k++) {
        bool keep = k != 1;
        int mode = k == 2 ? TWO_PARTS : ONE_THREAD;
        CHECK_EQ_INT(read_sample(rel, keep, mode, &t, how, sizeof how), 0);
        if (mode == TWO_PARTS)
            CHECK_STR(how, want_split);
        char *got = describe(&t);
        CHECK_STR(got, want);
        free(got);
        tp_trace_free(&t);
    }
    free(want);
}

TEST(xplane_costs_tpu_sample_devices_and_op_costs)
{
    tp_trace t;
    char how[64];
    CHECK_EQ_INT(read_sample(TPU_SAMPLE, false, ONE_THREAD, &t, how, sizeof how), 0);
    /* four TPU planes (ids 2, 10, 18, 26): their ordinals, name and peaks as the file has them */
    CHECK_EQ_INT(t.ndevinfo, 4);
    for (size_t i = 0; i < t.ndevinfo && i < 4; i++) {
        const tp_device_info *d = &t.devinfo[i];
        CHECK_EQ_INT(d->id, (long long)i);
        CHECK_STR(tp_str_get(&t, d->name), "TPU v6 Lite");
        CHECK_EQ_INT(d->vendor, 0);
        CHECK(d->peak_tflops == 918.0);
        CHECK(d->peak_mem_gbps > 1637.993152 && d->peak_mem_gbps < 1637.993153);
        CHECK_EQ_INT(d->memory_bytes, 0);
        CHECK_EQ_INT(d->cores, 0);
    }
    /* the 17 op names of the XLA Ops lines (the Async XLA Ops' "async-copy" is not an op execution) */
    CHECK_EQ_INT(t.ncosts, 17);
    CHECK(cost_named(&t, "async-copy") == NULL);
    /* %broadcast_add_fusion = f32[5,1024,1024,256] fusion(f32[5,1024,1024,256] %copy-done.4), kind=kLoop:
     * one add per element (5*1024*1024*256 = 1342177280), reads and writes 4 bytes per element */
    const tp_name_cost *c = cost_named(&t, "broadcast_add_fusion");
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(c->flops, 1342177280LL);
        CHECK_EQ_INT(c->bytes, 2LL * 1342177280 * 4);
    }
    /* %all-reduce of f32[5,1024,1024,256]: one add per element, in and out */
    c = cost_named(&t, "all-reduce");
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(c->flops, 1342177280LL);
        CHECK_EQ_INT(c->bytes, 10737418240LL);
    }
    /* %broadcast.2 = f32[5,1024,1024,256] broadcast(f32[] %copy): the output written, no flops */
    c = cost_named(&t, "broadcast.2");
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(c->flops, 0);
        CHECK_EQ_INT(c->bytes, 1342177280LL * 4);
    }
    CHECK_EQ_INT(tp_warning_count(&t, "XPlane ops of one name with different flops/bytes_accessed (no cost kept)"), 0);
    /* a name that is not an op */
    CHECK(cost_named(&t, "XLA Ops") == NULL);
    CHECK(tp_cost_of(&t, 0) == NULL);
    tp_trace_free(&t);
    same_every_way(TPU_SAMPLE, "joined");
}

TEST(xplane_costs_gpu_samples_devices)
{
    tp_trace t;
    char how[64];
    /* TF 2.4 on V100s: eight GPU planes with device caps (only 1, 4 and 6 have
     * events), no model name nor vendor; no op costs (no XLA) */
    CHECK_EQ_INT(read_sample(GPU_SAMPLE, false, ONE_THREAD, &t, how, sizeof how), 0);
    CHECK_EQ_INT(t.ndevinfo, 8);
    for (size_t i = 0; i < t.ndevinfo && i < 8; i++) {
        const tp_device_info *d = &t.devinfo[i];
        CHECK_EQ_INT(d->id, (long long)i);
        CHECK_EQ_INT(d->name, 0);
        CHECK_EQ_INT(d->vendor, 0);
        CHECK_EQ_INT(d->memory_bytes, 16945512448LL);
        CHECK_EQ_INT(d->cores, 80);
        CHECK_EQ_INT(d->cc_major, 7);
        CHECK_EQ_INT(d->cc_minor, 0);
        CHECK(d->peak_tflops == 0 && d->peak_mem_gbps == 0);
    }
    CHECK_EQ_INT(t.ncosts, 0);
    tp_trace_free(&t);
    /* JAX 0.8 on MI300X: vendor AMD, 304 CUs, 192 GiB, gfx942 (9.4); kernels without costs */
    CHECK_EQ_INT(read_sample(AMD_SAMPLE, false, ONE_THREAD, &t, how, sizeof how), 0);
    CHECK_EQ_INT(t.ndevinfo, 8);
    for (size_t i = 0; i < t.ndevinfo && i < 8; i++) {
        const tp_device_info *d = &t.devinfo[i];
        CHECK_EQ_INT(d->id, (long long)i);
        CHECK_EQ_INT(d->name, 0);
        CHECK_STR(tp_str_get(&t, d->vendor), "AMD");
        CHECK_EQ_INT(d->memory_bytes, 206141652992LL);
        CHECK_EQ_INT(d->cores, 304);
        CHECK_EQ_INT(d->cc_major, 9);
        CHECK_EQ_INT(d->cc_minor, 4);
    }
    CHECK_EQ_INT(t.ncosts, 0);
    CHECK_EQ_INT(tp_warning_count(&t, "XPlane ops of one name with different flops/bytes_accessed (no cost kept)"), 0);
    tp_trace_free(&t);
    /* (the devices are all in the second part there: names remapped on the join) */
    same_every_way(GPU_SAMPLE, "joined");
    same_every_way(AMD_SAMPLE, "joined");
}

/* ---- synthetic XSpaces ---- */

enum { SM_FLOPS = 1, SM_BYTES, SM_ASYNC, SM_TYPE, SM_PEAK, SM_CORES };

typedef struct op {
    const char *display;  /* the event (metadata) display name */
    int64_t flops, bytes; /* -1: no such stat on the metadata */
    int64_t ev_flops;     /* >= 0: the second event carries its own flops */
} op;

static void stat_u(pbe *m, uint32_t num, uint64_t id, uint64_t v)
{
    pbe s = {0};
    pbe_uint(&s, 1, id);
    pbe_uint(&s, 3, v);
    pbe_msg(m, num, &s);
    pbe_free(&s);
}

static void stat_d(pbe *m, uint32_t num, uint64_t id, double v)
{
    pbe s = {0};
    pbe_uint(&s, 1, id);
    uint64_t bits;
    memcpy(&bits, &v, 8);
    pbe_varint(&s, 2 << 3 | 1);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(bits >> (8 * i));
    pbe_put(&s, le, 8);
    pbe_msg(m, num, &s);
    pbe_free(&s);
}

static void stat_s(pbe *m, uint32_t num, uint64_t id, const char *v)
{
    pbe s = {0};
    pbe_uint(&s, 1, id);
    pbe_str(&s, 5, v);
    pbe_msg(m, num, &s);
    pbe_free(&s);
}

/* A TPU plane: ops[] on an "XLA Ops" line, two events each (the second
 * with its own flops when ev_flops >= 0), and one async op with costs on
 * "Async XLA Ops". */
static void tpu_plane(pbe *space, int64_t id, int ordinal, const op *ops, size_t nops)
{
    pbe p = {0};
    char name[32];
    snprintf(name, sizeof name, "/device:TPU:%d", ordinal);
    pbe_uint(&p, 1, (uint64_t)id);
    pbe_str(&p, 2, name);
    static const char *const sm[] = {"", "flops", "bytes_accessed", "_a", "device_type_string",
                                     "peak_teraflops_per_second", "core_count"};
    for (uint64_t i = 1; i < sizeof sm / sizeof sm[0]; i++) {
        pbe e = {0}, v = {0};
        pbe_uint(&v, 1, i);
        pbe_str(&v, 2, sm[i]);
        pbe_uint(&e, 1, i);
        pbe_msg(&e, 2, &v);
        pbe_msg(&p, 5, &e);
        pbe_free(&e);
        pbe_free(&v);
    }
    for (size_t i = 0; i <= nops; i++) { /* event metadata 1..nops, then the async op */
        pbe e = {0}, v = {0};
        pbe_uint(&v, 1, i + 1);
        char full[64];
        snprintf(full, sizeof full, "%%%s = f32[8] op()", i < nops ? ops[i].display : "copy-start");
        pbe_str(&v, 2, full);
        pbe_str(&v, 4, i < nops ? ops[i].display : "async-copy");
        if (i == nops || ops[i].flops >= 0)
            stat_u(&v, 5, SM_FLOPS, i < nops ? (uint64_t)ops[i].flops : 7);
        if (i == nops || ops[i].bytes >= 0)
            stat_u(&v, 5, SM_BYTES, i < nops ? (uint64_t)ops[i].bytes : 9);
        pbe_uint(&e, 1, i + 1);
        pbe_msg(&e, 2, &v);
        pbe_msg(&p, 4, &e);
        pbe_free(&e);
        pbe_free(&v);
    }
    stat_s(&p, 6, SM_TYPE, "TPU test");
    stat_d(&p, 6, SM_PEAK, 123.5);
    stat_u(&p, 6, SM_CORES, 2);
    pbe line = {0}, aline = {0};
    pbe_uint(&line, 1, 2);
    pbe_str(&line, 2, "XLA Ops");
    for (size_t i = 0; i < nops; i++)
        for (int k = 0; k < 2; k++) {
            pbe ev = {0};
            pbe_uint(&ev, 1, i + 1);
            pbe_uint(&ev, 2, (uint64_t)(1000000 * (2 * i + (size_t)k)));
            pbe_uint(&ev, 3, 500000);
            if (k == 1 && ops[i].ev_flops >= 0)
                stat_u(&ev, 4, SM_FLOPS, (uint64_t)ops[i].ev_flops);
            pbe_msg(&line, 4, &ev);
            pbe_free(&ev);
        }
    pbe_msg(&p, 3, &line);
    pbe_uint(&aline, 1, 3);
    pbe_str(&aline, 2, "Async XLA Ops");
    pbe ev = {0};
    pbe_uint(&ev, 1, nops + 1);
    pbe_uint(&ev, 2, 0);
    pbe_uint(&ev, 3, 3000000);
    stat_u(&ev, 4, SM_ASYNC, 1);
    pbe_msg(&aline, 4, &ev);
    pbe_msg(&p, 3, &aline);
    pbe_msg(space, 1, &p);
    pbe_free(&ev);
    pbe_free(&line);
    pbe_free(&aline);
    pbe_free(&p);
}

TEST(xplane_costs_that_disagree_are_not_kept)
{
    /* plane A: fusion.1 and dot.2 agree with plane B; conv.3 differs
     * between the planes (bytes); copy.4 has two metadata in plane A, one
     * without stats; add.5's second event overrides its metadata's flops;
     * neg.6 has flops only (no bytes_accessed): not a cost, nothing to
     * say; mul.7 only in plane B */
    static const op a[] = {
        {"fusion.1", 100, 200, -1}, {"dot.2", 10, 20, -1},   {"conv.3", 5, 6, -1},
        {"copy.4", 0, 64, -1},      {"copy.4", -1, -1, -1}, {"add.5", 8, 96, 9},
        {"neg.6", 8, -1, -1},
    };
    static const op b[] = {
        {"dot.2", 10, 20, -1}, {"fusion.1", 100, 200, -1}, {"conv.3", 5, 7, -1}, {"mul.7", 1, 2, -1},
    };
    pbe space = {0};
    tpu_plane(&space, 2, 0, a, sizeof a / sizeof a[0]);
    tpu_plane(&space, 10, 1, b, sizeof b / sizeof b[0]);
    /* one thread with args, then two parts without */
    for (int mode = 0; mode < 2; mode++) {
        tp_trace t;
        char how[64];
        CHECK_EQ_INT(read_buf(space.d, space.len, mode == 0, mode, &t, how, sizeof how), 0);
        if (mode == TWO_PARTS)
            CHECK_STR(how, "joined");
        char *got = describe(&t);
        CHECK_STR(got, "dev 0 'TPU test' '' 0 2 0.0 123.5 0\n"
                       "dev 1 'TPU test' '' 0 2 0.0 123.5 0\n"
                       "cost 'dot.2' 10 20\n"
                       "cost 'fusion.1' 100 200\n"
                       "cost 'mul.7' 1 2\n");
        free(got);
        /* conv.3, copy.4, add.5 */
        CHECK_EQ_INT(tp_warning_count(&t, "XPlane ops of one name with different flops/bytes_accessed (no cost kept)"), 3);
        CHECK(cost_named(&t, "conv.3") == NULL && cost_named(&t, "neg.6") == NULL);
        CHECK(cost_named(&t, "async-copy") == NULL);
        const tp_name_cost *c = cost_named(&t, "mul.7");
        CHECK(c && c->flops == 1 && c->bytes == 2);
        tp_trace_free(&t);
    }
    pbe_free(&space);
}

TEST(xplane_costs_add_merges_and_drops_disagreements)
{
    /* tp_costs_add, as trace_append uses it: u's names mapped into t's */
    tp_trace t;
    tp_trace_init(&t);
    tp_str x = tp_intern_cstr(&t, "x"), y = tp_intern_cstr(&t, "y"), z = tp_intern_cstr(&t, "z");
    tp_name_cost first[] = {{y, 1, 2}, {x, 3, 4}};
    tp_costs_add(&t, first, 2, NULL);
    CHECK_EQ_INT(t.ncosts, 2);
    CHECK(t.costs[0].name == x && t.costs[1].name == y);
    tp_str map[4] = {0, z, y, x}; /* another trace's ids 1, 2, 3 */
    tp_name_cost second[] = {{1, 5, 6}, {2, 1, 2}, {3, 3, 5}};
    tp_costs_add(&t, second, 3, map);
    CHECK_EQ_INT(t.ncosts, 2); /* y agrees, z is new, x disagrees */
    CHECK(tp_cost_of(&t, x) == NULL);
    CHECK(tp_cost_of(&t, y) && tp_cost_of(&t, y)->flops == 1);
    CHECK(tp_cost_of(&t, z) && tp_cost_of(&t, z)->bytes == 6);
    CHECK_EQ_INT(tp_warning_count(&t, "op costs that disagree for one name (none kept)"), 1);
    tp_trace_free(&t);
}
