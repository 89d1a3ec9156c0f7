/* plaidml_program_run.c: see plaidml_program_run.h. */
#include "report/formats/plaidml/plaidml_program_run.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

#define VERB_INVOCATION "plaidml::invoker::ScheduleInvocation"
#define VERB_COMPILE "tile::local_machine::Compile"
#define MAX_DEPTH 64

static bool cat_is(const tp_trace *t, const tp_event *e, const char *verb)
{
    return strcmp(tp_str_get(t, e->cat), verb) == 0;
}

/* Buffer mapping verbs: vertexai::GetMapBase, vertexai::WriteBackMap,
 * tile::MapCurrent, tile::hal::opencl::Buffer::Unmap. */
static bool is_mapping(const tp_trace *t, const tp_event *e)
{
    const char *v = tp_str_get(t, e->cat);
    size_t n = strlen(v);
    return strstr(v, "Map") != NULL || (n >= 7 && strcmp(v + n - 7, "::Unmap") == 0);
}

static uint32_t parent_of(const tp_event *e)
{
    return e->link != TP_NONE ? e->link : e->op;
}

/* Hops from e up to `root` (0 = e is root), or -1 if root is not an ancestor. */
static int depth_below(const tp_trace *t, uint32_t e, uint32_t root)
{
    for (int d = 0; d <= MAX_DEPTH && e != TP_NONE && e < t->nevents; d++) {
        if (e == root)
            return d;
        e = parent_of(&t->events[e]);
    }
    return -1;
}

static int item_cmp(const void *x, const void *y, void *ctx)
{
    const tp_trace *t = ctx;
    const tp_pml_run_item *a = x, *b = y;
    const tp_event *ea = &t->events[a->event], *eb = &t->events[b->event];
    if (ea->ts != eb->ts)
        return ea->ts < eb->ts ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a->event < b->event ? -1 : a->event > b->event;
}

static int inv_cmp(const void *x, const void *y, void *ctx)
{
    const tp_trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (t->events[a].ts != t->events[b].ts)
        return t->events[a].ts < t->events[b].ts ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* ---- compilation info from the Compile event's args ---- */

/* Find top-level key `key` of a JSON object; its value span or NULL. */
static const char *json_field(const char *p, const char *end, const char *key, const char **vend)
{
    const char *why;
    p = tp_json_ws(p, end);
    if (p >= end || *p != '{')
        return NULL;
    p++;
    size_t klen = strlen(key);
    for (;;) {
        p = tp_json_ws(p, end);
        if (p >= end || *p != '"')
            return NULL;
        const char *s, *next;
        size_t len;
        bool esc;
        if (tp_json_string(p, end, &s, &len, &esc, &next, &why) != TP_JL_OK)
            return NULL;
        p = tp_json_ws(next, end);
        if (p >= end || *p != ':')
            return NULL;
        const char *v = tp_json_ws(p + 1, end);
        if (tp_json_skip(v, end, &next, &why) != TP_JL_OK)
            return NULL;
        if (!esc && len == klen && memcmp(s, key, len) == 0) {
            *vend = next;
            return v;
        }
        p = tp_json_ws(next, end);
        if (p >= end || *p != ',')
            return NULL;
        p++;
    }
}

/* [[size,count],...] as written by the reader. */
static void size_pairs(const char *p, const char *end, tp_pml_size_count **out, size_t *n, uint64_t *bytes,
                       uint64_t *count)
{
    size_t cap = 0;
    int64_t v[2];
    int k = 0;
    for (; p < end; p++) {
        if (*p >= '0' && *p <= '9') {
            const char *q = p;
            while (q < end && *q >= '0' && *q <= '9')
                q++;
            if (tp_parse_int(p, (size_t)(q - p), &v[k]) != 0)
                v[k] = 0;
            p = q - 1;
            if (++k == 2) {
                TP_GROW(*out, cap, *n + 1);
                (*out)[(*n)++] = (tp_pml_size_count){(uint64_t)v[0], (uint64_t)v[1]};
                *bytes += (uint64_t)v[0] * (uint64_t)v[1];
                *count += (uint64_t)v[1];
                k = 0;
            }
        } else if (*p == '[' && k != 0) {
            k = 0; /* malformed pair: resynchronise */
        }
    }
}

/* Does the Compile args' "kernels" array hold `name`? */
static bool lists_kernel(const char *p, const char *end, const char *name)
{
    const char *why, *s, *next;
    size_t len, nlen = strlen(name);
    bool esc;
    for (; p < end; p++)
        if (*p == '"') {
            if (tp_json_string(p, end, &s, &len, &esc, &next, &why) != TP_JL_OK)
                return false;
            if (len == nlen && memcmp(s, name, len) == 0)
                return true;
            p = next - 1;
        }
    return false;
}

static void kernel_mem(const tp_trace *t, tp_pml_kernel_mem *m)
{
    m->compile_event = TP_NONE;
    if (!m->kernel)
        return;
    const char *name = tp_str_get(t, m->kernel);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!e->args || !cat_is(t, e, VERB_COMPILE))
            continue;
        size_t alen;
        const char *a = tp_args_get(t, e->args, &alen), *end = a + alen, *ve;
        const char *v = json_field(a, end, "kernels", &ve);
        if (!v || !lists_kernel(v, ve, name))
            continue;
        m->compile_event = (uint32_t)i;
        if ((v = json_field(a, end, "program", &ve)) && *v == '"') {
            const char *s, *next, *why;
            size_t len;
            bool esc;
            if (tp_json_string(v, ve, &s, &len, &esc, &next, &why) == TP_JL_OK && !esc &&
                len < sizeof m->program) {
                memcpy(m->program, s, len);
                m->program[len] = 0;
            }
        }
        if ((v = json_field(a, end, "tmp_sizes", &ve)))
            size_pairs(v, ve, &m->tmp, &m->ntmp, &m->tmp_bytes, &m->tmp_count);
        if ((v = json_field(a, end, "alloc_sizes", &ve)))
            size_pairs(v, ve, &m->alloc, &m->nalloc, &m->alloc_bytes, &m->alloc_count);
        return;
    }
}

