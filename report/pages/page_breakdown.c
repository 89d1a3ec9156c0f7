/* page_breakdown.c: the dominating-op breakdown grid (KINETO.md §2.4): for
 * the ops with the most device time, each kernel mix as a 100% bar of
 * kernel-category shares (the one classification, classify.h). */
#include "render/charts/chart_grid.h"
#include "render/labels/kname.h"
#include "report/pages/pages.h"

#include <stdio.h>
#include <stdlib.h>

#define TP_GRID_MIN_SHARE_MILLI 10 /* an op's panel needs 1% (10 thousandths) of the device time */
#define MAX_PARTS 64 /* kernels of a mix shown by category; the rest is "other" */

/* The grid chart of an op breakdown (the arrays it points to are malloc'ed
 * in *mem, free with grid_free). */
typedef struct grid_mem {
    tp_op_breakdown *ops;
    tp_kernel_mix *mixes;
    tp_mix_part *parts;
    char **own; /* bar names made here (kernels the kernel table does not hold) */
    size_t nown;
    char title[200];
} grid_mem;

/* A bar's name: its top kernel's short name as every other page shows it (the kernel table's), else its own. */
static const char *kernel_label(const tp_pagectx *pc, tp_str name, grid_mem *mem, size_t *cap)
{
    const tp_summary *s = pc->s;
    for (size_t i = 0; pc->knames && i < s->kt.n; i++) /* a format's pages may have no kernel table names */
        if (s->kt.rows[i].name == name)
            return pc->knames[i];
    TP_GROW(mem->own, *cap, mem->nown + 1);
    mem->own[mem->nown] = tp_display_name(tp_str_get(s->t, name), TP_KNAME_MAX);
    return mem->own[mem->nown++];
}

static tp_grid_chart grid_of(const tp_pagectx *pc, const tp_op_kernels *ob, const char *what, size_t max_ops,
                             grid_mem *mem)
{
    const tp_trace *t = pc->s->t;
    /* ops under TP_GRID_MIN_SHARE of the device time get no panel: a 9.66 ms graph replay (98.8%) is not
     * drawn beside ten equal panels of 4-54 us ops (ops are by time: the first small one ends the list) */
    size_t big = 0;
    while (big < ob->nops && (big == 0 || (__int128)ob->ops[big].total_ns * 1000 >=
                                              (__int128)ob->total_ns * TP_GRID_MIN_SHARE_MILLI))
        big++;
    size_t nops = big < max_ops ? big : max_ops;
    tp_op_breakdown *ops = tp_xcalloc(nops + 1, sizeof *ops);
    size_t nmix = 0, nparts = 0;
    for (size_t i = 0; i < nops; i++) {
        size_t m = ob->ops[i].n < TP_GRID_MAX_MIXES ? ob->ops[i].n : TP_GRID_MAX_MIXES;
        nmix += m;
        for (size_t v = 0; v < m; v++)
            nparts += ob->variants[ob->ops[i].first + v].n < MAX_PARTS ? ob->variants[ob->ops[i].first + v].n
                                                                       : MAX_PARTS + 1;
    }
    tp_kernel_mix *mixes = tp_xcalloc(nmix + 1, sizeof *mixes);
    tp_mix_part *parts = tp_xcalloc(nparts + 1, sizeof *parts);
    size_t jm = 0, jp = 0, own_cap = 0;
    mem->own = NULL;
    mem->nown = 0;
    for (size_t i = 0; i < nops; i++) {
        const tp_opk_op *op = &ob->ops[i];
        size_t m = op->n < TP_GRID_MAX_MIXES ? op->n : TP_GRID_MAX_MIXES;
        ops[i].op = tp_opk_op_name(t, op);
        ops[i].mixes = &mixes[jm];
        ops[i].nmixes = m;
        ops[i].total_mixes = op->n;
        for (size_t v = 0; v < m; v++) {
            const tp_opk_variant *va = &ob->variants[op->first + v];
            mixes[jm].parts = &parts[jp];
            size_t np = 0;
            int64_t rest = 0;
            for (size_t k = 0; k < va->n; k++) {
                const tp_opk_kernel *kk = &ob->kernels[va->first + k];
                if (k >= MAX_PARTS) { /* kernels are by time: the small tail counts as "other" */
                    rest += kk->total_ns;
                    continue;
                }
                parts[jp + np].family = tp_name_category(pc, kk->name); /* the one classification */
                parts[jp + np].color = tp_name_color(pc, kk->name);
                parts[jp + np].ns = kk->total_ns;
                np++;
            }
            if (rest) {
                parts[jp + np].family = "other";
                parts[jp + np].ns = rest;
                np++;
            }
            mixes[jm].nparts = np;
            if (va->n) { /* kernels are by time: the first names the bar */
                mixes[jm].label = kernel_label(pc, ob->kernels[va->first].name, mem, &own_cap);
                mixes[jm].more = va->n - 1;
            }
            jp += np;
            jm++;
        }
    }
    if (big < ob->nops)
        snprintf(mem->title, sizeof mem->title, "Dominating %s by time: kernel mix by category, bar height = time (top %zu of %zu; "
                 "%zu under %d%% not drawn)", what, nops, ob->nops, ob->nops - big,
                 TP_GRID_MIN_SHARE_MILLI / 10);
    else
        snprintf(mem->title, sizeof mem->title, "Dominating %s by time: kernel mix by category, bar height = time (top %zu of %zu)",
                 what, nops, ob->nops);
    mem->ops = ops;
    mem->mixes = mixes;
    mem->parts = parts;
    return (tp_grid_chart){mem->title, ops, nops};
}

