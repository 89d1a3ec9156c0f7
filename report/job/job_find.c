/* job_find.c: the job's findings (job.h, docs/REPORT.md "Jobs" and
 * "Findings"): the job's measures in code, its rules as data
 * (job_findings.rules, built in by job_rules_data.c, in the format of the
 * trace's rules), applied and ranked as the trace's findings are, into a
 * tp_findings the summary writers (report/out/find_out.h) print. */
#include "report/job/job.h"
#include "convert/model/clock_align.h"
#include "render/labels/kname.h"
#include "render/text/units.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char tp_job_rules_builtin[];

typedef void (*job_measure_fn)(const tp_job *j, tp_measure *m);

static void late_rank(const tp_job *j, tp_measure *m);
static void job_exposed(const tp_job *j, tp_measure *m);
static void computation_spread(const tp_job *j, tp_measure *m);

/* across: a measure of one rank against the others, which only the job
 * shows; job_exposed_communication sums what each rank's own report shows
 * (and each rank's top finding says), so the job's findings lead with the
 * others: each group ranked by impact, then id. */
static const struct {
    const char *name;
    job_measure_fn compute;
    bool across;
} catalogue[] = {
    {"late_rank", late_rank, true},
    {"job_exposed_communication", job_exposed, false},
    {"computation_spread", computation_spread, true},
};
enum { NMEASURES = sizeof catalogue / sizeof *catalogue };

static bool job_measure_known(const char *name, size_t len)
{
    for (size_t i = 0; i < NMEASURES; i++)
        if (strlen(catalogue[i].name) == len && memcmp(catalogue[i].name, name, len) == 0)
            return true;
    return false;
}

static void dur(char *b, size_t n, int64_t ns) { tp_fmt_dur(b, n, ns); }
static void pct(char *b, size_t n, int64_t part, int64_t whole) { tp_find_pct(b, n, tp_find_milli(part, whole)); }

static void unavailable(tp_measure *m, const char *why)
{
    m->available = false;
    snprintf(m->why, sizeof m->why, "%s", why);
}

/* ---- the late rank ---- */

/* The median of the other ranks' windows before their first collective in
 * step index k (-1 when none has one). */
static int64_t others_window(const tp_job *j, size_t k, size_t not_rank, int64_t *idle)
{
    int64_t *w = tp_xmalloc((j->nranks + 1) * sizeof *w), *d = tp_xmalloc((j->nranks + 1) * sizeof *d);
    size_t n = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        if (r == not_rank)
            continue;
        for (size_t i = 0; i < s->nbefore; i++) /* few steps a rank: a scan */
            if (s->before[i].number == j->steps[k].number) {
                w[n] = s->before[i].window_ns;
                d[n++] = s->before[i].idle_ns;
                break;
            }
    }
    int64_t med = -1;
    *idle = -1;
    if (n) { /* the lower middle value: no mean of two windows that no rank had */
        for (size_t a = 1; a < n; a++) /* insertion sort of at most the ranks, twice */
            for (size_t b = a; b > 0 && w[b] < w[b - 1]; b--) {
                int64_t t = w[b];
                w[b] = w[b - 1];
                w[b - 1] = t;
            }
        for (size_t a = 1; a < n; a++)
            for (size_t b = a; b > 0 && d[b] < d[b - 1]; b--) {
                int64_t t = d[b];
                d[b] = d[b - 1];
                d[b - 1] = t;
            }
        med = w[(n - 1) / 2];
        *idle = d[(n - 1) / 2];
    }
    free(w);
    free(d);
    return med;
}

/* The median over the other ranks of their time in `name` before their first
 * collective of step index k (its lower middle value; a rank without it in
 * its top items counts 0, as at most the smallest of them); -1 when no other
 * rank has the step.  ops: host ops, else kernels. */
static int64_t others_named(const tp_job *j, size_t k, size_t not_rank, const char *name, bool ops)
{
    int64_t *v = tp_xmalloc((j->nranks + 1) * sizeof *v);
    size_t n = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        if (r == not_rank)
            continue;
        for (size_t i = 0; i < s->nbefore; i++)
            if (s->before[i].number == j->steps[k].number) {
                const tp_rank_named *l = ops ? s->before[i].ops : s->before[i].kernels;
                v[n] = 0;
                for (int q = 0; q < TP_RANK_BEFORE_TOP && l[q].name; q++)
                    if (strcmp(l[q].name, name) == 0)
                        v[n] = l[q].ns;
                n++;
                break;
            }
    }
    for (size_t a = 1; a < n; a++) /* insertion sort of at most the ranks */
        for (size_t b = a; b > 0 && v[b] < v[b - 1]; b--) {
            int64_t t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    int64_t med = n ? v[(n - 1) / 2] : -1;
    free(v);
    return med;
}

