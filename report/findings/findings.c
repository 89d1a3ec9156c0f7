/* findings.c: the finding rules (parsed from findings.rules and --rules
 * FILE), the measures evaluated once each and the rules applied over them,
 * ranked (findings.h). */
#include "report/findings/findings.h"
#include "convert/base/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char tp_find_rules_builtin[];

const char *tp_find_severity_name(uint8_t sev)
{
    return sev == TP_SEV_OFF ? "off" : sev == TP_SEV_HIGH ? "high" : sev == TP_SEV_MEDIUM ? "medium" : "low";
}

bool tp_find_measure_known(const char *name, size_t len)
{
    for (size_t i = 0; i < tp_measure_count; i++)
        if (strlen(tp_measure_catalogue[i].name) == len && memcmp(tp_measure_catalogue[i].name, name, len) == 0)
            return true;
    return false;
}

int64_t tp_find_milli(int64_t part, int64_t whole)
{
    if (whole <= 0 || part <= 0)
        return 0;
    __int128 v = (__int128)part * 100000 / whole;
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

void tp_find_pct(char *buf, size_t n, int64_t milli)
{
    int64_t t = (milli + 50) / 100;
    snprintf(buf, n, "%lld.%lld%%", (long long)(t / 10), (long long)(t % 10));
}

void tp_measure_evidence(tp_measure *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[600];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    m->evidence = tp_xrealloc(m->evidence, (m->nevidence + 1) * sizeof *m->evidence);
    m->evidence[m->nevidence++] = tp_xstrdup(buf);
}

/* A field of a rule line: [p, e) trimmed; *next after the '|' (or e). */
static void field(const char *p, const char *e, const char **fs, const char **fe, const char **next)
{
    const char *bar = memchr(p, '|', (size_t)(e - p));
    const char *end = bar ? bar : e;
    *next = bar ? bar + 1 : e;
    p = tp_skip_blanks(p, end);
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *fs = p;
    *fe = end;
}

/* "15%", "2.5%": thousandths of a percent, at most 100%. */
static int parse_threshold(const char *p, const char *e, int64_t *out)
{
    if (e - p < 2 || e[-1] != '%')
        return -1;
    e--;
    int64_t whole = 0, frac = 0;
    int nd = 0, nf = -1;
    for (; p < e; p++) {
        if (*p == '.' && nf < 0) {
            nf = 0;
            continue;
        }
        if (*p < '0' || *p > '9')
            return -1;
        if (nf >= 0) {
            if (++nf > 3)
                return -1;
            frac = frac * 10 + (*p - '0');
        } else {
            if (++nd > 3)
                return -1;
            whole = whole * 10 + (*p - '0');
        }
    }
    if (nd == 0 || nf == 0)
        return -1;
    for (int k = nf < 0 ? 0 : nf; k < 3; k++)
        frac *= 10;
    *out = whole * 1000 + frac;
    return *out > 100000 ? -1 : 0;
}

/* A bidirectional control (U+200E/F, U+202A-202E, U+2066-2069) starting at c: the outputs write
 * one as a space, so a title framed by them would read "** Title **", bold no more, in summary.md. */
static bool bidi_at(const char *c, const char *e)
{
    const unsigned char *u = (const unsigned char *)c;
    if (e - c < 3 || u[0] != 0xE2)
        return false;
    return (u[1] == 0x80 && (u[2] == 0x8E || u[2] == 0x8F || (u[2] >= 0xAA && u[2] <= 0xAE))) ||
           (u[1] == 0x81 && u[2] >= 0xA6 && u[2] <= 0xA9);
}

static void rule_free(tp_find_rule *r)
{
    free(r->id);
    free(r->measure);
    free(r->title);
    free(r->next);
}

int tp_find_rules_parse(tp_find_rules *r, const char *text, size_t len, bool user,
                        bool (*known)(const char *name, size_t len), char *err, size_t errn)
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
        size_t off = (size_t)(ls - text);
        for (const char *c = a; c < le; c++)
            if (((unsigned char)*c < 0x20 && *c != '\t') || bidi_at(c, le)) {
                snprintf(err, errn, "offset %zu: line %zu: a control character in a rule", off, line);
                return -1;
            }
        const char *fs[6], *fe[6], *q = a;
        int nf = 0;
        while (nf < 6 && q < le) {
            field(q, le, &fs[nf], &fe[nf], &q);
            nf++;
        }
        if (nf < 6 || q < le || memchr(fs[5], '|', (size_t)(fe[5] - fs[5]))) {
            snprintf(err, errn,
                     "offset %zu: line %zu: want ID | MEASURE | THRESHOLD%% | SEVERITY | TITLE | NEXT STEP (six fields)",
                     off, line);
            return -1;
        }
        size_t il = (size_t)(fe[0] - fs[0]);
        bool idok = il > 0 && il <= 40;
        for (const char *c = fs[0]; idok && c < fe[0]; c++)
            idok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
        if (!idok) {
            snprintf(err, errn, "offset %zu: line %zu: an ID is 1 to 40 of a-z, 0-9 and _", off, line);
            return -1;
        }
        if (!known(fs[1], (size_t)(fe[1] - fs[1]))) {
            snprintf(err, errn, "offset %zu: line %zu: \"%.*s\" is no measure (docs/REPORT.md \"Findings\")", off,
                     line, (int)(fe[1] - fs[1] > 40 ? 40 : fe[1] - fs[1]), fs[1]);
            return -1;
        }
        int64_t thr;
        if (parse_threshold(fs[2], fe[2], &thr) < 0) {
            snprintf(err, errn, "offset %zu: line %zu: a threshold is a share such as 15%% or 2.5%% (at most 100%%)",
                     off, line);
            return -1;
        }
        size_t sl = (size_t)(fe[3] - fs[3]);
        uint8_t sev;
        if (sl == 4 && memcmp(fs[3], "high", 4) == 0)
            sev = TP_SEV_HIGH;
        else if (sl == 6 && memcmp(fs[3], "medium", 6) == 0)
            sev = TP_SEV_MEDIUM;
        else if (sl == 3 && memcmp(fs[3], "low", 3) == 0)
            sev = TP_SEV_LOW;
        else if (sl == 3 && memcmp(fs[3], "off", 3) == 0)
            sev = TP_SEV_OFF; /* a built-in rule switched off by a file */
        else {
            snprintf(err, errn, "offset %zu: line %zu: a severity is high, medium, low or off", off, line);
            return -1;
        }
        if (fe[4] == fs[4] || fe[5] == fs[5] || fe[4] - fs[4] > 200 || fe[5] - fs[5] > 400) {
            snprintf(err, errn, "offset %zu: line %zu: a title (up to 200 bytes) and a next step (up to 400) are needed",
                     off, line);
            return -1;
        }
        tp_find_rule nr = {tp_xstrndup(fs[0], il), tp_xstrndup(fs[1], (size_t)(fe[1] - fs[1])), thr, sev,
                           tp_xstrndup(fs[4], (size_t)(fe[4] - fs[4])), tp_xstrndup(fs[5], (size_t)(fe[5] - fs[5])),
                           user};
        if (r->n >= TP_FIND_MAX_RULES) { /* each new rule is compared with those before it: R^2 / 2 compares */
            snprintf(err, errn, "offset %zu: line %zu: more than %d rules", off, line, TP_FIND_MAX_RULES);
            rule_free(&nr);
            return -1;
        }
        size_t at = r->n;
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->rules[i].id, nr.id) == 0)
                at = i;
        if (at < r->n && r->rules[at].user == user) {
            snprintf(err, errn, "offset %zu: line %zu: rule %s given twice", off, line, nr.id);
            rule_free(&nr);
            return -1;
        }
        if (at < r->n) { /* a file's rule replaces the built-in one in its place */
            rule_free(&r->rules[at]);
            r->rules[at] = nr;
        } else {
            TP_GROW(r->rules, r->cap, r->n + 1);
            r->rules[r->n++] = nr;
        }
    }
    return 0;
}

