/* efficiency.c: invocations, their costs, rows per shape, the roof
 * (efficiency.h). */
#include "report/analysis/efficiency.h"
#include "convert/base/i64map.h"
#include "convert/base/sort.h"
#include "convert/base/strset.h"
#include "convert/codec/json_lex.h"
#include "report/perf_models/op_models_infer.h"

#include <stdlib.h>
#include <string.h>

bool tp_efficiency_wants_args(const char *name, size_t len)
{
    return tp_op_family_of(name, len) != TP_FAM_NONE;
}

/* One invocation: a modelled host op (or an XLA device event) and its device time. */
typedef struct slot {
    uint32_t op;         /* the op event */
    uint32_t first_act;  /* its first kernel (else its first device activity): the row's category, so a
                          * GEMM whose cuBLAS memset runs first is GEMM */
    int64_t ns;
    bool on_device;      /* some of its work is not a host<->device copy */
    int32_t result;      /* its row, or -(skip + 1) (once resolved) */
    uint32_t topk_op;    /* an op that reads its kernels (tp_moe_hint): the TopK op inside it, TP_NONE */
    uint8_t kflags;      /* and what its kernels' names say (KF_*) */
} slot;

enum { KF_MATMUL_OGS = 1, KF_GATED = 2, KF_FP4 = 4, KF_FP8 = 8, KF_FIRST_SEEN = 16 };

/* A kernel whose name says its math mode, of a GEMM, convolution or
 * attention invocation: its time counts for its row's mode. */
typedef struct mode_time {
    uint32_t slot;
    uint8_t mode;
    int64_t ns;
} mode_time;

/* Per row while building: the invocations' times. */
typedef struct row_times {
    int64_t *ns;
    size_t n, cap;
    int64_t mode_ns[TP_MATH_MODES]; /* its kernels' time by the math mode their names say */
} row_times;

typedef struct tp_eff_builder builder;

struct tp_eff_builder {
    const tp_trace *t;
    tp_efficiency *e;
    uint8_t *name_info;  /* name id -> 0 not asked, else NAME_ASKED | family | NAME_* (name_info) */
    uint8_t *mode_of;    /* name id -> 0 not asked, else its tp_math_mode + 1 */
    tp_strset keys;      /* recorded-inputs key -> result */
    int32_t *result;     /* key id -> row index, or -(skip index + 1) */
    size_t result_cap;
    tp_strset row_keys, skip_keys;
    size_t rows_cap, skips_cap;
    row_times *times;
    tp_jdoc doc;
    tp_buf key, json;
    tp_i64map result_of_event; /* host op event -> its result + RESULT_BIAS (prepare) */
    void *cursor;        /* reading args (tp_args_get_r) */
    tp_buf scratch;
    const tp_chunk_stats *chunk; /* the iteration statistics of the invocation being costed (ops that read them) */
    const tp_moe_hint *moe;      /* what its kernels say (ops that read them) */
    uint32_t *acts;              /* the device activities, in event order (noted by prepare for build) */
    size_t nacts;
    struct alloc_ref *allocs;    /* the captured allocations, by the op they are in then time (alloc_index) */
    size_t nallocs;
    bool allocs_indexed;
};

/* A captured allocation copied inside a captured op (graph_capture.h). */
typedef struct alloc_ref {
    uint32_t op, ev;
    int64_t ts;
} alloc_ref;

#define RESULT_BIAS INT64_C(0x80000000) /* a result (row, or -skip) as a map value */

/* What an op's name says, asked once per name (not once per event: 130 k launched ops and 400 k
 * activities ask on the 1 GB real-shaped trace): its family and whether its cost reads its
 * iteration's statistics or its kernels (op_models_infer.h). */
enum { NAME_FAMILY = 0x1f, NAME_CHUNK = 0x20, NAME_KERNELS = 0x40, NAME_ASKED = 0x80 };
_Static_assert(TP_FAM_COUNT <= NAME_FAMILY + 1, "a family fits NAME_FAMILY");

static uint8_t name_info(builder *b, tp_str name)
{
    if (!b->name_info[name]) {
        const char *s = tp_str_get(b->t, name);
        size_t n = strlen(s);
        tp_op_family f = tp_op_family_of(s, n);
        int k = f != TP_FAM_NONE ? tp_infer_op(s, n, NULL) : -1;
        b->name_info[name] = (uint8_t)(NAME_ASKED | f | (tp_infer_needs_chunk(k) ? NAME_CHUNK : 0) |
                                       (tp_infer_reads_kernels(k) ? NAME_KERNELS : 0));
    }
    return b->name_info[name];
}

static tp_op_family family_of(builder *b, tp_str name) { return (tp_op_family)(name_info(b, name) & NAME_FAMILY); }

