/* find_steps.c: the findings per step (docs/REPORT.md "Findings", *Scope*):
 * the device idle gaps clipped to the step windows, each finding's scope
 * (the steps where its rule holds on its own) with the median impact per
 * step, and what differs in an outlier step against the median step. */
#include "report/findings/findings.h"
#include "convert/base/common.h"
#include "convert/base/i64map.h"
#include "render/labels/kname.h"
#include "render/text/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCOPE_LISTED 5 /* step labels named in a scope; the count says how many in all */

static int win_cmp(const void *a, const void *b)
{
    const tp_find_win *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

void tp_find_wins_build(const tp_summary *s, tp_find_wins *w)
{
    memset(w, 0, sizeof *w);
    const tp_step_figures *sf = &s->sf;
    if (!sf->nsteps)
        return;
    w->w = tp_xcalloc(sf->nsteps, sizeof *w->w);
    for (size_t i = 0; i < sf->nsteps; i++) {
        const tp_step_row *r = &sf->steps[i];
        if (r->host_ns <= 0)
            continue;
        w->w[w->n++] = (tp_find_win){tp_step_device(s->t, r), r->ts, r->ts + r->host_ns, (uint32_t)i};
    }
    if (w->n)
        qsort(w->w, w->n, sizeof *w->w, win_cmp);
    /* disjoint in start order within a device (or the host's steps), as the GPU time model's windows */
    for (size_t i = 1; i < w->n; i++)
        if (w->w[i].proc == w->w[i - 1].proc && w->w[i].s < w->w[i - 1].e) {
            w->w[i].s = w->w[i - 1].e;
            if (w->w[i].e < w->w[i].s)
                w->w[i].e = w->w[i].s;
        }
}

void tp_find_wins_free(tp_find_wins *w)
{
    free(w->w);
    memset(w, 0, sizeof *w);
}

/* The first window of group proc ending after a: O(log steps). */
static size_t first_win(const tp_find_wins *w, uint32_t proc, int64_t a)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->w[mid].proc < proc || (w->w[mid].proc == proc && w->w[mid].e <= a))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool has_group(const tp_find_wins *w, uint32_t proc)
{
    size_t i = first_win(w, proc, INT64_MIN);
    return i < w->n && w->w[i].proc == proc;
}

void tp_find_wins_add(const tp_find_wins *w, uint32_t proc, int64_t a, int64_t b, const tp_find_data *dl, int cls,
                      int data_cls, int64_t *const *per)
{
    if (!w->n || b <= a)
        return;
    /* a device with steps of its own (XPlane) is split by them; else by the host's steps */
    uint32_t g = proc != TP_NONE && has_group(w, proc) ? proc : TP_NONE;
    for (size_t i = first_win(w, g, a); i < w->n && w->w[i].proc == g && w->w[i].s < b; i++) {
        int64_t x = w->w[i].s > a ? w->w[i].s : a, y = w->w[i].e < b ? w->w[i].e : b;
        if (y <= x)
            continue;
        int64_t data = dl && dl->n ? tp_find_overlap(dl->spans, dl->n, x, y) : 0;
        per[data_cls][w->w[i].step] += data;
        if (cls >= 0)
            per[cls][w->w[i].step] += (y - x) - data;
    }
}

bool tp_find_step_holds(const tp_measure *m, const tp_find_rule *r, size_t i)
{
    if (!m->step_part || i >= m->nsteps || m->step_whole[i] <= 0)
        return false;
    int64_t v = tp_find_milli(m->step_part[i], m->step_whole[i]);
    return v >= r->threshold_milli && v >= TP_FIND_NOISE_MILLI;
}

const char *tp_find_scope_shown(const tp_finding *x)
{
    return strcmp(x->scope, "whole trace") == 0 || strcmp(x->scope, "job") == 0 ? NULL : x->scope;
}

void tp_find_scope_phrase(const tp_finding *x, char *buf, size_t n)
{
    const char *sc = tp_find_scope_shown(x);
    if (!sc)
        buf[0] = 0;
    else if (strncmp(sc, "step", 4) == 0 || strncmp(sc, "every step", 10) == 0)
        snprintf(buf, n, " in %s", sc); /* "... idle in step 3", "... in steps 3, 7 (2 of 10)" */
    else
        snprintf(buf, n, " (%s)", sc);   /* "(rank 3)", "(3 of 40 steps)" */
}

