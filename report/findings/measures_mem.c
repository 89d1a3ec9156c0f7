/* measures_mem.c: the memory measures of the findings (docs/REPORT.md
 * "Findings", "Memory"), read from the memory model (report/memory/).  They
 * are risks, not time (tp_measure.risk): a rule fires on the value alone,
 * and they rank after the findings that cost time.  A trace without memory
 * events has nothing to measure (whole 0, silent: the memory member and
 * `stats` say once that there are none). */
#include "report/findings/findings.h"

#include <stdio.h>

static void bytes(char *b, size_t n, int64_t v) { tp_mem_bytes(b, n, v); }

static void risk(tp_measure *m, const char *base)
{
    m->risk = true;
    m->base = base;
    m->impact_base = "no time (a memory risk)";
    m->bound = "a risk of running out of memory, not time";
}

/* Peak reserved against the device's memory (deviceProperties totalGlobalMem): the device the
 * closest to its capacity. */
void tp_measure_memory_near_capacity(const tp_summary *s, tp_find_ctx *c, tp_measure *m)
{
    (void)c;
    risk(m, "the device's memory (capacity)");
    const tp_memory *mem = &s->mem;
    const tp_mem_device *best = NULL;
    bool levels = false;
    for (size_t j = 0; j < mem->ndev; j++) {
        const tp_mem_device *d = &mem->dev[j];
        if (!d->events || d->type == 0) /* the host's memory is not the allocator's to run out of */
            continue;
        levels = true;
        if (d->capacity > 0 && (!best || tp_find_milli(d->peak_reserved, d->capacity) >
                                             tp_find_milli(best->peak_reserved, best->capacity)))
            best = d;
    }
    if (levels && !best) {
        m->available = false;
        snprintf(m->why, sizeof m->why, "the trace does not give the device's memory size (deviceProperties "
                                        "totalGlobalMem)");
        return;
    }
    if (!best)
        return;
    m->part = best->peak_reserved;
    m->whole = best->capacity;
    char a[48], b[48], d[48];
    bytes(a, sizeof a, best->peak_reserved);
    bytes(b, sizeof b, best->capacity);
    bytes(d, sizeof d, best->peak_allocated);
    tp_measure_evidence(m, "%s: peak reserved %s of %s; peak allocated %s%s", best->label, a, b, d,
                        best->peak_allocated_step >= 0 ? "" : " (outside the steps)");
    if (best->nholders) {
        bytes(a, sizeof a, best->holders[0].bytes);
        tp_measure_evidence(m, "the largest holder at the peak: %s, %s",
                            best->holders[0].op ? tp_str_get(s->t, best->holders[0].op) : "(no op)", a);
    }
}

/* Reserved memory never allocated at once: (peak reserved - peak allocated) of the peak reserved. */
void tp_measure_memory_fragmentation(const tp_summary *s, tp_find_ctx *c, tp_measure *m)
{
    (void)c;
    risk(m, "the peak reserved");
    const tp_mem_device *best = NULL;
    for (size_t j = 0; j < s->mem.ndev; j++) {
        const tp_mem_device *d = &s->mem.dev[j];
        if (!d->events || d->type == 0 || d->peak_reserved <= 0)
            continue;
        if (!best || tp_find_milli(d->peak_reserved - d->peak_allocated, d->peak_reserved) >
                         tp_find_milli(best->peak_reserved - best->peak_allocated, best->peak_reserved))
            best = d;
    }
    if (!best)
        return;
    m->part = best->peak_reserved > best->peak_allocated ? best->peak_reserved - best->peak_allocated : 0;
    m->whole = best->peak_reserved;
    char a[48], b[48], d[48];
    bytes(a, sizeof a, best->peak_reserved);
    bytes(b, sizeof b, best->peak_allocated);
    bytes(d, sizeof d, m->part);
    tp_measure_evidence(m, "%s: peak reserved %s, peak allocated %s: %s reserved and never allocated at once",
                        best->label, a, b, d);
}

/* Steps whose end-of-step level is above the one before, of the step transitions (4 steps at least). */
void tp_measure_memory_growth(const tp_summary *s, tp_find_ctx *c, tp_measure *m)
{
    (void)c;
    risk(m, "the step transitions (step to next step)");
    const tp_mem_device *best = NULL;
    int64_t best_up = -1;
    bool levels = false;
    for (size_t j = 0; j < s->mem.ndev; j++) {
        const tp_mem_device *d = &s->mem.dev[j];
        if (!d->events || d->type == 0)
            continue;
        levels = true;
        if (d->nsteps < 4)
            continue;
        int64_t up = 0;
        for (size_t k = 1; k < d->nsteps; k++)
            up += d->steps[k].end > d->steps[k - 1].end;
        if (up > best_up && d->steps[d->nsteps - 1].end > d->steps[0].end) {
            best = d;
            best_up = up;
        }
    }
    if (levels && s->sf.nsteps < 4) {
        m->available = false;
        snprintf(m->why, sizeof m->why, "fewer than 4 steps: growth across steps cannot be told from warm-up");
        return;
    }
    if (!best)
        return;
    m->part = best_up;
    m->whole = (int64_t)best->nsteps - 1;
    const tp_mem_step *f = &best->steps[0], *l = &best->steps[best->nsteps - 1];
    char a[48], b[48], d[48];
    bytes(a, sizeof a, f->end);
    bytes(b, sizeof b, l->end);
    bytes(d, sizeof d, (l->end - f->end) / (int64_t)(best->nsteps - 1)); /* exact below */
    int64_t per = (l->end - f->end) / (int64_t)(best->nsteps - 1);
    tp_measure_evidence(m, "%s: %lld of %lld steps end above the step before; step %lld ends at %s (%lld B), step "
                           "%lld at %s (%lld B): %s (%lld B) a step on average",
                        best->label, (long long)best_up, (long long)(best->nsteps - 1), (long long)f->step, a,
                        (long long)f->end, (long long)l->step, b, (long long)l->end, d, (long long)per);
    if (best->nholders) {
        /* what holds the most at the peak and was allocated in more steps than one: the likely keeper */
        for (size_t i = 0; i < best->nholders && i < 5; i++)
            if (best->holders[i].allocations >= best->nsteps - 1) {
                bytes(a, sizeof a, best->holders[i].bytes);
                tp_measure_evidence(m, "live at the peak from %llu allocations: %s, %s",
                                    (unsigned long long)best->holders[i].allocations,
                                    best->holders[i].op ? tp_str_get(s->t, best->holders[i].op) : "(no op)", a);
                break;
            }
    }
}
