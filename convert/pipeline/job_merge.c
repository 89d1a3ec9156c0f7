/* job_merge.c: a distributed job's ranks merged into one trace (job_merge.h). */
#include "convert/pipeline/job_merge.h"
#include "convert/codec/json_value.h"
#include "convert/codec/json_write.h"
#include "convert/model/coll_calls.h"
#include "convert/model/dist_info.h"
#include "convert/model/trace_append.h"
#include "convert/model/tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What is kept of one file once its trace is appended and freed. */
typedef struct part {
    tp_dist_info dist;
    tp_sync_point *pts;
    size_t npts;
    size_t first_event, nevents;
    tp_buf toplevel;
    uint64_t events_in;
    size_t slot; /* place in rank order */
} part;

/* Per process of the merged trace: where it came from. */
typedef struct proc_origin {
    uint32_t part;
    uint32_t order; /* its place in its rank's own process order */
    int64_t pid;    /* its pid in its rank's trace */
} proc_origin;

/* Args the trace keeps outside its arena (a plain file's args left in the
 * file, XPlane's stats, inline name/group handles) mean something only with
 * that trace's source: copied into the arena before the trace is appended. */
static void args_into_arena(tp_trace *u)
{
    void *cur = tp_args_cursor_new(u);
    tp_buf scratch = {0};
    for (size_t i = 0; i < u->nevents; i++) {
        tp_event *e = &u->events[i];
        if (!(e->args & TP_ARGS_EXTERNAL))
            continue;
        size_t len = 0;
        const char *s = tp_args_get_r(u, cur, &scratch, e->args, &len);
        e->args = s && len ? tp_args_add(u, s, len) : 0;
    }
    tp_buf_free(&scratch);
    tp_args_cursor_free(u, cur);
}

/* Load one file and append it to t; its origins recorded. */
static int add_file(const char *path, const tp_load_opts *lo, tp_trace *t, part *pt, uint32_t ipart,
                    proc_origin **orig, size_t *orig_cap, tp_err *err)
{
    tp_trace u;
    tp_trace_init(&u);
    if (tp_load(path, lo, &u, err) < 0) {
        tp_trace_free(&u);
        return -1;
    }
    tp_dist_info_read(&u, &pt->dist);
    pt->npts = tp_coll_sync_points(&u, &pt->pts);
    tp_buf_put(&pt->toplevel, u.toplevel.data ? u.toplevel.data : "", u.toplevel.len);
    pt->events_in = u.events_in;
    args_into_arena(&u);
    tp_assign_ids(&u); /* string pids get numbers, as the writer would give them */
    uint32_t *porder = tp_process_order(&u);
    uint32_t *place = tp_xmalloc((u.nprocesses + 1) * sizeof *place);
    for (size_t k = 0; k < u.nprocesses; k++)
        place[porder[k]] = (uint32_t)k;
    free(porder);
    /* provisional pids, unique in t (the final ones need every rank): a
     * string pid is found by its key, so the key goes, its text as the name */
    int64_t *pid = tp_xmalloc((u.nprocesses + 1) * sizeof *pid);
    for (size_t k = 0; k < u.nprocesses; k++) {
        tp_process *p = &u.processes[k];
        pid[k] = p->pid;
        if (!p->name && p->key)
            p->name = p->key;
        p->key = 0;
        p->pid = -2 - (int64_t)(t->nprocesses + k);
    }
    if (!t->nevents && !t->nprocesses) {
        t->base_ns = u.base_ns;
        t->format = u.format;
        t->keep_args = u.keep_args;
        t->strict = u.strict;
    }
    int64_t delta = u.base_ns - t->base_ns; /* u's times on t's base */
    for (size_t i = 0; delta && i < u.nevents; i++)
        u.events[i].ts += delta;
    pt->first_event = t->nevents;
    pt->nevents = u.nevents;
    tp_append_how how = {0};
    tp_append_map m;
    tp_trace_append(t, &u, &how, &m);
    TP_GROW(*orig, *orig_cap, t->nprocesses + 1);
    for (size_t k = 0; k < u.nprocesses; k++)
        (*orig)[m.process[k]] = (proc_origin){ipart, place[k], pid[k]};
    tp_append_map_free(&m);
    free(place);
    free(pid);
    tp_trace_free(&u);
    return 0;
}

/* --- ranks, clocks, names ------------------------------------------------- */

static const part *g_parts; /* qsort has no user pointer: set around the call */
static const proc_origin *g_orig;