/* "name 4.509 ms (others 509.437 us), ..." */
static void named_list(tp_buf *b, const tp_job *j, size_t k, size_t r, const tp_rank_named *v, bool ops)
{
    for (int q = 0; q < TP_RANK_BEFORE_TOP && v[q].name; q++) {
        char d[48], o[48];
        dur(d, sizeof d, v[q].ns);
        int64_t other = others_named(j, k, r, v[q].name, ops);
        char *cut = tp_kname_cut(v[q].name, 60);
        tp_buf_printf(b, "%s%s %s", q ? ", " : "", cut, d);
        if (other >= 0) {
            dur(o, sizeof o, other);
            tp_buf_printf(b, " (others %s)", o);
        }
        free(cut);
    }
    if (!v[0].name)
        tp_buf_puts(b, "none");
}

/* What rank index r did before its first collective of step index k. */
static void before_line(const tp_job *j, tp_measure *m, size_t r, size_t k, int64_t late)
{
    const tp_rank_sum *s = &j->ranks[r].sum;
    const tp_rank_before *x = NULL;
    for (size_t i = 0; i < s->nbefore; i++)
        if (s->before[i].number == j->steps[k].number)
            x = &s->before[i];
    char a[48], b2[48], c[48], d[48], e[48];
    dur(a, sizeof a, late);
    if (!x) {
        tp_measure_evidence(m, "step %lld: %s late; what it ran before is not in its rank summary (no collective "
                               "call in its step, or a summary without it)",
                            (long long)j->steps[k].number, a);
        return;
    }
    int64_t oidle, ow = others_window(j, k, r, &oidle);
    dur(b2, sizeof b2, x->window_ns);
    dur(c, sizeof c, ow);
    dur(d, sizeof d, x->idle_ns);
    dur(e, sizeof e, oidle);
    tp_buf t = {0};
    tp_buf_printf(&t, "step %lld: %s late; before its first collective it ran %s from the step's start (the other "
                      "ranks' median %s), GPU idle %s (others %s); kernels: ",
                  (long long)j->steps[k].number, a, b2, ow >= 0 ? c : "-", d, oidle >= 0 ? e : "-");
    named_list(&t, j, k, r, x->kernels, false);
    tp_buf_puts(&t, "; host ops: ");
    named_list(&t, j, k, r, x->ops, true);
    tp_measure_evidence(m, "%s", t.data);
    tp_buf_free(&t);
}

size_t tp_job_late_rank(const tp_job *j, int64_t *late_out, int64_t *wait_out)
{
    size_t best = SIZE_MAX;
    *late_out = *wait_out = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        int64_t late = 0, wait = 0;
        for (size_t i = j->rank_cells[r]; i < j->rank_cells[r + 1]; i++)
            if (j->cells[i].flags & TP_JOB_FLAG_ARRIVAL) {
                late = tp_sat_add(late, j->cells[i].late_ns);
                wait = tp_sat_add(wait, j->cells[i].wait_caused_ns);
            }
        if (late > *late_out) { /* ties: the lower rank */
            best = r;
            *late_out = late;
            *wait_out = wait;
        }
    }
    return best;
}

void tp_job_late_rank_worst(const tp_job *j, size_t r, size_t worst[2])
{
    worst[0] = worst[1] = SIZE_MAX;
    for (size_t i = j->rank_cells[r]; i < j->rank_cells[r + 1]; i++) {
        const tp_job_cell *c = &j->cells[i];
        if (!(c->flags & TP_JOB_FLAG_ARRIVAL))
            continue;
        if (worst[0] == SIZE_MAX || c->late_ns > j->cells[worst[0]].late_ns) {
            worst[1] = worst[0];
            worst[0] = i;
        } else if (worst[1] == SIZE_MAX || c->late_ns > j->cells[worst[1]].late_ns)
            worst[1] = i;
    }
}

/* What the straggler ran in the window it was late in (late_window.c): its
 * kernels, host ops and GPU idle there; false when not read. */
