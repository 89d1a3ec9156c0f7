/* measures_cp.c: the measures that read the critical path (docs/REPORT.md
 * "Critical path", "Findings"): over the steps' paths (the window of
 * --critical-path-window, the whole trace without steps), the share of
 * their time that was host work, and the share that was launch delays and
 * gaps between kernels.  The path's time is the steps' time, so either
 * share bounds what making that part free could save. */
#include "report/findings/findings.h"
#include "render/labels/kname.h"
#include "render/text/units.h"

#include <stdio.h>
#include <stdlib.h>

static bool have_paths(const tp_summary *s, tp_measure *m)
{
    if (s->cp.n)
        return true;
    m->available = false;
    snprintf(m->why, sizeof m->why, "no critical path was computed (a job's rank, or TP_CRITICAL_PATH=0)");
    return false;
}

/* the sums over the paths of the bound types in mask */
static int64_t sum_bounds(const tp_summary *s, unsigned mask, int64_t *length)
{
    int64_t part = 0;
    *length = 0;
    for (size_t i = 0; i < s->cp.n; i++) {
        const tp_cp_path *p = &s->cp.paths[i];
        *length += p->length_ns;
        for (int k = 0; k < TP_CPB_COUNT; k++)
            if (mask & (1u << k))
                part += p->bound_ns[k];
    }
    return part;
}

/* "median step #12: 62.0% of its path" and the path's top names of those bound types */
static void path_lines(const tp_summary *s, tp_measure *m, unsigned mask, const char *what)
{
    const tp_cp_path *p = &s->cp.paths[0];
    size_t shown = !s->cp.annotation && s->sf.median != SIZE_MAX && s->sf.median < s->cp.n ? s->sf.median : 0;
    p = &s->cp.paths[shown];
    int64_t part = 0;
    for (int k = 0; k < TP_CPB_COUNT; k++)
        if (mask & (1u << k))
            part += p->bound_ns[k];
    char a[48], d[48];
    tp_find_pct(a, sizeof a, tp_find_milli(part, p->length_ns));
    tp_fmt_dur(d, sizeof d, part);
    if (p->step >= 0)
        tp_measure_evidence(m, "the median step #%lld is %s for %s of its critical path (%s)", (long long)p->step, what, a,
                            d);
    else
        tp_measure_evidence(m, "the %s is %s for %s of its critical path (%s)", s->cp.annotation ? "window" : "trace",
                            what, a, d);
    if ((mask & (1u << TP_CPB_CPU)) && p->longest_cpu_ns > 0) {
        char *n = tp_kname_cut(tp_str_get(s->t, p->longest_cpu_name), 60);
        tp_fmt_dur(d, sizeof d, p->longest_cpu_ns);
        tp_measure_evidence(m, "the longest host stretch on it: %s %s", n, d);
        free(n);
    }
    size_t lines = 0;
    for (size_t i = 0; i < p->ntop && lines < 3; i++) {
        if (!(mask & (1u << p->top[i].bound)))
            continue;
        char *n = tp_kname_cut(tp_str_get(s->t, p->top[i].name), 60);
        tp_find_pct(a, sizeof a, tp_find_milli(p->top[i].ns, p->length_ns));
        tp_measure_evidence(m, "on the path: %s %s of the step", n, a);
        free(n);
        lines++;
    }
}

/* The path is clipped to the host's step windows; when the GPU runs behind
 * the host (a queue of launched work), the window's path is host work while
 * the device never waits, and making the host faster would not shorten a
 * step: the device sets the pace.  So what the path's host work (or its
 * launch gaps) could save is at most the device's idle time too (the GPU
 * time model's, over the GPU span): the measure's part is the smaller of the
 * two, and its rule's threshold applies to that, the time that could be
 * saved, not to the path's shape alone (a path 55% host-bound whose device
 * waited 9% of the time is a 9% question). */
static void bound_by_idle(const tp_summary *s, tp_measure *m)
{
    int64_t idle = s->gt.whole.idle_ns > 0 ? s->gt.whole.idle_ns : 0;
    if (m->part > idle) {
        char d[48];
        tp_fmt_dur(d, sizeof d, idle);
        tp_measure_evidence(m, "bounded by the device's idle time, %s: the device did not wait for the rest", d);
        m->part = idle;
    }
    m->impact_ns = m->part;
}

/* The bases in the window's words: the steps, an annotation's instances
 * (--critical-path-window), or the whole trace when it has no steps. */
static void bases(const tp_summary *s, tp_measure *m)
{
    if (s->cp.annotation)
        m->base = "the windows' critical paths (their time)", m->impact_base = "the windows' time";
    else if (s->sf.nsteps == 0)
        m->base = "the trace's critical path (its host span)", m->impact_base = "the trace's host span";
    else
        m->base = "the steps' critical paths (their time)", m->impact_base = "the steps' time";
}

#define CPU_MASK ((1u << TP_CPB_CPU) | (1u << TP_CPB_DATA_LOADING))
#define LAUNCH_MASK ((1u << TP_CPB_LAUNCH) | (1u << TP_CPB_KERNEL_GAP))

void tp_measure_critical_cpu(const tp_summary *s, tp_find_ctx *c, tp_measure *m)
{
    (void)c;
    bases(s, m);
    m->bound = "the host time on the critical path, at most the device's idle time: making that host work free "
               "shortens the steps by at most that";
    m->corroborates = true;
    if (!have_paths(s, m))
        return;
    int64_t len;
    m->part = sum_bounds(s, CPU_MASK, &len);
    m->whole = len;
    m->impact_ns = m->part;
    m->impact_base_ns = len;
    if (m->part > 0)
        path_lines(s, m, CPU_MASK, "host-bound");
    bound_by_idle(s, m);
}

void tp_measure_critical_launch(const tp_summary *s, tp_find_ctx *c, tp_measure *m)
{
    (void)c;
    bases(s, m);
    m->bound = "the launch delays and gaps between kernels on the critical path: removing them shortens the steps by "
               "at most that";
    m->corroborates = true;
    if (!have_paths(s, m))
        return;
    int64_t len;
    m->part = sum_bounds(s, LAUNCH_MASK, &len);
    m->whole = len;
    m->impact_ns = m->part;
    m->impact_base_ns = len;
    if (m->part > 0)
        path_lines(s, m, LAUNCH_MASK, "bound by launch delays and kernel gaps");
    bound_by_idle(s, m);
}
