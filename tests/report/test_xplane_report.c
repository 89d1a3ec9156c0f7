/* test_xplane_report.c: the XPlane report pages (report/formats/xplane/fpage_xplane.c):
 * Launch Stats per step and device computed here straight from the launch
 * events' stats, the TF op / HLO op grids' keys and times against the
 * kernels' own stats, on the three real samples and on small synthetic
 * XSpaces (hand-computed numbers, no launch events at all). */
#include "report/formats/format_pages.h"
#include "tests/lib/fpages_golden.h"
#include "tests/lib/harness.h"
#include "convert/codec/json_value.h"
#include "report/pages/pages.h"
#include "tests/lib/pbenc.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

#include <stdlib.h>

#define GPU_SAMPLE "external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"
#define TPU_SAMPLE "external/xplane/tpu_inference_2.xplane.pb"
#define AMD_SAMPLE "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"

static bool have_pdf_tools(void)
{
    if (tp_test_have("qpdf") && tp_test_have("pdftotext"))
        return true;
    fprintf(stderr, "  (skipping: qpdf/pdftotext not installed)\n");
    return false;
}

/* `report` into dir (must succeed); the PDF's text (malloc'ed) or NULL. */
static char *report(const char *in, const char *dir)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), in, dir);
    if (rc != 0)
        tp_test_fail(__FILE__, __LINE__, "report %s failed (%d): %s", in, rc, out ? out : "");
    free(out);
    out = NULL;
    if (!tp_test_have("pdftotext") ||
        tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- the summary.json of a report, parsed ---- */

typedef struct summ {
    char *text;
    tp_jdoc doc;
    const tp_jv *root, *xp;
} summ;

static bool summ_load(summ *s, const char *dir)
{
    memset(s, 0, sizeof *s);
    tp_jdoc_init(&s->doc);
    size_t len;
    char p[4096];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    s->text = tp_test_read_file(p, &len);
    tp_err err = {0};
    if (!s->text || tp_jv_parse_all(&s->doc, s->text, len, &s->root, &err) != 0)
        return false;
    s->xp = tp_jv_get(s->root, "xplane");
    return s->xp != NULL;
}

static void summ_free(summ *s)
{
    tp_jdoc_free(&s->doc);
    free(s->text);
}

static int64_t jint(const tp_jv *o, const char *key)
{
    int64_t v = INT64_MIN;
    const tp_jv *x = tp_jv_get(o, key);
    if (!x || tp_jv_int(x, &v) != 0)
        return INT64_MIN;
    return v;
}

/* ---- a trace's own stats: event args ---- */

typedef struct args {
    tp_jdoc doc;
    const tp_jv *v;
} args;

static const tp_jv *event_args(const tp_trace *t, const tp_event *e, args *a)
{
    tp_jdoc_reset(&a->doc);
    a->v = NULL;
    if (!e->args)
        return NULL;
    size_t n;
    const char *p = tp_args_get(t, e->args, &n);
    tp_err err = {0};
    if (tp_jv_parse_all(&a->doc, p, n, &a->v, &err) != 0)
        return NULL;
    return a->v;
}

/* A string arg as a NUL-terminated copy in buf ("" when absent). */
static const char *sarg(const tp_jv *o, const char *key, char *buf, size_t n)
{
    size_t len = 0;
    const char *s = tp_jv_str(tp_jv_get(o, key), &len);
    if (!s)
        len = 0;
    if (len >= n)
        len = n - 1;
    memcpy(buf, s ? s : "", len);
    buf[len] = 0;
    return buf;
}

static int load_with_args(const char *path, tp_trace *t)
{
    tp_load_opts lo = {0};
    lo.read.keep_args = true;
    tp_err err = {0};
    tp_trace_init(t);
    int rc = tp_load(path, &lo, t, &err);
    if (rc != 0)
        fprintf(stderr, "load %s: %s\n", path, err.msg);
    return rc;
}

static const char *proc_name(const tp_trace *t, const tp_event *e)
{
    return tp_str_get(t, t->processes[t->tracks[e->track].process].name);
}

/* ---- Launch Stats, computed here ---- */

typedef struct lrow {
    int64_t group; /* INT64_MIN: none */
    char device[64];
    int64_t count, max, min, sum;
} lrow;

static int64_t corr_key(const tp_jv *a)
{
    int64_t c = jint(a, "correlation");
    return c;
}

/* Launches per (group, device) straight from the events' stats: host-plane
 * calls with a correlation id whose name does not start with "cu"; the
 * device is the GPU plane device_id names, else the plane of the device
 * event with the same correlation id. */
static size_t direct_launch_rows(const tp_trace *t, lrow *rows, size_t cap)
{
    args a;
    tp_jdoc_init(&a.doc);
    /* correlation id -> device plane ("GPU:4") */
    size_t nmap = 0, mcap = 0;
    struct cmap {
        int64_t corr;
        const char *dev;
    } *map = NULL;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        const char *pn = proc_name(t, e);
        if (strncmp(pn, "/device:", 8) != 0 || !event_args(t, e, &a))
            continue;
        int64_t c = corr_key(a.v);
        if (c == INT64_MIN)
            continue;
        TP_GROW(map, mcap, nmap + 1);
        map[nmap++] = (struct cmap){c, pn + 8};
    }
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || strncmp(proc_name(t, e), "/host:", 6) != 0 || !event_args(t, e, &a))
            continue;
        int64_t c = corr_key(a.v);
        char full[512];
        sarg(a.v, "long_name", full, sizeof full);
        const char *name = full[0] ? full : tp_str_get(t, e->name);
        if (c == INT64_MIN || strncmp(name, "cu", 2) == 0)
            continue;
        int64_t group = jint(a.v, "group_id"), dev = jint(a.v, "device_id");
        char device[64] = "";
        if (dev != INT64_MIN) {
            char want[64];
            snprintf(want, sizeof want, "/device:GPU:%lld", (long long)dev);
            for (size_t p = 0; p < t->nprocesses && !device[0]; p++)
                if (strcmp(tp_str_get(t, t->processes[p].name), want) == 0)
                    snprintf(device, sizeof device, "%s", want + 8);
        }
        for (size_t k = 0; k < nmap && !device[0]; k++)
            if (map[k].corr == c)
                snprintf(device, sizeof device, "%s", map[k].dev);
        size_t r = 0;
        while (r < n && !(rows[r].group == group && strcmp(rows[r].device, device) == 0))
            r++;
        if (r == n) {
            if (n == cap)
                continue;
            rows[n] = (lrow){group, "", 0, INT64_MIN, INT64_MAX, 0};
            snprintf(rows[n].device, sizeof rows[n].device, "%s", device);
            n++;
        }
        rows[r].count++;
        rows[r].sum += e->dur;
        rows[r].max = e->dur > rows[r].max ? e->dur : rows[r].max;
        rows[r].min = e->dur < rows[r].min ? e->dur : rows[r].min;
    }
    free(map);
    tp_jdoc_free(&a.doc);
    return n;
}

