/* rank_sum.c: one rank's summary, built from its analysis, written and read
 * back (rank_sum.h). */
#include "report/job/rank_sum.h"
#include "convert/codec/json_value.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s) { return tp_xstrdup(s ? s : ""); }

void tp_rank_sum_build(const tp_summary *s, tp_rank_sum *r)
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
        r->steps[i] = (tp_rank_step){st->step, t->base_ns + st->ts, st->host_ns, s->gt.steps[i]};
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
        r->calls[i] = (tp_rank_call){k->row, t->base_ns + k->ts, k->dur, k->seq};
    }
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
static void figs_json(tp_buf *b, const tp_gpu_figs *f)
{
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
        tp_buf_printf(b, "%s[%lld,%lld,%lld,", i ? ",\n" : "\n", (long long)s->number, (long long)s->start_ns,
                      (long long)s->dur_ns);
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
                      (unsigned long long)c->count, (long long)c->total_ns);
    }
    tp_buf_puts(b, "],\n\"calls\":[");
    for (size_t i = 0; i < r->ncalls; i++) {
        const tp_rank_call *c = &r->calls[i];
        tp_buf_printf(b, "%s[%u,%lld,%lld,%lld]", i ? (i % 8 ? "," : ",\n") : "\n", c->coll, (long long)c->start_ns,
                      (long long)c->dur_ns, (long long)c->seq);
    }
    tp_buf_puts(b, "]}\n");
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

/* Times are bounded so that the job's sums and differences of them never
 * overflow: durations and figures up to 2^60 ns (36 years), starts within
 * +-2^61 (the year 2043 since 1970). */
#define MAX_NS (1LL << 60)
#define MAX_START_NS (1LL << 61)

static int get_int(rd *x, const tp_jv *v, int64_t lo, int64_t *out, const char *what)
{
    if (!v || tp_jv_int(v, out) != 0 || *out < lo)
        return tp_fail_at(x->err, x->where, "%s is not a whole number >= %lld", what, (long long)lo);
    return 0;
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
    int64_t v[13];
    if (!a || a->type != TP_JV_ARRAY || a->n != 13)
        return bad(x, "GPU figures are not an array of 13 numbers");
    for (int i = 0; i < 13; i++)
        if (get_ns(x, &a->items[i], 0, MAX_NS, &v[i], "a GPU figure") < 0)
            return -1;
    *f = (tp_gpu_figs){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                       (uint64_t)v[10], (uint64_t)v[11], (uint64_t)v[12]};
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

static int parse_root(rd *x, const tp_jv *root, tp_rank_sum *r)
{
    if (root->type != TP_JV_OBJECT || !tp_jv_str_eq(tp_jv_get(root, "schema"), TP_RANK_SCHEMA))
        return bad(x, "not a rank summary (schema " TP_RANK_SCHEMA ")");
    if (get_str(x, root, "path", &r->path) < 0 || get_str(x, root, "name", &r->name) < 0 ||
        get_str(x, root, "format", &r->format) < 0 || get_str(x, root, "device", &r->device) < 0)
        return -1;
    int64_t idx, nin;
    if (get_int(x, tp_jv_get(root, "input_index"), 0, &idx, "input_index") < 0 ||
        get_int(x, tp_jv_get(root, "inputs"), 1, &nin, "inputs") < 0)
        return -1;
    if (idx >= nin)
        return bad(x, "input_index is not below inputs");
    r->input_index = (uint64_t)idx;
    r->inputs = (uint64_t)nin;
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
    if (get_int(x, tp_jv_get(d, "rank"), -1, &r->dist_rank, "rank") < 0 ||
        get_int(x, tp_jv_get(d, "world_size"), -1, &r->world_size, "world_size") < 0 ||
        get_str(x, d, "backend", &r->backend) < 0 ||
        get_int(x, tp_jv_get(d, "default_group_size"), -1, &r->pg_size, "default_group_size") < 0)
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
    int64_t ev, wa;
    if (get_int(x, tp_jv_get(root, "events"), 0, &ev, "events") < 0 ||
        get_int(x, tp_jv_get(root, "warnings"), 0, &wa, "warnings") < 0)
        return -1;
    r->events = (uint64_t)ev;
    r->warnings = (uint64_t)wa;
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
        if (get_int(x, &a->items[0], -1, &s->number, "a step number") < 0 ||
            get_ns(x, &a->items[1], -MAX_START_NS, MAX_START_NS, &s->start_ns, "a step start") < 0 ||
            get_ns(x, &a->items[2], 0, MAX_NS, &s->dur_ns, "a step duration") < 0 ||
            read_figs(x, &a->items[3], &s->gpu) < 0)
            return -1;
    }
    r->colls = tp_xcalloc(co->n + 1, sizeof *r->colls);
    for (; r->ncolls < co->n; r->ncolls++) {
        const tp_jv *a = &co->items[r->ncolls];
        tp_rank_coll *c = &r->colls[r->ncolls];
        int64_t v[4];
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
        for (int i = 0; i < 4; i++)
            if (get_ns(x, &a->items[4 + i], 0, MAX_NS, &v[i], "a collective's number") < 0) {
                r->ncolls++; /* its strings are set: freed with the others */
                return -1;
            }
        c->group_size = v[0];
        c->bytes = (uint64_t)v[1];
        c->count = (uint64_t)v[2];
        c->total_ns = v[3];
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
            get_int(x, &a->items[3], -1, &c->seq, "a call's seq") < 0)
            return -1;
        if ((uint64_t)coll >= r->ncolls)
            return bad(x, "a call names a collective that is not there");
        c->coll = (uint32_t)coll;
    }
    return 0;
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