static bool late_line(const tp_job *j, tp_measure *m, size_t cell)
{
    const tp_rank_before *x = NULL;
    for (size_t i = 0; i < j->nlate; i++)
        if (j->late_cell[i] == cell)
            x = &j->late[i];
    if (!x)
        return false;
    const tp_job_cell *c = &j->cells[cell];
    const tp_rank_sum *s = &j->ranks[c->rank].sum;
    char a[48], w[48], d[48];
    dur(a, sizeof a, c->late_worst_ns);
    dur(w, sizeof w, x->window_ns);
    dur(d, sizeof d, x->idle_ns);
    tp_buf t = {0};
    tp_buf_printf(&t, "step %lld: %s late at its %s; in the %s it was late in (from %s to its own arrival) it ran: "
                      "kernels: ",
                  (long long)j->steps[c->step].number, a, c->late_coll < s->ncolls ? s->colls[c->late_coll].kind : "collective",
                  w, c->late_from_prev ? "the end of its previous collective" : "the other ranks' first arrival");
    for (int q = 0; q < TP_RANK_BEFORE_TOP && x->kernels[q].name; q++) {
        char k[48];
        char *cut = tp_kname_cut(x->kernels[q].name, 60);
        dur(k, sizeof k, x->kernels[q].ns);
        tp_buf_printf(&t, "%s%s %s", q ? ", " : "", cut, k);
        free(cut);
    }
    if (!x->kernels[0].name)
        tp_buf_puts(&t, "none");
    tp_buf_puts(&t, "; host ops: ");
    for (int q = 0; q < TP_RANK_BEFORE_TOP && x->ops[q].name; q++) {
        char k[48];
        char *cut = tp_kname_cut(x->ops[q].name, 60);
        dur(k, sizeof k, x->ops[q].ns);
        tp_buf_printf(&t, "%s%s %s", q ? ", " : "", cut, k);
        free(cut);
    }
    if (!x->ops[0].name)
        tp_buf_puts(&t, "none");
    tp_buf_printf(&t, "; GPU idle %s", d);
    tp_measure_evidence(m, "%s", t.data);
    tp_buf_free(&t);
    return true;
}

