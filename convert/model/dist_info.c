/* dist_info.c: the trace's rank and job identity (dist_info.h). */
#include "convert/model/dist_info.h"
#include "convert/codec/json_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void copy_str(const tp_jv *v, char *buf, size_t n)
{
    size_t len, k = 0;
    const char *s = v ? tp_jv_str(v, &len) : NULL;
    for (size_t i = 0; s && i < len && k + 1 < n; i++) /* printable ASCII: it goes to Markdown and pages */
        buf[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[k] = 0;
}

static int64_t int_or(const tp_jv *v, int64_t dflt)
{
    int64_t x;
    return v && tp_jv_int(v, &x) == 0 ? x : dflt;
}

static void read_groups(const tp_jv *cfg, tp_dist_info *d)
{
    if (!cfg || cfg->type != TP_JV_ARRAY || !cfg->n)
        return;
    d->groups = tp_xcalloc(cfg->n, sizeof *d->groups);
    for (uint32_t i = 0; i < cfg->n; i++) {
        const tp_jv *g = &cfg->items[i];
        if (g->type != TP_JV_OBJECT) {
            d->problem = "a pg_config entry that is not an object";
            continue;
        }
        tp_pg_info *p = &d->groups[d->ngroups++];
        copy_str(tp_jv_get(g, "pg_name"), p->name, sizeof p->name);
        copy_str(tp_jv_get(g, "pg_desc"), p->desc, sizeof p->desc);
        p->size = int_or(tp_jv_get(g, "pg_size"), -1);
        const tp_jv *r = tp_jv_get(g, "ranks");
        if (r && r->type == TP_JV_ARRAY && r->n) {
            p->ranks = tp_xmalloc(r->n * sizeof *p->ranks);
            for (uint32_t k = 0; k < r->n; k++) {
                int64_t x;
                if (tp_jv_int(&r->items[k], &x) == 0)
                    p->ranks[p->nranks++] = x;
                else
                    d->problem = "a pg_config rank that is not an integer";
            }
        }
    }
}

void tp_dist_info_read(const tp_trace *t, tp_dist_info *d)
{
    memset(d, 0, sizeof *d);
    d->rank = d->world_size = -1;
    if (!t->toplevel.len)
        return;
    /* the top-level keys are kept as "k":v,"k":v text: parse them as an object */
    tp_buf b = {0};
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root = tp_jv_parse_members(&doc, t->toplevel.data, t->toplevel.len, &b);
    if (root) {
        const tp_jv *di = tp_jv_get(root, "distributedInfo");
        if (di && di->type == TP_JV_OBJECT) {
            d->present = true;
            const tp_jv *rk = tp_jv_get(di, "rank"), *ws = tp_jv_get(di, "world_size");
            d->rank = int_or(rk, -1);
            d->world_size = int_or(ws, -1);
            copy_str(tp_jv_get(di, "backend"), d->backend, sizeof d->backend);
            read_groups(tp_jv_get(di, "pg_config"), d);
            /* a rank or world size given but unusable is a lie about the job (refused by
             * tp_job_assign_ranks); an absent rank leaves the file name to tell it */
            if (ws && d->world_size < 1)
                d->problem = "a world_size that is not a whole number above 0";
            else if (rk && d->rank < 0)
                d->problem = "a rank that is not a whole number >= 0";
            else if (d->rank >= 0 && d->world_size >= 1 && d->rank >= d->world_size)
                d->problem = "a rank not below world_size";
        } else if (di && di->type != TP_JV_NULL) /* null: as if absent */
            d->problem = "distributedInfo that is not an object";
    }
    tp_jdoc_free(&doc);
    tp_buf_free(&b);
}

void tp_dist_info_free(tp_dist_info *d)
{
    for (size_t i = 0; i < d->ngroups; i++)
        free(d->groups[i].ranks);
    free(d->groups);
    memset(d, 0, sizeof *d);
}

int64_t tp_rank_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int64_t rank = -1;
    for (const char *p = base; *p; p++) { /* the last "rank" followed by digits */
        if (strncasecmp(p, "rank", 4) != 0)
            continue;
        const char *q = p + 4;
        while (*q == '-' || *q == '_' || *q == '.')
            q++;
        if (*q < '0' || *q > '9')
            continue;
        int64_t v = 0;
        for (; *q >= '0' && *q <= '9' && v >= 0; q++)
            v = v > (INT64_MAX - 9) / 10 ? -1 : v * 10 + (*q - '0'); /* too long: no rank (not its first digits) */
        if (v >= 0)
            rank = v;
    }
    return rank;
}

const char *tp_rank_from_name(int from)
{
    return from == TP_RANK_FROM_TRACE ? "distributedInfo" : from == TP_RANK_FROM_NAME ? "file name" : "order";
}

/* The job-wide group: "default_pg", else pg_name "0". */
static const tp_pg_info *default_group(const tp_dist_info *d)
{
    for (size_t i = 0; i < d->ngroups; i++)
        if (strcmp(d->groups[i].desc, "default_pg") == 0)
            return &d->groups[i];
    for (size_t i = 0; i < d->ngroups; i++)
        if (strcmp(d->groups[i].name, "0") == 0)
            return &d->groups[i];
    return NULL;
}

static bool same_group(const tp_pg_info *a, const tp_pg_info *b)
{
    if (a->size != b->size || a->nranks != b->nranks)
        return false;
    return !a->nranks || memcmp(a->ranks, b->ranks, a->nranks * sizeof *a->ranks) == 0;
}

int tp_job_assign_ranks(const tp_dist_info *d, const char *const *paths, size_t n, int64_t *rank, int *from,
                        tp_err *err)
{
    int64_t world = -1;
    size_t world_at = 0;
    const tp_pg_info *pg = NULL;
    size_t pg_at = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i].problem) /* was: a fallback to the file name or order, in silence (rank 2 of a world of 2) */
            return tp_fail_at(err, "", "not one job: %s: its distributedInfo has a problem: %s", paths[i], d[i].problem);
        if (d[i].present && d[i].rank >= 0) {
            rank[i] = d[i].rank;
            from[i] = TP_RANK_FROM_TRACE;
        } else if ((rank[i] = tp_rank_from_path(paths[i])) >= 0)
            from[i] = TP_RANK_FROM_NAME;
        else {
            rank[i] = (int64_t)i;
            from[i] = TP_RANK_FROM_ORDER;
        }
        if (d[i].world_size >= 1) {
            if (world >= 0 && d[i].world_size != world)
                return tp_fail_at(err, "", "not one job: %s has world_size %lld, %s has %lld", paths[world_at],
                                  (long long)world, paths[i], (long long)d[i].world_size);
            world = d[i].world_size;
            world_at = i;
        }
        const tp_pg_info *g = default_group(&d[i]);
        if (g) {
            if (pg && !same_group(pg, g))
                return tp_fail_at(err, "", "not one job: the default process group of %s differs from %s's",
                                  paths[i], paths[pg_at]);
            pg = g;
            pg_at = i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (world >= 1 && rank[i] >= world)
            return tp_fail_at(err, "", "not one job: %s is rank %lld (from its %s) of a world of %lld", paths[i],
                              (long long)rank[i], tp_rank_from_name(from[i]), (long long)world);
        for (size_t k = 0; k < i; k++)
            if (rank[k] == rank[i])
                return tp_fail_at(err, "", "two traces are rank %lld: %s and %s (ranks from %s and %s)",
                                  (long long)rank[i], paths[k], paths[i], tp_rank_from_name(from[k]),
                                  tp_rank_from_name(from[i]));
    }
    return 0;
}
