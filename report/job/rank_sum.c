/* rank_sum.c: one rank's summary, built from its analysis, written and read
 * back (rank_sum.h). */
#include "report/job/rank_sum.h"
#include "convert/codec/json_value.h"
#include "convert/codec/json_write.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s) { return tp_xstrdup(s ? s : ""); }

/* Times are bounded so that the job's sums and differences of them never
 * overflow: durations and figures up to 2^60 ns (36 years), starts within
 * +-2^61 (the year 2043 since 1970).  The builder and the writer saturate
 * into this range and the reader accepts all of it, so every summary a run
 * writes reads back (a trace's times may reach 2^62 ns: stats and convert
 * take them, and the job report once refused its own summary). */
#define MAX_NS TP_RANK_MAX_NS
#define MAX_BYTES (1LL << 62) /* a rank's memory figures */
#define MAX_START_NS TP_RANK_MAX_START_NS

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* v saturated into [lo, hi], counted in *n when it was outside. */
static void bound(int64_t *v, int64_t lo, int64_t hi, size_t *n)
{
    int64_t c = clamp(*v, lo, hi);
    *n += c != *v;
    *v = c;
}

static void bound_figs(tp_gpu_figs *f, size_t *n)
{
    int64_t *ns[10] = {&f->span_ns,   &f->busy_ns,        &f->idle_ns,   &f->computation_ns,
                       &f->communication_ns, &f->exposed_communication_ns, &f->memcpy_ns,
                       &f->exposed_memcpy_ns, &f->memset_ns, &f->unlinked_ns};
    for (int i = 0; i < 10; i++)
        bound(ns[i], 0, MAX_NS, n);
}

size_t tp_rank_sum_bound(tp_rank_sum *r)
{
    size_t n = 0;
    bound_figs(&r->whole, &n);
    for (size_t i = 0; i < r->nsteps; i++) {
        bound(&r->steps[i].start_ns, -MAX_START_NS, MAX_START_NS, &n);
        bound(&r->steps[i].dur_ns, 0, MAX_NS, &n);
        bound_figs(&r->steps[i].gpu, &n);
    }
    for (size_t i = 0; i < r->ncolls; i++)
        bound(&r->colls[i].total_ns, 0, INT64_MAX, &n);
    for (size_t i = 0; i < r->ncalls; i++) {
        bound(&r->calls[i].start_ns, -MAX_START_NS, MAX_START_NS, &n);
        bound(&r->calls[i].dur_ns, 0, MAX_NS, &n);
    }
    for (size_t i = 0; i < r->nbefore; i++) {
        tp_rank_before *b = &r->before[i];
        bound(&b->window_ns, 0, MAX_NS, &n);
        bound(&b->idle_ns, 0, MAX_NS, &n);
        for (int k = 0; k < TP_RANK_BEFORE_TOP; k++) {
            bound(&b->kernels[k].ns, 0, MAX_NS, &n);
            bound(&b->ops[k].ns, 0, MAX_NS, &n);
        }
    }
    if (r->top.present) {
        bound(&r->top.impact_ns, 0, MAX_NS, &n);
        bound(&r->top.impact_milli, 0, 100000, &n);
    }
    return n;
}