/* ---- kernels by mean and total ---- */

typedef struct kacc {
    tp_str name;
    uint64_t n;
    int64_t total;
} kacc;

static int kacc_cmp(const void *x, const void *y)
{
    const kacc *a = x, *b = y;
    return a->name < b->name ? -1 : a->name > b->name;
}

/* rounded half away from zero, as the kernel table does */
static int64_t mean_ns(int64_t total, uint64_t n)
{
    int64_t h = (int64_t)(n / 2);
    return total >= 0 ? (total + h) / (int64_t)n : (total - h) / (int64_t)n;
}

static void top_kernels(const tp_trace *t, tp_pml_program_run *r)
{
    kacc *k = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL || (e->flags & TP_EV_DROPPED))
            continue;
        TP_GROW(k, cap, n + 1);
        k[n++] = (kacc){e->name, 1, e->dur};
    }
    if (n) /* qsort wants a non-null array even for 0 elements */
        qsort(k, n, sizeof *k, kacc_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && k[m - 1].name == k[i].name) {
            k[m - 1].n++;
            k[m - 1].total += k[i].total;
        } else {
            k[m++] = k[i];
        }
    }
    /* highest total; highest mean (compared exactly as total/n cross products); ties: name order */
    size_t bt = 0, bm = 0;
    for (size_t i = 1; i < m; i++) {
        if (k[i].total > k[bt].total)
            bt = i;
        __int128 lhs = (__int128)k[i].total * (__int128)k[bm].n, rhs = (__int128)k[bm].total * (__int128)k[i].n;
        if (lhs > rhs)
            bm = i;
    }
    if (m) {
        r->top_total = (tp_pml_kernel_mem){.kernel = k[bt].name, .runs = k[bt].n, .total_ns = k[bt].total,
                                           .mean_ns = mean_ns(k[bt].total, k[bt].n)};
        r->top_mean = (tp_pml_kernel_mem){.kernel = k[bm].name, .runs = k[bm].n, .total_ns = k[bm].total,
                                          .mean_ns = mean_ns(k[bm].total, k[bm].n)};
    }
    free(k);
}

/* Rows for a timeline: each item goes on the first row below its parent's
 * (when the parent is an item) whose last bar has ended. */