static int cmp_proc(const void *a, const void *b)
{
    const proc_origin *x = &g_orig[*(const uint32_t *)a], *y = &g_orig[*(const uint32_t *)b];
    size_t sx = g_parts[x->part].slot, sy = g_parts[y->part].slot;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Each process keeps its pid unless a lower rank's has it (job_merge.h). */
static void final_pids(tp_trace *t, const part *parts, const proc_origin *orig)
{
    size_t n = t->nprocesses;
    uint32_t *o = tp_xmalloc((n + 1) * sizeof *o);
    for (size_t k = 0; k < n; k++)
        o[k] = (uint32_t)k;
    g_parts = parts;
    g_orig = orig;
    qsort(o, n, sizeof *o, cmp_proc);
    g_parts = NULL;
    g_orig = NULL;
    tp_i64map used = {0};
    int64_t max = -1;
    for (size_t k = 0; k < n; k++)
        if (orig[k].pid > max)
            max = orig[k].pid;
    bool *moved = tp_xcalloc(n + 1, sizeof *moved);
    for (size_t j = 0; j < n; j++) {
        uint32_t k = o[j];
        if (tp_i64map_get(&used, orig[k].pid) != TP_I64MAP_EMPTY)
            moved[k] = true;
        else {
            tp_i64map_put(&used, orig[k].pid, k);
            t->processes[k].pid = orig[k].pid;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (moved[o[j]])
            t->processes[o[j]].pid = ++max;
    free(moved);
    tp_i64map_free(&used);
    free(o);
    tp_process_reindex(t);
}

static bool is_id_event(const tp_event *e)
{
    return (e->flags & TP_EV_HAS_ID) && e->ph && strchr("stfben", e->ph);
}

/* Is v an id an earlier rank or this one (as read, or as renamed so far) uses? */
static bool id_taken(const tp_i64map *used, const tp_i64map *own, uint64_t v)
{
    return tp_i64map_get(used, (int64_t)v) != TP_I64MAP_EMPTY || tp_i64map_get(own, (int64_t)v) != TP_I64MAP_EMPTY;
}

/* A new name for string id `id` of rank `rank`: "ID@rankR", or
 * "ID@rankR#2", "#3", ... when that is taken too (rank 0 may have its own
 * "x@rank1"): free among every id the ranks use, so no two flows merge. */
static uint64_t fresh_str_id(tp_trace *t, uint64_t id, int64_t rank, const tp_i64map *used, const tp_i64map *own)
{
    tp_buf b = {0};
    uint64_t v = 0;
    for (unsigned k = 1;; k++) {
        b.len = 0;
        tp_buf_put(&b, tp_str_get(t, (tp_str)id), tp_str_len(t, (tp_str)id));
        if (k == 1)
            tp_buf_printf(&b, "@rank%lld", (long long)rank);
        else
            tp_buf_printf(&b, "@rank%lld#%u", (long long)rank, k);
        v = tp_intern(t, b.data, b.len);
        if (!id_taken(used, own, v))
            break;
    }
    tp_buf_free(&b);
    return v;
}

/* Flow and async ids kept apart between ranks (job_merge.h): rank by rank,
 * an id an earlier rank used is renamed, the same way for all its events,
 * to an id that no rank uses (checked against all of them, not assumed). */
static void separate_ids(tp_trace *t, const part *parts, const uint32_t *by_rank, size_t nparts,
                         const tp_merge_rank *jr)
{
    tp_i64map used_num = {0}, used_str = {0}; /* ids of the ranks before */
    uint64_t max = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (is_id_event(&t->events[i]) && !(t->events[i].flags & TP_EV_ID_STRING) && t->events[i].id > max)
            max = t->events[i].id;
    for (size_t r = 0; r < nparts; r++) {
        const part *pt = &parts[by_rank[r]];
        tp_i64map mine_num = {0}, mine_str = {0}; /* this rank's id -> index into newv */
        tp_i64map own_num = {0}, own_str = {0};   /* every id this rank uses: as read, and as renamed */
        for (size_t i = pt->first_event; i < pt->first_event + pt->nevents; i++) {
            const tp_event *e = &t->events[i];
            if (is_id_event(e))
                tp_i64map_put(e->flags & TP_EV_ID_STRING ? &own_str : &own_num, (int64_t)e->id, 0);
        }
        uint64_t *newv = NULL;
        size_t nnew = 0, cap = 0;
        for (size_t i = pt->first_event; i < pt->first_event + pt->nevents; i++) {
            tp_event *e = &t->events[i];
            if (!is_id_event(e))
                continue;
            bool str = e->flags & TP_EV_ID_STRING;
            tp_i64map *mine = str ? &mine_str : &mine_num;
            uint32_t at = tp_i64map_get(mine, (int64_t)e->id);
            if (at == TP_I64MAP_EMPTY) {
                uint64_t v = e->id;
                if (tp_i64map_get(str ? &used_str : &used_num, (int64_t)e->id) != TP_I64MAP_EMPTY) {
                    if (str) {
                        v = fresh_str_id(t, e->id, jr[r].rank, &used_str, &own_str);
                        e = &t->events[i];
                    } else { /* above every id read; past 2^64-1, the next free one */
                        do
                            v = ++max;
                        while (v == 0 || id_taken(&used_num, &own_num, v));
                    }
                    tp_i64map_put(str ? &own_str : &own_num, (int64_t)v, 0);
                }
                TP_GROW(newv, cap, nnew + 1);
                newv[nnew] = v;
                at = (uint32_t)nnew++;
                tp_i64map_put(mine, (int64_t)e->id, at);
            }
            e->id = newv[at];
        }
        for (size_t i = pt->first_event; i < pt->first_event + pt->nevents; i++) {
            const tp_event *e = &t->events[i];
            if (is_id_event(e))
                tp_i64map_put(e->flags & TP_EV_ID_STRING ? &used_str : &used_num, (int64_t)e->id, 0);
        }
        free(newv);
        tp_i64map_free(&mine_num);
        tp_i64map_free(&mine_str);
        tp_i64map_free(&own_num);
        tp_i64map_free(&own_str);
    }
    tp_i64map_free(&used_num);
    tp_i64map_free(&used_str);
}

/* "rank 3: python3" (or "rank 3" for a process without a name). */
static void rename_processes(tp_trace *t, const part *parts, const proc_origin *orig, const tp_merged_job *job)
{
    tp_buf b = {0};
    for (size_t k = 0; k < t->nprocesses; k++) {
        const part *pt = &parts[orig[k].part];
        tp_process *p = &t->processes[k];
        b.len = 0;
        tp_buf_printf(&b, "rank %lld", (long long)job->ranks[pt->slot].rank);
        if (p->name) {
            tp_buf_puts(&b, ": ");
            tp_buf_put(&b, tp_str_get(t, p->name), tp_str_len(t, p->name));
        }
        tp_str name = tp_intern(t, b.data, b.len);
        p = &t->processes[k];
        p->name = name;
        p->job_slot = (uint32_t)pt->slot + 1;
        p->sort_index = orig[k].order;
        p->has_sort = true;
    }
    tp_buf_free(&b);
}

/* The lowest rank's top-level keys but its distributedInfo (the merged
 * trace is no single rank), then "tracepress_job". */
static void set_toplevel(tp_trace *t, const part *ref, const tp_merged_job *job)
{
    tp_buf b = {0};
    if (ref->toplevel.len) {
        tp_buf src = {0};
        tp_jdoc doc;
        tp_jdoc_init(&doc);
        const tp_jv *root = tp_jv_parse_members(&doc, ref->toplevel.data, ref->toplevel.len, &src);
        if (root) {
            for (uint32_t i = 0; i < root->n; i++) {
                if (root->key_lens[i] == 15 && memcmp(root->keys[i], "distributedInfo", 15) == 0)
                    continue;
                if (root->key_lens[i] == 14 && memcmp(root->keys[i], "tracepress_job", 14) == 0)
                    continue;
                tp_json_put_string(&b, root->keys[i], root->key_lens[i], NULL);
                tp_buf_putc(&b, ':');
                tp_jv_write(&b, &root->items[i]);
                tp_buf_putc(&b, ',');
            }
        }
        tp_jdoc_free(&doc);
        tp_buf_free(&src);
    }
    tp_buf_puts(&b, "\"tracepress_job\":");
    tp_merge_json(job, &b);
    tp_buf_free(&t->toplevel);
    t->toplevel = b;
}

int tp_merge_job(const char *const *paths, size_t n, const tp_load_opts *lo, tp_trace *t, tp_merged_job *job,
                 const char **bad_path, tp_err *err)
{
    memset(job, 0, sizeof *job);
    *bad_path = NULL;
    part *parts = tp_xcalloc(n + 1, sizeof *parts);
    proc_origin *orig = NULL;
    size_t orig_cap = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (add_file(paths[i], lo, t, &parts[i], (uint32_t)i, &orig, &orig_cap, err) < 0) {
            *bad_path = paths[i];
            rc = -1;
        }
    }
    int64_t *rank = tp_xmalloc((n + 1) * sizeof *rank);
    int *from = tp_xmalloc((n + 1) * sizeof *from);
    tp_dist_info *dist = tp_xmalloc((n + 1) * sizeof *dist);
    for (size_t i = 0; i < n; i++)
        dist[i] = parts[i].dist;
    if (rc == 0 && tp_job_assign_ranks(dist, paths, n, rank, from, err) < 0)
        rc = -1;
    free(dist);
    if (rc == 0) {
        /* rank order (ranks are distinct now) */
        uint32_t *by_rank = tp_xmalloc((n + 1) * sizeof *by_rank);
        for (size_t i = 0; i < n; i++)
            by_rank[i] = (uint32_t)i;
        for (size_t i = 1; i < n; i++) /* insertion sort: a job has hundreds of ranks at most */
            for (size_t j = i; j > 0 && rank[by_rank[j]] < rank[by_rank[j - 1]]; j--) {
                uint32_t x = by_rank[j];
                by_rank[j] = by_rank[j - 1];
                by_rank[j - 1] = x;
            }
        job->n = n;
        job->ranks = tp_xcalloc(n + 1, sizeof *job->ranks);
        const tp_sync_point **pts = tp_xmalloc((n + 1) * sizeof *pts);
        size_t *npts = tp_xmalloc((n + 1) * sizeof *npts);
        tp_align_result *res = tp_xmalloc((n + 1) * sizeof *res);
        for (size_t r = 0; r < n; r++) {
            part *pt = &parts[by_rank[r]];
            pt->slot = r;
            pts[r] = pt->pts;
            npts[r] = pt->npts;
        }
        tp_clock_align(pts, npts, n, res);
        for (size_t r = 0; r < n; r++) {
            const part *pt = &parts[by_rank[r]];
            job->ranks[r] = (tp_merge_rank){paths[by_rank[r]], rank[by_rank[r]], from[by_rank[r]], pt->dist.world_size,
                                          pt->npts, res[r], pt->events_in};
            for (size_t i = pt->first_event; res[r].offset_ns && i < pt->first_event + pt->nevents; i++)
                t->events[i].ts += res[r].offset_ns;
        }
        final_pids(t, parts, orig);
        rename_processes(t, parts, orig, job);
        separate_ids(t, parts, by_rank, n, job->ranks);
        set_toplevel(t, &parts[by_rank[0]], job);
        free(pts);
        free(npts);
        free(res);
        free(by_rank);
    }
    for (size_t i = 0; i < n; i++) {
        tp_dist_info_free(&parts[i].dist);
        free(parts[i].pts);
        tp_buf_free(&parts[i].toplevel);
    }
    free(parts);
    free(orig);
    free(rank);
    free(from);
    return rc;
}

void tp_merge_free(tp_merged_job *job)
{
    free(job->ranks);
    memset(job, 0, sizeof *job);
}

void tp_merge_json(const tp_merged_job *job, tp_buf *b)
{
    tp_buf_printf(b, "{\"ranks_merged\":%zu,\"reference_rank\":%lld,\"alignment\":\"collective ends\","
                     "\"tolerance_ns\":%d,\"ranks\":[",
                  job->n, job->n ? (long long)job->ranks[0].rank : -1LL, TP_ALIGN_TOLERANCE_NS);
    for (size_t r = 0; r < job->n; r++) {
        const tp_merge_rank *j = &job->ranks[r];
        tp_buf_printf(b, "%s{\"rank\":%lld,\"file\":", r ? "," : "", (long long)j->rank);
        tp_json_put_string(b, j->path, strlen(j->path), NULL);
        tp_buf_printf(b,
                      ",\"rank_from\":\"%s\",\"world_size\":%lld,\"offset_ns\":%lld,\"method\":\"%s\","
                      "\"collectives\":%zu,\"matched\":%u,\"spread_ns\":%lld}",
                      tp_rank_from_name(j->from), (long long)j->world_size, (long long)j->align.offset_ns,
                      tp_align_method_name(j->align.method), j->sync_points, j->align.matched,
                      (long long)j->align.spread_ns);
    }
    tp_buf_puts(b, "]}");
}

void tp_merge_print(const tp_merged_job *job)
{
    for (size_t r = 0; r < job->n; r++) {
        const tp_merge_rank *j = &job->ranks[r];
        fprintf(stderr, TP_PROG ": job: rank %lld (", (long long)j->rank);
        tp_put_printable(stderr, j->path);
        if (j->align.method == TP_ALIGN_REFERENCE)
            fprintf(stderr, "): the reference clock, %zu collectives\n", j->sync_points);
        else if (j->align.method == TP_ALIGN_COLLECTIVES) {
            char us[48], sp[48];
            us[tp_format_fixed(us, j->align.offset_ns, 3)] = 0;
            sp[tp_format_fixed(sp, j->align.spread_ns, 3)] = 0;
            fprintf(stderr, "): clock offset %s%s us from %u of %zu collectives (spread %s us)\n",
                    j->align.offset_ns >= 0 ? "+" : "", us, j->align.matched, j->sync_points, sp);
        } else if (!j->sync_points)
            fputs("): clock not aligned: no collective call found; its recorded clock kept\n", stderr);
        else
            fprintf(stderr, "): clock not aligned: fewer than 2 of its %zu collectives matched a lower rank's; "
                            "its recorded clock kept\n",
                    j->sync_points);
    }
}