size_t tp_rank_sum_build(const tp_summary *s, tp_rank_sum *r)
{
    const tp_trace *t = s->t;
    memset(r, 0, sizeof *r);
    r->path = dup_or_empty(s->opts.path);
    r->name = dup_or_empty(s->name);
    r->format = dup_or_empty(t->format);
    r->device = dup_or_empty(s->gt.ndevices ? s->gt.devices[0].label : "");
    const tp_dist_info *d = &s->dist;
    r->dist_present = d->present;
    r->dist_rank = d->rank;
    r->world_size = d->world_size;
    r->backend = dup_or_empty(d->backend);
    r->problem = d->problem ? tp_xstrdup(d->problem) : NULL;
    r->pg_size = -1;
    for (size_t i = 0; i < d->ngroups; i++) { /* the default group, as tp_job_assign_ranks finds it */
        const tp_pg_info *g = &d->groups[i];
        if (strcmp(g->desc, "default_pg") != 0 && !(strcmp(g->name, "0") == 0 && r->pg_size < 0))
            continue;
        r->pg_size = g->size;
        free(r->pg_ranks);
        r->pg_ranks = tp_xmalloc((g->nranks + 1) * sizeof *r->pg_ranks);
        memcpy(r->pg_ranks, g->ranks, g->nranks * sizeof *r->pg_ranks);
        r->npg_ranks = g->nranks;
        if (strcmp(g->desc, "default_pg") == 0)
            break;
    }
    r->events = s->slices;
    for (size_t i = 0; i < t->nwarnings; i++)
        r->warnings += t->warnings[i].count;
    r->whole = s->gt.whole;
    r->nsteps = s->sf.nsteps;
    r->steps = tp_xcalloc(r->nsteps + 1, sizeof *r->steps);
    for (size_t i = 0; i < r->nsteps; i++) {
        const tp_step_row *st = &s->sf.steps[i];
        r->steps[i] = (tp_rank_step){st->step, tp_sat_add(t->base_ns, st->ts), st->host_ns, s->gt.steps[i]};
    }
    const tp_collectives *c = &s->coll;
    r->ncolls = c->n;
    r->colls = tp_xcalloc(c->n + 1, sizeof *r->colls);
    for (size_t i = 0; i < c->n; i++) {
        const tp_coll_row *w = &c->rows[i];
        r->colls[i] = (tp_rank_coll){tp_xstrdup(w->kind), tp_xstrdup(w->dtype), tp_xstrdup(w->group),
                                     tp_xstrdup(w->ranks), w->group_size, w->bytes, w->count, w->total_ns};
    }
    r->ncalls = c->nlist;
    r->calls = tp_xcalloc(c->nlist + 1, sizeof *r->calls);
    for (size_t i = 0; i < c->nlist; i++) {
        const tp_coll_inst *k = &c->list[i];
        r->calls[i] = (tp_rank_call){k->row, tp_sat_add(t->base_ns, k->ts), k->dur, k->seq};
    }
    tp_rank_before_build(s, r);
    /* the rank's own top finding: its report's (the same analysis and rules; summary.h find_rules) */
    tp_findings f;
    tp_findings_build(s, s->opts.find_rules, &f);
    if (f.n) {
        const tp_finding *x = &f.items[0];
        r->top = (tp_rank_top){true, tp_xstrdup(x->rule->id), tp_xstrdup(x->rule->title), x->rule->severity,
                               x->m->impact_ns, x->m->impact_milli, tp_xstrdup(x->m->impact_base)};
    }
    tp_findings_free(&f);
    const tp_mem_device *md = tp_memory_top(&s->mem);
    if (md)
        r->mem = (tp_rank_mem){true, tp_xstrdup(md->label), md->peak_allocated, md->peak_reserved};
    return tp_rank_sum_bound(r);
}

void tp_rank_sum_free(tp_rank_sum *r)
{
    free(r->path);
    free(r->name);
    free(r->format);
    free(r->device);
    free(r->backend);
    free(r->problem);
    free(r->pg_ranks);
    free(r->steps);
    for (size_t i = 0; i < r->ncolls; i++) {
        free(r->colls[i].kind);
        free(r->colls[i].dtype);
        free(r->colls[i].group);
        free(r->colls[i].ranks);
    }
    free(r->colls);
    free(r->calls);
    for (size_t i = 0; i < r->nbefore; i++)
        for (int k = 0; k < TP_RANK_BEFORE_TOP; k++) {
            free(r->before[i].kernels[k].name);
            free(r->before[i].ops[k].name);
        }
    free(r->before);
    free(r->top.id);
    free(r->top.title);
    free(r->top.impact_base);
    free(r->mem.device);
    memset(r, 0, sizeof *r);
}

