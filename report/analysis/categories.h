/* categories.h: op categories (ANALYSIS.md §2, docs/REPORT.md "Op
 * categories").
 *
 * Every device activity's category comes from the one classification
 * (classify.h, over the rule table of report/rules/cat_rules.h).  The
 * analysis: per category the device time (the sum of its activities'
 * durations, like a kernel table's total, not a union), the count of
 * activities, the share of all device time, the part replayed in graphs or
 * compiled, and the leaf ops with the most time in it; the same per step
 * (activities belong to steps as in steps.h); and the leaf op table: per
 * (leaf name, category) count of occurrences (distinct leaf events),
 * activities and device time; and per module path (the innermost,
 * attribution.h) activities and device time.  Orders: by time, then name. */
#ifndef TP_CATEGORIES_H
#define TP_CATEGORIES_H

#include "report/analysis/attribution.h"
#include "report/analysis/steps.h"
#include "report/rules/cat_rules.h"

#define TP_CAT_TOP_OPS 5

typedef struct tp_cat_row {
    uint32_t category;
    int64_t device_ns;
    int64_t graph_ns, compiled_ns; /* of device_ns: replayed in CUDA/HIP graphs, compiled (classify.h TP_RAN_*) */
    uint64_t count;
    int64_t *step_ns;        /* nsteps entries */
    uint32_t top[TP_CAT_TOP_OPS]; /* indexes into leaves, the leaf ops with the most time here */
    size_t ntop;
} tp_cat_row;

typedef struct tp_leaf_row {
    char *name;          /* display name (attribution.h) */
    uint32_t category;
    uint64_t occurrences; /* distinct leaf events (0 for "(no host op)" groups) */
    uint64_t count;
    int64_t device_ns;
} tp_leaf_row;

typedef struct tp_module_row {
    char *path;          /* attribution.h module path */
    uint64_t count;      /* device activities launched inside it (innermost path) */
    int64_t device_ns;
} tp_module_row;

typedef struct tp_categories {
    const tp_cat_rules *rules;
    const uint32_t *of;  /* event -> category (device activities; UINT32_MAX others): the classification's (classify.h) */
    tp_cat_row *rows;    /* categories with device time, by time */
    size_t n;
    tp_leaf_row *leaves; /* by time */
    size_t nleaves;
    tp_module_row *modules; /* by time, then path */
    size_t nmodules;
    uint64_t modules_cut; /* tp_attribution.modules_cut */
    int64_t total_ns;    /* all device time */
    int64_t *step_total; /* nsteps: all device time per step */
    int64_t *matrix;     /* n x nsteps step times (rows[i].step_ns point here) */
    size_t nsteps;
} tp_categories;

struct tp_classes;
void tp_categories_build(const tp_trace *t, const tp_attribution *a, const tp_step_figures *sf,
                         const struct tp_classes *cls, tp_categories *c);
void tp_categories_free(tp_categories *c);

#endif