static bool is_modelled(builder *b, tp_str name) { return family_of(b, name) != TP_FAM_NONE; }

/* The families that run on matrix units: held against their kernels' math mode. */
static bool matrix_family(int f) { return f == TP_FAM_GEMM || f == TP_FAM_CONV || f == TP_FAM_ATTENTION; }

static tp_math_mode mode_of(builder *b, tp_str name)
{
    if (!b->mode_of[name])
        b->mode_of[name] = (uint8_t)(tp_math_mode_of_kernel(tp_str_get(b->t, name)) + 1);
    return (tp_math_mode)(b->mode_of[name] - 1);
}

/* Device time that is compared with the device: kernels, memsets, copies
 * within the device (a memcpy named device-to-device). */
static bool on_device(const tp_trace *t, const tp_event *a)
{
    if (a->kind != TP_KIND_MEMCPY)
        return true;
    const char *n = tp_str_get(t, a->name);
    return strstr(n, "DtoD") || strstr(n, "Device -> Device") || strstr(n, "DeviceToDevice");
}

/* ---- the recorded inputs' key: the four members' texts ---- */

static const char *const members[] = {"Input Dims", "Input type", "Input Strides", "Concrete Inputs"};

/* Each member's value text (NULL when absent), by a walk over the object's
 * top-level members (a member name inside a string value is not a member)
 * that ends when all four are found (the first of a name counts). */
static void member_spans(const char *p, size_t len, const char *val[4], size_t vlen[4])
{
    const char *end = p + len, *why;
    for (int k = 0; k < 4; k++)
        val[k] = NULL, vlen[k] = 0;
    p = tp_json_ws(p, end);
    if (p >= end || *p != '{')
        return;
    p++;
    for (int found = 0; found < 4;) {
        p = tp_json_ws(p, end);
        if (p >= end || *p != '"')
            return;
        const char *s, *next;
        size_t n;
        bool esc;
        if (tp_json_string(p, end, &s, &n, &esc, &next, &why) != 0)
            return;
        p = tp_json_ws(next, end);
        if (p >= end || *p != ':')
            return;
        const char *v = tp_json_ws(p + 1, end);
        if (tp_json_skip(v, end, &next, &why) != 0)
            return;
        for (int k = 0; k < 4; k++)
            if (!esc && n == strlen(members[k]) && memcmp(s, members[k], n) == 0 && !val[k])
                val[k] = v, vlen[k] = (size_t)(next - v), found++;
        p = tp_json_ws(next, end);
        if (p >= end || *p != ',')
            return;
        p++;
    }
}

static char *compact(builder *b, const tp_jv *v)
{
    b->json.len = 0;
    if (v)
        tp_jv_write(&b->json, v);
    return tp_xstrndup(b->json.data ? b->json.data : "", b->json.len);
}

static int32_t add_skip(builder *b, const char *op, const char *why)
{
    b->key.len = 0;
    tp_buf_printf(&b->key, "%s\x1f%s", op, why);
    size_t before = b->skip_keys.n;
    uint32_t id = tp_strset_add(&b->skip_keys, b->key.data, b->key.len);
    tp_efficiency *e = b->e;
    if (b->skip_keys.n > before) {
        TP_GROW(e->skips, b->skips_cap, e->nskips + 1);
        e->skips[e->nskips++] = (tp_eff_skip){tp_xstrdup(op), why, 0, 0};
    }
    return -(int32_t)id; /* ids start at 1 */
}

/* A row for (op, inputs, cost): found or added. */
static int32_t add_row(builder *b, const char *op, const tp_op_inputs *in, const tp_op_cost *c)
{
    char *dims = compact(b, in ? in->dims_v : NULL), *types = compact(b, in ? in->types_v : NULL),
         *strides = compact(b, in ? in->strides_v : NULL);
    b->key.len = 0;
    tp_buf_printf(&b->key, "%s\x1f%s\x1f%s\x1f%s\x1f%llu\x1f%llu", op, dims, types, strides,
                  (unsigned long long)c->flops, (unsigned long long)c->bytes);
    size_t before = b->row_keys.n;
    uint32_t id = tp_strset_add(&b->row_keys, b->key.data, b->key.len);
    tp_efficiency *e = b->e;
    if (b->row_keys.n == before) {
        free(dims), free(types), free(strides);
        return (int32_t)id - 1;
    }
    size_t old = b->rows_cap;
    TP_GROW(e->rows, b->rows_cap, e->n + 1);
    if (b->rows_cap > old) {
        b->times = tp_xrealloc(b->times, b->rows_cap * sizeof *b->times);
    }
    tp_eff_row *r = &e->rows[e->n];
    memset(r, 0, sizeof *r);
    r->op = tp_xstrdup(op);
    r->family = (uint8_t)c->family;
    r->peak = r->dtype_peak = (int8_t)c->peak;
    r->input_dims = dims, r->dtypes = types, r->strides = strides;
    r->flops = c->flops, r->bytes = c->bytes;
    r->category = UINT32_MAX;
    r->peak_fraction = -1;
    b->times[e->n] = (row_times){0};
    return (int32_t)e->n++;
}