void tp_rank_sum_dist(const tp_rank_sum *r, tp_dist_info *d, tp_pg_info *pg)
{
    memset(d, 0, sizeof *d);
    memset(pg, 0, sizeof *pg);
    d->present = r->dist_present;
    d->rank = r->dist_rank;
    d->world_size = r->world_size;
    d->problem = r->problem;
    if (r->pg_size >= 0 || r->npg_ranks) {
        snprintf(pg->desc, sizeof pg->desc, "default_pg");
        pg->size = r->pg_size;
        pg->ranks = r->pg_ranks;
        pg->nranks = r->npg_ranks;
        d->groups = pg;
        d->ngroups = 1;
    }
}

/* ---- writing ---- */

/* The GPU figures as a JSON array, in the order FIGS names them. */
#define FIGS "span,busy,idle,computation,communication,exposed_communication,memcpy,exposed_memcpy,memset,unlinked,kernels,memcpys,memsets"
static void figs_json(tp_buf *b, const tp_gpu_figs *given)
{
    tp_gpu_figs bounded = *given, *f = &bounded;
    size_t n = 0;
    bound_figs(f, &n);
    tp_buf_printf(b, "[%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%llu,%llu,%llu]", (long long)f->span_ns,
                  (long long)f->busy_ns, (long long)f->idle_ns, (long long)f->computation_ns,
                  (long long)f->communication_ns, (long long)f->exposed_communication_ns, (long long)f->memcpy_ns,
                  (long long)f->exposed_memcpy_ns, (long long)f->memset_ns, (long long)f->unlinked_ns,
                  (unsigned long long)f->kernels, (unsigned long long)f->memcpys, (unsigned long long)f->memsets);
}