int tp_find_rules_load(tp_find_rules *r, const char *user_file, char *err, size_t errn)
{
    return tp_find_rules_load_known(r, user_file, tp_find_measure_known, err, errn);
}

int tp_find_rules_load_known(tp_find_rules *r, const char *user_file, bool (*known)(const char *name, size_t len),
                             char *err, size_t errn)
{
    memset(r, 0, sizeof *r);
    char ierr[256];
    if (tp_find_rules_parse(r, tp_find_rules_builtin, strlen(tp_find_rules_builtin), false, tp_find_measure_known, ierr,
                            sizeof ierr)) {
        fprintf(stderr, "tracepress: built-in finding rules: %s\n", ierr); /* a build error, caught by the tests */
        abort();
    }
    if (user_file) {
        tp_buf b = {0};
        /* 1 MiB: a rule is a line of a few hundred bytes; thousands of rules are already far more than a reader reads */
        int rc = tp_read_small_file(user_file, 1u << 20, "a rule table", &b, err, errn);
        if (rc == 0)
            rc = tp_find_rules_parse(r, b.data ? b.data : "", b.len, true, known, err, errn);
        tp_buf_free(&b);
        if (rc) {
            tp_find_rules_free(r);
            return -1;
        }
    }
    return 0;
}

int tp_find_rules_for_command(const char *file, tp_find_rules *r)
{
    return tp_find_rules_for_command_known(file, tp_find_measure_known, r);
}

