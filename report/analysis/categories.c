/* categories.c: device time per op category, per step and per leaf op
 * (categories.h). */
#include "report/analysis/categories.h"
#include "report/analysis/classify.h"
#include "convert/base/i64map.h"
#include "convert/base/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/* one (leaf display name, category) group while counting */
typedef struct leaf_acc {
    char *name;         /* display name (owned until moved into the row) */
    uint32_t category;
    uint64_t occurrences, count;
    int64_t device_ns;
} leaf_acc;

static int cmp_module(const void *a, const void *b)
{
    const tp_module_row *x = a, *y = b;
    if (x->device_ns != y->device_ns)
        return x->device_ns > y->device_ns ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int cmp_leaf(const void *a, const void *b)
{
    const tp_leaf_row *x = a, *y = b;
    if (x->device_ns != y->device_ns)
        return x->device_ns > y->device_ns ? -1 : 1;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->category > y->category) - (x->category < y->category);
}

typedef struct row_ctx {
    const tp_cat_rules *rules;
} row_ctx;

static int cmp_row(const void *a, const void *b, void *vc)
{
    const tp_cat_rules *r = ((const row_ctx *)vc)->rules;
    const tp_cat_row *x = a, *y = b;
    if (x->device_ns != y->device_ns)
        return x->device_ns > y->device_ns ? -1 : 1;
    return strcmp(r->names[x->category], r->names[y->category]);
}