/* Every row of summary.json's launch_stats is one computed here, with the same numbers. */
static void check_launch_rows(const char *what, const summ *s, const lrow *rows, size_t n)
{
    const tp_jv *ls = tp_jv_get(s->xp, "launch_stats"), *jr = tp_jv_get(ls, "rows");
    CHECK(jr && jr->type == TP_JV_ARRAY);
    if (!jr)
        return;
    CHECK_EQ_INT(jr->n, n);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += rows[i].count;
    CHECK_EQ_INT(jint(ls, "launches"), total);
    for (size_t i = 0; i < jr->n; i++) {
        const tp_jv *r = tp_jv_at(jr, i);
        int64_t group = jint(r, "step");
        char dev[64];
        sarg(r, "device", dev, sizeof dev);
        const lrow *w = NULL;
        for (size_t k = 0; k < n && !w; k++)
            if (rows[k].group == group && strcmp(rows[k].device, dev) == 0)
                w = &rows[k];
        if (!w) {
            tp_test_fail(__FILE__, __LINE__, "%s: row step %lld device %s not computed", what, (long long)group, dev);
            continue;
        }
        CHECK_EQ_INT(jint(r, "launches"), w->count);
        CHECK_EQ_INT(jint(r, "max_ns"), w->max);
        CHECK_EQ_INT(jint(r, "min_ns"), w->min);
        CHECK_EQ_INT(jint(r, "total_ns"), w->sum);
        CHECK_EQ_INT(jint(r, "avg_ns"), (w->sum + w->count / 2) / w->count);
    }
}

