/* attribution.c: top-level op, leaf op (or enclosing scope) and module path
 * of every device activity (attribution.h). */
#include "report/analysis/attribution.h"
#include "convert/base/i64map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool trace_cat(const tp_trace *t, const tp_event *e)
{
    return tp_str_len(t, e->cat) == 5 && memcmp(tp_str_get(t, e->cat), "Trace", 5) == 0;
}

static bool profiler_name(const char *n) { return strncmp(n, "PyTorch Profiler (", 18) == 0; }

static bool step_name(const char *n, size_t len) { return len >= 13 && memcmp(n, "ProfilerStep#", 13) == 0; }

bool tp_is_profiler_span(const tp_trace *t, const tp_event *e)
{
    return trace_cat(t, e) || profiler_name(tp_str_get(t, e->name));
}

bool tp_is_graph_launch(const char *name)
{
    return strstr(name, "GraphLaunch") != NULL;
}

/* "nn.Module: BertLayer_3" -> "BertLayer_3"; "module::x" -> "x"; else NULL */
static const char *module_name(const char *n)
{
    if (strncmp(n, "nn.Module: ", 11) == 0)
        return n + 11;
    if (strncmp(n, "module::", 8) == 0)
        return n + 8;
    return NULL;
}

/* A Python frame's name of the framework itself ("torch/cuda/graphs.py(88):
 * replay", "torch/nn/modules/module.py(1747): _call_impl", "<built-in
 * method ...>"): it names no part of the user's model, so the scope of a
 * launch is the innermost enclosing slice that is not one, when there is one. */
static bool library_name(const char *n)
{
    const char *paren = strchr(n, '(');
    size_t file = paren ? (size_t)(paren - n) : strlen(n);
    if (strncmp(n, "<built-in", 9) == 0 || strncmp(n, "torch/", 6) == 0)
        return true;
    const char *in = strstr(n, "/torch/");
    return in && (size_t)(in - n) < file;
}

/* What a host slice's name says, asked once per name (each slice asked up to
 * seven string tests: 1.8 M slices on the 1 GB real-shaped trace). */
enum { NAME_ASKED = 1, NAME_PROFILER = 2, NAME_STEP = 4, NAME_LIBRARY = 8, NAME_MODULE = 16 };

static uint8_t name_says(const tp_trace *t, uint8_t *says, tp_str name)
{
    if (!says[name]) {
        const char *n = tp_str_get(t, name);
        says[name] = (uint8_t)(NAME_ASKED | (profiler_name(n) ? NAME_PROFILER : 0) |
                               (step_name(n, tp_str_len(t, name)) ? NAME_STEP : 0) |
                               (library_name(n) ? NAME_LIBRARY : 0) | (module_name(n) ? NAME_MODULE : 0));
    }
    return says[name];
}

/* A host slice that can name a scope: not a step, not the profiler's span,
 * not a launch call itself. */
static bool scope_event(const tp_trace *t, const tp_event *e, uint8_t says)
{
    if (e->flags & TP_EV_STEP)
        return false;
    if (e->kind == TP_KIND_RUNTIME || trace_cat(t, e) || (says & NAME_PROFILER))
        return false;
    return !(says & NAME_STEP);
}

/* A Python frame (library_name) of the framework itself. */
static bool library_frame(const tp_trace *t, const tp_event *e, uint8_t says)
{
    if (tp_str_len(t, e->cat) != 15 || memcmp(tp_str_get(t, e->cat), "python_function", 15) != 0)
        return false;
    return says & NAME_LIBRARY;
}

/* The module path of an op copied from a graph-capture trace: its copied
 * nn.Module scopes (graph_capture.h: `link` is the enclosing copy),
 * outermost first, within the same bounds as a path of this trace; once per op. */
static uint32_t captured_module(const tp_trace *t, tp_attribution *a, uint32_t op, tp_i64map *done, tp_buf *path)
{
    uint32_t id = tp_i64map_get(done, op);
    if (id != TP_I64MAP_EMPTY)
        return id;
    const char *names[TP_MODULE_MAX_LEVELS];
    size_t n = 0;
    for (uint32_t p = op; p != TP_NONE && p < t->nevents; p = t->events[p].link) {
        const char *m = module_name(tp_str_get(t, t->events[p].name));
        if (!m)
            continue;
        if (n == TP_MODULE_MAX_LEVELS) { /* the outermost levels kept: drop the innermost */
            memmove(names, names + 1, (n - 1) * sizeof *names);
            n--;
            a->modules_cut++;
        }
        names[n++] = m;
    }
    path->len = 0;
    for (size_t k = n; k-- > 0;) {
        size_t ml = strlen(names[k]);
        if (path->len + (path->len != 0) + ml > TP_MODULE_MAX_PATH_BYTES) {
            a->modules_cut += k + 1;
            break;
        }
        if (path->len)
            tp_buf_putc(path, '/');
        tp_buf_put(path, names[k], ml);
    }
    id = path->len ? tp_strset_add(&a->paths, path->data, path->len) : 0;
    tp_i64map_put(done, op, id);
    return id;
}

