/* diff_op.c: the op that launched each kernel-table row (diff_op.h). */
#include "report/diff/diff_op.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    tp_str name;
    uint8_t kind;
    size_t op; /* index in s->ob.ops */
    int64_t ns;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

/* Totals are >= 0 but corrupt durations can sum past int64: saturate. */
static int64_t sat_add(int64_t a, int64_t b) { return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b; }

void tp_diff_kernel_ops(const tp_summary *s, const char **out)
{
    const tp_op_kernels *ob = &s->ob;
    for (size_t i = 0; i < s->kt.n; i++)
        out[i] = NULL;
    entry *e = tp_xcalloc(ob->nkernels + 1, sizeof *e);
    size_t n = 0;
    for (size_t o = 0; o < ob->nops; o++) {
        const tp_opk_op *op = &ob->ops[o];
        if (op->no_op)
            continue; /* "(no host op)" names no op: nothing to pair by */
        for (size_t v = op->first; v < op->first + op->n && v < ob->nvariants; v++) {
            const tp_opk_variant *va = &ob->variants[v];
            for (size_t k = va->first; k < va->first + va->n && k < ob->nkernels && n < ob->nkernels; k++)
                e[n++] = (entry){ob->kernels[k].name, ob->kernels[k].kind, o, ob->kernels[k].total_ns};
        }
    }
    qsort(e, n, sizeof *e, entry_cmp);
    /* per (name, kind): the op with the largest summed time; runs of one op are adjacent */
    size_t m = 0; /* compacted: one entry per (name, kind), its best op */
    for (size_t i = 0; i < n;) {
        size_t best_op = e[i].op;
        int64_t best = -1;
        size_t j = i;
        while (j < n && e[j].name == e[i].name && e[j].kind == e[i].kind) {
            size_t k = j;
            int64_t sum = 0;
            while (k < n && e[k].name == e[j].name && e[k].kind == e[j].kind && e[k].op == e[j].op)
                sum = sat_add(sum, e[k++].ns);
            if (sum > best) /* ops ascend: a tie keeps the op first in the breakdown's order */
                best = sum, best_op = e[j].op;
            j = k;
        }
        e[m++] = (entry){e[i].name, e[i].kind, best_op, best};
        i = j;
    }
    for (size_t i = 0; i < s->kt.n; i++) {
        entry key = {s->kt.rows[i].name, s->kt.rows[i].kind, 0, 0};
        size_t lo = 0, hi = m;
        while (lo < hi) { /* the first entry not below (name, kind) */
            size_t mid = lo + (hi - lo) / 2;
            const entry *x = &e[mid];
            if (x->name < key.name || (x->name == key.name && x->kind < key.kind))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < m && e[lo].name == key.name && e[lo].kind == key.kind)
            out[i] = tp_opk_op_name(s->t, &ob->ops[e[lo].op]);
    }
    free(e);
}