TEST(xplane_report_launch_stats_equal_direct_count_on_samples)
{
    const char *samples[] = {GPU_SAMPLE, AMD_SAMPLE, TPU_SAMPLE};
    const int64_t want_launches[] = {1556, 105, 0}; /* TF: 1330 kernel launches + 226 MemcpyH2D/D2H calls */
    for (int i = 0; i < 3; i++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", tp_test_tmp(i == 0 ? "xr_gpu" : i == 1 ? "xr_amd" : "xr_tpu"));
        char *txt = report(tp_test_shared(samples[i]), dir);
        tp_trace t;
        CHECK_EQ_INT(load_with_args(tp_test_shared(samples[i]), &t), 0);
        lrow rows[64];
        size_t n = direct_launch_rows(&t, rows, 64);
        summ s;
        CHECK(summ_load(&s, dir));
        check_launch_rows(samples[i], &s, rows, n);
        CHECK_EQ_INT(jint(tp_jv_get(s.xp, "launch_stats"), "launches"), want_launches[i]);
        if (i == 0) {
            /* TF 2.4: launches carry group_id but no device_id; step 0 on GPU:4 and GPU:6 */
            CHECK_EQ_INT(jint(tp_jv_get(s.xp, "launch_stats"), "steps"), 1);
            CHECK_EQ_INT(jint(tp_jv_get(s.xp, "launch_stats"), "device_from_link"), 1556);
            CHECK(txt && strstr(txt, "Launches per step") && strstr(txt, "#0 GPU:4") && strstr(txt, "#0 GPU:6"));
            CHECK(tp_test_exists_in(dir, "png/xplane_launch_stats.png"));
            /* the generic steps page: one step per device, the busiest streams keyed under short headers */
            CHECK(txt && strstr(txt, "Steps (one per device"));
            CHECK(txt && strstr(txt, "stream 3: device 4 Stream #134(Compute)"));
        } else if (i == 1) {
            /* JAX: no groups (one "no step" row), device_id 768 names no plane */
            CHECK_EQ_INT(n, 1);
            CHECK_EQ_INT(jint(tp_jv_get(s.xp, "launch_stats"), "without_step"), 105);
            CHECK(txt && strstr(txt, "no step") && strstr(txt, "GPU:0"));
        } else {
            CHECK(txt && strstr(txt, "Launch Stats: no launch calls"));
            CHECK(!tp_test_exists_in(dir, "png/xplane_launch_stats.png"));

        }
        char *md = tp_test_read_in(dir, "summary.md");
        CHECK(md && strstr(md, "#### XPlane: Launch Stats") && strstr(md, "#### XPlane: dominating TF ops"));
        free(md);
        summ_free(&s);
        free(txt);
        tp_trace_free(&t);
    }
}

/* ---- TF op / HLO op keys, computed here ---- */

typedef struct keysum {
    char key[1024];
    int64_t ns;
} keysum;

static void add_key(keysum *k, size_t *n, size_t cap, const char *key, int64_t ns)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(k[i].key, key) == 0) {
            k[i].ns += ns;
            return;
        }
    if (*n < cap) {
        snprintf(k[*n].key, sizeof k[*n].key, "%s", key);
        k[(*n)++].ns = ns;
    }
}

/* The op type of a TF/JAX op name: after the last ':', else the last '/' part. */
static void op_type(const char *s, char *out, size_t n)
{
    const char *c = strrchr(s, ':');
    if (c && c[1]) {
        snprintf(out, n, "%s", c + 1);
        return;
    }
    size_t len = c ? (size_t)(c - s) : strlen(s);
    const char *p = s + len;
    while (p > s && p[-1] != '/')
        p--;
    snprintf(out, n, "%.*s", (int)(s + len - p), p);
}

/* Device time per TF op type and per "hlo op (module)", from the kernels',
 * copies' own stats: tf_op (not JAX's "XlaModule:"), else `level 0`, else
 * (XLA kernels) the `name` path; hlo_op's first "::" level and hlo_module. */
static void direct_op_sums(const tp_trace *t, keysum *tf, size_t *ntf, keysum *hlo, size_t *nhlo, size_t cap)
{
    args a;
    tp_jdoc_init(&a.doc);
    *ntf = *nhlo = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || (e->flags & TP_EV_DROPPED) ||
            !(e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET))
            continue;
        char op[1024] = "", h[512] = "", mod[256] = "", key[1024];
        if (event_args(t, e, &a)) {
            sarg(a.v, "tf_op", op, sizeof op);
            if (strcmp(op, "XlaModule:") == 0)
                op[0] = 0;
            if (!op[0])
                sarg(a.v, "level 0", op, sizeof op);
            sarg(a.v, "hlo_op", h, sizeof h);
            sarg(a.v, "hlo_module", mod, sizeof mod);
            if (!op[0] && h[0])
                sarg(a.v, "name", op, sizeof op);
        }
        if (op[0])
            op_type(op, key, sizeof key);
        add_key(tf, ntf, cap, op[0] ? key : "(no TF op)", e->dur);
        char *sep = strstr(h, "::");
        if (sep)
            *sep = 0;
        if (h[0] && mod[0])
            snprintf(key, sizeof key, "%s (%s)", h, mod);
        else
            snprintf(key, sizeof key, "%s", h[0] ? h : "(no HLO op)");
        add_key(hlo, nhlo, cap, key, e->dur);
    }
    tp_jdoc_free(&a.doc);
}