void tp_categories_build(const tp_trace *t, const tp_attribution *a, const tp_step_figures *sf,
                         const tp_classes *cls, tp_categories *c)
{
    memset(c, 0, sizeof *c);
    const tp_cat_rules *rules = cls->rules;
    c->rules = rules;
    c->nsteps = sf->nsteps;
    size_t ncat = rules->nnames;
    c->of = cls->of; /* the one classification (classify.h) */
    /* the leaf group once per (leaf name, how, category): a hash lookup,
     * skipped when the event repeats the previous one's key (runs of the
     * same kernel) */
    tp_i64map group = {0}; /* (leaf name << 32 | how << 30 | category) -> accumulator */
    tp_i64map seen = {0};  /* (leaf event << 32 | accumulator) counted, for leaves in 2+ groups only */
    uint32_t *first = tp_xcalloc(t->nevents + 1, sizeof *first); /* leaf event -> its first group + 1 */
    int64_t last_gk = -1;
    uint32_t last_ix = 0;
    leaf_acc *acc = NULL;
    size_t nacc = 0, acc_cap = 0;
    int64_t *cat_ns = tp_xcalloc(ncat + 1, sizeof *cat_ns);
    int64_t *graph_ns = tp_xcalloc(ncat + 1, sizeof *graph_ns), *compiled_ns = tp_xcalloc(ncat + 1, sizeof *compiled_ns);
    uint64_t *cat_n = tp_xcalloc(ncat + 1, sizeof *cat_n);
    int64_t *mat = tp_xcalloc((ncat + 1) * (sf->nsteps + 1), sizeof *mat);
    c->step_total = tp_xcalloc(sf->nsteps + 1, sizeof *c->step_total);
    tp_module_row *mods = tp_xcalloc(a->paths.n + 1, sizeof *mods);
    char buf[512];
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        uint32_t cat = cls->of[i];
        if (cat == UINT32_MAX)
            continue;
        uint32_t leaf = a->leaf[i];
        tp_str leaf_name = leaf != TP_NONE ? t->events[leaf].name : 0;
        int64_t d = e->dur > 0 ? e->dur : 0;
        cat_ns[cat] = sat_add(cat_ns[cat], d);
        if (cls->ran[i] == TP_RAN_GRAPH)
            graph_ns[cat] = sat_add(graph_ns[cat], d);
        else if (cls->ran[i] == TP_RAN_COMPILED)
            compiled_ns[cat] = sat_add(compiled_ns[cat], d);
        cat_n[cat]++;
        c->total_ns = sat_add(c->total_ns, d);
        if (a->module[i]) {
            mods[a->module[i]].count++;
            mods[a->module[i]].device_ns = sat_add(mods[a->module[i]].device_ns, d);
        }
        uint32_t st = sf->ev_step ? sf->ev_step[i] : TP_NONE;
        if (st != TP_NONE) {
            mat[(size_t)cat * sf->nsteps + st] = sat_add(mat[(size_t)cat * sf->nsteps + st], d);
            c->step_total[st] = sat_add(c->step_total[st], d);
        }
        /* the leaf group: its display name is a function of (leaf name, how) */
        uint32_t how = leaf == TP_NONE ? (e->link != TP_NONE ? 2u : 3u) : a->how[i] == TP_ATTR_GRAPH ? 1u : 0u;
        int64_t gk = (int64_t)(((uint64_t)leaf_name << 32) | ((uint64_t)how << 30) | cat);
        uint32_t ix = last_ix;
        if (gk != last_gk) {
            ix = tp_i64map_get(&group, gk);
            if (ix == TP_I64MAP_EMPTY) {
                tp_attr_leaf_name(t, a, (uint32_t)i, buf, sizeof buf);
                TP_GROW(acc, acc_cap, nacc + 1);
                acc[nacc] = (leaf_acc){tp_xstrdup(buf), cat, 0, 0, 0};
                ix = (uint32_t)nacc++;
                tp_i64map_put(&group, gk, ix);
            }
            last_gk = gk;
            last_ix = ix;
        }
        acc[ix].count++;
        acc[ix].device_ns = sat_add(acc[ix].device_ns, d);
        /* occurrences: distinct leaf events of the group */
        if (leaf != TP_NONE) {
            if (!first[leaf]) {
                first[leaf] = ix + 1;
                acc[ix].occurrences++;
            } else if (first[leaf] != ix + 1) {
                int64_t sk = (int64_t)(((uint64_t)leaf << 32) | ix);
                if (tp_i64map_get(&seen, sk) == TP_I64MAP_EMPTY) {
                    tp_i64map_put(&seen, sk, 1);
                    acc[ix].occurrences++;
                }
            }
        }
    }
    tp_i64map_free(&group);
    tp_i64map_free(&seen);
    free(first);
    c->modules_cut = a->modules_cut;
    c->modules = tp_xcalloc(a->paths.n + 1, sizeof *c->modules);
    for (uint32_t m = 1; m <= a->paths.n; m++)
        if (mods[m].count) {
            size_t l;
            const char *p = tp_strset_get(&a->paths, m, &l);
            c->modules[c->nmodules++] = (tp_module_row){tp_xstrndup(p, l), mods[m].count, mods[m].device_ns};
        }
    free(mods);
    qsort(c->modules, c->nmodules, sizeof *c->modules, cmp_module);
    c->leaves = tp_xcalloc(nacc + 1, sizeof *c->leaves);
    for (size_t g = 0; g < nacc; g++) /* the names move into the rows */
        c->leaves[g] = (tp_leaf_row){acc[g].name, acc[g].category, acc[g].occurrences, acc[g].count, acc[g].device_ns};
    c->nleaves = nacc;
    free(acc);
    qsort(c->leaves, c->nleaves, sizeof *c->leaves, cmp_leaf);
    /* category rows */
    c->rows = tp_xcalloc(ncat + 1, sizeof *c->rows);
    for (uint32_t k = 0; k < ncat; k++)
        if (cat_n[k])
            c->rows[c->n++] = (tp_cat_row){.category = k, .device_ns = cat_ns[k], .count = cat_n[k],
                                           .graph_ns = graph_ns[k], .compiled_ns = compiled_ns[k]};
    row_ctx rc = {rules};
    qsort_r(c->rows, c->n, sizeof *c->rows, cmp_row, &rc);
    c->matrix = tp_xcalloc(c->n * (sf->nsteps ? sf->nsteps : 1) + 1, sizeof *c->matrix);
    for (size_t r = 0; r < c->n; r++) {
        tp_cat_row *row = &c->rows[r];
        row->step_ns = c->matrix + r * sf->nsteps;
        memcpy(row->step_ns, mat + (size_t)row->category * sf->nsteps, sf->nsteps * sizeof *mat);
        for (size_t g = 0; g < c->nleaves && row->ntop < TP_CAT_TOP_OPS; g++)
            if (c->leaves[g].category == row->category)
                row->top[row->ntop++] = (uint32_t)g;
    }
    free(mat);
    free(cat_ns);
    free(graph_ns);
    free(compiled_ns);
    free(cat_n);
}

void tp_categories_free(tp_categories *c)
{
    for (size_t i = 0; i < c->nleaves; i++)
        free(c->leaves[i].name);
    free(c->leaves);
    for (size_t i = 0; i < c->nmodules; i++)
        free(c->modules[i].path);
    free(c->modules);
    free(c->rows);
    free(c->matrix);
    free(c->step_total);
    memset(c, 0, sizeof *c);
}
