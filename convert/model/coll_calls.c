/* coll_calls.c: collective calls and their recorded metadata (coll_calls.h). */
#include "convert/model/coll_calls.h"
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

static bool is_nccl_annotation(const char *name, size_t n) { return n > 5 && memcmp(name, "nccl:", 5) == 0; }

bool tp_coll_want_args(const char *name, size_t len)
{
    return is_comm_kernel(name, len) || is_nccl_annotation(name, len) ||
           (len == 18 && memcmp(name, "record_param_comms", 18) == 0);
}

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
    } kinds[] = {{"allreduce", "all_reduce"},       {"crossdevicereduce", "all_reduce"},       {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
                 {"alltoall", "all_to_all"},        {"sendrecv", "send_recv"},   {"broadcast", "broadcast"},
                 {"reduce", "reduce"},              {"send", "send_recv"},       {"recv", "send_recv"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(low, kinds[i].needle))
            return kinds[i].kind;
    return NULL;
}

/* Element sizes of the dtype names record_param_comms writes (c10's
 * ScalarType names) and of the C++ type names "Input type" holds. */
static int dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int size;
    } t[] = {{"Float", 4},         {"Double", 8},          {"Half", 2},          {"BFloat16", 2},
             {"Long", 8},          {"Int", 4},             {"Short", 2},         {"Char", 1},
             {"Byte", 1},          {"Bool", 1},            {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
             {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1}, {"ComplexFloat", 8}, {"ComplexDouble", 16},
             {"ComplexHalf", 4},   {"UInt16", 2},          {"UInt32", 4},        {"UInt64", 8},
             {"float", 4},         {"double", 8},          {"c10::Half", 2},     {"c10::BFloat16", 2},
             {"long", 8},          {"long int", 8},        {"int", 4},           {"short", 2},
             {"signed char", 1},   {"unsigned char", 1},   {"bool", 1}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strlen(t[i].name) == n && memcmp(t[i].name, s, n) == 0)
            return t[i].size;
    return 0;
}

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

struct tp_coll_reader {
    const tp_trace *t;
    tp_jdoc doc;
    void *cursor;
    tp_buf scratch;
    uint8_t *comm;      /* name id -> 0 not asked, 1 comm kernel, 2 not */
    const uint32_t *of; /* the report's classification (tp_coll_reader_use_classes), or NULL */
    uint32_t comm_cat;
    uint32_t *ann;      /* nccl:* annotations by (track, ts) */
    size_t nann;
};

static const tp_jv *parse_args(tp_coll_reader *r, uint64_t handle)
{
    const char *args, *extra;
    size_t alen = 0, elen;
    tp_args_split_r(r->t, r->cursor, &r->scratch, handle, &args, &alen, &extra, &elen);
    const tp_jv *root;
    tp_err err = {0};
    tp_jdoc_reset(&r->doc);
    if (!args || tp_jv_parse_all(&r->doc, args, alen, &root, &err) != 0 || root->type != TP_JV_OBJECT)
        return NULL;
    return root;
}

/* The metadata keys of an args object, when it has "Collective name". */
static bool read_meta(tp_coll_reader *r, uint64_t handle, tp_coll_call *c)
{
    const tp_jv *root = parse_args(r, handle);
    const tp_jv *name = root ? tp_jv_get(root, "Collective name") : NULL;
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
    int64_t gs = 0, in = -1, out = -1, seq = -1;
    if (tp_jv_get(root, "Group size") && tp_jv_int(tp_jv_get(root, "Group size"), &gs) == 0 && gs > 0)
        c->group_size = gs;
    if (tp_jv_get(root, "Seq") && tp_jv_int(tp_jv_get(root, "Seq"), &seq) == 0 && seq >= 0)
        c->seq = seq;
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

/* An nccl:<kind> annotation: the kind from its name, S from its first input
 * (not for an all-gather, whose S is its output). */
static void read_annotation(tp_coll_reader *r, const tp_event *a, tp_coll_call *c)
{
    const char *k = kind_of(tp_str_get(r->t, a->name) + 5);
    if (k)
        c->kind = k;
    c->source = TP_COLL_FROM_ANNOTATION;
    const tp_jv *root = a->args ? parse_args(r, a->args) : NULL;
    if (!root)
        return;
    const tp_jv *dims = tp_jv_at(tp_jv_get(root, "Input Dims"), 0);
    copy_str(tp_jv_at(tp_jv_get(root, "Input type"), 0), c->dtype, sizeof c->dtype);
    if (!dims || dims->type != TP_JV_ARRAY || strcmp(c->kind, "all_gather") == 0)
        return;
    uint64_t elems = 1;
    for (size_t i = 0; i < dims->n; i++) {
        int64_t d;
        if (tp_jv_int(&dims->items[i], &d) != 0 || d < 0 || (d && elems > (UINT64_MAX / 16) / (uint64_t)d))
            return;
        elems *= (uint64_t)d;
    }
    c->bytes = elems * (uint64_t)dtype_size(c->dtype, strlen(c->dtype));
}

static const tp_trace *g_sort_trace; /* qsort has no user pointer; set around the one call */
static int cmp_ann(const void *pa, const void *pb)
{
    const tp_event *a = &g_sort_trace->events[*(const uint32_t *)pa], *b = &g_sort_trace->events[*(const uint32_t *)pb];
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : 1;
}

void tp_coll_reader_use_classes(tp_coll_reader *r, const uint32_t *of, uint32_t comm)
{
    r->of = of;
    r->comm_cat = comm;
}

tp_coll_reader *tp_coll_reader_new(const tp_trace *t)
{
    tp_coll_reader *r = tp_xcalloc(1, sizeof *r);
    r->t = t;
    tp_jdoc_init(&r->doc);
    r->cursor = tp_args_cursor_new(t);
    r->comm = tp_xcalloc(t->nstr + 1, 1);
    size_t cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || e->kind == TP_KIND_KERNEL || (e->flags & (TP_EV_DROPPED | TP_EV_DERIVED)))
            continue;
        const char *s = tp_str_get(t, e->name);
        if (s[0] == 'n' && is_nccl_annotation(s, strlen(s))) {
            TP_GROW(r->ann, cap, r->nann + 1);
            r->ann[r->nann++] = (uint32_t)i;
        }
    }
    if (r->nann > 1) {
        g_sort_trace = t;
        qsort(r->ann, r->nann, sizeof *r->ann, cmp_ann);
        g_sort_trace = NULL;
    }
    return r;
}