/* The row or skip of a host op invocation: by the key of its recorded
 * inputs, computed once per distinct key. */
static int32_t result_of(builder *b, const tp_event *op, void *cursor, tp_buf *scratch)
{
    const char *args = NULL, *extra;
    size_t alen = 0, elen;
    if (op->args)
        tp_args_split_r(b->t, cursor, scratch, op->args, &args, &alen, &extra, &elen);
    const char *name = tp_str_get(b->t, op->name);
    const char *val[4];
    size_t vlen[4];
    member_spans(args ? args : "", alen, val, vlen);
    if (!val[0])
        return add_skip(b, name, args && alen ? "no \"Input Dims\" recorded" : "no args recorded");
    b->e->with_shapes++;
    b->key.len = 0;
    tp_buf_put(&b->key, &op->name, sizeof op->name);
    for (int k = 0; k < 4; k++) {
        tp_buf_putc(&b->key, '\x1f');
        if (val[k])
            tp_buf_put(&b->key, val[k], vlen[k]);
    }
    if (b->chunk) /* the same shapes in another iteration: another cost */
        tp_buf_put(&b->key, b->chunk, sizeof *b->chunk);
    if (b->moe) { /* (the members, not the struct's padding) */
        tp_buf_put(&b->key, &b->moe->topk, sizeof b->moe->topk);
        tp_buf_printf(&b->key, "%d%d%d", b->moe->gated, b->moe->matmul_ogs, b->moe->weight_bits);
    }
    size_t before = b->keys.n;
    uint32_t id = tp_strset_add(&b->keys, b->key.data, b->key.len);
    if (b->keys.n == before)
        return b->result[id];
    TP_GROW(b->result, b->result_cap, (size_t)id + 1);
    tp_op_inputs in;
    tp_op_cost c;
    const char *why;
    int32_t r;
    tp_jdoc_reset(&b->doc);
    if (tp_op_inputs_parse(args, alen, &b->doc, &in, &why) != 0 ||
        (in.chunk = b->chunk, in.moe = b->moe, tp_op_cost_of(name, &in, &c, &why)) != 0)
        r = add_skip(b, name, why);
    else
        r = add_row(b, name, &in, &c);
    b->result[id] = r;
    return r;
}

static void add_time(builder *b, int32_t r, int64_t ns)
{
    if (r < 0) {
        tp_eff_skip *s = &b->e->skips[-r - 1];
        s->count++;
        s->device_ns = tp_sat_add(s->device_ns, ns);
        return;
    }
    row_times *rt = &b->times[r];
    TP_GROW(rt->ns, rt->cap, rt->n + 1);
    rt->ns[rt->n++] = ns;
}

/* An op whose cost needs its iteration's sequence statistics (op_models_infer.h). */
static bool reads_chunk(builder *b, uint32_t op) { return name_info(b, b->t->events[op].name) & NAME_CHUNK; }

/* An op whose cost needs what its kernels and ops say (op_models_infer.h tp_moe_hint). */
static bool reads_kernels(builder *b, uint32_t op) { return name_info(b, b->t->events[op].name) & NAME_KERNELS; }

static bool has_ci(const char *s, const char *w)
{
    return strcasestr(s, w) != NULL;
}

/* One activity of such an invocation: the TopK op it came from, what a
 * matmul_ogs kernel's name says (the first one: the up GEMM's epilogue). */
static void note_kernel(const tp_trace *t, slot *s, uint32_t start, const tp_event *a)
{
    if (start != TP_NONE && s->topk_op == TP_NONE && strstr(tp_str_get(t, t->events[start].name), "TopK"))
        s->topk_op = start;
    const char *n = tp_str_get(t, a->name);
    if (a->kind != TP_KIND_KERNEL || !has_ci(n, "matmul_ogs"))
        return;
    s->kflags |= KF_MATMUL_OGS;
    if (!(s->kflags & KF_FIRST_SEEN)) {
        s->kflags |= KF_FIRST_SEEN;
        if (has_ci(n, "_swiglu") || has_ci(n, "_glu"))
            s->kflags |= KF_GATED;
    }
    if (has_ci(n, "mxfp4") || has_ci(n, "fp4"))
        s->kflags |= KF_FP4;
    else if (has_ci(n, "fp8") || has_ci(n, "e4m3"))
        s->kflags |= KF_FP8;
}

