/* classify.c: the one classification of every device activity (classify.h). */
#include "report/analysis/classify.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* a leaf op that is a compiled region (torch.compile's markers) */
static bool compiled_region(const char *leaf)
{
    return leaf && (starts(leaf, "Torch-Compiled Region") || starts(leaf, "CompiledFunction") ||
                    starts(leaf, "## Call CompiledFxGraph"));
}

#define SHARE_LESS(x, y, c)                                                                                         \
    ((x)->name != (y)->name               ? (x)->name < (y)->name                                                   \
     : (x)->device_ns != (y)->device_ns ? (x)->device_ns > (y)->device_ns                                         \
                                          : (x)->category < (y)->category)
TP_SORT_DEFINE(sort_shares, tp_class_share, int, SHARE_LESS)

void tp_classes_build(const tp_trace *t, const tp_attribution *a, const tp_cat_rules *rules, tp_classes *c)
{
    memset(c, 0, sizeof *c);
    c->rules = rules;
    c->of = tp_xmalloc((t->nevents + 1) * sizeof *c->of);
    c->ran = tp_xcalloc(t->nevents + 1, sizeof *c->ran);
    /* the rules once per (leaf name, activity name) and kind: a hash lookup,
     * skipped when the event repeats the previous one's key (runs of one kernel);
     * the value is the category << 1 | whether a kernel so named ran compiled
     * (its name and its leaf's: three strncmp once per key, not per kernel) */
    tp_i64map cache[3] = {{0}};
    int64_t last_key[3] = {-1, -1, -1};
    uint32_t last_val[3] = {0, 0, 0};
    tp_i64map share_of = {0}; /* (name << 32 | category) -> index into shares */
    int64_t last_sk = -1;
    uint32_t last_ix = 0;
    size_t cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        c->of[i] = UINT32_MAX;
        if (!tp_is_device_activity(e))
            continue;
        uint32_t leaf = a ? a->leaf[i] : TP_NONE;
        tp_str leaf_name = leaf != TP_NONE ? t->events[leaf].name : 0;
        const char *leaf_s = leaf_name ? tp_str_get(t, leaf_name) : NULL;
        int kc = e->kind == TP_KIND_MEMCPY ? 1 : e->kind == TP_KIND_MEMSET ? 2 : 0;
        int64_t key = (int64_t)(((uint64_t)leaf_name << 32) | e->name);
        uint32_t val = last_val[kc];
        if (key != last_key[kc]) {
            val = tp_i64map_get(&cache[kc], key);
            if (val == TP_I64MAP_EMPTY) {
                const char *name = tp_str_get(t, e->name);
                bool compiled = e->kind == TP_KIND_KERNEL && (starts(name, "triton_") || compiled_region(leaf_s));
                val = tp_cat_match(rules, e->kind, name, leaf_s) << 1 | compiled;
                tp_i64map_put(&cache[kc], key, val);
            }
            last_key[kc] = key;
            last_val[kc] = val;
        }
        uint32_t cat = val >> 1;
        c->of[i] = cat;
        if (a && (a->how[i] == TP_ATTR_GRAPH || (leaf != TP_NONE && (t->events[leaf].flags & TP_EV_CAPTURED))))
            c->ran[i] = TP_RAN_GRAPH;
        else if (val & 1)
            c->ran[i] = TP_RAN_COMPILED;
        int64_t sk = (int64_t)(((uint64_t)e->name << 32) | cat);
        uint32_t ix = sk == last_sk ? last_ix : tp_i64map_get(&share_of, sk); /* runs of one kernel: no lookup */
        if (ix == TP_I64MAP_EMPTY) {
            TP_GROW(c->shares, cap, c->nshares + 1);
            c->shares[c->nshares] = (tp_class_share){e->name, cat, 0};
            ix = (uint32_t)c->nshares++;
            tp_i64map_put(&share_of, sk, ix);
        }
        c->shares[ix].device_ns = tp_sat_add(c->shares[ix].device_ns, e->dur > 0 ? e->dur : 0);
        last_sk = sk;
        last_ix = ix;
    }
    for (int k = 0; k < 3; k++)
        tp_i64map_free(&cache[k]);
    tp_i64map_free(&share_of);
    sort_shares(c->shares, c->nshares, 0);
    for (size_t i = 0; i < c->nshares; i++)
        if (i == 0 || c->shares[i].name != c->shares[i - 1].name)
            tp_i64map_put(&c->first, c->shares[i].name, (uint32_t)i);
}

void tp_classes_free(tp_classes *c)
{
    free(c->of);
    free(c->ran);
    free(c->shares);
    tp_i64map_free(&c->first);
    memset(c, 0, sizeof *c);
}

const tp_class_share *tp_class_name_split(const tp_classes *c, tp_str name, size_t *n)
{
    *n = 0;
    uint32_t f = c->shares ? tp_i64map_get(&c->first, name) : TP_I64MAP_EMPTY;
    if (f == TP_I64MAP_EMPTY)
        return NULL;
    size_t k = f;
    while (k < c->nshares && c->shares[k].name == name)
        k++;
    *n = k - f;
    return &c->shares[f];
}

uint32_t tp_class_of_name(const tp_classes *c, tp_str name)
{
    size_t n;
    const tp_class_share *s = tp_class_name_split(c, name, &n);
    return n ? s[0].category : c->rules->other;
}
