/* cat_rules.h: the op category rule table (docs/REPORT.md "Op categories"):
 * data, parsed once, and the one matcher every classification goes through
 * (report/analysis/classify.h calls it; nothing else decides a category).
 *
 * Rules are data: report/rules/categories.rules (built into the program) and,
 * before them, the rules of a user's file (`--categories FILE`, same
 * format).  Each rule is CATEGORY ON PATTERN with ON one of kind / kernel /
 * op; the first rule that matches a device activity gives its category, no
 * rule gives "other". */
#ifndef TP_CAT_RULES_H
#define TP_CAT_RULES_H

#include "convert/model/model.h"

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

/* Patterns with no literal character to index ([0-9]*, ?*) a table may hold
 * (distinct ones; docs/ERRORS.md "Round 3"): each is tried on every name. */
#define TP_CAT_MAX_PIECELESS 1024
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

#endif