static void late_rank(const tp_job *j, tp_measure *m)
{
    m->base = "the steps' time (each step's median over the ranks, summed)";
    m->impact_base = "the steps' time";
    m->bound = "the other ranks' mean wait at the collectives this rank arrived last at, in the steps it was late in: "
               "arriving on time can at most give that back";
    if (j->nranks < 2) {
        unavailable(m, "one rank: no other rank to wait for it");
        return;
    }
    if (!j->nsteps) {
        unavailable(m, "no steps (ProfilerStep#N) recorded: lateness is measured per step");
        return;
    }
    if (!j->instances) {
        unavailable(m, "no collective call matched across ranks: who arrived last cannot be told");
        return;
    }
    for (size_t k = 0; k < j->nsteps; k++)
        if (j->steps[k].ranks)
            m->whole = tp_sat_add(m->whole, j->steps[k].median_step_ns);
    m->impact_base_ns = m->whole;
    int64_t best_late = 0, best_wait = 0;
    size_t best = tp_job_late_rank(j, &best_late, &best_wait);
    if (best == SIZE_MAX) {
        tp_measure_evidence(m, "no rank arrived last at collectives by more than its steps' wait threshold");
        return;
    }
    const tp_job_rank *x = &j->ranks[best];
    m->part = m->impact_ns = best_late;
    snprintf(m->scope, sizeof m->scope, "rank %lld", (long long)x->rank);
    size_t steps = 0, worst[2];
    uint64_t last = 0, inst = 0;
    tp_job_late_rank_worst(j, best, worst);
    for (size_t i = j->rank_cells[best]; i < j->rank_cells[best + 1]; i++) {
        const tp_job_cell *c = &j->cells[i];
        if (!(c->flags & TP_JOB_FLAG_ARRIVAL))
            continue;
        steps++;
        last += c->last_arrivals;
        inst += c->instances;
    }
    char a[48], b[48], p[32];
    dur(a, sizeof a, best_wait);
    dur(b, sizeof b, best_late);
    pct(p, sizeof p, best_late, m->whole);
    /* the first line says it all (summary.md shows it): who, how often, what it cost, what it ran */
    tp_buf t = {0};
    tp_buf_printf(&t, "rank %lld arrived last in %zu of %zu steps, each other rank waiting %s for it on average (%s of the "
                      "steps' time)",
                  (long long)x->rank, steps, j->nsteps, b, p);
    const tp_job_cell *wc = &j->cells[worst[0]];
    const tp_rank_before *bf = NULL;
    for (size_t i = 0; i < x->sum.nbefore; i++)
        if (x->sum.before[i].number == j->steps[wc->step].number)
            bf = &x->sum.before[i];
    const tp_rank_before *lw = NULL; /* the window it was late in, when its trace was read again */
    for (size_t i = 0; i < j->nlate; i++)
        if (j->late_cell[i] == worst[0])
            lw = &j->late[i];
    if (lw) {
        char c[48];
        dur(c, sizeof c, lw->window_ns);
        tp_buf_printf(&t, "; in step %lld, in the %s it was late in, it ran ", (long long)j->steps[wc->step].number, c);
        if (lw->kernels[0].name) {
            char *kn = tp_kname_cut(lw->kernels[0].name, 50);
            dur(c, sizeof c, lw->kernels[0].ns);
            tp_buf_printf(&t, "most %s %s", kn, c);
            free(kn);
        } else if (lw->ops[0].name) {
            char *kn = tp_kname_cut(lw->ops[0].name, 50);
            dur(c, sizeof c, lw->ops[0].ns);
            tp_buf_printf(&t, "no kernel, most the host op %s %s", kn, c);
            free(kn);
        } else {
            dur(c, sizeof c, lw->idle_ns);
            tp_buf_printf(&t, "no kernel and no host op (GPU idle %s)", c);
        }
    } else if (bf) {
        int64_t oidle, ow = others_window(j, wc->step, best, &oidle);
        char c[48], d[48];
        dur(c, sizeof c, bf->window_ns);
        dur(d, sizeof d, ow);
        tp_buf_printf(&t, "; in step %lld it ran %s before its first collective (others %s)",
                      (long long)j->steps[wc->step].number, c, ow >= 0 ? d : "-");
        if (bf->kernels[0].name) {
            char *kn = tp_kname_cut(bf->kernels[0].name, 50);
            dur(c, sizeof c, bf->kernels[0].ns);
            tp_buf_printf(&t, ", most in %s %s", kn, c);
            int64_t other = others_named(j, wc->step, best, bf->kernels[0].name, false);
            if (other >= 0) {
                dur(d, sizeof d, other);
                tp_buf_printf(&t, " (others %s)", d);
            }
            free(kn);
        }
    }
    tp_measure_evidence(m, "%s", t.data);
    /* partial evidence, said: clocks left as recorded (lateness read on unaligned clocks), or no record of
     * what the rank ran (a summary written without it) */
    size_t recorded = 0;
    for (size_t r = 1; r < j->nranks; r++)
        recorded += j->ranks[r].align_method == TP_ALIGN_RECORDED;
    t.len = 0;
    if (recorded)
        tp_buf_printf(&t, "%zu rank%s kept %s recorded clock (no collective in common with the others): who arrived "
                          "last is less certain there",
                      recorded, recorded == 1 ? "" : "s", recorded == 1 ? "its" : "their");
    if (!bf)
        tp_buf_printf(&t, "%swhat the late rank ran before its collectives is not in its rank summary", t.len ? "; " : "");
    if (j->late_unread)
        tp_buf_printf(&t, "%sits trace could not be read again for the window it was late in: the window before its "
                          "first collective instead", t.len ? "; " : "");
    char miss[400];
    if (tp_job_missing_ranks(j, miss, sizeof miss)) /* 2 of 128 ranks: it may itself have waited for an absent one */
        tp_buf_printf(&t, "%s%s", t.len ? "; " : "", miss);
    if (t.len)
        m->confidence = tp_xstrdup(t.data);
    tp_buf_free(&t);
    tp_measure_evidence(m, "it arrived last at %llu of its %llu collective instances in those steps; the others waited "
                           "%s for it in all",
                        (unsigned long long)last, (unsigned long long)inst, a);
    for (int w = 0; w < 2; w++) /* the window it was late in when its trace was read again, else before its first collective */
        if (worst[w] != SIZE_MAX && !late_line(j, m, worst[w]))
            before_line(j, m, best, j->cells[worst[w]].step, j->cells[worst[w]].late_ns);
}

/* ---- exposed communication across the job ---- */

