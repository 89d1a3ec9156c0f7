/* collectives.c: collective calls, their sizes and bandwidths
 * (collectives.h). */
#include "report/comm/collectives.h"
#include "convert/base/strset.h"
#include "convert/codec/json_value.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts_ci(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[i]) != p[i])
            return false;
    return true;
}

static bool is_comm_kernel(const char *name, size_t n)
{
    return starts_ci(name, n, "nccl") || starts_ci(name, n, "rccl");
}

bool tp_collectives_want_args(const char *name, size_t len)
{
    return is_comm_kernel(name, len) || (len == 18 && memcmp(name, "record_param_comms", 18) == 0);
}

/* ---- kinds and factors ---- */

/* The kind from a recorded name or a kernel name, lower-cased with '_'
 * removed: "allreduce", "_allgather_base", "ncclKernel_ReduceScatter_..." */
static const char *kind_of(const char *s)
{
    char low[128];
    size_t n = 0;
    for (; *s && n + 1 < sizeof low; s++)
        if (*s != '_')
            low[n++] = (char)tolower((unsigned char)*s);
    low[n] = 0;
    static const struct {
        const char *needle, *kind;
    } kinds[] = {{"allreduce", "all_reduce"},       {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
                 {"alltoall", "all_to_all"},        {"sendrecv", "send_recv"},   {"broadcast", "broadcast"},
                 {"reduce", "reduce"},              {"send", "send_recv"},       {"recv", "send_recv"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(low, kinds[i].needle))
            return kinds[i].kind;
    return NULL;
}

double tp_coll_factor(const char *kind, int64_t n)
{
    if (n < 1)
        return 0;
    double f = (double)(n - 1) / (double)n;
    if (strcmp(kind, "all_reduce") == 0)
        return 2 * f;
    if (strcmp(kind, "all_gather") == 0 || strcmp(kind, "reduce_scatter") == 0 || strcmp(kind, "all_to_all") == 0)
        return f;
    if (strcmp(kind, "broadcast") == 0 || strcmp(kind, "reduce") == 0 || strcmp(kind, "send_recv") == 0)
        return 1;
    return 0;
}

/* Element sizes of the dtype names record_param_comms writes (c10's
 * ScalarType names). */
static int dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int size;
    } t[] = {{"Float", 4},         {"Double", 8},          {"Half", 2},          {"BFloat16", 2},
             {"Long", 8},          {"Int", 4},             {"Short", 2},         {"Char", 1},
             {"Byte", 1},          {"Bool", 1},            {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
             {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1}, {"ComplexFloat", 8}, {"ComplexDouble", 16},
             {"ComplexHalf", 4},   {"UInt16", 2},          {"UInt32", 4},        {"UInt64", 8}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i].name) == n && memcmp(t[i].name, s, n) == 0)
            return t[i].size;
    return 0;
}

/* ---- one call's metadata ---- */

typedef struct call {
    const char *kind;          /* static */
    char dtype[32], group[64], ranks[256];
    int64_t group_size;
    uint64_t bytes;            /* 0 unknown */
} call;

static void copy_str(const tp_jv *v, char *buf, size_t n)
{
    size_t len;
    const char *s = v ? tp_jv_str(v, &len) : NULL;
    if (!s) {
        buf[0] = 0;
        return;
    }
    /* printable ASCII only: names from a trace go to summary.md and the pages */
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < n; i++)
        buf[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[k] = 0;
}

/* The metadata keys of an args object, when it has "Collective name". */
static bool read_meta(const char *args, size_t len, tp_jdoc *doc, call *c)
{
    const tp_jv *root;
    tp_err err = {0};
    tp_jdoc_reset(doc);
    if (!args || tp_jv_parse_all(doc, args, len, &root, &err) != 0 || root->type != TP_JV_OBJECT)
        return false;
    const tp_jv *name = tp_jv_get(root, "Collective name");
    size_t nlen;
    const char *ns = name ? tp_jv_str(name, &nlen) : NULL;
    if (!ns)
        return false;
    char nbuf[96];
    snprintf(nbuf, sizeof nbuf, "%.*s", (int)(nlen < 95 ? nlen : 95), ns);
    const char *k = kind_of(nbuf);
    if (k)
        c->kind = k;
    copy_str(tp_jv_get(root, "dtype"), c->dtype, sizeof c->dtype);
    copy_str(tp_jv_get(root, "Process Group Name"), c->group, sizeof c->group);
    copy_str(tp_jv_get(root, "Process Group Ranks"), c->ranks, sizeof c->ranks);
    int64_t gs = 0, in = -1, out = -1;
    if (tp_jv_get(root, "Group size") && tp_jv_int(tp_jv_get(root, "Group size"), &gs) == 0 && gs > 0)
        c->group_size = gs;
    if (tp_jv_get(root, "In msg nelems"))
        tp_jv_int(tp_jv_get(root, "In msg nelems"), &in);
    if (tp_jv_get(root, "Out msg nelems"))
        tp_jv_int(tp_jv_get(root, "Out msg nelems"), &out);
    int e = dtype_size(c->dtype, strlen(c->dtype));
    uint64_t elems = (uint64_t)(in > out ? in : out);
    if (e && (in >= 0 || out >= 0) && elems <= UINT64_MAX / 16)
        c->bytes = elems * (uint64_t)e;
    return true;
}

/* ---- rows ---- */