void tp_rank_sum_json(const tp_rank_sum *r, tp_buf *b)
{
    tp_buf_puts(b, "{\"schema\":\"" TP_RANK_SCHEMA "\",\n\"path\":");
    tp_json_str(b, r->path);
    tp_buf_printf(b, ",\"input_index\":%llu,\"inputs\":%llu,\"inputs_hash\":\"%016llx\",\"name\":",
                  (unsigned long long)r->input_index, (unsigned long long)r->inputs,
                  (unsigned long long)r->inputs_hash);
    tp_json_str(b, r->name);
    tp_buf_puts(b, ",\"format\":");
    tp_json_str(b, r->format);
    tp_buf_puts(b, ",\"device\":");
    tp_json_str(b, r->device);
    tp_buf_printf(b, ",\n\"distributed\":{\"present\":%s,\"rank\":%lld,\"world_size\":%lld,\"backend\":",
                  r->dist_present ? "true" : "false", (long long)r->dist_rank, (long long)r->world_size);
    tp_json_str(b, r->backend);
    tp_buf_puts(b, ",\"problem\":");
    if (r->problem)
        tp_json_str(b, r->problem);
    else
        tp_buf_puts(b, "null");
    tp_buf_printf(b, ",\"default_group_size\":%lld,\"default_group_ranks\":[", (long long)r->pg_size);
    for (size_t i = 0; i < r->npg_ranks; i++)
        tp_buf_printf(b, i ? ",%lld" : "%lld", (long long)r->pg_ranks[i]);
    tp_buf_printf(b, "]},\n\"events\":%llu,\"warnings\":%llu,\n\"figures\":\"" FIGS "\",\n\"whole\":",
                  (unsigned long long)r->events, (unsigned long long)r->warnings);
    figs_json(b, &r->whole);
    tp_buf_puts(b, ",\n\"steps\":[");
    for (size_t i = 0; i < r->nsteps; i++) {
        const tp_rank_step *s = &r->steps[i];
        tp_buf_printf(b, "%s[%lld,%lld,%lld,", i ? ",\n" : "\n", (long long)s->number,
                      (long long)clamp(s->start_ns, -MAX_START_NS, MAX_START_NS), (long long)clamp(s->dur_ns, 0, MAX_NS));
        figs_json(b, &s->gpu);
        tp_buf_putc(b, ']');
    }
    tp_buf_puts(b, "],\n\"collectives\":[");
    for (size_t i = 0; i < r->ncolls; i++) {
        const tp_rank_coll *c = &r->colls[i];
        tp_buf_puts(b, i ? ",\n[" : "\n[");
        tp_json_str(b, c->kind);
        tp_buf_putc(b, ',');
        tp_json_str(b, c->dtype);
        tp_buf_putc(b, ',');
        tp_json_str(b, c->group);
        tp_buf_putc(b, ',');
        tp_json_str(b, c->ranks);
        tp_buf_printf(b, ",%lld,%llu,%llu,%lld]", (long long)c->group_size, (unsigned long long)c->bytes,
                      (unsigned long long)c->count, (long long)clamp(c->total_ns, 0, INT64_MAX));
    }
    tp_buf_puts(b, "],\n\"calls\":[");
    for (size_t i = 0; i < r->ncalls; i++) {
        const tp_rank_call *c = &r->calls[i];
        tp_buf_printf(b, "%s[%u,%lld,%lld,%lld]", i ? (i % 8 ? "," : ",\n") : "\n", c->coll,
                      (long long)clamp(c->start_ns, -MAX_START_NS, MAX_START_NS), (long long)clamp(c->dur_ns, 0, MAX_NS),
                      (long long)c->seq);
    }
    tp_buf_puts(b, "],\n\"before\":[");
    for (size_t i = 0; i < r->nbefore; i++) {
        const tp_rank_before *x = &r->before[i];
        tp_buf_printf(b, "%s[%lld,%lld,%lld,", i ? ",\n" : "\n", (long long)x->number,
                      (long long)clamp(x->window_ns, 0, MAX_NS), (long long)clamp(x->idle_ns, 0, MAX_NS));
        for (int list = 0; list < 2; list++) {
            const tp_rank_named *v = list ? x->ops : x->kernels;
            tp_buf_puts(b, list ? ",[" : "[");
            for (int k = 0; k < TP_RANK_BEFORE_TOP && v[k].name; k++) {
                tp_buf_puts(b, k ? ",[" : "[");
                tp_json_str(b, v[k].name);
                tp_buf_printf(b, ",%lld]", (long long)clamp(v[k].ns, 0, MAX_NS));
            }
            tp_buf_putc(b, ']');
        }
        tp_buf_putc(b, ']');
    }
    tp_buf_puts(b, "],\n\"top_finding\":");
    if (r->top.present) {
        tp_buf_puts(b, "{\"id\":");
        tp_json_str(b, r->top.id);
        tp_buf_puts(b, ",\"title\":");
        tp_json_str(b, r->top.title);
        tp_buf_printf(b, ",\"severity\":\"%s\",\"impact_ns\":%lld,\"impact_milli_pct\":%lld,\"impact_base\":",
                      tp_find_severity_name(r->top.severity), (long long)clamp(r->top.impact_ns, 0, MAX_NS),
                      (long long)clamp(r->top.impact_milli, 0, 100000));
        tp_json_str(b, r->top.impact_base);
        tp_buf_putc(b, '}');
    } else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\n\"memory\":");
    if (r->mem.present) {
        tp_buf_puts(b, "{\"device\":");
        tp_json_str(b, r->mem.device);
        tp_buf_printf(b, ",\"peak_allocated_bytes\":%lld,\"peak_reserved_bytes\":%lld}",
                      (long long)clamp(r->mem.peak_allocated, 0, MAX_BYTES), (long long)clamp(r->mem.peak_reserved, 0, MAX_BYTES));
    } else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, "}\n");
}

/* ---- reading ---- */

typedef struct rd {
    tp_err *err;
    const char *where;
} rd;

static int bad(rd *x, const char *what) { return tp_fail_at(x->err, x->where, "%s", what); }