static int cmp_alloc(const void *pa, const void *pb)
{
    const alloc_ref *a = pa, *b = pb;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* The captured allocations (aten::empty inside a captured op), indexed once
 * by the op (one pass and a sort), when the first op that reads them is met. */
static void alloc_index(builder *b)
{
    const tp_trace *t = b->t;
    b->allocs_indexed = true;
    size_t cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!(e->flags & TP_EV_CAPTURED) || e->link == TP_NONE || !e->args)
            continue;
        const char *n = tp_str_get(t, e->name);
        if (strcmp(n, "aten::empty") != 0 && strcmp(n, "aten::empty_strided") != 0)
            continue;
        TP_GROW(b->allocs, cap, b->nallocs + 1);
        b->allocs[b->nallocs++] = (alloc_ref){e->link, (uint32_t)i, e->ts};
    }
    if (b->nallocs)
        qsort(b->allocs, b->nallocs, sizeof *b->allocs, cmp_alloc);
}

/* The allocations inside op, in time order, into the hint (their sizes:
 * Concrete Inputs[0]), at most TP_MOE_MAX_ALLOCS. */
static void alloc_sizes(builder *b, uint32_t op, tp_moe_hint *h)
{
    if (!b->allocs_indexed)
        alloc_index(b);
    size_t lo = 0, hi = b->nallocs;
    while (lo < hi) { /* the first of op's */
        size_t mid = lo + (hi - lo) / 2;
        if (b->allocs[mid].op < op)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < b->nallocs && b->allocs[i].op == op && h->nallocs < TP_MOE_MAX_ALLOCS; i++) {
        const char *args, *extra;
        size_t alen, elen;
        tp_args_split_r(b->t, b->cursor, &b->scratch, b->t->events[b->allocs[i].ev].args, &args, &alen, &extra,
                        &elen);
        tp_op_inputs in;
        const char *why;
        tp_jdoc_reset(&b->doc);
        if (args && tp_op_inputs_parse(args, alen, &b->doc, &in, &why) == 0 &&
            tp_infer_alloc_size(&in, &h->alloc_rows[h->nallocs], &h->alloc_last[h->nallocs]))
            h->nallocs++;
    }
}

/* The hint of an invocation: the TopK op's k from its Concrete Inputs[1]. */
static const tp_moe_hint *moe_hint(builder *b, const slot *s, tp_moe_hint *h)
{
    memset(h, 0, sizeof *h);
    h->matmul_ogs = s->kflags & KF_MATMUL_OGS;
    h->gated = s->kflags & KF_GATED;
    h->weight_bits = s->kflags & KF_FP4 ? 4 : s->kflags & KF_FP8 ? 8 : 0;
    if (s->topk_op != TP_NONE && b->t->events[s->topk_op].args) {
        const char *args, *extra;
        size_t alen, elen;
        tp_args_split_r(b->t, b->cursor, &b->scratch, b->t->events[s->topk_op].args, &args, &alen, &extra, &elen);
        tp_op_inputs in;
        const char *why;
        tp_jdoc_reset(&b->doc);
        if (args && tp_op_inputs_parse(args, alen, &b->doc, &in, &why) == 0)
            h->topk = tp_infer_topk_of(&in);
    }
    alloc_sizes(b, s->op, h);
    return h;
}

/* The iteration annotation around an invocation: the innermost enclosing
 * host slice, from its first activity's launch call (a graph launch for an
 * op of a capture trace) up, whose name carries the statistics. */
static bool chunk_of(const tp_trace *t, const tp_host_tree *ht, uint32_t act, uint32_t op, tp_chunk_stats *cs)
{
    uint32_t p = t->events[act].link != TP_NONE ? t->events[act].link : op;
    for (size_t guard = 0; p != TP_NONE && p < t->nevents && guard <= t->nevents; guard++) {
        if (tp_chunk_stats_parse(tp_str_get(t, t->events[p].name), cs))
            return true;
        p = tp_host_parent(t, ht, p);
    }
    return false;
}

/* An XLA async op's start or done half ("copy-start.2", "all-gather-done") */
static bool async_part(const char *name)
{
    const char *s = strstr(name, "-start"), *d = strstr(name, "-done");
    const char *p = s ? s + 6 : d ? d + 5 : NULL;
    return p && (*p == 0 || *p == '.');
}

