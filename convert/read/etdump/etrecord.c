/* etrecord.c: ETRecord side-car (zip via libzip, JSON members read with
 * json_lex).  Only the members that link events to graph nodes are read;
 * everything else (state dicts, pickles) is ignored.  JSON is navigated in
 * place (no tree): the members are small and read once. */
#include "convert/read/etdump/etrecord.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define MEMBER_MAX (256u << 20) /* a JSON member larger than this is not an ETRecord we can use */
#define EDGE_PREFIX "executorch.exir.dialects.edge.ops."
#define SUBSTRING_SCAN_MAX 4096 /* delegate keys tried by the substring rule */

typedef struct handles {
    int64_t *v;
    size_t n, cap;
} handles;

typedef struct iid_entry {
    int64_t iid;
    size_t seq;           /* input order, so duplicates resolve deterministically */
    handles h;            /* debug_handle_map */
    char *backend;        /* delegate_map name, or NULL */
    char **dkeys;         /* delegate_map[iid].delegate_map keys, in input order */
    handles *dvals;
    size_t nd, dcap, kcap;
    uint32_t *sorted;     /* key indexes in strcmp order, for exact lookups */
} iid_entry;

struct tp_etrecord {
    tp_etr_node *nodes; /* sorted by handle */
    size_t nnodes, nodes_cap;
    iid_entry *iids;    /* sorted by iid, one per instruction */
    size_t niids, iids_cap;
};

/* ---- JSON navigation over [p, end) ---- */

/* Iterate an object: *p at '{' first, then after each member.  Returns 1 with
 * the unescaped key in *key and *val at the value, 0 at the end, -1 if malformed. */
static int obj_next(const char **p, const char *end, tp_buf *key, const char **val)
{
    const char *q = tp_json_ws(*p, end), *why, *s;
    if (q < end && (*q == '{' || *q == ','))
        q = tp_json_ws(q + 1, end);
    if (q < end && *q == '}')
        return 0;
    size_t len;
    bool esc;
    if (q >= end || *q != '"' || tp_json_string(q, end, &s, &len, &esc, &q, &why) != TP_JL_OK)
        return -1;
    key->len = 0;
    tp_json_unescape(key, s, len, NULL);
    tp_buf_putc(key, 0);
    q = tp_json_ws(q, end);
    if (q >= end || *q != ':')
        return -1;
    *val = tp_json_ws(q + 1, end);
    const char *next;
    if (tp_json_skip(*val, end, &next, &why) != TP_JL_OK)
        return -1;
    *p = next;
    return 1;
}

static const char *obj_get(const char *obj, const char *end, const char *want)
{
    if (!obj || obj >= end || *obj != '{')
        return NULL;
    tp_buf key = {0};
    const char *p = obj, *val, *found = NULL;
    while (obj_next(&p, end, &key, &val) == 1)
        if (strcmp(key.data, want) == 0) {
            found = val;
            break;
        }
    tp_buf_free(&key);
    return found;
}

/* Iterate an array: *p at '[' first.  Returns 1 with *val at the element. */
static int arr_next(const char **p, const char *end, const char **val)
{
    const char *q = tp_json_ws(*p, end), *why;
    if (q < end && (*q == '[' || *q == ','))
        q = tp_json_ws(q + 1, end);
    if (q >= end || *q == ']')
        return 0;
    *val = q;
    if (tp_json_skip(q, end, p, &why) != TP_JL_OK)
        return -1;
    return 1;
}

/* A string value, unescaped and malloc'ed; NULL if v is not a string. */
static char *str_value(const char *v, const char *end)
{
    const char *s, *next, *why;
    size_t len;
    bool esc;
    if (!v || v >= end || *v != '"' || tp_json_string(v, end, &s, &len, &esc, &next, &why) != TP_JL_OK)
        return NULL;
    tp_buf b = {0};
    tp_json_unescape(&b, s, len, NULL);
    tp_buf_putc(&b, 0);
    return b.data;
}