static void grid_free(grid_mem *mem)
{
    for (size_t i = 0; i < mem->nown; i++)
        free(mem->own[i]);
    free(mem->own);
    free(mem->parts);
    free(mem->mixes);
    free(mem->ops);
}

/* Whether a breakdown has an op to show (not only device work without a host op). */
static bool has_ops(const tp_op_kernels *ob)
{
    for (size_t i = 0; i < ob->nops; i++) /* a grid of "(no host op)" alone says nothing */
        if (!ob->ops[i].no_op)
            return true;
    return false;
}

size_t tp_pages_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what,
                             double w, double h)
{
    char bookmark[120];
    snprintf(bookmark, sizeof bookmark, "Dominating %s", what);
    if (!has_ops(ob)) {
        tp_page_note(pc, bookmark,
                     ob->nops ? "all device work ran outside any of them (no host op launched it), no kernel mix "
                                "to show per op."
                              : "no device activity attributed to them, no kernel mix to show.");
        return 0;
    }
    /* one page, as many of the top ops as fit (summary.json "ops" has them all): the PNG
     * is the same page */
    tp_cv_begin_page(cv, w, h, bookmark);
    tp_chart_breakdown_of(cv, pc, ob, what, (tp_rect){TP_PAGE_MARGIN, TP_PAGE_MARGIN, w - 2 * TP_PAGE_MARGIN,
                                                      h - 2 * TP_PAGE_MARGIN});
    tp_cv_end_page(cv);
    return 1;
}

size_t tp_pages_breakdown(tp_canvas *cv, const tp_pagectx *pc, double w, double h)
{
    return tp_pages_breakdown_of(cv, pc, &pc->s->ob, "ops", w, h);
}

void tp_chart_breakdown_of(tp_canvas *cv, const tp_pagectx *pc, const tp_op_kernels *ob, const char *what, tp_rect r)
{
    /* one picture: as many of the top ops as fit on one page */
    for (size_t max = TP_GRID_MAX_OPS;; max--) {
        grid_mem mem;
        tp_grid_chart g = grid_of(pc, ob, what, max, &mem);
        tp_grid_layout *L = tp_grid_layout_new(&g, r.w, r.h);
        bool done = tp_grid_pages(L) == 1 || max <= 1;
        if (done)
            tp_grid_draw_page(cv, &g, L, 0, r);
        tp_grid_layout_free(L);
        grid_free(&mem);
        if (done)
            break;
    }
}