/* Every device activity to its invocation; then each invocation to a row. */
static void collect(builder *b, const tp_host_tree *ht, const tp_classes *c)
{
    const tp_trace *t = b->t;
    tp_i64map slot_of = {0};
    slot *slots = NULL;
    size_t nslots = 0, cap = 0;
    mode_time *modes = NULL;
    size_t nmodes = 0, modes_cap = 0;
    for (size_t j = 0; j < b->nacts; j++) {
        uint32_t i = b->acts[j];
        const tp_event *a = &t->events[i];
        b->e->device_ns = tp_sat_add(b->e->device_ns, a->dur);
        const tp_name_cost *xc = t->ncosts ? tp_cost_of(t, a->name) : NULL;
        if (xc && (async_part(tp_str_get(t, a->name)) || (c && c->of && c->of[i] == c->rules->communication))) {
            /* the time of an async start/done is a wait, and a collective is held against the
             * network, not the device: counted, never compared with the device's roof */
            int32_t r = add_skip(b, tp_str_get(t, a->name),
                                 async_part(tp_str_get(t, a->name)) ? "an async XLA start or done op (its time is "
                                                                      "a wait, not the work)"
                                                                    : "a collective (held against the network, not "
                                                                      "the device)");
            add_time(b, r, a->dur);
            b->e->skipped++;
            b->e->skipped_ns = tp_sat_add(b->e->skipped_ns, a->dur);
            continue;
        }
        if (xc) { /* an XLA op with its recorded cost: an invocation of its own */
            tp_op_cost cost = {TP_FAM_XLA, xc->flops, xc->bytes, TP_PEAK_MATRIX_BF16};
            int32_t r = add_row(b, tp_str_get(t, a->name), NULL, &cost);
            if (c && c->of && b->e->rows[r].category == UINT32_MAX)
                b->e->rows[r].category = c->of[i];
            add_time(b, r, a->dur);
            b->e->invocations++;
            b->e->modelled_ns = tp_sat_add(b->e->modelled_ns, a->dur);
            continue;
        }
        uint32_t op = a->op, start = a->op;
        while (op != TP_NONE && !is_modelled(b, t->events[op].name))
            op = tp_host_parent(t, ht, op);
        if (op == TP_NONE)
            continue;
        /* an op copied from a graph-capture trace runs once per replay of its graph: an invocation per
         * graph launch (graph_capture.h) */
        int64_t skey = (t->events[op].flags & TP_EV_CAPTURED) && a->link != TP_NONE
                           ? (int64_t)(((uint64_t)(a->link + 1u) << 32) | op)
                           : (int64_t)op;
        uint32_t k = tp_i64map_get(&slot_of, skey);
        if (k == TP_I64MAP_EMPTY) {
            TP_GROW(slots, cap, nslots + 1);
            slots[nslots] = (slot){op, i, 0, false, 0, TP_NONE, 0};
            k = (uint32_t)nslots++;
            tp_i64map_put(&slot_of, skey, k);
        }
        slots[k].ns = tp_sat_add(slots[k].ns, a->dur);
        slots[k].on_device |= on_device(t, a);
        if (reads_kernels(b, op))
            note_kernel(t, &slots[k], start, a);
        if (a->kind == TP_KIND_KERNEL && t->events[slots[k].first_act].kind != TP_KIND_KERNEL)
            slots[k].first_act = i;
        if (a->kind == TP_KIND_KERNEL && matrix_family(family_of(b, t->events[op].name))) {
            tp_math_mode m = mode_of(b, a->name);
            if (m != TP_MATH_UNKNOWN) {
                TP_GROW(modes, modes_cap, nmodes + 1);
                modes[nmodes++] = (mode_time){k, (uint8_t)m, a->dur};
            }
        }
    }
    tp_i64map_free(&slot_of);
    for (size_t k = 0; k < nslots; k++) {
        slots[k].result = INT32_MIN;
        if (!slots[k].on_device) {
            b->e->host_copies++;
            continue;
        }
        uint32_t v = tp_i64map_get(&b->result_of_event, slots[k].op);
        tp_chunk_stats cs;
        tp_moe_hint mh;
        if (v == TP_I64MAP_EMPTY && reads_chunk(b, slots[k].op)) /* its iteration's sequence lengths */
            b->chunk = chunk_of(t, ht, slots[k].first_act, slots[k].op, &cs) ? &cs : NULL;
        if (v == TP_I64MAP_EMPTY && reads_kernels(b, slots[k].op)) /* what its kernels and TopK op say */
            b->moe = moe_hint(b, &slots[k], &mh);
        int32_t r = v != TP_I64MAP_EMPTY ? (int32_t)((int64_t)v - RESULT_BIAS)
                                         : result_of(b, &t->events[slots[k].op], b->cursor, &b->scratch);
        b->chunk = NULL;
        b->moe = NULL;
        add_time(b, r, slots[k].ns);
        slots[k].result = r;
        if (r >= 0) {
            b->e->invocations++;
            b->e->modelled_ns = tp_sat_add(b->e->modelled_ns, slots[k].ns);
            if (c && c->of && b->e->rows[r].category == UINT32_MAX)
                b->e->rows[r].category = c->of[slots[k].first_act];
        } else {
            b->e->skipped++;
            b->e->skipped_ns = tp_sat_add(b->e->skipped_ns, slots[k].ns);
        }
    }
    for (size_t j = 0; j < nmodes; j++) {
        int32_t r = slots[modes[j].slot].result;
        if (r >= 0)
            b->times[r].mode_ns[modes[j].mode] = tp_sat_add(b->times[r].mode_ns[modes[j].mode], modes[j].ns);
    }
    free(modes);
    free(slots);
}