void tp_attribution_build(const tp_trace *t, const tp_host_tree *ht, tp_attribution *a)
{
    memset(a, 0, sizeof *a);
    size_t n = t->nevents;
    a->leaf = tp_xmalloc((n + 1) * sizeof *a->leaf);
    a->how = tp_xcalloc(n + 1, 1);
    a->module = tp_xcalloc(n + 1, sizeof *a->module);
    /* module path of every host slice, in preorder (a parent before its children) */
    uint32_t *host_mod = tp_xcalloc(n + 1, sizeof *host_mod);
    uint8_t *levels = NULL; /* path id -> its names (<= TP_MODULE_MAX_LEVELS) */
    size_t levels_cap = 0;
    /* per position: the innermost scope event at or above it, and the innermost
     * that is not a library frame, from its parent's (a launch used to walk up
     * its ancestors: 12k nested library frames cost 72M name tests) */
    uint32_t *inner_at = tp_xmalloc((ht->n + 1) * sizeof *inner_at);
    uint32_t *named_at = tp_xmalloc((ht->n + 1) * sizeof *named_at);
    tp_buf path = {0};
    uint8_t *name_says_of = tp_xcalloc(t->nstr + 1, 1); /* name id -> name_says */
    for (size_t p = 0; p < ht->n; p++) {
        uint32_t ev = ht->order[p], par = ht->parent[ev];
        uint32_t pp = par != TP_NONE ? ht->pos[par] : TP_NONE;
        inner_at[p] = pp != TP_NONE ? inner_at[pp] : TP_NONE;
        named_at[p] = pp != TP_NONE ? named_at[pp] : TP_NONE;
        uint8_t says = name_says(t, name_says_of, t->events[ev].name);
        if (scope_event(t, &t->events[ev], says)) {
            inner_at[p] = ev;
            if (!library_frame(t, &t->events[ev], says))
                named_at[p] = ev;
        }
        uint32_t up = par != TP_NONE ? host_mod[par] : 0;
        if (!(says & NAME_MODULE)) {
            host_mod[ev] = up;
            continue;
        }
        const char *m = module_name(tp_str_get(t, t->events[ev].name));
        size_t l = 0, ml = strlen(m);
        const char *s = up ? tp_strset_get(&a->paths, up, &l) : NULL;
        if ((up && levels[up] >= TP_MODULE_MAX_LEVELS) || l + (up != 0) + ml > TP_MODULE_MAX_PATH_BYTES) {
            host_mod[ev] = up; /* too deep or too long: counted, and its work stays with its ancestors' path */
            a->modules_cut++;
            continue;
        }
        path.len = 0;
        if (up) {
            tp_buf_put(&path, s, l);
            tp_buf_putc(&path, '/');
        }
        tp_buf_put(&path, m, ml);
        host_mod[ev] = tp_strset_add(&a->paths, path.data, path.len);
        TP_GROW(levels, levels_cap, (size_t)host_mod[ev] + 1);
        levels[host_mod[ev]] = (uint8_t)(up ? levels[up] + 1 : 1);
    }
    free(levels);
    free(name_says_of);
    tp_i64map captured_paths = {0};
    for (size_t i = 0; i < n; i++) {
        const tp_event *e = &t->events[i];
        a->leaf[i] = TP_NONE;
        if (!tp_is_device_activity(e))
            continue;
        uint32_t launch = e->link;
        if (launch != TP_NONE && ht->pos[launch] != TP_NONE)
            a->module[i] = host_mod[launch];
        if (e->op != TP_NONE) {
            a->leaf[i] = e->op;
            a->how[i] = TP_ATTR_OP;
            if (t->events[e->op].flags & TP_EV_CAPTURED)
                a->module[i] = captured_module(t, a, e->op, &captured_paths, &path);
            continue;
        }
        if (launch == TP_NONE || ht->pos[launch] == TP_NONE)
            continue;
        uint32_t up = ht->parent[launch], at = up != TP_NONE ? ht->pos[up] : TP_NONE;
        uint32_t inner = at != TP_NONE ? inner_at[at] : TP_NONE, named = at != TP_NONE ? named_at[at] : TP_NONE;
        bool graph = tp_is_graph_launch(tp_str_get(t, t->events[launch].name));
        if (inner != TP_NONE) {
            a->leaf[i] = named != TP_NONE ? named : inner;
            a->how[i] = graph ? TP_ATTR_GRAPH : TP_ATTR_SCOPE;
        } else if (graph) { /* nothing but a step around it: still a graph replay, "graph: cudaGraphLaunch" */
            a->leaf[i] = launch;
            a->how[i] = TP_ATTR_GRAPH;
        }
    }
    tp_i64map_free(&captured_paths);
    tp_buf_free(&path);
    free(host_mod);
    free(inner_at);
    free(named_at);
}

void tp_attribution_free(tp_attribution *a)
{
    free(a->leaf);
    free(a->how);
    free(a->module);
    tp_strset_free(&a->paths);
    memset(a, 0, sizeof *a);
}

void tp_attr_leaf_name(const tp_trace *t, const tp_attribution *a, uint32_t ev, char *buf, size_t n)
{
    uint32_t leaf = a->leaf[ev];
    if (leaf == TP_NONE) {
        snprintf(buf, n, "%s", t->events[ev].link != TP_NONE ? "(no host op)" : "(no launch call)");
        return;
    }
    snprintf(buf, n, "%s%s", a->how[ev] == TP_ATTR_GRAPH ? "graph: " : "", tp_str_get(t, t->events[leaf].name));
}