static int get_str(rd *x, const tp_jv *o, const char *key, char **out)
{
    size_t n;
    const char *s = tp_jv_str(tp_jv_get(o, key), &n);
    if (!s || memchr(s, 0, n))
        return tp_fail_at(x->err, x->where, "\"%s\" is not a string", key);
    *out = tp_xmalloc(n + 1);
    memcpy(*out, s, n);
    (*out)[n] = 0;
    return 0;
}

static int get_int(rd *x, const tp_jv *v, int64_t lo, int64_t *out, const char *what)
{
    if (!v || tp_jv_int(v, out) != 0 || *out < lo)
        return tp_fail_at(x->err, x->where, "%s is not a whole number >= %lld", what, (long long)lo);
    return 0;
}

/* A count or size the writer prints as an unsigned 64-bit number. */
static int get_u64(rd *x, const tp_jv *v, uint64_t *out, const char *what)
{
    int64_t i;
    bool digits = v && v->type == TP_JV_NUMBER && v->len >= 1 && v->len <= 20;
    for (size_t k = 0; digits && k < v->len; k++)
        digits = v->s[k] >= '0' && v->s[k] <= '9';
    if (digits) {
        uint64_t u = 0;
        bool over = false;
        for (size_t k = 0; k < v->len; k++) {
            unsigned d = (unsigned)(v->s[k] - '0');
            over |= u > (UINT64_MAX - d) / 10;
            u = u * 10 + d;
        }
        if (!over) {
            *out = u;
            return 0;
        }
    } else if (v && tp_jv_int(v, &i) == 0 && i >= 0) {
        *out = (uint64_t)i;
        return 0;
    }
    return tp_fail_at(x->err, x->where, "%s is not a whole number from 0 to 2^64-1", what);
}

static int get_ns(rd *x, const tp_jv *v, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
    if (get_int(x, v, lo, out, what) < 0)
        return -1;
    if (*out > hi)
        return tp_fail_at(x->err, x->where, "%s is beyond %lld ns", what, (long long)hi);
    return 0;
}

static int read_figs(rd *x, const tp_jv *a, tp_gpu_figs *f)
{
    int64_t v[10];
    uint64_t u[3];
    if (!a || a->type != TP_JV_ARRAY || a->n != 13)
        return bad(x, "GPU figures are not an array of 13 numbers");
    for (int i = 0; i < 10; i++)
        if (get_ns(x, &a->items[i], 0, MAX_NS, &v[i], "a GPU figure") < 0)
            return -1;
    for (int i = 0; i < 3; i++)
        if (get_u64(x, &a->items[10 + i], &u[i], "a GPU count") < 0)
            return -1;
    *f = (tp_gpu_figs){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], u[0], u[1], u[2]};
    return 0;
}

static const tp_jv *array_of(rd *x, const tp_jv *root, const char *key)
{
    const tp_jv *a = tp_jv_get(root, key);
    if (!a || a->type != TP_JV_ARRAY) {
        tp_fail_at(x->err, x->where, "\"%s\" is not an array", key);
        return NULL;
    }
    return a;
}

/* [[name, ns], ...] of at most TP_RANK_BEFORE_TOP items into v */
static int read_named(rd *x, const tp_jv *a, tp_rank_named *v)
{
    if (!a || a->type != TP_JV_ARRAY || a->n > TP_RANK_BEFORE_TOP)
        return bad(x, "a \"before\" list is not an array of at most 3 [name, ns]");
    for (size_t k = 0; k < a->n; k++) {
        const tp_jv *it = &a->items[k];
        size_t n = 0;
        const char *name = it->type == TP_JV_ARRAY && it->n == 2 ? tp_jv_str(&it->items[0], &n) : NULL;
        if (!name || memchr(name, 0, n))
            return bad(x, "a \"before\" item is not [name, ns]");
        if (get_ns(x, &it->items[1], 0, MAX_NS, &v[k].ns, "a \"before\" time") < 0)
            return -1;
        v[k].name = tp_xstrndup(name, n);
    }
    return 0;
}