/* An integer given as a number or a numeric string ("2"). */
static bool int_value(const char *v, const char *end, int64_t *out)
{
    if (!v || v >= end)
        return false;
    if (*v == '"') {
        char *s = str_value(v, end);
        bool ok = s && tp_parse_int(s, strlen(s), out) == 0;
        free(s);
        return ok;
    }
    size_t len;
    const char *why;
    return tp_json_number(v, end, &len, &why) == TP_JL_OK && tp_parse_int(v, len, out) == 0;
}

/* A handle or a list of handles. */
static void handles_value(const char *v, const char *end, handles *h)
{
    int64_t x;
    if (v && v < end && *v == '[') {
        const char *p = v, *el;
        while (arr_next(&p, end, &el) == 1)
            if (int_value(el, end, &x)) {
                TP_GROW(h->v, h->cap, h->n + 1);
                h->v[h->n++] = x;
            }
    } else if (int_value(v, end, &x)) {
        TP_GROW(h->v, h->cap, 1);
        h->v[0] = x;
        h->n = 1;
    }
}

/* ---- members ---- */

static char *read_member(zip_t *z, const char *name, size_t *len, tp_err *err, const char *path)
{
    zip_int64_t i = zip_name_locate(z, name, 0);
    if (i < 0)
        return NULL;
    zip_stat_t st;
    if (zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) || st.size > MEMBER_MAX) {
        tp_fail_at(err, "", "%s: ETRecord member %s is unreadable or larger than %u MB", path, name, MEMBER_MAX >> 20);
        return NULL;
    }
    zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
    char *buf = tp_xmalloc((size_t)st.size + 1);
    zip_int64_t got = f ? zip_fread(f, buf, st.size) : -1;
    if (f)
        zip_fclose(f);
    if (got < 0 || (zip_uint64_t)got != st.size) {
        free(buf);
        tp_fail_at(err, "", "%s: ETRecord member %s could not be read (corrupt zip?)", path, name);
        return NULL;
    }
    buf[st.size] = 0;
    *len = (size_t)st.size;
    return buf;
}

/* A new entry; entries of the same instruction from the two maps are merged
 * after sorting (merge_iids), so loading stays O(n log n). */
static iid_entry *iid_add(tp_etrecord *r, int64_t iid)
{
    TP_GROW(r->iids, r->iids_cap, r->niids + 1);
    iid_entry *e = &r->iids[r->niids++];
    memset(e, 0, sizeof *e);
    e->iid = iid;
    e->seq = r->niids - 1;
    return e;
}

static void entry_free(iid_entry *e)
{
    free(e->h.v);
    free(e->backend);
    for (size_t k = 0; k < e->nd; k++) {
        free(e->dkeys[k]);
        free(e->dvals[k].v);
    }
    free(e->dkeys);
    free(e->dvals);
    free(e->sorted);
}

/* Sorted by iid; duplicates: the first one with each part wins. */
static void merge_iids(tp_etrecord *r)
{
    size_t out = 0;
    for (size_t i = 0; i < r->niids; i++) {
        iid_entry *e = &r->iids[i];
        if (out && r->iids[out - 1].iid == e->iid) {
            iid_entry *k = &r->iids[out - 1];
            if (!k->h.n && e->h.n) {
                free(k->h.v);
                k->h = e->h;
                e->h = (handles){0};
            }
            if (!k->backend && e->backend) {
                k->backend = e->backend;
                e->backend = NULL;
            }
            if (!k->nd && e->nd) {
                free(k->dkeys);
                free(k->dvals);
                k->dkeys = e->dkeys;
                k->dvals = e->dvals;
                k->nd = e->nd;
                k->kcap = e->kcap;
                k->dcap = e->dcap;
                e->dkeys = NULL;
                e->dvals = NULL;
                e->nd = 0;
            }
            entry_free(e);
        } else {
            r->iids[out++] = *e;
        }
    }
    r->niids = out;
}

/* {method: {...}}: the "forward" method, else the only one. */
static const char *method_map(const char *doc, const char *end)
{
    const char *v = obj_get(doc, end, "forward");
    if (v)
        return v;
    tp_buf key = {0};
    const char *p = doc, *val, *first = NULL;
    int n = 0;
    if (doc && doc < end && *doc == '{')
        while (obj_next(&p, end, &key, &val) == 1)
            if (n++ == 0)
                first = val;
    tp_buf_free(&key);
    return n == 1 ? first : NULL;
}