static void check_ops(const char *what, const tp_jv *ops, const keysum *k, size_t n)
{
    CHECK(ops && ops->type == TP_JV_ARRAY);
    if (!ops)
        return;
    if (ops->n != n)
        tp_test_fail(__FILE__, __LINE__, "%s: %u ops in summary.json, %zu computed", what, ops->n, n);
    for (size_t i = 0; i < ops->n; i++) {
        char name[1024];
        sarg(tp_jv_at(ops, i), "name", name, sizeof name);
        const keysum *w = NULL;
        for (size_t j = 0; j < n && !w; j++)
            if (strcmp(k[j].key, name) == 0)
                w = &k[j];
        if (!w)
            tp_test_fail(__FILE__, __LINE__, "%s: key \"%s\" is not an op of the data", what, name);
        else if (jint(tp_jv_at(ops, i), "total_ns") != w->ns)
            tp_test_fail(__FILE__, __LINE__, "%s: \"%s\" %lld ns, computed %lld", what, name,
                         (long long)jint(tp_jv_at(ops, i), "total_ns"), (long long)w->ns);
    }
}

TEST(xplane_report_op_grids_keyed_by_tf_and_hlo_ops_of_the_data)
{
    const char *samples[] = {GPU_SAMPLE, AMD_SAMPLE, TPU_SAMPLE};
    enum { CAP = 512 };
    keysum *tf = calloc(CAP, sizeof *tf), *hlo = calloc(CAP, sizeof *hlo);
    for (int i = 0; i < 3; i++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", tp_test_tmp(i == 0 ? "xo_gpu" : i == 1 ? "xo_amd" : "xo_tpu"));
        char *txt = report(tp_test_shared(samples[i]), dir);
        tp_trace t;
        CHECK_EQ_INT(load_with_args(tp_test_shared(samples[i]), &t), 0);
        size_t ntf, nhlo;
        direct_op_sums(&t, tf, &ntf, hlo, &nhlo, CAP);
        summ s;
        CHECK(summ_load(&s, dir));
        check_ops(samples[i], tp_jv_get(s.xp, "tf_ops"), tf, ntf);
        check_ops(samples[i], tp_jv_get(s.xp, "hlo_ops"), hlo, nhlo);
        CHECK(txt && strstr(txt, "Dominating TF ops"));
        if (i == 1) { /* JAX: both grids, keys from the kernels' stats */
            CHECK(txt && strstr(txt, "Dominating XLA ops by time: kernel mix by category"));
            CHECK(txt && strstr(txt, "dot_general") && strstr(txt, "custom-call.1 (jit_matmul)"));
            CHECK(tp_test_exists_in(dir, "png/xplane_tf_ops.png") && tp_test_exists_in(dir, "png/xplane_xla_ops.png"));
        } else { /* no hlo_op on TF 2.4 kernels nor on TPU ops: a page that says so */
            CHECK(txt && strstr(txt, "Dominating XLA ops: none"));
            CHECK(!tp_test_exists_in(dir, "png/xplane_xla_ops.png"));
        }
        if (i == 0) /* TF 2.4's `level 0` op names, by type */
            CHECK(txt && strstr(txt, "RandomUniform") && strstr(txt, "GreaterEqual"));
        summ_free(&s);
        free(txt);
        tp_trace_free(&t);
    }
    free(tf);
    free(hlo);
}

/* ---- synthetic XSpaces ---- */

enum { ST_CORR = 1, ST_DEVICE, ST_GROUP, ST_KD, ST_TFOP, ST_HLO, ST_MOD, ST_MEMCPY };

static void stat_meta(pbe *plane, int64_t id, const char *name)
{
    pbe v = {0}, e = {0};
    pbe_uint(&v, 1, (uint64_t)id);
    pbe_str(&v, 2, name);
    pbe_uint(&e, 1, (uint64_t)id);
    pbe_msg(&e, 2, &v);
    pbe_msg(plane, 5, &e);
    pbe_free(&v);
    pbe_free(&e);
}

static void event_meta(pbe *plane, int64_t id, const char *name)
{
    pbe v = {0}, e = {0};
    pbe_uint(&v, 1, (uint64_t)id);
    pbe_str(&v, 2, name);
    pbe_uint(&e, 1, (uint64_t)id);
    pbe_msg(&e, 2, &v);
    pbe_msg(plane, 4, &e);
    pbe_free(&v);
    pbe_free(&e);
}

static void all_stat_meta(pbe *plane)
{
    stat_meta(plane, ST_CORR, "correlation_id");
    stat_meta(plane, ST_DEVICE, "device_id");
    stat_meta(plane, ST_GROUP, "group_id");
    stat_meta(plane, ST_KD, "kernel_details");
    stat_meta(plane, ST_TFOP, "tf_op");
    stat_meta(plane, ST_HLO, "hlo_op");
    stat_meta(plane, ST_MOD, "hlo_module");
    stat_meta(plane, ST_MEMCPY, "memcpy_details");
}