/* The optional member "memory" (absent or null: no memory levels). */
static int parse_mem(rd *x, const tp_jv *root, tp_rank_sum *r)
{
    const tp_jv *m = tp_jv_get(root, "memory");
    if (!m || m->type == TP_JV_NULL)
        return 0;
    if (m->type != TP_JV_OBJECT)
        return bad(x, "\"memory\" is not an object or null");
    r->mem.present = true;
    if (get_str(x, m, "device", &r->mem.device) < 0 ||
        get_int(x, tp_jv_get(m, "peak_allocated_bytes"), 0, &r->mem.peak_allocated, "the peak allocated memory") < 0 ||
        get_int(x, tp_jv_get(m, "peak_reserved_bytes"), 0, &r->mem.peak_reserved, "the peak reserved memory") < 0)
        return -1;
    if (r->mem.peak_allocated > MAX_BYTES || r->mem.peak_reserved > MAX_BYTES)
        return bad(x, "a memory figure is beyond 2^62 bytes");
    return 0;
}

/* The optional members: "before" and "top_finding" (absent: none, as a
 * summary written before them). */
static int parse_extras(rd *x, const tp_jv *root, tp_rank_sum *r)
{
    const tp_jv *be = tp_jv_get(root, "before");
    if (be && be->type != TP_JV_ARRAY)
        return bad(x, "\"before\" is not an array");
    size_t nb = be ? be->n : 0;
    r->before = tp_xcalloc(nb + 1, sizeof *r->before);
    for (; r->nbefore < nb; r->nbefore++) {
        const tp_jv *a = &be->items[r->nbefore];
        tp_rank_before *b = &r->before[r->nbefore];
        if (a->type != TP_JV_ARRAY || a->n != 5)
            return bad(x, "a \"before\" entry is not [step, window, idle, kernels, host ops]");
        if (get_int(x, &a->items[0], INT64_MIN, &b->number, "a \"before\" step") < 0 ||
            get_ns(x, &a->items[1], 0, MAX_NS, &b->window_ns, "a \"before\" window") < 0 ||
            get_ns(x, &a->items[2], 0, MAX_NS, &b->idle_ns, "a \"before\" idle") < 0)
            return -1;
        if (r->nbefore && b->number <= r->before[r->nbefore - 1].number)
            return bad(x, "\"before\" is not by step number, each once");
        int rc = read_named(x, &a->items[3], b->kernels);
        if (rc == 0)
            rc = read_named(x, &a->items[4], b->ops);
        if (rc < 0) {
            r->nbefore++; /* its names so far are freed with the others */
            return -1;
        }
    }
    const tp_jv *tf = tp_jv_get(root, "top_finding");
    if (!tf || tf->type == TP_JV_NULL)
        return parse_mem(x, root, r);
    if (tf->type != TP_JV_OBJECT)
        return bad(x, "\"top_finding\" is not an object or null");
    tp_rank_top *t = &r->top;
    t->present = true;
    if (get_str(x, tf, "id", &t->id) < 0 || get_str(x, tf, "title", &t->title) < 0 ||
        get_str(x, tf, "impact_base", &t->impact_base) < 0)
        return -1;
    const tp_jv *sv = tp_jv_get(tf, "severity");
    t->severity = tp_jv_str_eq(sv, "high") ? TP_SEV_HIGH : tp_jv_str_eq(sv, "medium") ? TP_SEV_MEDIUM : TP_SEV_LOW;
    if (!tp_jv_str_eq(sv, "high") && !tp_jv_str_eq(sv, "medium") && !tp_jv_str_eq(sv, "low"))
        return bad(x, "\"top_finding\" severity is not high, medium or low");
    if (get_ns(x, tp_jv_get(tf, "impact_ns"), 0, MAX_NS, &t->impact_ns, "the top finding's impact") < 0 ||
        get_ns(x, tp_jv_get(tf, "impact_milli_pct"), 0, 100000, &t->impact_milli, "the top finding's share") < 0)
        return -1;
    return parse_mem(x, root, r);
}

