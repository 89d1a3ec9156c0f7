/* categories.h: op categories (ANALYSIS.md §2, docs/REPORT.md "Op
 * categories").
 *
 * Rules are data: report/analysis/categories.rules (built into the program)
 * and, before them, the rules of a user's file (`--categories FILE`, same
 * format).  Each rule is CATEGORY ON PATTERN with ON one of kind / kernel /
 * op; the first rule that matches a device activity gives its category, no
 * rule gives "other".  Rules are matched once per distinct (leaf name,
 * activity name, kind), never per event.
 *
 * The analysis: every device activity's category (attribution.h gives its
 * leaf op), then per category the device time (the sum of its activities'
 * durations, like a kernel table's total, not a union), the count of
 * activities, the share of all device time, and the leaf ops with the most
 * time in it; the same per step (activities belong to steps as in steps.h);
 * and the leaf op table: per (leaf name, category) count of occurrences
 * (distinct leaf events), activities and device time; and per module path
 * (the innermost, attribution.h) activities and device time.  Orders: by
 * time, then name. */
#ifndef TP_CATEGORIES_H
#define TP_CATEGORIES_H

#include "report/analysis/attribution.h"
#include "report/analysis/steps.h"

enum { TP_CAT_ON_KIND = 0, TP_CAT_ON_KERNEL, TP_CAT_ON_OP };

typedef struct tp_cat_rule {
    uint32_t category; /* index into names */
    uint8_t on;        /* TP_CAT_ON_* */
    char *pattern;
} tp_cat_rule;

typedef struct tp_cat_rules {
    tp_cat_rule *rules;
    size_t n;
    char **names;      /* categories in order of first appearance (user file first); "other" last */
    size_t nnames;
    uint32_t other, communication; /* indexes of "other" and "communication" */
    struct tp_cat_lookup *lookup;  /* private to category_rules.c: names by hash, rules indexed for tp_cat_match */
} tp_cat_rules;

/* The built-in rules, after those of user_file when not NULL.  0 ok; -1 with
 * a one-line reason in err ("offset 120: line 5: ...") for a bad file. */
int tp_cat_rules_load(tp_cat_rules *r, const char *user_file, char *err, size_t errn);
void tp_cat_rules_free(tp_cat_rules *r);
/* For a command's `--categories FILE` (NULL: the built-in rules only): 0, or
 * the one-line error printed ("tracepress: FILE: offset N: line L: ...") and
 * TP_EXIT_INPUT. */
int tp_cat_rules_for_command(const char *file, tp_cat_rules *r);
#define TP_CATEGORIES_HELP                                                                                            \
    "  --categories FILE   op category rules tried before the built-in ones: lines\n"                                \
    "                      CATEGORY kind|kernel|op GLOB (docs/REPORT.md \"Op categories\")\n"
/* The category of an activity of this kind and name whose leaf is `leaf`
 * (NULL when it has none): the first rule in order that matches, found
 * without trying every rule (convert/base/globset.h). */
uint32_t tp_cat_match(const tp_cat_rules *r, uint8_t kind, const char *name, const char *leaf);

#define TP_CAT_TOP_OPS 5

typedef struct tp_cat_row {
    uint32_t category;
    int64_t device_ns;
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
    uint32_t *of;        /* event -> category (device activities; UINT32_MAX others) */
    tp_cat_row *rows;    /* categories with device time, by time */
    size_t n;
    tp_leaf_row *leaves; /* by time */
    size_t nleaves;
    tp_module_row *modules; /* by time, then path */
    size_t nmodules;
    int64_t total_ns;    /* all device time */
    int64_t *step_total; /* nsteps: all device time per step */
    int64_t *matrix;     /* n x nsteps step times (rows[i].step_ns point here) */
    size_t nsteps;
} tp_categories;

void tp_categories_build(const tp_trace *t, const tp_attribution *a, const tp_step_figures *sf,
                         const tp_cat_rules *rules, tp_categories *c);
void tp_categories_free(tp_categories *c);

#endif