static void stat_i(pbe *ev, int64_t id, int64_t v)
{
    pbe s = {0};
    pbe_uint(&s, 1, (uint64_t)id);
    pbe_uint(&s, 4, (uint64_t)v);
    pbe_msg(ev, 4, &s);
    pbe_free(&s);
}

static void stat_s(pbe *ev, int64_t id, const char *v)
{
    pbe s = {0};
    pbe_uint(&s, 1, (uint64_t)id);
    pbe_str(&s, 5, v);
    pbe_msg(ev, 4, &s);
    pbe_free(&s);
}

/* One event: metadata id, start and duration in ns, then stats. */
typedef struct xev {
    int64_t meta, ts, dur;
    int64_t corr, device, group; /* -1: no stat */
    const char *tf_op, *hlo, *mod, *details;
    int details_stat;
} xev;

static void put_event(pbe *line, const xev *x)
{
    pbe e = {0};
    pbe_uint(&e, 1, (uint64_t)x->meta);
    pbe_uint(&e, 2, (uint64_t)x->ts * 1000);
    pbe_uint(&e, 3, (uint64_t)x->dur * 1000);
    if (x->corr >= 0)
        stat_i(&e, ST_CORR, x->corr);
    if (x->device >= 0)
        stat_i(&e, ST_DEVICE, x->device);
    if (x->group >= 0)
        stat_i(&e, ST_GROUP, x->group);
    if (x->details)
        stat_s(&e, x->details_stat, x->details);
    if (x->tf_op)
        stat_s(&e, ST_TFOP, x->tf_op);
    if (x->hlo)
        stat_s(&e, ST_HLO, x->hlo);
    if (x->mod)
        stat_s(&e, ST_MOD, x->mod);
    pbe_msg(line, 4, &e);
    pbe_free(&e);
}

/* A plane with one line holding evs (lines before metadata, as real files). */
static void put_plane(pbe *space, int64_t id, const char *name, const char *line_name, const xev *evs, size_t n,
                      const char *const *meta_names, size_t nmeta)
{
    pbe plane = {0}, line = {0};
    pbe_uint(&plane, 1, (uint64_t)id);
    pbe_str(&plane, 2, name);
    pbe_uint(&line, 1, 1);
    pbe_str(&line, 2, line_name);
    pbe_uint(&line, 3, 0);
    for (size_t i = 0; i < n; i++)
        put_event(&line, &evs[i]);
    pbe_msg(&plane, 3, &line);
    for (size_t i = 0; i < nmeta; i++)
        event_meta(&plane, (int64_t)i + 1, meta_names[i]);
    all_stat_meta(&plane);
    pbe_msg(space, 1, &plane);
    pbe_free(&line);
    pbe_free(&plane);
}

static const char *write_space(const char *name, const pbe *space)
{
    const char *path = tp_test_tmp(name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(space->d, 1, space->len, f);
        fclose(f);
    }
    return path;
}

#define KD "regs:32 grid:1,1,1 block:128,1,1"
#define NOSTAT -1, -1, -1

/* Launches (host, ns; named after their kernel, as TensorFlow's CUPTI
 * tracer names them):                          kernels they start:
 *   L1 gemm_kernel   1000+4000 corr 1 dev 0 grp 1   K1 GPU:0 5000+1000 MatMul fusion.1
 *   L2 gemm_kernel   6000+2001 corr 2 dev 0 grp 1   K2 GPU:0 8100+500  MatMul fusion.1
 *   L3 gemm_kernel   9000+10   corr 3 dev 1 grp 1   K3 GPU:1 9100+200  MatMul fusion.1
 *   L4 cuEventRecord 9500+50   corr 4 dev 0 grp 1   (a driver call: not counted)
 *   L5 relu_kernel   20000+300 corr 5 dev 0 grp 2   K5 GPU:0 20500+100 Relu
 *   L6 MemcpyH2D     21000+700 corr 6 grp 2, no device_id: M6 GPU:1 21800+100 (found by the link)
 *   L7 other_kernel  30000+100 corr 7 dev 0, no group   K7 GPU:0 30200+50 (no op)
 * Hand-computed Launch Stats:
 *   step 1 GPU:0: 2 launches, max 4000, min 2001, total 6001, avg (6001+1)/2 = 3001, span 1000..8001
 *   step 1 GPU:1: 1, 10;  step 2 GPU:0: 1, 300;  step 2 GPU:1: 1, 700 (by link);  no step GPU:0: 1, 100. */