typedef struct builder {
    tp_collectives *c;
    tp_strset keys;
    size_t cap;
    double *alg_sum, *bus_sum; /* per row: sums of per-call rates */
    tp_buf key;
} builder;

static void add_call(builder *b, const call *cl, int64_t ns)
{
    tp_collectives *c = b->c;
    b->key.len = 0;
    tp_buf_printf(&b->key, "%s\x1f%s\x1f%s\x1f%s\x1f%lld\x1f%llu", cl->kind, cl->dtype, cl->group, cl->ranks,
                  (long long)cl->group_size, (unsigned long long)cl->bytes);
    size_t before = b->keys.n;
    uint32_t id = tp_strset_add(&b->keys, b->key.data, b->key.len);
    if (b->keys.n > before) {
        size_t old = b->cap;
        TP_GROW(c->rows, b->cap, c->n + 1);
        if (b->cap > old) {
            b->alg_sum = tp_xrealloc(b->alg_sum, b->cap * sizeof *b->alg_sum);
            b->bus_sum = tp_xrealloc(b->bus_sum, b->cap * sizeof *b->bus_sum);
        }
        tp_coll_row *r = &c->rows[c->n];
        memset(r, 0, sizeof *r);
        r->kind = tp_xstrdup(cl->kind);
        r->dtype = tp_xstrdup(cl->dtype);
        r->group = tp_xstrdup(cl->group);
        r->ranks = tp_xstrdup(cl->ranks);
        r->group_size = cl->group_size;
        r->bytes = cl->bytes;
        r->min_ns = INT64_MAX;
        r->factor = tp_coll_factor(cl->kind, cl->group_size);
        b->alg_sum[c->n] = b->bus_sum[c->n] = 0;
        c->n++;
    }
    size_t i = id - 1;
    tp_coll_row *r = &c->rows[i];
    r->count++;
    r->total_ns = tp_sat_add(r->total_ns, ns);
    r->min_ns = ns < r->min_ns ? ns : r->min_ns;
    r->max_ns = ns > r->max_ns ? ns : r->max_ns;
    if (r->bytes && ns > 0) { /* bytes per ns = GB/s */
        double alg = (double)r->bytes / (double)ns;
        b->alg_sum[i] += alg;
        b->bus_sum[i] += alg * r->factor;
    }
}

static int cmp_rows(const void *pa, const void *pb)
{
    const tp_coll_row *a = pa, *b = pb;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    int k = strcmp(a->kind, b->kind);
    if (k)
        return k;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    k = strcmp(a->group, b->group);
    return k ? k : strcmp(a->dtype, b->dtype);
}

void tp_collectives_build(const tp_trace *t, tp_collectives *c)
{
    memset(c, 0, sizeof *c);
    builder b = {.c = c};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    void *cursor = tp_args_cursor_new(t);
    tp_buf scratch = {0};
    uint8_t *comm = tp_xcalloc(t->nstr + 1, 1); /* name id -> 0 not asked, 1 comm kernel, 2 not */
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *a = &t->events[i];
        if (a->ph != 'X' || a->kind != TP_KIND_KERNEL || (a->flags & (TP_EV_DROPPED | TP_EV_DERIVED)))
            continue;
        if (!comm[a->name]) {
            const char *s = tp_str_get(t, a->name);
            comm[a->name] = is_comm_kernel(s, strlen(s)) ? 1 : 2;
        }
        if (comm[a->name] != 1)
            continue;
        c->calls++;
        c->total_ns = tp_sat_add(c->total_ns, a->dur);
        call cl = {0};
        cl.kind = kind_of(tp_str_get(t, a->name));
        if (!cl.kind)
            cl.kind = "other";
        const char *args, *extra;
        size_t alen = 0, elen;
        bool found = false;
        if (a->args) {
            tp_args_split_r(t, cursor, &scratch, a->args, &args, &alen, &extra, &elen);
            found = read_meta(args, alen, &doc, &cl);
            c->from_kernel += found;
        }
        /* the record_param_comms op the launch ran in */
        const tp_event *op = !found && a->op != TP_NONE && a->op < t->nevents ? &t->events[a->op] : NULL;
        if (op && op->args && strcmp(tp_str_get(t, op->name), "record_param_comms") == 0) {
            tp_args_split_r(t, cursor, &scratch, op->args, &args, &alen, &extra, &elen);
            found = read_meta(args, alen, &doc, &cl);
            c->from_op += found;
        }
        c->sized += cl.bytes != 0;
        add_call(&b, &cl, a->dur);
    }
    for (size_t i = 0; i < c->n; i++) {
        tp_coll_row *r = &c->rows[i];
        r->algbw_mean = r->count ? b.alg_sum[i] / (double)r->count : 0;
        r->busbw_mean = r->count ? b.bus_sum[i] / (double)r->count : 0;
        r->algbw = r->bytes && r->total_ns > 0 ? (double)r->bytes * (double)r->count / (double)r->total_ns : 0;
        r->busbw = r->algbw * r->factor;
    }
    if (c->n)
        qsort(c->rows, c->n, sizeof *c->rows, cmp_rows);
    free(comm);
    free(b.alg_sum);
    free(b.bus_sum);
    tp_strset_free(&b.keys);
    tp_buf_free(&b.key);
    tp_buf_free(&scratch);
    tp_args_cursor_free(t, cursor);
    tp_jdoc_free(&doc);
}

void tp_collectives_free(tp_collectives *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->rows[i].kind);
        free(c->rows[i].dtype);
        free(c->rows[i].group);
        free(c->rows[i].ranks);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}