/* The row's math mode: of the kernels whose name says one, the mode that
 * holds the most of the row's time (ties: the first in tp_math_mode order);
 * unknown when no kernel name says.  A known mode gives the peak class. */
static void math_mode(tp_eff_row *r, const row_times *rt)
{
    if (!matrix_family(r->family))
        return;
    int best = TP_MATH_UNKNOWN;
    for (int m = 1; m < TP_MATH_MODES; m++)
        if (rt->mode_ns[m] > 0 && (best == TP_MATH_UNKNOWN || rt->mode_ns[m] > rt->mode_ns[best]))
            best = m;
    if (best == TP_MATH_16BIT) /* the name says 16-bit tensor cores; the dtype says which */
        best = r->dtype_peak == TP_PEAK_MATRIX_BF16 ? TP_MATH_BF16 : TP_MATH_FP16;
    r->math_mode = (uint8_t)best;
    if (best != TP_MATH_UNKNOWN)
        r->peak = (int8_t)tp_math_mode_peak((tp_math_mode)best, r->dtype_peak);
}

const char *tp_eff_math_mode(const tp_eff_row *r)
{
    if (r->family == TP_FAM_XLA)
        return NULL;
    return matrix_family(r->family) ? tp_math_mode_name((tp_math_mode)r->math_mode) : "vector";
}

/* (the comparison inlined: qsort's call per comparison was a third of build's instructions) */
#define NS_LESS(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_ns, int64_t, int, NS_LESS)

/* FLOPs (or bytes) per ns -> per second in units of 1e12: x / ns / 1000 */
static double rate(uint64_t amount, int64_t ns)
{
    return ns > 0 ? (double)amount / (double)ns / 1e3 : 0;
}

/* count, times, rates over invocations and over the row */
static void row_figures(tp_eff_row *r, row_times *rt)
{
    r->count = rt->n;
    if (!rt->n)
        return;
    sort_ns(rt->ns, rt->n, 0);
    int64_t sum = 0;
    double fsum = 0, bsum = 0;
    for (size_t i = 0; i < rt->n; i++) {
        sum = tp_sat_add(sum, rt->ns[i]);
        fsum += rate(r->flops, rt->ns[i]);
        bsum += rate(r->bytes, rt->ns[i]);
    }
    r->device_ns = sum;
    r->mean_ns = sum / (int64_t)rt->n;
    size_t m = rt->n / 2;
    r->median_ns = rt->n % 2 ? rt->ns[m] : rt->ns[m - 1] + (rt->ns[m] - rt->ns[m - 1]) / 2;
    r->tflops_mean = fsum / (double)rt->n;
    r->tbps_mean = bsum / (double)rt->n;
    /* the median of the rates: times sorted ascending are rates sorted descending */
    if (rt->n % 2) {
        r->tflops_median = rate(r->flops, rt->ns[m]);
        r->tbps_median = rate(r->bytes, rt->ns[m]);
    } else {
        r->tflops_median = (rate(r->flops, rt->ns[m - 1]) + rate(r->flops, rt->ns[m])) / 2;
        r->tbps_median = (rate(r->bytes, rt->ns[m - 1]) + rate(r->bytes, rt->ns[m])) / 2;
    }
    double total_flops = (double)r->flops * (double)rt->n, total_bytes = (double)r->bytes * (double)rt->n;
    r->tflops = sum > 0 ? total_flops / (double)sum / 1e3 : 0;
    r->tbps = sum > 0 ? total_bytes / (double)sum / 1e3 : 0;
    r->intensity = r->bytes ? (double)r->flops / (double)r->bytes : 0;
}

/* Why a row's rate passes its roof: never drawn above it in silence. */
static const char *roof_note(const tp_eff_row *r, double peak)
{
    if (r->tflops <= peak)
        return "above the memory roof: some of its bytes came from cache (L2), not device memory, or its kernels "
               "moved fewer bytes than the model counts";
    if (matrix_family(r->family) && r->math_mode == TP_MATH_UNKNOWN)
        return r->peak == TP_PEAK_MATRIX_FP32
                   ? "math mode unknown (no kernel name says it): held against the fp32 peak of its dtype, it may "
                     "have run on TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32)"
                   : "math mode unknown (no kernel name says it): held against its dtype's peak, its kernels may "
                     "have run a faster mode";
    return "above the dense peak of its math mode: its kernels did less work than the model counts (structured "
           "sparsity, skipped work) or ran above the data sheet's clock";
}