void tp_coll_reader_free(tp_coll_reader *r)
{
    if (!r)
        return;
    free(r->comm);
    free(r->ann);
    tp_buf_free(&r->scratch);
    tp_args_cursor_free(r->t, r->cursor);
    tp_jdoc_free(&r->doc);
    free(r);
}

/* The innermost nccl:* annotation on the launch's track around its start. */
static const tp_event *annotation_around(const tp_coll_reader *r, const tp_event *launch)
{
    size_t lo = 0, hi = r->nann; /* first annotation after (track, ts) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const tp_event *m = &r->t->events[r->ann[mid]];
        if (m->track < launch->track || (m->track == launch->track && m->ts <= launch->ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0 && lo - k <= 16;) { /* nested ones are few: look back a little */
        const tp_event *m = &r->t->events[r->ann[k]];
        if (m->track != launch->track)
            break;
        if (launch->ts < m->ts + m->dur)
            return m;
    }
    return NULL;
}

bool tp_coll_read(tp_coll_reader *r, size_t i, tp_coll_call *c)
{
    const tp_trace *t = r->t;
    const tp_event *a = &t->events[i];
    if (a->ph != 'X' || a->kind != TP_KIND_KERNEL || (a->flags & (TP_EV_DROPPED | TP_EV_DERIVED)))
        return false;
    if (r->of) { /* the report: what its one classification calls communication */
        if (r->of[i] != r->comm_cat)
            return false;
    } else {
        if (!r->comm[a->name]) {
            const char *s = tp_str_get(t, a->name);
            r->comm[a->name] = is_comm_kernel(s, strlen(s)) ? 1 : 2;
        }
        if (r->comm[a->name] != 1)
            return false;
    }
    memset(c, 0, sizeof *c);
    c->seq = -1;
    c->kind = kind_of(tp_str_get(t, a->name));
    if (!c->kind)
        c->kind = "other";
    if (a->args && read_meta(r, a->args, c)) {
        c->source = TP_COLL_FROM_KERNEL;
        return true;
    }
    /* the record_param_comms op the launch ran in */
    const tp_event *op = a->op != TP_NONE && a->op < t->nevents ? &t->events[a->op] : NULL;
    if (op && op->args && strcmp(tp_str_get(t, op->name), "record_param_comms") == 0 && read_meta(r, op->args, c)) {
        c->source = TP_COLL_FROM_OP;
        return true;
    }
    const tp_event *launch = a->link != TP_NONE && a->link < t->nevents ? &t->events[a->link] : NULL;
    const tp_event *ann = launch && r->nann ? annotation_around(r, launch) : NULL;
    if (ann)
        read_annotation(r, ann, c);
    return true;
}

size_t tp_coll_sync_points(const tp_trace *t, tp_sync_point **out)
{
    tp_coll_reader *r = tp_coll_reader_new(t);
    tp_sync_point *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        tp_coll_call c;
        if (!tp_coll_read(r, i, &c))
            continue;
        const tp_event *e = &t->events[i];
        TP_GROW(v, cap, n + 1);
        v[n++] = (tp_sync_point){tp_sync_key(c.kind, c.group, c.ranks, c.seq), t->base_ns + e->ts + e->dur};
    }
    tp_coll_reader_free(r);
    *out = v;
    return n;
}