bool tp_find_unsure_same(const tp_findings *f, size_t i, size_t j)
{
    return f->unsure_m[i] == f->unsure_m[j] || strcmp(f->unsure_m[i]->why, f->unsure_m[j]->why) == 0;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The lower median of v[0..n) (sorted in place): a value one of the steps had. */
static int64_t median_of(int64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, i64_cmp);
    return v[(n - 1) / 2];
}

void tp_find_steps_scope(const tp_summary *s, const size_t *idx, size_t n, size_t total, char *out, size_t outn)
{
    const tp_step_figures *sf = &s->sf;
    if (n == 0) {
        snprintf(out, outn, "whole trace");
        return;
    }
    if (n == total && n > 1) {
        snprintf(out, outn, "every step, %zu of %zu", n, total);
        return;
    }
    tp_buf b = {0};
    tp_buf_puts(&b, n == 1 ? "step " : "steps ");
    for (size_t k = 0; k < n && k < SCOPE_LISTED; k++) {
        char lab[64];
        tp_step_label(s->t, sf, &sf->steps[idx[k]], lab, sizeof lab);
        const char *num = lab[0] == '#' ? lab + 1 : lab, *dev = strchr(num, ' ');
        if (dev) /* a device's own step (XPlane: "#0 GPU:6"): "step 0 on GPU:6", a sentence's words */
            tp_buf_printf(&b, "%s%.*s on %s", k ? ", " : "", (int)(dev - num), num, dev + 1);
        else
            tp_buf_printf(&b, "%s%s", k ? ", " : "", num);
    }
    if (n > SCOPE_LISTED)
        tp_buf_puts(&b, ", ...");
    if (n > 1)
        tp_buf_printf(&b, " (%zu of %zu)", n, total);
    if (b.len >= outn) /* labels of device steps can be long: the count alone then */
        snprintf(out, outn, "%zu of %zu steps", n, total);
    else
        memcpy(out, b.data, b.len + 1);
    tp_buf_free(&b);
}

/* Whether every step of a is one of b's (both in step order). */
static bool steps_within(const tp_finding *a, const tp_finding *b)
{
    size_t j = 0;
    for (size_t i = 0; i < a->nsteps; i++) {
        while (j < b->nsteps && b->steps[j] < a->steps[i])
            j++;
        if (j == b->nsteps || b->steps[j] != a->steps[i])
            return false;
    }
    return true;
}

/* An outlier step is a symptom: when a finding that holds step by step (a
 * stall, exposed communication) holds in every outlier step, it is the cause
 * to look at first, so the step-variance finding goes after it and says so. */
static void explained_outliers(tp_findings *f)
{
    for (size_t p = 0; p < f->n; p++) {
        tp_finding *x = &f->items[p];
        if (!x->m->steps_scope_only || !x->nsteps)
            continue;
        size_t last = SIZE_MAX;
        tp_buf ids = {0};
        for (size_t q = 0; q < f->n; q++) {
            const tp_finding *y = &f->items[q];
            if (q == p || y->m->steps_scope_only || !y->nsteps || !steps_within(x, y))
                continue;
            tp_buf_printf(&ids, "%s%s", ids.len ? ", " : "", y->rule->id);
            last = q;
        }
        if (last != SIZE_MAX) {
            tp_measure *m = &f->measures[x->m - f->measures];
            tp_measure_evidence(m, "the outlier steps are steps where %s holds: that is what makes them longer",
                                ids.data);
            if (last > p) { /* after the last finding that explains it */
                tp_finding keep = *x;
                memmove(&f->items[p], &f->items[p + 1], (last - p) * sizeof *f->items);
                f->items[last] = keep;
                p--; /* the item now at p is another */
            }
        }
        tp_buf_free(&ids);
    }
}

void tp_findings_scope(const tp_summary *s, tp_findings *f)
{
    const tp_step_figures *sf = &s->sf;
    f->s_steps = sf;
    for (size_t i = 0; i < f->n; i++) {
        tp_finding *x = &f->items[i];
        const tp_measure *m = x->m;
        if (!m->step_part || m->nsteps != sf->nsteps || sf->nsteps < 2) {
            snprintf(x->scope, sizeof x->scope, "%s", m->scope);
            continue;
        }
        x->steps_total = sf->nsteps;
        x->steps = tp_xcalloc(sf->nsteps, sizeof *x->steps);
        int64_t *part = tp_xcalloc(sf->nsteps, sizeof *part), *share = tp_xcalloc(sf->nsteps, sizeof *share);
        for (size_t k = 0; k < sf->nsteps; k++)
            if (m->steps_scope_only ? m->step_part[k] > 0 : tp_find_step_holds(m, x->rule, k)) {
                part[x->nsteps] = m->step_part[k];
                share[x->nsteps] = tp_find_milli(m->step_part[k], sf->steps[k].host_ns);
                x->steps[x->nsteps++] = k;
            }
        x->step_impact_ns = median_of(part, x->nsteps);
        x->step_impact_milli = median_of(share, x->nsteps);
        free(part);
        free(share);
        tp_find_steps_scope(s, x->steps, x->nsteps, x->steps_total, x->scope, sizeof x->scope);
    }
    explained_outliers(f);
}