/* The roof at the row's intensity: min(compute peak, intensity x bandwidth). */
static void roof(tp_eff_row *r, const tp_device_peaks *d)
{
    if (!d->known || r->peak < 0 || r->peak >= TP_PEAK_CLASSES || r->device_ns <= 0 || !r->flops)
        return;
    double peak = d->tflops[r->peak], bw = d->mem_tbps;
    if (peak <= 0 || bw <= 0 || !r->bytes)
        return;
    double mem_roof = r->intensity * bw, roof_tflops = mem_roof < peak ? mem_roof : peak;
    r->bound = r->intensity >= peak / bw ? TP_BOUND_COMPUTE : TP_BOUND_MEMORY;
    r->roof_tflops = roof_tflops;
    r->peak_fraction = r->tflops / roof_tflops;
    if (r->peak_fraction > 1)
        r->roof_note = roof_note(r, peak);
    double f = r->peak_fraction < 1 ? r->peak_fraction : 1;
    double opp = (double)r->device_ns * (1 - f) + 0.5;
    r->opportunity_ns = opp >= 9.2e18 ? INT64_MAX : (int64_t)opp; /* corrupt durations: no overflow */
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a, b);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const tp_eff_row *a = pa, *b = pb;
    if (a->device_ns != b->device_ns)
        return a->device_ns > b->device_ns ? -1 : 1;
    int c = cmp_str(a->op, b->op);
    if (!c)
        c = cmp_str(a->input_dims, b->input_dims);
    if (!c)
        c = cmp_str(a->dtypes, b->dtypes);
    if (!c)
        c = cmp_str(a->strides, b->strides);
    if (!c)
        c = (a->flops > b->flops) - (a->flops < b->flops);
    return c;
}

typedef struct opp {
    int64_t ns;
    size_t row;
} opp;

static int cmp_opportunity(const void *pa, const void *pb)
{
    const opp *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int cmp_skips(const void *pa, const void *pb)
{
    const tp_eff_skip *a = pa, *b = pb;
    if (a->device_ns != b->device_ns)
        return a->device_ns > b->device_ns ? -1 : 1;
    int c = strcmp(a->op, b->op);
    return c ? c : strcmp(a->why, b->why);
}

static void find_device(const tp_trace *t, const tp_device_table *dt, tp_efficiency *e)
{
    e->ndevices = t->ndevinfo;
    if (!t->ndevinfo)
        return;
    e->have_device = true;
    tp_device_resolve(dt, t, &t->devinfo[0], &e->device);
    for (size_t i = 1; i < t->ndevinfo; i++)
        if (t->devinfo[i].name != t->devinfo[0].name)
            e->mixed_devices = true;
}

static void builder_free(builder *b)
{
    if (!b)
        return;
    for (size_t i = 0; b->times && i < b->e->n; i++)
        free(b->times[i].ns);
    free(b->times);
    free(b->name_info);
    free(b->mode_of);
    free(b->result);
    tp_strset_free(&b->keys);
    tp_strset_free(&b->row_keys);
    tp_strset_free(&b->skip_keys);
    tp_i64map_free(&b->result_of_event);
    tp_args_cursor_free(b->t, b->cursor);
    tp_buf_free(&b->scratch);
    tp_jdoc_free(&b->doc);
    free(b->allocs);
    free(b->acts);
    tp_buf_free(&b->key);
    tp_buf_free(&b->json);
    free(b);
}

bool tp_trace_is_xla(const tp_trace *t)
{
    const char *f = t->format ? t->format : "";
    if (strcmp(f, "xplane") == 0)
        return true;
    for (size_t i = 0; strcmp(f, "chrome") == 0 && i < t->nprocesses; i++) { /* an XProf trace.json */
        const char *n = t->processes[i].name ? tp_str_get(t, t->processes[i].name) : "";
        if (strncmp(n, "/device:", 8) == 0 || strncmp(n, "/host:", 6) == 0)
            return true;
    }
    return false;
}

const char *tp_record_shapes_hint(const tp_trace *t)
{
    if (tp_trace_is_xla(t)) /* XLA ops carry their own cost analysis in XProf; shapes are not what is missing */
        return "XProf's per-op cost analysis, the flops and bytes_accessed stats of the XLA ops";
    if (t->format && strcmp(t->format, "chrome") == 0)
        return TP_EFF_RECORD_SHAPES;
    return "a profiler that records each op's input shapes";
}

void tp_efficiency_prepare(const tp_trace *t, const tp_device_table *dt, tp_efficiency *e)
{
    memset(e, 0, sizeof *e);
    e->shapes_hint = tp_record_shapes_hint(t);
    builder *b = tp_xcalloc(1, sizeof *b);
    b->t = t, b->e = e;
    b->name_info = tp_xcalloc(t->nstr + 1, 1);
    b->mode_of = tp_xcalloc(t->nstr + 1, 1);
    tp_jdoc_init(&b->doc);
    b->cursor = tp_args_cursor_new(t);
    e->builder = b;
    e->xla_costs = t->ncosts;
    find_device(t, dt, e);
    /* every host op that has a model and args: its row or reason, by its
     * recorded inputs (most of this time is reading the args) */
    /* only the ops right around a launch: most modelled ops of a trace run
     * on the host (1 in 9 launches on the 1 GB real-shaped trace); an
     * invocation further up (a convolution around cudnn_convolution) is
     * read when build meets it.  One walk of the events notes the device
     * activities (build walks them, not every event again: 1 in 10 on that
     * trace) and marks the ops around their launches; those ops are then
     * read in event order. */
    uint64_t *launches = tp_xcalloc(t->nevents / 64 + 1, sizeof *launches);
    size_t acts_cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *a = &t->events[i];
        if (!tp_is_device_activity(a))
            continue;
        TP_GROW(b->acts, acts_cap, b->nacts + 1);
        b->acts[b->nacts++] = (uint32_t)i;
        if (a->op != TP_NONE && a->op < t->nevents)
            launches[a->op / 64] |= UINT64_C(1) << (a->op % 64);
    }
    for (size_t w = 0; w <= t->nevents / 64; w++)
        for (uint64_t bits = launches[w]; bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            const tp_event *ev = &t->events[i];
            if (!ev->args || !is_modelled(b, ev->name) || reads_chunk(b, (uint32_t)i) || reads_kernels(b, (uint32_t)i))
                continue; /* (an op that reads its iteration's statistics is costed per invocation, by build) */
            int32_t r = result_of(b, ev, b->cursor, &b->scratch);
            tp_i64map_put(&b->result_of_event, (int64_t)i, (uint32_t)((int64_t)r + RESULT_BIAS));
        }
    free(launches);
}

