/* category_rules.c: the category rule table, parsed from the built-in file
 * and a user's file, and matched (cat_rules.h). */
#include "report/rules/cat_rules.h"
#include "convert/base/globset.h"
#include "convert/base/strset.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* report/rules/categories.rules, built in (cat_rules_data.c) */
extern const char tp_cat_rules_builtin[];

/* What makes a table of many rules and names cheap: category names by
 * hash (a user file may name 70k categories), and the rules indexed so that
 * a lookup costs about the name's length, not the number of rules. */
struct tp_cat_lookup {
    tp_strset names;            /* id = index into r->names + 1 */
    size_t names_cap, rules_cap; /* r->names and r->rules grow by doubling */
    uint32_t kind_first[3];     /* the first kind rule for kernel, memcpy, memset */
    tp_globset *kernel, *op;    /* rule indexes by pattern (kernel names fold case) */
};

static uint32_t name_index(tp_cat_rules *r, const char *s, size_t len)
{
    uint32_t id = tp_strset_add(&r->lookup->names, s, len);
    if (id <= r->nnames)
        return id - 1;
    TP_GROW(r->names, r->lookup->names_cap, r->nnames + 1);
    r->names[r->nnames] = tp_xstrndup(s, len);
    return (uint32_t)r->nnames++;
}

static int kind_slot(const char *kind_name)
{
    return strcmp(kind_name, "memcpy") == 0 ? 1 : strcmp(kind_name, "memset") == 0 ? 2 : 0;
}

static void index_rules(tp_cat_rules *r)
{
    struct tp_cat_lookup *l = r->lookup;
    l->kind_first[0] = l->kind_first[1] = l->kind_first[2] = UINT32_MAX;
    l->kernel = tp_globset_new(true);
    l->op = tp_globset_new(false);
    for (size_t i = r->n; i-- > 0;) {
        const tp_cat_rule *u = &r->rules[i];
        if (u->on == TP_CAT_ON_KIND)
            l->kind_first[kind_slot(u->pattern)] = (uint32_t)i;
        else
            tp_globset_add(u->on == TP_CAT_ON_KERNEL ? l->kernel : l->op, u->pattern, (uint32_t)i);
    }
    tp_globset_seal(l->kernel);
    tp_globset_seal(l->op);
}