static void read_handle_map(tp_etrecord *r, const char *doc, const char *end)
{
    const char *m = method_map(doc, end), *p = m, *val;
    tp_buf key = {0};
    int64_t iid;
    if (m && *m == '{')
        while (obj_next(&p, end, &key, &val) == 1)
            if (tp_parse_int(key.data, strlen(key.data), &iid) == 0)
                handles_value(val, end, &iid_add(r, iid)->h);
    tp_buf_free(&key);
}

static void read_delegate_map(tp_etrecord *r, const char *doc, const char *end)
{
    const char *m = method_map(doc, end), *p = m, *val;
    tp_buf key = {0}, dkey = {0};
    int64_t iid;
    if (m && *m == '{')
        while (obj_next(&p, end, &key, &val) == 1) {
            if (tp_parse_int(key.data, strlen(key.data), &iid) != 0 || *val != '{')
                continue;
            iid_entry *e = iid_add(r, iid);
            e->backend = str_value(obj_get(val, end, "name"), end);
            const char *dm = obj_get(val, end, "delegate_map"), *q = dm, *dv;
            if (dm && *dm == '{')
                while (obj_next(&q, end, &dkey, &dv) == 1) {
                    TP_GROW(e->dkeys, e->kcap, e->nd + 1);
                    TP_GROW(e->dvals, e->dcap, e->nd + 1);
                    e->dkeys[e->nd] = tp_xstrdup(dkey.data);
                    e->dvals[e->nd] = (handles){0};
                    handles_value(dv, end, &e->dvals[e->nd]);
                    e->nd++;
                }
        }
    tp_buf_free(&key);
    tp_buf_free(&dkey);
}

/* A dynamo-era path ("L['self'].layer1[0]", torch < 2.3) as torch >= 2.3
 * writes it ("layer1.0"; the root "L['self']" becomes ""); any other text
 * is kept as it is. */
static void normalise_path(tp_buf *out, const char *p, size_t n)
{
    static const char root[] = "L['self']";
    const size_t rl = sizeof root - 1;
    size_t at = out->len;
    if (n < rl || memcmp(p, root, rl) != 0) {
        tp_buf_put(out, p, n);
        return;
    }
    for (size_t i = rl; i < n;) {
        size_t j = i + 1, from, to;
        if (p[i] == '.') { /* .name */
            while (j < n && p[j] != '.' && p[j] != '[')
                j++;
            from = i + 1, to = j;
        } else if (p[i] == '[' && j < n && p[j] == '\'') { /* ['key'] */
            const char *q = j + 1 < n ? memchr(p + j + 1, '\'', n - j - 1) : NULL;
            if (!q || q + 1 >= p + n || q[1] != ']')
                goto keep;
            from = j + 1, to = (size_t)(q - p), j = to + 2;
        } else if (p[i] == '[') { /* [index] */
            while (j < n && p[j] >= '0' && p[j] <= '9')
                j++;
            if (j == i + 1 || j >= n || p[j] != ']')
                goto keep;
            from = i + 1, to = j++;
        } else {
            goto keep;
        }
        if (to == from)
            goto keep;
        if (out->len > at)
            tp_buf_putc(out, '.');
        tp_buf_put(out, p + from, to - from);
        i = j;
    }
    return;
keep:
    out->len = at;
    tp_buf_put(out, p, n);
}

/* nn_module_stack as torch.export serialises it: "key,path,type;key,path,type"
 * (the key and the type have no comma; the path might). */
static void module_stack(tp_etr_node *n, const char *s)
{
    tp_buf all = {0}, one = {0};
    size_t cap = 0;
    while (*s) {
        const char *e = strchr(s, ';');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *c1 = memchr(s, ',', len), *c2 = NULL;
        for (const char *c = s + len; c1 && c-- > c1;)
            if (*c == ',') {
                c2 = c;
                break;
            }
        if (c1 && c2 && c2 > c1) {
            one.len = 0;
            normalise_path(&one, c1 + 1, (size_t)(c2 - c1 - 1));
            if (one.len) {
                if (all.len)
                    tp_buf_putc(&all, '/');
                tp_buf_put(&all, one.data, one.len);
                TP_GROW(n->paths, cap, n->npaths + 1);
                n->paths[n->npaths++] = tp_xstrndup(one.data, one.len);
            }
        }
        s += len + (e ? 1 : 0);
    }
    tp_buf_free(&one);
    if (n->npaths) {
        tp_buf_putc(&all, 0);
        n->modules = all.data;
        n->module = tp_xstrdup(n->paths[n->npaths - 1]);
    } else {
        tp_buf_free(&all);
    }
}