int tp_find_rules_for_command_known(const char *file, bool (*known)(const char *name, size_t len), tp_find_rules *r)
{
    tp_err e = {0};
    if (tp_find_rules_load_known(r, file, known, e.msg, sizeof e.msg) == 0)
        return 0;
    tp_report_error(file, &e);
    return TP_EXIT_INPUT;
}

void tp_find_rules_free(tp_find_rules *r)
{
    for (size_t i = 0; i < r->n; i++)
        rule_free(&r->rules[i]);
    free(r->rules);
    memset(r, 0, sizeof *r);
}

static int finding_cmp(const void *a, const void *b)
{
    const tp_finding *x = a, *y = b;
    if (x->m->impact_ns != y->m->impact_ns)
        return x->m->impact_ns > y->m->impact_ns ? -1 : 1;
    return strcmp(x->rule->id, y->rule->id); /* ids are unique: a total order */
}

int tp_find_change(bool fired_base, int64_t milli_base, bool fired_cand, int64_t milli_cand)
{
    int64_t d = milli_cand - milli_base, noise = milli_base / 10;
    noise = noise > TP_FIND_NOISE_MILLI ? noise : TP_FIND_NOISE_MILLI;
    return fired_base && !fired_cand   ? TP_FIND_GONE
           : !fired_base && fired_cand ? TP_FIND_NEW
           : !fired_base               ? TP_FIND_SAME
           : d > noise                 ? TP_FIND_GREW
           : -d > noise                ? TP_FIND_SHRANK
                                       : TP_FIND_SAME;
}

const char *tp_find_change_name(int status)
{
    static const char *const n[] = {"new", "grew", "gone", "shrank", "same"};
    return status >= 0 && status <= TP_FIND_SAME ? n[status] : "same";
}

/* The rank classes, in order: the findings that name a cause and its time;
 * the critical path's view of the same time (it says that the host or the
 * launches set the steps' time, not which host work or why: a stall, a
 * host-bound gap, exposed copies are what a reader acts on, and their bounds
 * are tighter); the memory risks (no time). */
static int rank_class(const tp_finding *x) { return x->m->risk ? 2 : x->m->corroborates ? 1 : 0; }

/* Stable: the impact order holds within each class.  A corroborating finding
 * names the causes ranked before it; alone, it leads. */