/* Parse text[0..len) ("where" names it in errors); 0 or -1 with err. */
static int parse(tp_cat_rules *r, const char *text, size_t len, char *err, size_t errn)
{
    const char *p = text, *end = text + len;
    size_t line = 0;
    while (p < end) {
        line++;
        const char *ls = p, *le = memchr(p, '\n', (size_t)(end - p));
        le = le ? le : end;
        p = le < end ? le + 1 : end;
        while (le > ls && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
            le--;
        const char *a = tp_skip_blanks(ls, le);
        if (a == le || *a == '#')
            continue;
        for (const char *c = a; c < le; c++)
            if ((unsigned char)*c < 0x20 && *c != '\t') {
                snprintf(err, errn, "offset %zu: line %zu: a control character in a rule", (size_t)(ls - text), line);
                return -1;
            }
        const char *ae = tp_word_end(a, le), *o = tp_skip_blanks(ae, le), *oe = tp_word_end(o, le);
        const char *pat = tp_skip_blanks(oe, le);
        if (pat == le) {
            snprintf(err, errn, "offset %zu: line %zu: want CATEGORY ON PATTERN (ON: kind, kernel or op)",
                     (size_t)(ls - text), line);
            return -1;
        }
        if (ae - a > 64) {
            snprintf(err, errn, "offset %zu: line %zu: a category name longer than 64 bytes", (size_t)(a - text), line);
            return -1;
        }
        uint8_t on;
        size_t ol = (size_t)(oe - o);
        if (ol == 4 && memcmp(o, "kind", 4) == 0)
            on = TP_CAT_ON_KIND;
        else if (ol == 6 && memcmp(o, "kernel", 6) == 0)
            on = TP_CAT_ON_KERNEL;
        else if (ol == 2 && memcmp(o, "op", 2) == 0)
            on = TP_CAT_ON_OP;
        else {
            snprintf(err, errn, "offset %zu: line %zu: \"%.*s\" is not kind, kernel or op", (size_t)(o - text), line,
                     (int)(ol > 40 ? 40 : ol), o);
            return -1;
        }
        size_t pl = (size_t)(le - pat);
        if (on == TP_CAT_ON_KIND && !((pl == 6 && memcmp(pat, "memcpy", 6) == 0) || (pl == 6 && memcmp(pat, "memset", 6) == 0) ||
                                      (pl == 6 && memcmp(pat, "kernel", 6) == 0))) {
            snprintf(err, errn, "offset %zu: line %zu: a kind rule names kernel, memcpy or memset", (size_t)(pat - text),
                     line);
            return -1;
        }
        TP_GROW(r->rules, r->lookup->rules_cap, r->n + 1);
        r->rules[r->n++] = (tp_cat_rule){name_index(r, a, (size_t)(ae - a)), on, tp_xstrndup(pat, pl)};
    }
    return 0;
}

int tp_cat_rules_load(tp_cat_rules *r, const char *user_file, char *err, size_t errn)
{
    memset(r, 0, sizeof *r);
    r->lookup = tp_xcalloc(1, sizeof *r->lookup);
    if (user_file) {
        tp_buf b = {0};
        /* 4 MiB: the rule index costs about 40 bytes per pattern byte (a 4 MiB table of 57k
         * rules: 1.1 s, 170 MB; 16 MiB took 20 s and 700 MB), docs/ERRORS.md "Round 3" */
        int rc = tp_read_small_file(user_file, 4u << 20, "a rule table", &b, err, errn);
        if (rc == 0)
            rc = parse(r, b.data ? b.data : "", b.len, err, errn);
        tp_buf_free(&b);
        if (rc) {
            tp_cat_rules_free(r);
            return -1;
        }
    }
    char ierr[256];
    if (parse(r, tp_cat_rules_builtin, strlen(tp_cat_rules_builtin), ierr, sizeof ierr))
    {
        fprintf(stderr, "tracepress: built-in category rules: %s\n", ierr); /* a build error, caught by the tests */
        abort();
    }
    r->communication = name_index(r, "communication", 13);
    r->other = name_index(r, "other", 5);
    index_rules(r);
    size_t pieceless = tp_globset_pieceless(r->lookup->kernel) + tp_globset_pieceless(r->lookup->op);
    if (pieceless > TP_CAT_MAX_PIECELESS) {
        /* each is tried on every distinct name: bounded so that a small file costs seconds, not
         * rules x names (60k distinct bracket-only rules x 5,000 names took 31 s) */
        snprintf(err, errn,
                 "offset 0: %zu distinct patterns without a literal character (such as [0-9]* or ?*): at most %d, "
                 "each is tried on every name",
                 pieceless, TP_CAT_MAX_PIECELESS);
        tp_cat_rules_free(r);
        return -1;
    }
    return 0;
}

int tp_cat_rules_for_command(const char *file, tp_cat_rules *r)
{
    tp_err e = {0};
    if (tp_cat_rules_load(r, file, e.msg, sizeof e.msg) == 0)
        return 0;
    tp_report_error(file, &e);
    return TP_EXIT_INPUT;
}

void tp_cat_rules_free(tp_cat_rules *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->rules[i].pattern);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->rules);
    free(r->names);
    if (r->lookup) {
        tp_strset_free(&r->lookup->names);
        tp_globset_free(r->lookup->kernel);
        tp_globset_free(r->lookup->op);
        free(r->lookup);
    }
    memset(r, 0, sizeof *r);
}

uint32_t tp_cat_match(const tp_cat_rules *r, uint8_t kind, const char *name, const char *leaf)
{
    const char *kn = kind == TP_KIND_MEMCPY ? "memcpy" : kind == TP_KIND_MEMSET ? "memset" : "kernel";
    const struct tp_cat_lookup *l = r->lookup;
    uint32_t best = l->kind_first[kind_slot(kn)];
    uint32_t k = tp_globset_first(l->kernel, name, NULL);
    best = k < best ? k : best;
    if (leaf) {
        uint32_t o = tp_globset_first(l->op, leaf, NULL);
        best = o < best ? o : best;
    }
    return best == UINT32_MAX ? r->other : r->rules[best].category;
}
