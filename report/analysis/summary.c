/* summary.c: build all analyses of one report (summary.h). */
#include "report/analysis/summary.h"
#include "convert/base/threads.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tp_trace_basename(const char *path, char *buf, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(buf, n, "%s", b);
    static const char *const suf[] = {".gz", ".json", ".pt.trace", ".trace", NULL};
    for (int i = 0; suf[i]; i++) {
        size_t l = strlen(buf), s = strlen(suf[i]);
        if (l > s && strcmp(buf + l - s, suf[i]) == 0)
            buf[l - s] = 0;
    }
}

/* Is device number id one that ran something (the GPU time model's
 * devices with busy time)?  -1: the trace cannot tell (no device of the
 * model has a number, or id is unknown). */
static int device_active(const tp_trace *t, const tp_summary *s, int64_t id)
{
    bool numbered = false;
    for (size_t d = 0; d < s->gt.ndevices; d++) {
        int32_t dev = t->processes[s->gt.devices[d].process].device;
        numbered = numbered || dev >= 0;
        if (dev >= 0 && dev == id && s->gt.devices[d].whole.busy_ns > 0)
            return 1;
    }
    return numbered && id >= 0 ? 0 : -1;
}

/* Device names the trace describes (Chrome "deviceProperties", read into
 * t->devinfo), in input order; devices without a name are left out, and so
 * are those that ran nothing when the trace numbers its devices: a trace of
 * one busy GPU listing the 8 of its machine is "NVIDIA B200", not "8 x". */
static void find_devices(const tp_trace *t, tp_summary *s)
{
    size_t cap = 0, active = 0;
    for (size_t i = 0; i < t->ndevinfo; i++)
        active += device_active(t, s, t->devinfo[i].id) == 1;
    for (size_t i = 0; i < t->ndevinfo; i++) {
        const char *n = t->devinfo[i].name ? tp_str_get(t, t->devinfo[i].name) : NULL;
        if (!n || !*n || (active && device_active(t, s, t->devinfo[i].id) == 0))
            continue;
        TP_GROW(s->devices, cap, s->ndevices + 1);
        s->devices[s->ndevices++] = tp_xstrdup(n);
    }
}