static void rank_by_class(tp_findings *f)
{
    tp_buf ids = {0};
    for (size_t i = 0; i < f->n; i++)
        if (rank_class(&f->items[i]) == 0)
            tp_buf_printf(&ids, "%s%s", ids.len ? ", " : "", f->items[i].rule->id);
    tp_finding *sorted = tp_xcalloc(f->n + 1, sizeof *sorted);
    size_t k = 0;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < f->n; i++)
            if (rank_class(&f->items[i]) == c)
                sorted[k++] = f->items[i];
    for (size_t i = 0; i < f->n; i++) {
        f->items[i] = sorted[i];
        if (ids.len && rank_class(&sorted[i]) == 1)
            tp_measure_evidence(&f->measures[sorted[i].m - f->measures],
                                "ranked after %s, which name%s the causes on the path", ids.data,
                                strchr(ids.data, ',') ? "" : "s");
    }
    free(sorted);
    tp_buf_free(&ids);
}

/* A rule that holds in some steps on its own is a finding there even when the
 * whole trace dilutes it under the threshold (a stall in one step of ten):
 * its scope names those steps (tp_findings_scope); its impact is the part of
 * those steps (steps_impact) and must reach the noise level of the whole
 * trace's base. */
static bool holds_in_a_step(const tp_measure *m, const tp_find_rule *r)
{
    for (size_t i = 0; m->nsteps >= 2 && !m->steps_scope_only && i < m->nsteps; i++)
        if (tp_find_step_holds(m, r, i))
            return true;
    return false;
}

static bool fires_on_whole(const tp_measure *m, const tp_find_rule *r)
{
    return m->whole > 0 && m->value_milli >= r->threshold_milli;
}

/* A measure whose rules fire only in some steps (none on the whole trace):
 * its impact narrowed to the part of the steps where the lowest of those
 * thresholds holds (the per-step measures' impact is their part, find_steps.c;
 * a higher threshold holds in a subset, so this bounds each rule's).  The
 * idle the other steps keep under the threshold is no finding's: counting it
 * made a slow warm-up step of an otherwise quiet trace a finding with the
 * whole trace's idle as its impact (30 steps at 9.1% host wait, step 0 at
 * 16.5%: host_bound "in step 0", 25.040 ms, of which step 0 held 1.680 ms). */
static void steps_impact(tp_findings *f, const tp_find_rules *r)
{
    for (size_t k = 0; k < f->nmeasures; k++) {
        tp_measure *m = &f->measures[k];
        if (!m->available || !m->step_part || m->steps_scope_only)
            continue;
        const tp_find_rule *low = NULL;
        bool whole = false;
        for (size_t i = 0; i < r->n; i++) {
            const tp_find_rule *ru = &r->rules[i];
            if (ru->severity == TP_SEV_OFF || strcmp(ru->measure, m->name) != 0)
                continue;
            whole |= fires_on_whole(m, ru);
            if (holds_in_a_step(m, ru) && (!low || ru->threshold_milli < low->threshold_milli))
                low = ru;
        }
        if (whole || !low)
            continue;
        int64_t part = 0;
        for (size_t i = 0; i < m->nsteps; i++)
            if (tp_find_step_holds(m, low, i))
                part += m->step_part[i];
        if (part < m->impact_ns) {
            m->impact_ns = part;
            m->impact_milli = tp_find_milli(m->impact_ns, m->impact_base_ns);
        }
    }
}

void tp_findings_apply(tp_findings *f, const tp_find_rules *r)
{
    steps_impact(f, r);
    f->nrules = 0; /* the rules of this table's measures: a job's --rules file also holds a trace's */
    f->items = tp_xcalloc(r->n + 1, sizeof *f->items);
    f->unsure = tp_xcalloc(r->n + 1, sizeof *f->unsure);
    f->unsure_m = tp_xcalloc(r->n + 1, sizeof *f->unsure_m);
    for (size_t i = 0; i < r->n; i++) {
        const tp_find_rule *ru = &r->rules[i];
        const tp_measure *m = NULL;
        for (size_t k = 0; k < f->nmeasures; k++)
            if (strcmp(ru->measure, f->measures[k].name) == 0)
                m = &f->measures[k];
        if (!m || ru->severity == TP_SEV_OFF)
            continue; /* a measure of another table (a job's rules beside a trace's in one file), or switched off */
        f->nrules++;
        if (!m->available) {
            f->unsure[f->nunsure] = ru;
            f->unsure_m[f->nunsure++] = m;
        } else if ((m->risk || m->impact_milli >= TP_FIND_NOISE_MILLI) &&
                   (fires_on_whole(m, ru) || (!m->risk && holds_in_a_step(m, ru))))
        {
            f->items[f->n] = (tp_finding){.rule = ru, .m = m};
            snprintf(f->items[f->n++].scope, sizeof f->items[0].scope, "%s", m->scope); /* tp_findings_scope refines it */
        }
    }
    qsort(f->items, f->n, sizeof *f->items, finding_cmp);
    rank_by_class(f);
}

