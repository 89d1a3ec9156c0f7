/* diff_find.c: the findings of two runs compared (diff_find.h). */
#include "report/diff/diff_find.h"
#include "convert/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_diff_finding_status_name(int status) { return tp_find_change_name(status); }

static int row_cmp(const void *a, const void *b)
{
    const tp_diff_finding *x = a, *y = b;
    if (x->status != y->status)
        return x->status < y->status ? -1 : 1;
    int64_t ix = x->status == TP_DF_GONE ? x->impact_ns[0] : x->impact_ns[1];
    int64_t iy = y->status == TP_DF_GONE ? y->impact_ns[0] : y->impact_ns[1];
    if (ix != iy)
        return ix > iy ? -1 : 1;
    return strcmp(x->id, y->id);
}

void tp_diff_findings_build(const tp_summary *base, const tp_summary *cand, tp_diff_findings *f)
{
    memset(f, 0, sizeof *f);
    tp_findings fb[2];
    /* the same rules, in the same order, for both: the command's (`--rules FILE` with the built-in ones),
     * else the built-in table */
    tp_findings_build(base, base->opts.find_rules, &fb[0]);
    tp_findings_build(cand, base->opts.find_rules, &fb[1]);
    const tp_find_rules *r = base->opts.find_rules ? base->opts.find_rules : fb[0].own_rules;
    f->rows = tp_xcalloc(r->n + 1, sizeof *f->rows);
    for (size_t i = 0; i < r->n; i++) {
        tp_diff_finding x = {0};
        for (int k = 0; k < 2; k++)
            for (size_t j = 0; j < fb[k].n; j++)
                if (strcmp(fb[k].items[j].rule->id, r->rules[i].id) == 0) {
                    x.fired[k] = true;
                    x.impact_ns[k] = fb[k].items[j].m->impact_ns;
                    /* a memory risk has no time: its value tells grown from the same */
                    x.impact_milli[k] = fb[k].items[j].m->risk ? fb[k].items[j].m->value_milli
                                                               : fb[k].items[j].m->impact_milli;
                    /* a risk's value is a share of its own base ("the peak reserved"), not of time: "35.0% of
                     * no time" read as nothing */
                    x.risk = fb[k].items[j].m->risk;
                    /* a copy: with several devices it is the measure's own span_of_devices, freed below */
                    free(x.impact_base);
                    x.impact_base = tp_xstrdup(x.risk ? fb[k].items[j].m->base : fb[k].items[j].m->impact_base);
                    snprintf(x.scope[k], sizeof x.scope[k], "%s", fb[k].items[j].scope);
                }
        if (!x.fired[0] && !x.fired[1])
            continue;
        x.status = tp_find_change(x.fired[0], x.impact_milli[0], x.fired[1], x.impact_milli[1]);
        x.id = tp_xstrdup(r->rules[i].id);
        x.title = tp_xstrdup(r->rules[i].title);
        x.severity = r->rules[i].severity;
        f->rows[f->n++] = x;
    }
    qsort(f->rows, f->n, sizeof *f->rows, row_cmp);
    tp_findings_free(&fb[0]);
    tp_findings_free(&fb[1]);
}

void tp_diff_findings_free(tp_diff_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->rows[i].id);
        free(f->rows[i].title);
        free(f->rows[i].impact_base);
    }
    free(f->rows);
    memset(f, 0, sizeof *f);
}

static int severity_of(const char *v)
{
    return strcmp(v, "high") == 0 ? TP_SEV_HIGH : strcmp(v, "medium") == 0 ? TP_SEV_MEDIUM
                                              : strcmp(v, "low") == 0       ? TP_SEV_LOW
                                                                            : -1;
}

int tp_diff_finding_gate_check(const char *value, const char *rules_file)
{
    size_t n = strlen(value);
    if (n == 0 || n > 40)
        return -1;
    for (const char *c = value; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return -1;
    if (severity_of(value) >= 0)
        return 0;
    /* an ID that none of the rules diff runs (the built-in ones and --rules FILE's) names could
     * never trip, and a typo in a CI gate would pass every change in silence */
    tp_find_rules r;
    char err[256];
    if (tp_find_rules_load(&r, rules_file, err, sizeof err) < 0)
        return 0; /* the file's own error is said when the command loads it: one line */
    int rc = -1;
    for (size_t i = 0; i < r.n; i++)
        if (strcmp(r.rules[i].id, value) == 0) /* a rule the file turned off never fires: that gate could never trip */
            rc = r.rules[i].severity == TP_SEV_OFF ? -2 : 0;
    tp_find_rules_free(&r);
    return rc;
}

int tp_diff_finding_gate(const tp_diff_findings *f, const char *value, tp_buf *why)
{
    int sev = severity_of(value), tripped = 0;
    for (size_t i = 0; i < f->n; i++) {
        const tp_diff_finding *x = &f->rows[i];
        if (x->status != TP_DF_NEW && x->status != TP_DF_GREW)
            continue;
        if (sev >= 0 ? x->severity < sev : strcmp(x->id, value) != 0)
            continue;
        char a[32], b[32];
        tp_find_pct(a, sizeof a, x->impact_milli[0]);
        tp_find_pct(b, sizeof b, x->impact_milli[1]);
        if (x->status == TP_DF_NEW)
            tp_buf_printf(why, "finding %s (%s) is new: %s%s of %s, over --fail-on-finding %s\n", x->id,
                          tp_find_severity_name(x->severity), x->risk ? "a memory risk, " : "", b, x->impact_base,
                          value);
        else
            tp_buf_printf(why, "finding %s (%s) grew from %s to %s of %s%s, over --fail-on-finding %s\n", x->id,
                          tp_find_severity_name(x->severity), a, b, x->impact_base, x->risk ? " (a memory risk)" : "",
                          value);
        tripped++;
    }
    return tripped;
}