static void job_exposed(const tp_job *j, tp_measure *m)
{
    m->base = "the ranks' GPU span (summed)";
    m->impact_base = "a rank's GPU span (the ranks' mean)";
    m->bound = "the ranks' mean exposed communication less their waiting for a late rank (the straggler's): hiding "
               "it behind computation can at most save that";
    int64_t exposed = 0, span = 0;
    size_t top[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    int64_t net_of[3] = {0};
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_job_rank *x = &j->ranks[r];
        int64_t net = x->exposed_communication_ns - x->waited_ns; /* the waiting is the straggler's finding */
        net = net > 0 ? net : 0;
        exposed = tp_sat_add(exposed, net);
        span = tp_sat_add(span, x->span_ns);
        for (int k = 0; k < 3; k++)
            if (top[k] == SIZE_MAX || net > net_of[k]) {
                for (int q = 2; q > k; q--) {
                    top[q] = top[q - 1];
                    net_of[q] = net_of[q - 1];
                }
                top[k] = r;
                net_of[k] = net;
                break;
            }
    }
    if (!span) {
        unavailable(m, "no GPU activity on any rank");
        return;
    }
    m->part = exposed;
    m->whole = span;
    m->impact_ns = exposed / (int64_t)j->nranks;
    m->impact_base_ns = span / (int64_t)j->nranks;
    char a[48], b[48], p[32];
    dur(a, sizeof a, m->impact_ns);
    dur(b, sizeof b, m->impact_base_ns);
    pct(p, sizeof p, exposed, span);
    tp_measure_evidence(m, "exposed communication, less the waiting for late ranks: %s of %s GPU span per rank on "
                           "average (%s over %zu ranks)",
                        a, b, p, j->nranks);
    tp_buf t = {0};
    for (int k = 0; k < 3 && top[k] != SIZE_MAX; k++) {
        const tp_job_rank *x = &j->ranks[top[k]];
        dur(a, sizeof a, net_of[k]);
        pct(p, sizeof p, net_of[k], x->span_ns);
        tp_buf_printf(&t, "%srank %lld %s (%s)", k ? ", " : "", (long long)x->rank, a, p);
    }
    tp_measure_evidence(m, "most exposed: %s", t.data ? t.data : "-");
    t.len = 0;
    for (size_t i = 0; i < j->ncolls && i < 3; i++) {
        const tp_job_coll *c = &j->colls[i];
        char sz[32];
        if (c->bytes)
            tp_fmt_bytes(sz, sizeof sz, c->bytes);
        else
            snprintf(sz, sizeof sz, "size unknown");
        dur(a, sizeof a, c->transfer_ns);
        char *kn = tp_kname_cut(c->kind, 40);
        tp_buf_printf(&t, "%s%s %s x %llu: transfer %s", i ? "; " : "", kn, sz, (unsigned long long)c->instances, a);
        free(kn);
        if (c->busbw > 0)
            tp_buf_printf(&t, " at %.1f GB/s bus bandwidth", c->busbw);
    }
    if (t.len)
        tp_measure_evidence(m, "collectives: %s", t.data);
    tp_buf_free(&t);
}

/* ---- computation spread ---- */

static void computation_spread(const tp_job *j, tp_measure *m)
{
    m->base = m->impact_base = "the most computing rank's GPU span";
    m->bound = "the most computing rank's computation beyond the ranks' mean: balancing the work at its mean can at "
               "most save that on it";
    if (j->nranks < 2) {
        unavailable(m, "one rank: nothing to compare");
        return;
    }
    size_t hi = 0, lo = 0;
    int64_t sum = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        int64_t c = j->ranks[r].computation_ns;
        sum = tp_sat_add(sum, c);
        if (c > j->ranks[hi].computation_ns)
            hi = r;
        if (c < j->ranks[lo].computation_ns)
            lo = r;
    }
    int64_t mean = sum / (int64_t)j->nranks, max = j->ranks[hi].computation_ns;
    m->part = m->impact_ns = max - mean;
    m->whole = m->impact_base_ns = j->ranks[hi].span_ns;
    snprintf(m->scope, sizeof m->scope, "rank %lld", (long long)j->ranks[hi].rank);
    char a[48], b[48], c[48], d[48];
    dur(a, sizeof a, j->ranks[lo].computation_ns);
    dur(b, sizeof b, mean);
    dur(c, sizeof c, max);
    dur(d, sizeof d, max - mean);
    tp_measure_evidence(m, "GPU computation per rank: least %s (rank %lld), mean %s, most %s (rank %lld): %s above the "
                           "mean",
                        a, (long long)j->ranks[lo].rank, b, c, (long long)j->ranks[hi].rank, d);
}