/* With several devices the GPU time model's whole-trace figures are summed over them (docs/REPORT.md
 * "GPU time model"): an impact of 801 ms in a 165 ms trace of 8 GPUs reads wrong unless its base says so. */
static void devices_base(const tp_summary *s, tp_measure *m)
{
    if (s->gt.ndevices < 2)
        return;
    bool base = m->base && strcmp(m->base, "the GPU span") == 0,
         impact = m->impact_base && strcmp(m->impact_base, "the GPU span") == 0;
    if (!base && !impact)
        return;
    snprintf(m->span_of_devices, sizeof m->span_of_devices, "the GPU span summed over %zu devices", s->gt.ndevices);
    if (base)
        m->base = m->span_of_devices;
    if (impact)
        m->impact_base = m->span_of_devices;
}

void tp_findings_build(const tp_summary *s, const tp_find_rules *r, tp_findings *f)
{
    memset(f, 0, sizeof *f);
    tp_find_rules own = {0};
    if (!r) { /* the built-in table: parsed for this call (a few microseconds) */
        char err[256];
        tp_find_rules_load(&own, NULL, err, sizeof err);
        r = &own;
    }
    f->nmeasures = tp_measure_count;
    f->measures = tp_xcalloc(tp_measure_count, sizeof *f->measures);
    bool *used = tp_xcalloc(tp_measure_count, sizeof *used);
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; k < tp_measure_count; k++)
            if (strcmp(r->rules[i].measure, tp_measure_catalogue[k].name) == 0)
                used[k] = true;
    tp_find_ctx *cx = tp_find_ctx_new();
    for (size_t k = 0; k < tp_measure_count; k++) { /* only the measures some rule reads */
        tp_measure *m = &f->measures[k];
        m->name = tp_measure_catalogue[k].name;
        m->pages[0] = tp_measure_catalogue[k].pages[0];
        m->pages[1] = tp_measure_catalogue[k].pages[1];
        m->available = true;
        snprintf(m->scope, sizeof m->scope, "whole trace");
        if (used[k])
            tp_measure_catalogue[k].compute(s, cx, m);
        m->value_milli = tp_find_milli(m->part, m->whole);
        m->impact_milli = tp_find_milli(m->impact_ns, m->impact_base_ns);
        devices_base(s, m);
    }
    free(used);
    tp_find_ctx_free(cx);
    tp_findings_apply(f, r);
    tp_findings_scope(s, f);
    tp_findings_adapt(f, s->t, s->sf.nsteps > 0);
    if (r == &own) { /* hand the parsed table over to the findings */
        f->own_rules = tp_xmalloc(sizeof *f->own_rules);
        *f->own_rules = own;
    }
}

void tp_findings_free(tp_findings *f)
{
    for (size_t k = 0; k < f->nmeasures; k++) {
        tp_measure *m = &f->measures[k];
        for (size_t i = 0; i < m->nevidence; i++)
            free(m->evidence[i]);
        free(m->evidence);
        free(m->confidence);
        free(m->step_part);
        free(m->step_whole);
    }
    for (size_t i = 0; i < f->n; i++)
        free(f->items[i].steps);
    free(f->measures);
    free(f->items);
    free(f->unsure);
    free(f->unsure_m);
    free(f->adapted);
    if (f->own_rules) {
        tp_find_rules_free(f->own_rules);
        free(f->own_rules);
    }
    memset(f, 0, sizeof *f);
}