/* Rows and reasons of ops that never ran on the device go. */
static void drop_unused(tp_efficiency *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->n; i++) {
        tp_eff_row *r = &e->rows[i];
        if (r->count)
            e->rows[n++] = *r;
        else {
            free(r->op), free(r->input_dims), free(r->dtypes), free(r->strides);
        }
    }
    e->n = n;
    n = 0;
    for (size_t i = 0; i < e->nskips; i++) {
        if (e->skips[i].count)
            e->skips[n++] = e->skips[i];
        else
            free(e->skips[i].op);
    }
    e->nskips = n;
}

void tp_efficiency_build(const tp_trace *t, const tp_host_tree *ht, const tp_classes *c, tp_efficiency *e)
{
    builder *b = e->builder;
    if (!b)
        return; /* not prepared */
    collect(b, ht, c);
    (void)t;
    for (size_t i = 0; i < e->n; i++) {
        row_figures(&e->rows[i], &b->times[i]);
        math_mode(&e->rows[i], &b->times[i]);
        roof(&e->rows[i], &e->device);
    }
    builder_free(b);
    e->builder = NULL;
    drop_unused(e);
    if (e->n) /* qsort's array must not be NULL, even empty */
        qsort(e->rows, e->n, sizeof *e->rows, cmp_rows);
    if (e->nskips)
        qsort(e->skips, e->nskips, sizeof *e->skips, cmp_skips);
    opp *o = tp_xmalloc((e->n ? e->n : 1) * sizeof *o);
    for (size_t i = 0; i < e->n; i++)
        if (e->rows[i].peak_fraction >= 0)
            o[e->nopportunities++] = (opp){e->rows[i].opportunity_ns, i};
    qsort(o, e->nopportunities, sizeof *o, cmp_opportunity);
    e->by_opportunity = tp_xmalloc((e->n ? e->n : 1) * sizeof *e->by_opportunity);
    for (size_t i = 0; i < e->nopportunities; i++)
        e->by_opportunity[i] = o[i].row;
    free(o);
}

void tp_efficiency_free(tp_efficiency *e)
{
    builder_free(e->builder);
    for (size_t i = 0; i < e->n; i++) {
        free(e->rows[i].op);
        free(e->rows[i].input_dims);
        free(e->rows[i].dtypes);
        free(e->rows[i].strides);
    }
    for (size_t i = 0; i < e->nskips; i++)
        free(e->skips[i].op);
    free(e->rows);
    free(e->skips);
    free(e->by_opportunity);
    memset(e, 0, sizeof *e);
}