static void assign_rows(const tp_trace *t, tp_pml_program_run *r)
{
    uint32_t *item_of = tp_xmalloc((t->nevents ? t->nevents : 1) * sizeof *item_of);
    for (size_t i = 0; i < r->nitems; i++)
        item_of[r->items[i].event] = (uint32_t)i;
    int64_t *row_end = NULL;
    size_t nrows = 0, cap = 0;
    for (size_t i = 0; i < r->nitems; i++) {
        tp_pml_run_item *it = &r->items[i];
        const tp_event *e = &t->events[it->event];
        size_t min_row = 0;
        uint32_t p = parent_of(e);
        if (it->depth > 0 && p != TP_NONE && p < t->nevents) {
            uint32_t pi = item_of[p]; /* only trusted if it points back at p */
            if (pi < i && r->items[pi].event == p)
                min_row = r->items[pi].row + 1;
        }
        size_t row = min_row;
        while (row < nrows && row_end[row] > e->ts)
            row++;
        if (row >= nrows) {
            TP_GROW(row_end, cap, row + 1);
            while (nrows <= row)
                row_end[nrows++] = INT64_MIN;
        }
        row_end[row] = e->ts + e->dur;
        it->row = (uint32_t)row;
    }
    r->nrows = nrows;
    free(row_end);
    free(item_of);
}

int tp_pml_program_run_analyze(const tp_trace *t, size_t invocation, bool clamp, tp_pml_program_run *r, tp_err *err)
{
    memset(r, 0, sizeof *r);
    r->event = TP_NONE;
    r->top_mean.compile_event = r->top_total.compile_event = TP_NONE;
    top_kernels(t, r);
    kernel_mem(t, &r->top_mean);
    kernel_mem(t, &r->top_total);

    uint32_t *inv = NULL;
    size_t ninv = 0, cap = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (!(t->events[i].flags & TP_EV_DROPPED) && cat_is(t, &t->events[i], VERB_INVOCATION)) {
            TP_GROW(inv, cap, ninv + 1);
            inv[ninv++] = (uint32_t)i;
        }
    if (ninv)
        qsort_r(inv, ninv, sizeof *inv, inv_cmp, (void *)t);
    r->ninvocations = ninv;
    if (ninv == 0) {
        free(inv);
        return 0;
    }
    if (invocation == 0 || invocation > ninv) {
        if (!clamp) {
            free(inv);
            return tp_fail_at(err, "", "ScheduleInvocation %zu asked for, the trace has %zu", invocation, ninv);
        }
        invocation = invocation == 0 ? 1 : ninv;
    }
    r->invocation = invocation;
    uint32_t root = r->event = inv[invocation - 1];
    int64_t from = t->events[root].ts;
    int64_t until = invocation < ninv ? t->events[inv[invocation]].ts : INT64_MAX;
    free(inv);

    size_t icap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->flags & TP_EV_DROPPED)
            continue;
        int d = depth_below(t, (uint32_t)i, root);
        uint8_t role;
        if (d >= 0) {
            role = d == 0 ? TP_PML_ITEM_INVOCATION : TP_PML_ITEM_DESCENDANT;
        } else if (e->ts >= from && e->ts < until && is_mapping(t, e)) {
            role = TP_PML_ITEM_MAPPING;
            /* depth below the outermost mapping ancestor, for drawing;
             * skip what belongs to another invocation */
            d = 0;
            bool other = false;
            int hops = 0;
            for (uint32_t p = parent_of(e); p != TP_NONE && p < t->nevents && hops < MAX_DEPTH;
                 p = parent_of(&t->events[p]), hops++) {
                if (is_mapping(t, &t->events[p]))
                    d++;
                other |= cat_is(t, &t->events[p], VERB_INVOCATION);
            }
            if (other)
                continue;
        } else {
            continue;
        }
        TP_GROW(r->items, icap, r->nitems + 1);
        r->items[r->nitems++] = (tp_pml_run_item){(uint32_t)i, (uint32_t)d, 0, role};
        r->ndescendants += role == TP_PML_ITEM_DESCENDANT;
        r->nmapping += role == TP_PML_ITEM_MAPPING;
        r->nexecutions += role == TP_PML_ITEM_DESCENDANT && e->kind == TP_KIND_KERNEL;
    }
    if (r->nitems)
        qsort_r(r->items, r->nitems, sizeof *r->items, item_cmp, (void *)t);
    assign_rows(t, r);
    r->t0 = INT64_MAX;
    r->t1 = INT64_MIN;
    for (size_t i = 0; i < r->nitems; i++) {
        const tp_event *e = &t->events[r->items[i].event];
        if (e->ts < r->t0)
            r->t0 = e->ts;
        if (e->ts + e->dur > r->t1)
            r->t1 = e->ts + e->dur;
    }
    return 0;
}

void tp_pml_program_run_free(tp_pml_program_run *r)
{
    free(r->items);
    free(r->top_mean.tmp);
    free(r->top_mean.alloc);
    free(r->top_total.tmp);
    free(r->top_total.alloc);
    memset(r, 0, sizeof *r);
}