static int parse_root(rd *x, const tp_jv *root, tp_rank_sum *r)
{
    if (root->type != TP_JV_OBJECT || !tp_jv_str_eq(tp_jv_get(root, "schema"), TP_RANK_SCHEMA))
        return bad(x, "not a rank summary (schema " TP_RANK_SCHEMA ")");
    if (get_str(x, root, "path", &r->path) < 0 || get_str(x, root, "name", &r->name) < 0 ||
        get_str(x, root, "format", &r->format) < 0 || get_str(x, root, "device", &r->device) < 0)
        return -1;
    if (get_u64(x, tp_jv_get(root, "input_index"), &r->input_index, "input_index") < 0 ||
        get_u64(x, tp_jv_get(root, "inputs"), &r->inputs, "inputs") < 0)
        return -1;
    if (r->input_index >= r->inputs)
        return bad(x, "input_index is not below inputs");
    size_t hl = 0;
    const char *hs = tp_jv_str(tp_jv_get(root, "inputs_hash"), &hl);
    char hex[17];
    if (!hs || hl != 16)
        return bad(x, "\"inputs_hash\" is not 16 hex digits");
    memcpy(hex, hs, 16);
    hex[16] = 0;
    char *end;
    r->inputs_hash = strtoull(hex, &end, 16);
    if (*end || hex[0] == '-' || hex[0] == '+' || hex[0] == ' ')
        return bad(x, "\"inputs_hash\" is not 16 hex digits");
    const tp_jv *d = tp_jv_get(root, "distributed");
    if (!d || d->type != TP_JV_OBJECT)
        return bad(x, "\"distributed\" is not an object");
    const tp_jv *pres = tp_jv_get(d, "present");
    if (!pres || pres->type != TP_JV_BOOL)
        return bad(x, "\"present\" is not true or false");
    r->dist_present = pres->b;
    /* as recorded, any whole number: a trace's rank -5 is its problem (kept in "problem"), not the file's */
    if (get_int(x, tp_jv_get(d, "rank"), INT64_MIN, &r->dist_rank, "rank") < 0 ||
        get_int(x, tp_jv_get(d, "world_size"), INT64_MIN, &r->world_size, "world_size") < 0 ||
        get_str(x, d, "backend", &r->backend) < 0 ||
        get_int(x, tp_jv_get(d, "default_group_size"), INT64_MIN, &r->pg_size, "default_group_size") < 0)
        return -1;
    const tp_jv *pr = tp_jv_get(d, "problem");
    if (pr && pr->type != TP_JV_NULL && get_str(x, d, "problem", &r->problem) < 0)
        return -1;
    const tp_jv *gr = tp_jv_get(d, "default_group_ranks");
    if (!gr || gr->type != TP_JV_ARRAY)
        return bad(x, "\"default_group_ranks\" is not an array");
    r->pg_ranks = tp_xcalloc(gr->n + 1, sizeof *r->pg_ranks);
    for (r->npg_ranks = 0; r->npg_ranks < gr->n; r->npg_ranks++)
        if (get_int(x, &gr->items[r->npg_ranks], INT64_MIN, &r->pg_ranks[r->npg_ranks], "a group rank") < 0)
            return -1;
    if (get_u64(x, tp_jv_get(root, "events"), &r->events, "events") < 0 ||
        get_u64(x, tp_jv_get(root, "warnings"), &r->warnings, "warnings") < 0)
        return -1;
    if (!tp_jv_str_eq(tp_jv_get(root, "figures"), FIGS))
        return bad(x, "\"figures\" names other figures than this version's");
    if (read_figs(x, tp_jv_get(root, "whole"), &r->whole) < 0)
        return -1;
    const tp_jv *st = array_of(x, root, "steps"), *co, *ca;
    if (!st || !(co = array_of(x, root, "collectives")) || !(ca = array_of(x, root, "calls")))
        return -1;
    r->steps = tp_xcalloc(st->n + 1, sizeof *r->steps);
    for (; r->nsteps < st->n; r->nsteps++) {
        const tp_jv *a = &st->items[r->nsteps];
        tp_rank_step *s = &r->steps[r->nsteps];
        if (a->type != TP_JV_ARRAY || a->n != 4)
            return bad(x, "a step is not [number, start, duration, figures]");
        if (get_int(x, &a->items[0], INT64_MIN, &s->number, "a step number") < 0 ||
            get_ns(x, &a->items[1], -MAX_START_NS, MAX_START_NS, &s->start_ns, "a step start") < 0 ||
            get_ns(x, &a->items[2], 0, MAX_NS, &s->dur_ns, "a step duration") < 0 ||
            read_figs(x, &a->items[3], &s->gpu) < 0)
            return -1;
    }
    r->colls = tp_xcalloc(co->n + 1, sizeof *r->colls);
    for (; r->ncolls < co->n; r->ncolls++) {
        const tp_jv *a = &co->items[r->ncolls];
        tp_rank_coll *c = &r->colls[r->ncolls];
        if (a->type != TP_JV_ARRAY || a->n != 8)
            return bad(x, "a collective is not [kind, dtype, group, ranks, group size, bytes, count, time]");
        const char *keys[4] = {0};
        char **dst[4] = {&c->kind, &c->dtype, &c->group, &c->ranks};
        for (int i = 0; i < 4; i++) { /* all four, "" for what is not a string, so tp_rank_sum_free frees them */
            size_t n = 0;
            keys[i] = tp_jv_str(&a->items[i], &n);
            bool ok = keys[i] && !memchr(keys[i], 0, n);
            *dst[i] = tp_xmalloc(ok ? n + 1 : 1);
            memcpy(*dst[i], ok ? keys[i] : "", ok ? n : 0);
            (*dst[i])[ok ? n : 0] = 0;
            if (!ok)
                keys[0] = NULL;
        }
        if (!keys[0]) {
            r->ncolls++;
            return bad(x, "a collective's name field is not a string");
        }
        /* the job only compares these (sizes, counts) or reads them as doubles: their whole range */
        if (get_int(x, &a->items[4], INT64_MIN, &c->group_size, "a collective's group size") < 0 ||
            get_u64(x, &a->items[5], &c->bytes, "a collective's size") < 0 ||
            get_u64(x, &a->items[6], &c->count, "a collective's count") < 0 ||
            get_int(x, &a->items[7], 0, &c->total_ns, "a collective's time") < 0) {
            r->ncolls++; /* its strings are set: freed with the others */
            return -1;
        }
    }
    r->calls = tp_xcalloc(ca->n + 1, sizeof *r->calls);
    for (; r->ncalls < ca->n; r->ncalls++) {
        const tp_jv *a = &ca->items[r->ncalls];
        tp_rank_call *c = &r->calls[r->ncalls];
        int64_t coll;
        if (a->type != TP_JV_ARRAY || a->n != 4)
            return bad(x, "a call is not [collective, start, duration, seq]");
        if (get_int(x, &a->items[0], 0, &coll, "a call's collective") < 0 ||
            get_ns(x, &a->items[1], -MAX_START_NS, MAX_START_NS, &c->start_ns, "a call's start") < 0 ||
            get_ns(x, &a->items[2], 0, MAX_NS, &c->dur_ns, "a call's duration") < 0 ||
            get_int(x, &a->items[3], INT64_MIN, &c->seq, "a call's seq") < 0)
            return -1;
        if ((uint64_t)coll >= r->ncolls)
            return bad(x, "a call names a collective that is not there");
        c->coll = (uint32_t)coll;
    }
    return parse_extras(x, root, r);
}

int tp_rank_sum_parse(const char *text, size_t len, tp_rank_sum *r, tp_err *err)
{
    memset(r, 0, sizeof *r);
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root;
    rd x = {err, ""};
    int rc = tp_jv_parse_all(&doc, text, len, &root, err);
    if (rc == 0)
        rc = parse_root(&x, root, r);
    tp_jdoc_free(&doc);
    if (rc < 0)
        tp_rank_sum_free(r);
    return rc;
}