static const char *write_launch_space(void)
{
    static const char *const host_meta[] = {"gemm_kernel", "cuEventRecord", "MemcpyH2D", "relu_kernel",
                                            "other_kernel"};
    static const char *const dev_meta[] = {"gemm_kernel", "relu_kernel", "other_kernel", "MemcpyH2D"};
    const char *mm = "model/dense/MatMul:MatMul";
    xev host[] = {
        {1, 1000, 4000, 1, 0, 1, NULL, NULL, NULL, KD, ST_KD},
        {1, 6000, 2001, 2, 0, 1, NULL, NULL, NULL, KD, ST_KD},
        {1, 9000, 10, 3, 1, 1, NULL, NULL, NULL, KD, ST_KD},
        {2, 9500, 50, 4, 0, 1, NULL, NULL, NULL, NULL, 0},
        {4, 20000, 300, 5, 0, 2, NULL, NULL, NULL, KD, ST_KD},
        {3, 21000, 700, 6, -1, 2, NULL, NULL, NULL, "kind:1 size:64", ST_MEMCPY},
        {5, 30000, 100, 7, 0, -1, NULL, NULL, NULL, KD, ST_KD},
    };
    xev gpu0[] = {
        {1, 5000, 1000, 1, -1, 1, mm, "fusion.1", "jit_f", KD, ST_KD},
        {1, 8100, 500, 2, -1, 1, mm, "fusion.1", "jit_f", KD, ST_KD},
        {2, 20500, 100, 5, -1, 2, "model/relu/Relu:Relu", NULL, NULL, KD, ST_KD},
        {3, 30200, 50, 7, -1, -1, NULL, NULL, NULL, KD, ST_KD},
    };
    xev gpu1[] = {
        {1, 9100, 200, 3, -1, 1, mm, "fusion.1::dot.2", "jit_f", KD, ST_KD},
        {4, 21800, 100, 6, -1, 2, NULL, NULL, NULL, "kind:1 size:64", ST_MEMCPY},
    };
    pbe space = {0};
    put_plane(&space, 0, "/host:CPU", "launcher", host, sizeof host / sizeof host[0], host_meta, 5);
    put_plane(&space, 1, "/device:GPU:0", "Stream #7(Compute)", gpu0, sizeof gpu0 / sizeof gpu0[0], dev_meta, 4);
    put_plane(&space, 2, "/device:GPU:1", "Stream #9(Compute)", gpu1, sizeof gpu1 / sizeof gpu1[0], dev_meta, 4);
    const char *p = write_space("launches.xplane.pb", &space);
    pbe_free(&space);
    return p;
}

static const tp_jv *find_row(const tp_jv *rows, int64_t step, const char *dev)
{
    for (size_t i = 0; rows && i < rows->n; i++) {
        const tp_jv *r = tp_jv_at(rows, i);
        char d[64];
        sarg(r, "device", d, sizeof d);
        if (jint(r, "step") == step && strcmp(d, dev) == 0)
            return r;
    }
    return NULL;
}

static void want_row(const tp_jv *rows, int64_t step, const char *dev, int64_t n, int64_t max, int64_t avg,
                     int64_t min, int64_t total, int line)
{
    const tp_jv *r = find_row(rows, step, dev);
    if (!r) {
        tp_test_fail(__FILE__, line, "no row step %lld %s", (long long)step, dev);
        return;
    }
    if (jint(r, "launches") != n || jint(r, "max_ns") != max || jint(r, "avg_ns") != avg ||
        jint(r, "min_ns") != min || jint(r, "total_ns") != total)
        tp_test_fail(__FILE__, line, "row step %lld %s: %lld launches, max %lld, avg %lld, min %lld, total %lld",
                     (long long)step, dev, (long long)jint(r, "launches"), (long long)jint(r, "max_ns"),
                     (long long)jint(r, "avg_ns"), (long long)jint(r, "min_ns"), (long long)jint(r, "total_ns"));
}