static void read_nodes(tp_etrecord *r, const char *doc, const char *end)
{
    const char *gm = obj_get(doc, end, "graph_module");
    if (!gm) /* newer serialisations wrap the program */
        gm = obj_get(obj_get(doc, end, "exported_program"), end, "graph_module");
    const char *nodes = obj_get(obj_get(gm, end, "graph"), end, "nodes"), *p = nodes, *nv;
    if (!nodes || *nodes != '[')
        return;
    while (arr_next(&p, end, &nv) == 1) {
        const char *md = obj_get(nv, end, "metadata");
        int64_t h;
        if (!md || !int_value(obj_get(md, end, "debug_handle"), end, &h))
            continue;
        tp_etr_node n = {0};
        n.handle = h;
        char *target = str_value(obj_get(nv, end, "target"), end);
        if (!target)
            target = tp_xstrdup("");
        size_t pl = strlen(EDGE_PREFIX);
        n.target = tp_xstrdup(strncmp(target, EDGE_PREFIX, pl) == 0 ? target + pl : target);
        free(target);
        n.stack_trace = str_value(obj_get(md, end, "stack_trace"), end);
        char *ms = str_value(obj_get(md, end, "nn_module_stack"), end);
        if (ms)
            module_stack(&n, ms);
        free(ms);
        TP_GROW(r->nodes, r->nodes_cap, r->nnodes + 1);
        r->nodes[r->nnodes++] = n;
    }
}

/* Key order for exact lookups; equal keys in input order (the last one wins,
 * as in the Python dict upstream builds). */
static int cmp_key(const void *a, const void *b, void *ctx)
{
    const iid_entry *e = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(e->dkeys[x], e->dkeys[y]);
    return c ? c : (x > y) - (x < y);
}

/* strcmp of a key with the (not NUL-terminated) text id[0..len). */
static int key_cmp(const char *key, const char *id, size_t len)
{
    int c = strncmp(key, id, len);
    if (c)
        return c;
    return key[len] ? 1 : 0;
}

static int cmp_node(const void *a, const void *b)
{
    const tp_etr_node *x = a, *y = b;
    return (x->handle > y->handle) - (x->handle < y->handle);
}

static int cmp_iid(const void *a, const void *b)
{
    const iid_entry *x = a, *y = b;
    if (x->iid != y->iid)
        return (x->iid > y->iid) - (x->iid < y->iid);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

tp_etrecord *tp_etrecord_load(const char *path, tp_err *err)
{
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &ze);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        tp_fail_at(err, "", "%s: not a readable ETRecord zip (%s)", path, zip_error_strerror(&e));
        zip_error_fini(&e);
        return NULL;
    }
    if (zip_name_locate(z, "ETRECORD_V0", 0) < 0) {
        zip_close(z);
        tp_fail_at(err, "", "%s: not an ETRecord (no ETRECORD_V0 member)", path);
        return NULL;
    }
    tp_etrecord *r = tp_xcalloc(1, sizeof *r);
    static const char *const members[] = {"debug_handle_map", "delegate_map", "edge_dialect_exported_program/forward",
                                          "edge_dialect_exported_program"};
    bool have_program = false;
    for (size_t i = 0; i < 4; i++) {
        if (i == 3 && have_program)
            break;
        size_t len = 0;
        char *doc = read_member(z, members[i], &len, err, path);
        if (!doc) {
            if (err->set) {
                zip_close(z);
                tp_etrecord_free(r);
                return NULL;
            }
            continue;
        }
        const char *start = tp_json_ws(doc, doc + len), *end = doc + len;
        if (i == 0)
            read_handle_map(r, start, end);
        else if (i == 1)
            read_delegate_map(r, start, end);
        else {
            read_nodes(r, start, end);
            have_program = true;
        }
        free(doc);
    }
    zip_close(z);
    if (r->nnodes) /* qsort's pointer must not be NULL, even for 0 items */
        qsort(r->nodes, r->nnodes, sizeof *r->nodes, cmp_node);
    for (size_t i = 0; i < r->nnodes; i++)
        r->nodes[i].index = (uint32_t)i;
    if (r->niids)
        qsort(r->iids, r->niids, sizeof *r->iids, cmp_iid);
    merge_iids(r);
    for (size_t i = 0; i < r->niids; i++) {
        iid_entry *e = &r->iids[i];
        if (!e->nd)
            continue;
        e->sorted = tp_xmalloc(e->nd * sizeof *e->sorted);
        for (size_t k = 0; k < e->nd; k++)
            e->sorted[k] = (uint32_t)k;
        qsort_r(e->sorted, e->nd, sizeof *e->sorted, cmp_key, e);
    }
    return r;
}