/* ---- the rules applied ---- */

static bool across(const tp_measure *m)
{
    for (size_t k = 0; k < NMEASURES; k++)
        if (strcmp(catalogue[k].name, m->name) == 0)
            return catalogue[k].across;
    return false;
}

static int cmp_job_finding(const void *pa, const void *pb)
{
    const tp_finding *x = pa, *y = pb;
    bool ax = across(x->m), ay = across(y->m);
    if (ax != ay)
        return ax ? -1 : 1;
    if (x->m->impact_ns != y->m->impact_ns)
        return x->m->impact_ns > y->m->impact_ns ? -1 : 1;
    return strcmp(x->rule->id, y->rule->id);
}

bool tp_job_finding_id_known(const char *id)
{
    tp_find_rules r = {0};
    char err[256];
    bool known = false;
    if (tp_find_rules_parse(&r, tp_job_rules_builtin, strlen(tp_job_rules_builtin), false, job_measure_known, err,
                            sizeof err) == 0)
        for (size_t i = 0; i < r.n && !known; i++)
            known = strcmp(r.rules[i].id, id) == 0;
    tp_find_rules_free(&r);
    return known;
}

static bool any_measure_known(const char *name, size_t len)
{
    return job_measure_known(name, len) || tp_find_measure_known(name, len);
}

int tp_job_rules_for_command(const char *file, tp_find_rules *r)
{
    return tp_find_rules_for_command_known(file, any_measure_known, r);
}

/* The file's rules of the job's measures into the job's table: one with a
 * built-in id replaces it in place, a new id is added (as a trace's). */
static void merge_user(tp_find_rules *own, const tp_find_rules *user)
{
    for (size_t i = 0; user && i < user->n; i++) {
        const tp_find_rule *u = &user->rules[i];
        if (!u->user || !job_measure_known(u->measure, strlen(u->measure)))
            continue;
        tp_find_rule c = {tp_xstrdup(u->id), tp_xstrdup(u->measure), u->threshold_milli, u->severity,
                          tp_xstrdup(u->title), tp_xstrdup(u->next), true};
        size_t at = own->n;
        for (size_t k = 0; k < own->n; k++)
            if (strcmp(own->rules[k].id, c.id) == 0)
                at = k;
        if (at < own->n) {
            tp_find_rule *o = &own->rules[at];
            free(o->id), free(o->measure), free(o->title), free(o->next);
            *o = c;
        } else {
            TP_GROW(own->rules, own->cap, own->n + 1);
            own->rules[own->n++] = c;
        }
    }
}

void tp_job_findings_use(tp_job *j, const tp_find_rules *user)
{
    if (!user)
        return;
    tp_findings_free(&j->findings);
    tp_job_findings_build_with(j, user, &j->findings);
}

void tp_job_findings_build(const tp_job *j, tp_findings *f) { tp_job_findings_build_with(j, NULL, f); }

void tp_job_findings_build_with(const tp_job *j, const tp_find_rules *user, tp_findings *f)
{
    memset(f, 0, sizeof *f);
    f->own_rules = tp_xcalloc(1, sizeof *f->own_rules);
    char err[256];
    if (tp_find_rules_parse(f->own_rules, tp_job_rules_builtin, strlen(tp_job_rules_builtin), false, job_measure_known,
                            err, sizeof err)) {
        fprintf(stderr, "tracepress: built-in job finding rules: %s\n", err); /* a build error, caught by the tests */
        abort();
    }
    merge_user(f->own_rules, user);
    const tp_find_rules *r = f->own_rules;
    f->nmeasures = NMEASURES;
    f->measures = tp_xcalloc(NMEASURES, sizeof *f->measures);
    for (size_t k = 0; k < NMEASURES; k++) {
        tp_measure *m = &f->measures[k];
        m->name = catalogue[k].name;
        m->available = true;
        snprintf(m->scope, sizeof m->scope, "job");
        catalogue[k].compute(j, m);
        m->value_milli = tp_find_milli(m->part, m->whole);
        m->impact_milli = tp_find_milli(m->impact_ns, m->impact_base_ns);
    }
    tp_findings_apply(f, r);
    qsort(f->items, f->n, sizeof *f->items, cmp_job_finding);
    f->subject = "job";
}