TEST(xplane_report_synthetic_launch_stats_per_step_and_device)
{
    const char *in = write_launch_space();
    const char *dir = tp_test_tmp("xr_synth");
    char *txt = report(in, dir);
    summ s;
    CHECK(summ_load(&s, dir));
    const tp_jv *ls = tp_jv_get(s.xp, "launch_stats"), *rows = tp_jv_get(ls, "rows");
    CHECK_EQ_INT(jint(ls, "launches"), 6);
    CHECK_EQ_INT(jint(ls, "steps"), 2);
    CHECK_EQ_INT(jint(ls, "device_from_link"), 1);
    CHECK_EQ_INT(jint(ls, "without_step"), 1);
    CHECK(rows && rows->n == 5);
    want_row(rows, 1, "GPU:0", 2, 4000, 3001, 2001, 6001, __LINE__);
    want_row(rows, 1, "GPU:1", 1, 10, 10, 10, 10, __LINE__);
    want_row(rows, 2, "GPU:0", 1, 300, 300, 300, 300, __LINE__);
    want_row(rows, 2, "GPU:1", 1, 700, 700, 700, 700, __LINE__);
    want_row(rows, INT64_MIN, "GPU:0", 1, 100, 100, 100, 100, __LINE__); /* "step": null */
    CHECK(find_row(rows, 1, "GPU:0") && jint(find_row(rows, 1, "GPU:0"), "span_ns") == 7001);
    /* rows by step, then device; "no step" last */
    CHECK(rows && jint(tp_jv_at(rows, 0), "step") == 1 && jint(tp_jv_at(rows, 4), "step") == INT64_MIN);
    /* the TF op grid: MatMul = K1+K2 (one run on GPU:0) and K3 (GPU:1): two occurrences, 1700 ns */
    const tp_jv *tf = tp_jv_get(s.xp, "tf_ops");
    CHECK(tf && tf->n == 3);
    const tp_jv *mm = tp_jv_at(tf, 0);
    char name[64];
    CHECK_STR(sarg(mm, "name", name, sizeof name), "MatMul");
    CHECK_EQ_INT(jint(mm, "total_ns"), 1700);
    CHECK_EQ_INT(jint(mm, "occurrences"), 2);
    CHECK_EQ_INT(jint(mm, "instances"), 3);
    /* the HLO grid: the outermost level with its module */
    const tp_jv *hlo = tp_jv_get(s.xp, "hlo_ops");
    CHECK(hlo && hlo->n == 2);
    CHECK_STR(sarg(tp_jv_at(hlo, 0), "name", name, sizeof name), "fusion.1 (jit_f)");
    CHECK_EQ_INT(jint(tp_jv_at(hlo, 0), "total_ns"), 1700);
    CHECK_STR(sarg(tp_jv_at(hlo, 1), "name", name, sizeof name), "(no HLO op)");
    if (txt) {
        static const char *const want[] = {"Launch Stats", "Launches per step", "#1 GPU:0", "no step GPU:0",
                                           "3.001", "4.000", "Dominating TF ops", "Dominating XLA ops", NULL};
        for (int i = 0; want[i]; i++)
            if (!strstr(txt, want[i]))
                tp_test_fail(__FILE__, __LINE__, "report.pdf lacks \"%s\"", want[i]);
    }
    summ_free(&s);
    free(txt);

    /* the reader's own Launch Stats line counts the same launches where it
     * has a step and a device_id: step 1 GPU:0 avg 3.001 us, max 4.000 us */
    tp_trace t;
    CHECK_EQ_INT(load_with_args(in, &t), 0);
    size_t nline = 0;
    bool seen = false;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (strcmp(tp_str_get(&t, t.tracks[e->track].name), "Launch Stats") != 0)
            continue;
        nline++;
        size_t n;
        const char *a = tp_args_get(&t, e->args, &n);
        if (strcmp(proc_name(&t, e), "/device:GPU:0") == 0 && strstr(a, "\"group_id\":1,"))
            seen = strstr(a, "\"num_launches\":2") && strstr(a, "\"max_launch_time_us\":4.000") &&
                   strstr(a, "\"avg_launch_time_us\":3.001");
    }
    CHECK_EQ_INT(nline, 3); /* step 1 on GPU:0 and GPU:1, step 2 on GPU:0 (the memcpy has no device_id) */
    CHECK(seen);
    tp_trace_free(&t);
}

/* A GPU plane with kernels and a host thread without a single launch call. */
TEST(xplane_report_no_launch_events_gives_an_empty_state_page)
{
    static const char *const host_meta[] = {"Session::Run"};
    static const char *const dev_meta[] = {"gemm_kernel"};
    xev host[] = {{1, 0, 50000, NOSTAT, NULL, NULL, NULL, NULL, 0}};
    xev gpu[] = {{1, 1000, 2000, NOSTAT, "m/MatMul:MatMul", NULL, NULL, KD, ST_KD},
                 {1, 4000, 3000, NOSTAT, "m/MatMul:MatMul", NULL, NULL, KD, ST_KD}};
    pbe space = {0};
    put_plane(&space, 0, "/host:CPU", "python", host, 1, host_meta, 1);
    put_plane(&space, 1, "/device:GPU:0", "Stream #7(Compute)", gpu, 2, dev_meta, 1);
    const char *in = write_space("nolaunch.xplane.pb", &space);
    pbe_free(&space);
    const char *dir = tp_test_tmp("xr_nolaunch");
    char *txt = report(in, dir);
    summ s;
    CHECK(summ_load(&s, dir));
    const tp_jv *ls = tp_jv_get(s.xp, "launch_stats");
    CHECK_EQ_INT(jint(ls, "launches"), 0);
    CHECK(tp_jv_get(ls, "rows") && tp_jv_get(ls, "rows")->n == 0);
    CHECK(txt && strstr(txt, "Launch Stats: no launch calls") && strstr(txt, "no launches to count"));
    CHECK(txt && strstr(txt, "Dominating TF ops by time: kernel mix") && strstr(txt, "MatMul"));
    CHECK(txt && strstr(txt, "Dominating XLA ops: none"));
    CHECK(!tp_test_exists_in(dir, "png/xplane_launch_stats.png") && tp_test_exists_in(dir, "png/xplane_tf_ops.png"));
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "The trace has no launch calls"));
    free(md);
    summ_free(&s);
    free(txt);
}