/* ---- what differs in an outlier step against the median step ---- */

enum { DIFF_TOP = 3, DIFF_NAMES = 8192 }; /* distinct names compared; more are left out of the evidence only */

typedef struct diff_tab {
    tp_i64map ix;
    tp_str name[DIFF_NAMES];
    int64_t ns[DIFF_NAMES][2]; /* [0] the outlier step, [1] the median step */
    uint64_t n[DIFF_NAMES][2];
    size_t k;
} diff_tab;

static void diff_add(diff_tab *d, tp_str name, int side, int64_t ns)
{
    uint32_t j = tp_i64map_get(&d->ix, name);
    if (j == TP_I64MAP_EMPTY && d->k < DIFF_NAMES) {
        j = (uint32_t)d->k++;
        d->name[j] = name;
        tp_i64map_put(&d->ix, name, j);
    }
    if (j != TP_I64MAP_EMPTY) {
        d->ns[j][side] += ns;
        d->n[j][side]++;
    }
}

/* "kernels with more time: K +1.200 ms (x3, median step x1), ..." */
static void diff_line(const tp_summary *s, diff_tab *d, const char *what, tp_measure *m)
{
    tp_buf b = {0};
    for (int r = 0; r < DIFF_TOP; r++) {
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < d->k; j++) {
            int64_t g = d->ns[j][0] - d->ns[j][1];
            if (g <= 0)
                continue;
            int64_t gb = best == SIZE_MAX ? 0 : d->ns[best][0] - d->ns[best][1];
            if (best == SIZE_MAX || g > gb ||
                (g == gb && strcmp(tp_str_get(s->t, d->name[j]), tp_str_get(s->t, d->name[best])) < 0))
                best = j;
        }
        if (best == SIZE_MAX)
            break;
        char x[48];
        tp_fmt_dur_delta(x, sizeof x, d->ns[best][0] - d->ns[best][1], " ");
        char *kn = tp_kname_cut(tp_str_get(s->t, d->name[best]), 60);
        tp_buf_printf(&b, "%s%s %s (x%llu, median step x%llu)", r ? ", " : "", kn, x,
                      (unsigned long long)d->n[best][0], (unsigned long long)d->n[best][1]);
        free(kn);
        d->ns[best][0] = d->ns[best][1]; /* taken */
    }
    if (b.len)
        tp_measure_evidence(m, "  %s with more time than in the median step: %s", what, b.data);
    tp_buf_free(&b);
}

void tp_find_step_diff(const tp_summary *s, size_t out, size_t median, tp_measure *m)
{
    const tp_trace *t = s->t;
    const tp_step_figures *sf = &s->sf;
    if (out >= sf->nsteps || median >= sf->nsteps || !sf->ev_step)
        return;
    diff_tab *kd = tp_xcalloc(1, sizeof *kd), *hd = tp_xcalloc(1, sizeof *hd);
    const tp_step_row *w[2] = {&sf->steps[out], &sf->steps[median]};
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->dur <= 0 || (e->flags & TP_EV_DROPPED))
            continue;
        if (tp_is_device_activity(e)) { /* the step that holds it, as the step figures count it */
            uint32_t st = sf->ev_step[i];
            if (st == out || st == median)
                diff_add(kd, e->name, st == out ? 0 : 1, e->dur);
        } else if (s->ht.top && s->ht.top[i] == i && t->tracks[e->track].role == TP_TRACK_HOST) {
            for (int k = 0; k < 2; k++) /* a top-level op starting in the step's window */
                if (e->ts >= w[k]->ts && e->ts < w[k]->ts + w[k]->host_ns)
                    diff_add(hd, e->name, k, e->dur);
        }
    }
    diff_line(s, kd, "device activities", m);
    diff_line(s, hd, "top-level host ops", m);
    tp_i64map_free(&kd->ix);
    tp_i64map_free(&hd->ix);
    free(kd);
    free(hd);
}