void tp_etrecord_free(tp_etrecord *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nnodes; i++) {
        free(r->nodes[i].target);
        free(r->nodes[i].stack_trace);
        free(r->nodes[i].module);
        free(r->nodes[i].modules);
        for (uint32_t k = 0; k < r->nodes[i].npaths; k++)
            free(r->nodes[i].paths[k]);
        free(r->nodes[i].paths);
    }
    free(r->nodes);
    for (size_t i = 0; i < r->niids; i++)
        entry_free(&r->iids[i]);
    free(r->iids);
    free(r);
}

static size_t add_nodes(const tp_etrecord *r, const handles *h, const tp_etr_node **out, size_t max, size_t n)
{
    for (size_t i = 0; i < h->n; i++) {
        size_t lo = 0, hi = r->nnodes; /* first node with this handle */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (r->nodes[mid].handle < h->v[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < r->nnodes && r->nodes[lo].handle == h->v[i] && n < max; lo++)
            out[n++] = &r->nodes[lo];
        if (n == max) /* bounded work per event, whatever the maps hold */
            break;
    }
    return n;
}

size_t tp_etrecord_nodes(const tp_etrecord *r, int32_t iid, const char *delegate_id, size_t delegate_len,
                         const tp_etr_node **nodes, size_t max, const char **backend)
{
    *backend = NULL;
    if (!r)
        return 0;
    size_t lo = 0, hi = r->niids;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->iids[mid].iid < iid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->niids || r->iids[lo].iid != iid)
        return 0;
    const iid_entry *e = &r->iids[lo];
    *backend = e->backend;
    if (!delegate_id || !e->backend) /* not delegated, or no delegate entry: the instruction's handles */
        return add_nodes(r, &e->h, nodes, max, 0);
    /* upstream: the exact key (binary search: the last of equal keys), else
     * any key contained in the id (scan bounded: work per event stays small) */
    size_t lo2 = 0, hi2 = e->nd;
    while (lo2 < hi2) { /* first key greater than the id */
        size_t mid = (lo2 + hi2) / 2;
        if (key_cmp(e->dkeys[e->sorted[mid]], delegate_id, delegate_len) <= 0)
            lo2 = mid + 1;
        else
            hi2 = mid;
    }
    if (lo2 > 0 && key_cmp(e->dkeys[e->sorted[lo2 - 1]], delegate_id, delegate_len) == 0)
        return add_nodes(r, &e->dvals[e->sorted[lo2 - 1]], nodes, max, 0);
    for (size_t k = 0; k < e->nd && k < SUBSTRING_SCAN_MAX; k++)
        if (e->dkeys[k][0] && memmem(delegate_id, delegate_len, e->dkeys[k], strlen(e->dkeys[k])))
            return add_nodes(r, &e->dvals[k], nodes, max, 0);
    return 0;
}

size_t tp_etrecord_node_count(const tp_etrecord *r) { return r ? r->nnodes : 0; }
const tp_etr_node *tp_etrecord_node(const tp_etrecord *r, size_t i) { return r && i < r->nnodes ? &r->nodes[i] : NULL; }

const tp_etr_node *tp_etr_module_node(const tp_etr_node *const *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i]->module)
            return nodes[i];
    return NULL;
}