/* The pages through qpdf, and a golden recording of them (JAX sample). */
TEST(xplane_report_pdf_checks_and_golden_pages)
{
    if (have_pdf_tools()) {
        const char *dir = tp_test_tmp("xr_qpdf");
        free(report(tp_test_shared(AMD_SAMPLE), dir));
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s/report.pdf'", dir), 0);
        free(out);
    }
    tp_test_fpages_golden(tp_test_shared(AMD_SAMPLE), "amd_mi300_jax08_attention_tw003.xplane.pb", true, &tp_fpages_xplane,
                          "report/fpages_xplane.rec");
}

/* XPlane steps are per device (the TF sample: step 0 on GPU:4 and on
 * GPU:6): each holds exactly its own device's work inside its span,
 * counted here directly, and is labelled with its device. */
TEST(xplane_report_device_steps_hold_their_own_devices_work)
{
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace t;
    tp_trace_init(&t);
    CHECK_EQ_INT(tp_load(tp_test_shared(GPU_SAMPLE), &lo, &t, &err), 0);
    tp_report_opts ro = {"gpu.xplane.pb", NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    CHECK_EQ_INT(s.sf.nsteps, 2);
    static const char *const labels[] = {"#0 GPU:4", "#0 GPU:6"};
    for (size_t k = 0; k < s.sf.nsteps && k < 2; k++) {
        const tp_step_row *r = &s.sf.steps[k];
        uint32_t proc = t.tracks[t.events[r->event].track].process;
        uint64_t n = 0, kernels = 0;
        for (size_t i = 0; i < t.nevents; i++) {
            const tp_event *e = &t.events[i];
            bool act = e->ph == 'X' &&
                       (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
            if (act && t.tracks[e->track].process == proc && e->ts >= r->ts && e->ts < r->ts + r->host_ns) {
                n++;
                kernels += e->kind == TP_KIND_KERNEL;
            }
        }
        CHECK_EQ_INT(r->device_events, n);
        CHECK_EQ_INT(kernels, 665); /* SOURCES.md: 665 kernels on each of GPU:4 and GPU:6 */
        char lab[64];
        tp_step_label(&t, &s.sf, r, lab, sizeof lab);
        CHECK_STR(lab, labels[k]);
    }
    char lab[64];
    tp_step_label(&t, &s.sf, &s.sf.whole, lab, sizeof lab);
    CHECK_STR(lab, "whole trace");
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* 122 host threads (4 levels each) do not push the four TPUs off the
 * timeline: the 20 busiest host rows are shown, the rest share one row. */
TEST(xplane_report_tpu_timeline_keeps_its_devices)
{
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace t;
    tp_trace_init(&t);
    CHECK_EQ_INT(tp_load(tp_test_shared(TPU_SAMPLE), &lo, &t, &err), 0);
    tp_report_opts ro = {"tpu.xplane.pb", NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    tp_buf rec = {0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_pagectx pc = {&s, 595, 842, 842, 595, NULL, 0, NULL, tp_category_colors(s.rules)};
    tp_cv_begin_page(cv, 842, 595, "Timeline");
    tp_chart_timeline(cv, &pc, (tp_rect){36, 36, 770, 523});
    tp_cv_end_page(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    tp_buf_putc(&rec, 0);
    CHECK(strstr(rec.data, "\"263 other host rows\"") && !strstr(rec.data, "more tracks not shown"));
    for (int d = 0; d < 4; d++) {
        char want[64];
        snprintf(want, sizeof want, "\"device %d XLA Ops\"", d);
        if (!strstr(rec.data, want))
            tp_test_fail(__FILE__, __LINE__, "the timeline lacks the row %s", want);
    }
    tp_buf_free(&rec);
    free(pc.cat_colors);
    tp_summary_free(&s);
    tp_trace_free(&t);
}