static void find_date(const tp_trace *t, tp_summary *s)
{
    s->date[0] = 0;
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    int64_t secs = 0;
    bool have = false;
    if (sde && *sde) {
        char *endp;
        long long v = strtoll(sde, &endp, 10);
        if (*endp == 0 && v >= 0) {
            secs = v;
            have = true;
        }
    }
    if (!have && s->slices) {
        /* the trace's own clock, when it is a plausible Unix time (2001..2100) */
        int64_t abs_ns = t->base_ns + s->sf.span_start;
        int64_t v = abs_ns / 1000000000;
        if (v >= 978307200 && v < 4102444800LL) {
            secs = v;
            have = true;
        }
    }
    if (!have)
        return;
    time_t tt = (time_t)secs;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(s->date, sizeof s->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the analyses, two at a time ---- */

static void *prepare_job(void *p)
{
    tp_summary *s = p;
    tp_gpu_time_prepare(s->t, &s->gt); /* needs no host tree: while it is built */
    if (!s->opts.lean)
        tp_efficiency_prepare(s->t, s->opts.devices, &s->eff); /* reading the ops' shapes: likewise */
    return NULL;
}

static void *host_tree_job(void *p)
{
    tp_summary *s = p;
    tp_host_tree_build(s->t, &s->ht);
    s->slices = s->ht.slices; /* counted in the tree's pass; read after the rounds only (the date, the pages) */
    const char *memoff = getenv("TP_MEMORY");
    if (!memoff || strcmp(memoff, "0") != 0)
        tp_memory_prepare(s->t, &s->mem); /* reading the memory events' args: needs nothing, here for balance */
    return NULL;
}

static void *attribution_and_ops_job(void *p)
{
    tp_summary *s = p;
    if (!s->opts.job)
        tp_kernel_table_build(s->t, &s->kt); /* needs nothing: on the lighter side of the round */
    tp_attribution_build(s->t, &s->ht, &s->at);
    tp_classes_build(s->t, &s->at, s->rules, &s->cls); /* the one classification: needs the leaf ops */
    if (!s->opts.lean) /* needs the classification only: here, on the lighter side of the round */
        tp_efficiency_build(s->t, &s->ht, &s->cls, &s->eff);
    if (!s->opts.lean && !s->for_stats)
        tp_op_kernels_build(s->t, &s->ht, &s->at, &s->ob);
    return NULL;
}

static void critical_path_begin(tp_summary *s);

static void *steps_and_overheads_job(void *p)
{
    tp_summary *s = p;
    tp_step_figures_build(s->t, &s->ht, &s->sf);
    critical_path_begin(s); /* needs the steps only: the lighter side of the round (attribution and ops beside) */
    if (!s->opts.lean && !s->for_stats)
        tp_overheads_build(s->t, &s->ht, &s->ov);
    return NULL;
}

static void critical_path_lane(tp_summary *s, int lane);

static void *gpu_time_and_idle_job(void *p)
{
    tp_summary *s = p;
    tp_gpu_time_build(s->t, &s->sf, &s->cls, &s->gt);
    tp_idle_build(s->t, &s->ht, &s->sf, &s->idle);
    tp_collectives_build(s->t, s->cls.of, s->rules->communication, &s->coll); /* the one classification's */
    critical_path_lane(s, 1);
    return NULL;
}

static void *steps_job(void *p)
{
    tp_summary *s = p;
    tp_step_figures_build(s->t, &s->ht, &s->sf);
    return NULL;
}

static void *collectives_job(void *p)
{
    tp_summary *s = p;
    tp_collectives_build(s->t, s->cls.of, s->rules->communication, &s->coll); /* the one classification's */
    return NULL;
}

/* The critical path of each step as the step figures have it, else of the
 * whole trace (`report --critical-path-window` replaces it after, with
 * tp_summary_critical_window), in two lanes: one at the end of each job of
 * the last round.  TP_CRITICAL_PATH=0 leaves the analysis out (to measure
 * what it costs). */
static void critical_path_begin(tp_summary *s)
{
    const char *off = getenv("TP_CRITICAL_PATH");
    if (off && strcmp(off, "0") == 0)
        return;
    const tp_step_figures *sf = &s->sf;
    size_t n = sf->nsteps ? sf->nsteps : 1;
    tp_cp_window *w = tp_xmalloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        const tp_step_row *r = sf->nsteps ? &sf->steps[i] : &sf->whole;
        w[i] = (tp_cp_window){r->ts, tp_sat_add(r->ts, r->host_ns), r->step, r->event};
    }
    /* stats prints the path's figures, not its links (the report's page draws them) */
    s->cp_lanes = tp_critical_begin(s->t, w, n, s->ht.logical, !s->for_stats, &s->cp);
    free(w);
}

static void critical_path_lane(tp_summary *s, int lane)
{
    if (s->cp_lanes)
        tp_critical_lane(s->cp_lanes, lane);
}

int tp_summary_critical_window(tp_summary *s, const char *spec, char *err, size_t errn)
{
    tp_cp_window *w = NULL;
    size_t n = 0;
    if (tp_cp_windows(s->t, spec, &w, &n, err, errn) < 0)
        return -1;
    tp_critical_free(&s->cp);
    tp_critical_build(s->t, w, n, s->ht.logical, &s->cp);
    s->cp.annotation = true;
    free(w);
    return 0;
}

/* The memory model (report/memory/) reads the host tree and the steps as plain arrays; nothing
 * to do (one string lookup) in a trace without memory events.  TP_MEMORY=0 leaves it out (to
 * measure what it costs: no page, no PNG, no memory member's devices). */
static void memory_build(tp_summary *s)
{
    const char *off = getenv("TP_MEMORY"); /* 0: the memory model left out (to measure what it costs) */
    if (off && strcmp(off, "0") == 0) {
        tp_memory_free(&s->mem);
        return;
    }
    tp_mem_window *w = tp_xmalloc((s->sf.nsteps ? s->sf.nsteps : 1) * sizeof *w);
    for (size_t i = 0; i < s->sf.nsteps; i++)
        w[i] = (tp_mem_window){s->sf.steps[i].step, s->sf.steps[i].ts, s->sf.steps[i].ts + s->sf.steps[i].host_ns};
    tp_mem_inputs in = {s->ht.order, s->ht.n, s->ht.pos, s->ht.parent, s->ht.top, s->ht.logical, w, s->sf.nsteps,
                        tp_is_op, tp_is_module_label};
    tp_memory_build(s->t, &in, &s->mem);
    free(w);
}

static void *categories_job(void *p)
{
    tp_summary *s = p;
    tp_categories_build(s->t, &s->at, &s->sf, &s->cls, &s->cat);
    critical_path_lane(s, 0);
    memory_build(s); /* the lighter side of the round (its args were read beside the host tree) */
    return NULL;
}

/* With TP_TIMING=1, each job's own CPU time (its thread's: the two sides of a round, to balance them; robust to a
 * busy machine, unlike the wall time). */
static void *timed_job(void *(*job)(void *), const char *name, tp_summary *s)
{
    static _Atomic int on = -1; /* both threads of a round ask: an atomic, the same value from either */
    if (on < 0) {
        const char *v = getenv("TP_TIMING");
        on = v && *v && strcmp(v, "0") != 0;
    }
    struct timespec a, b;
    if (on)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    job(s);
    if (on) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        fprintf(stderr, "timing:   job %-28s cpu %.3f s\n", name,
                (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    }
    return NULL;
}
#define TIMED(job)                                                                                                     \
    static void *timed_##job(void *p) { return timed_job(job, #job, p); }
TIMED(prepare_job)
TIMED(host_tree_job)
TIMED(attribution_and_ops_job)
TIMED(steps_and_overheads_job)
TIMED(gpu_time_and_idle_job)
TIMED(categories_job)

/* side() on a second thread while here() runs on this one; both on this
 * thread with TP_THREADS=1 / TP_REPORT_THREADS=1 (the same results: the
 * tests compare the two). */
static void run_pair(void *(*side)(void *), tp_summary *s, void *(*here)(void *))
{
    tp_run_pair(side, s, here, s, "TP_REPORT_THREADS");
}

bool tp_summary_wants_args(const char *name, size_t len)
{
    /* TP_MEMORY=0: the memory events' args not kept either (the whole cost measured); the reader's threads
     * may ask at once: an atomic, the same value from any of them */
    static _Atomic int mem = -1;
    if (mem < 0) {
        const char *off = getenv("TP_MEMORY");
        mem = !(off && strcmp(off, "0") == 0);
    }
    return tp_efficiency_wants_args(name, len) || tp_collectives_want_args(name, len) ||
           tp_critical_wants_args(name, len) || (mem && tp_mem_wants_args(name, len));
}

static void summary_build(const tp_trace *t, const tp_report_opts *o, bool for_stats, tp_summary *s)
{
    memset(s, 0, sizeof *s);
    s->for_stats = for_stats;
    s->t = t;
    s->opts = *o;
    s->opts.lean |= o->job;
    tp_trace_basename(o->path, s->name, sizeof s->name);
    s->rules = o->rules;
    if (!s->rules) {
        char err[256];
        tp_cat_rules_load(&s->own_rules, NULL, err, sizeof err); /* the built-in rules cannot fail */
        s->rules = &s->own_rules;
    }
    /* three rounds on two threads: each analysis writes only its own member
     * and reads the trace and what earlier rounds built (the host tree in
     * the first; attribution and steps in the second).  The sides balanced
     * by each job's thread CPU (TP_TIMING=1), on the 500 MB real-shaped
     * trace (`report`, after the speed branches of 2026-12-07, quiet machine):
     * GPU time and efficiency prepare 0.086 s | host tree (slices counted,
     * device activities noted), memory prepare 0.086; kernel table,
     * attribution, classification, efficiency build (it reads the
     * classification only), ops 0.061 | steps, critical path prepare,
     * overheads 0.057; the third round's two sides end with the critical
     * path's windows, taken by whichever is free (0.048 | 0.057). */
    run_pair(timed_prepare_job, s, timed_host_tree_job);
    tp_timing("summary: GPU time and efficiency prepare | host tree, memory prepare");
    if (o->job) { /* a rank of a job: two thirds of the work left out */
        /* communication is what the one classification says, as in a rank's own report: the
         * collectives and the GPU split read it */
        tp_attribution_build(t, &s->ht, &s->at);
        tp_classes_build(t, &s->at, s->rules, &s->cls);
        run_pair(collectives_job, s, steps_job);
        tp_gpu_time_build(t, &s->sf, &s->cls, &s->gt);
        tp_timing("summary: collectives | steps, attribution, classification, GPU time");
        find_devices(t, s);
        tp_dist_info_read(t, &s->dist);
        memory_build(s);
        tp_timing("summary: memory");
        return;
    }
    run_pair(timed_attribution_and_ops_job, s, timed_steps_and_overheads_job);
    tp_timing("summary: kernel table, attribution, efficiency, ops | steps, critical path prepare, overheads");
    run_pair(timed_gpu_time_and_idle_job, s, timed_categories_job);
    tp_critical_end(s->cp_lanes);
    s->cp_lanes = NULL;
    tp_timing("summary: gpu time, idle, critical path | categories, memory, critical path");
    find_devices(t, s);
    find_date(t, s);
    tp_dist_info_read(t, &s->dist);
}

void tp_summary_build(const tp_trace *t, const tp_report_opts *o, tp_summary *s) { summary_build(t, o, false, s); }

void tp_summary_build_stats(const tp_trace *t, const tp_report_opts *o, tp_summary *s) { summary_build(t, o, true, s); }

void tp_summary_free(tp_summary *s)
{
    if (s->fp_free)
        s->fp_free(s->fp_state);
    tp_kernel_table_free(&s->kt);
    tp_op_kernels_free(&s->ob);
    tp_step_figures_free(&s->sf);
    tp_overheads_free(&s->ov);
    tp_gpu_time_free(&s->gt);
    tp_idle_free(&s->idle);
    tp_categories_free(&s->cat);
    tp_classes_free(&s->cls);
    tp_efficiency_free(&s->eff);
    tp_collectives_free(&s->coll);
    tp_dist_info_free(&s->dist);
    tp_critical_free(&s->cp);
    tp_memory_free(&s->mem);
    tp_attribution_free(&s->at);
    tp_cat_rules_free(&s->own_rules);
    tp_host_tree_free(&s->ht);
    for (size_t i = 0; i < s->ndevices; i++)
        free(s->devices[i]);
    free(s->devices);
    memset(s, 0, sizeof *s);
}
