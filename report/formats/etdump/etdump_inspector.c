/* etdump_inspector.c: Inspector-equivalent grouping and statistics of an
 * ETDump (see etdump_inspector.h).  Upstream details kept on purpose:
 *  - an EventSignature seen twice in one run keeps its first position and
 *    the last event's time (upstream builds an ordered dict per run);
 *  - a debug event's name and delegate id, when present, override the
 *    profile event's (upstream fills the event from the profile signature,
 *    then from the debug signature);
 *  - program-output debug events are not events; allocation events are
 *    skipped (upstream raises on them). */
#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/etdump/etrecord.h"
#include "convert/codec/json_write.h"
#include "convert/base/i64map.h"
#include "convert/base/sort.h"
#include "convert/base/strset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ids found by hash: the newest id of each hash in a tp_i64map, and per
 * id the one before it with the same hash (distinct keys may share one) ---- */

typedef struct idx {
    tp_i64map newest;
    uint32_t *prev; /* per id */
    size_t prev_cap;
} idx;

/* Find the id whose key equals (by eq) the probe with hash h, or add id
 * `fresh` (ids are added in order from 0 after each tp_i64map_clear).
 * Returns the existing id or `fresh`. */
static uint32_t idx_find_or_add(idx *x, uint64_t h, bool (*eq)(const void *ctx, uint32_t id), const void *ctx,
                                uint32_t fresh)
{
    uint32_t head = tp_i64map_get(&x->newest, (int64_t)h);
    for (uint32_t id = head; id != TP_I64MAP_EMPTY; id = x->prev[id])
        if (eq(ctx, id))
            return id;
    TP_GROW(x->prev, x->prev_cap, (size_t)fresh + 1);
    x->prev[fresh] = head;
    tp_i64map_put(&x->newest, (int64_t)h, fresh);
    return fresh;
}

static void idx_free(idx *x)
{
    tp_i64map_free(&x->newest);
    free(x->prev);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_bytes(uint64_t h, const tp_etdump *d, tp_ed_slice s)
{
    return mix(h, tp_hash_bytes((const char *)d->data + s.pos, s.len));
}

static bool same_bytes(const tp_etdump *d, tp_ed_slice a, tp_ed_slice b)
{
    return a.len == b.len && memcmp(d->data + a.pos, d->data + b.pos, a.len) == 0;
}

/* ---- signatures ---- */

typedef struct sig {
    int32_t instr; /* the instruction event's id */
    bool has_prof, has_dbg;
    int32_t p_instr, p_dint, d_instr, d_dint;
    tp_ed_slice p_name, p_dstr, d_name, d_dstr;
    uint64_t hash;
    uint32_t ev;   /* the profile event (index into d->events) whose time this run contributes */
    uint32_t dbg_count;
} sig;

static bool sig_eq(const tp_etdump *d, const sig *a, const sig *b)
{
    if (a->instr != b->instr || a->has_prof != b->has_prof || a->has_dbg != b->has_dbg)
        return false;
    if (a->has_prof && (a->p_instr != b->p_instr || a->p_dint != b->p_dint || !same_bytes(d, a->p_name, b->p_name) ||
                        !same_bytes(d, a->p_dstr, b->p_dstr)))
        return false;
    if (a->has_dbg && (a->d_instr != b->d_instr || a->d_dint != b->d_dint || !same_bytes(d, a->d_name, b->d_name) ||
                       !same_bytes(d, a->d_dstr, b->d_dstr)))
        return false;
    return true;
}

static void sig_hash(const tp_etdump *d, sig *s)
{
    uint64_t h = mix(0x1234, (uint32_t)s->instr);
    h = mix(h, (uint64_t)s->has_prof << 1 | s->has_dbg);
    if (s->has_prof) {
        h = mix(mix(h, (uint32_t)s->p_instr), (uint32_t)s->p_dint);
        h = mix_bytes(mix_bytes(h, d, s->p_name), d, s->p_dstr);
    }
    if (s->has_dbg) {
        h = mix(mix(h, (uint32_t)s->d_instr), (uint32_t)s->d_dint);
        h = mix_bytes(mix_bytes(h, d, s->d_name), d, s->d_dstr);
    }
    s->hash = h;
}

typedef struct block_work {
    tp_ed_slice name;
    int32_t bundled;
    sig *sigs; /* of the first run */
    size_t nsigs;
    uint32_t *runs;
    size_t nruns, runs_cap;
    int64_t *samples; /* nruns x nsigs, ns; -1 for debug-only signatures */
    size_t samples_cap;
    uint32_t *meta; /* per signature: samples with metadata */
    uint32_t outputs;
} block_work;

typedef struct work {
    const tp_etdump *d;
    const tp_ed_scale *sc;
    tp_inspector *out;
    /* per run scratch */
    uint32_t *next; /* per event of the run: next profile event of its group */
    size_t next_cap;
    struct group {
        int32_t instr, dint;
        int64_t chain;
        tp_ed_slice dstr;
        uint32_t head, tail, first_dbg, ndbg;
        bool has_prof;
    } *groups;
    size_t ngroups, groups_cap;
    sig *sigs;
    size_t nsigs, sigs_cap;
    idx gidx, sidx, bidx;
    const tp_ed_run *probe_run;
    const tp_ed_event *probe_ev;
    const sig *probe_sig;
    block_work *blocks;
    size_t nblocks, blocks_cap;
} work;

static bool group_eq(const void *ctx, uint32_t id)
{
    const work *w = ctx;
    const struct group *g = &w->groups[id];
    const tp_ed_event *e = w->probe_ev;
    return g->instr == e->instruction_id && g->chain == e->chain_index && g->dint == e->delegate_int &&
           same_bytes(w->d, g->dstr, e->delegate_str);
}

static bool sig_eq_cb(const void *ctx, uint32_t id)
{
    const work *w = ctx;
    return sig_eq(w->d, &w->sigs[id], w->probe_sig);
}

/* Samples are capped (1.4 years) so that centi-ns stats and sums cannot overflow. */
#define SAMPLE_MAX (INT64_MAX / 200)

static int64_t elapsed_ns(work *w, const tp_ed_event *e)
{
    uint64_t ticks;
    if (!tp_ed_elapsed(e->start, e->end, &ticks))
        w->out->nbad_time++;
    else if (e->end < e->start)
        w->out->nwraparound++;
    int64_t ns = tp_ed_ns(w->sc, ticks);
    return ns > SAMPLE_MAX ? SAMPLE_MAX : ns;
}

/* Group one run's events and list its signatures (w->sigs). */
static void run_signatures(work *w, const tp_ed_run *run, uint32_t *outputs)
{
    const tp_etdump *d = w->d;
    const tp_ed_event *evs = d->events ? d->events + run->first : NULL; /* no offset into NULL */
    TP_GROW(w->next, w->next_cap, run->n + 1);
    w->ngroups = 0;
    tp_i64map_clear(&w->gidx.newest);
    for (size_t i = 0; i < run->n; i++) {
        const tp_ed_event *e = &evs[i];
        w->next[i] = UINT32_MAX;
        if (e->type == TP_ED_ALLOC)
            continue;
        uint64_t h = mix(mix(mix((uint32_t)e->instruction_id, (uint64_t)e->chain_index), (uint32_t)e->delegate_int), 7);
        h = mix_bytes(h, d, e->delegate_str);
        TP_GROW(w->groups, w->groups_cap, w->ngroups + 1);
        w->probe_ev = e;
        uint32_t g = idx_find_or_add(&w->gidx, h, group_eq, w, (uint32_t)w->ngroups);
        if (g == w->ngroups) {
            w->groups[g] = (struct group){e->instruction_id, e->delegate_int, e->chain_index, e->delegate_str,
                                          UINT32_MAX, UINT32_MAX, UINT32_MAX, 0, false};
            w->ngroups++;
        }
        struct group *gr = &w->groups[g];
        if (e->type == TP_ED_DEBUG) {
            if (e->output) {
                (*outputs)++;
                continue;
            }
            if (gr->first_dbg == UINT32_MAX)
                gr->first_dbg = (uint32_t)i;
            gr->ndbg++;
            continue;
        }
        gr->has_prof = true;
        if (gr->tail == UINT32_MAX)
            gr->head = (uint32_t)i;
        else
            w->next[gr->tail] = (uint32_t)i;
        gr->tail = (uint32_t)i;
    }

    w->nsigs = 0;
    tp_i64map_clear(&w->sidx.newest);
    for (size_t g = 0; g < w->ngroups; g++) {
        const struct group *gr = &w->groups[g];
        if (!gr->has_prof && gr->first_dbg == UINT32_MAX)
            continue; /* only program outputs */
        sig s = {.instr = gr->instr, .dbg_count = gr->ndbg, .ev = UINT32_MAX};
        if (gr->first_dbg != UINT32_MAX) {
            const tp_ed_event *de = &evs[gr->first_dbg];
            s.has_dbg = true;
            s.d_instr = de->instruction_id;
            s.d_dint = de->delegate_int;
            s.d_name = de->name;
            s.d_dstr = de->delegate_str;
        }
        uint32_t i = gr->head;
        do {
            if (gr->has_prof) {
                const tp_ed_event *pe = &evs[i];
                s.has_prof = true;
                s.p_instr = pe->instruction_id;
                s.p_dint = pe->delegate_int;
                s.p_name = pe->name;
                s.p_dstr = pe->delegate_str;
                s.ev = (uint32_t)(run->first + i);
            }
            sig_hash(d, &s);
            TP_GROW(w->sigs, w->sigs_cap, w->nsigs + 1);
            w->probe_sig = &s;
            uint32_t k = idx_find_or_add(&w->sidx, s.hash, sig_eq_cb, w, (uint32_t)w->nsigs);
            if (k == w->nsigs)
                w->sigs[w->nsigs++] = s;
            else
                w->sigs[k].ev = s.ev; /* same signature again in this run: the later event wins */
            i = gr->has_prof ? w->next[i] : UINT32_MAX;
        } while (i != UINT32_MAX);
    }
}

/* Do two runs hold the same events in the same order, as far as the
 * Inspector's signatures can tell?  (Then they group the same way.) */
static bool same_structure(const tp_etdump *d, const tp_ed_run *a, const tp_ed_run *b)
{
    if (a->n != b->n || a->bundled_input_index != b->bundled_input_index || !same_bytes(d, a->name, b->name))
        return false;
    if (!d->events) /* two runs without events: no offset into NULL */
        return true;
    const tp_ed_event *x = d->events + a->first, *y = d->events + b->first;
    for (size_t i = 0; i < a->n; i++)
        if (x[i].type != y[i].type || x[i].instruction_id != y[i].instruction_id ||
            x[i].chain_index != y[i].chain_index || x[i].delegate_int != y[i].delegate_int ||
            x[i].output != y[i].output || !same_bytes(d, x[i].name, y[i].name) ||
            !same_bytes(d, x[i].delegate_str, y[i].delegate_str))
            return false;
    return true;
}

static uint64_t run_hash(const work *w, const tp_ed_run *run)
{
    uint64_t h = mix_bytes(mix(99, (uint32_t)run->bundled_input_index), w->d, run->name);
    for (size_t i = 0; i < w->nsigs; i++)
        h = mix(h, w->sigs[i].hash);
    return mix(h, w->nsigs);
}

static bool block_eq(const void *ctx, uint32_t id)
{
    const work *w = ctx;
    const block_work *bw = &w->blocks[id];
    const tp_ed_run *run = w->probe_run;
    if (bw->nsigs != w->nsigs || bw->bundled != run->bundled_input_index || !same_bytes(w->d, bw->name, run->name))
        return false;
    for (size_t i = 0; i < w->nsigs; i++)
        if (!sig_eq(w->d, &bw->sigs[i], &w->sigs[i]))
            return false;
    return true;
}

/* The block of this run's signature, found by hash (runs can number in the
 * millions in a hostile file), or a new one. */
static block_work *find_block(work *w, const tp_ed_run *run, uint64_t h)
{
    w->probe_run = run;
    uint32_t id = idx_find_or_add(&w->bidx, h, block_eq, w, (uint32_t)w->nblocks);
    if (id < w->nblocks)
        return &w->blocks[id];
    TP_GROW(w->blocks, w->blocks_cap, w->nblocks + 1);
    block_work *bw = &w->blocks[w->nblocks++];
    memset(bw, 0, sizeof *bw);
    bw->name = run->name;
    bw->bundled = run->bundled_input_index;
    bw->nsigs = w->nsigs;
    bw->sigs = tp_xmalloc((w->nsigs + 1) * sizeof *bw->sigs);
    if (w->nsigs)
        memcpy(bw->sigs, w->sigs, w->nsigs * sizeof *bw->sigs);
    bw->meta = tp_xcalloc(w->nsigs + 1, sizeof *bw->meta);
    return bw;
}

/* ---- statistics ---- */

#define I64_LESS(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_i64, int64_t, int, I64_LESS)

static int64_t clamp128(__int128 v) { return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v; }

/* numpy.percentile(x, p) with linear interpolation, x sorted, times 100 (exact). */
static int64_t percentile_cns(const int64_t *x, size_t n, int p)
{
    __int128 num = (__int128)p * (__int128)(n - 1);
    size_t k = (size_t)(num / 100);
    int64_t r = (int64_t)(num % 100);
    __int128 v = (__int128)x[k] * 100;
    if (r && k + 1 < n)
        v += ((__int128)x[k + 1] - x[k]) * r;
    return clamp128(v);
}

static void event_stats(tp_insp_event *ev)
{
    if (!ev->n)
        return;
    int64_t *s = tp_xmalloc(ev->n * sizeof *s);
    memcpy(s, ev->raw_ns, ev->n * sizeof *s);
    sort_i64(s, ev->n, 0);
    ev->min_ns = s[0];
    ev->max_ns = s[ev->n - 1];
    ev->p10_cns = percentile_cns(s, ev->n, 10);
    ev->p50_cns = percentile_cns(s, ev->n, 50);
    ev->p90_cns = percentile_cns(s, ev->n, 90);
    __int128 sum = 0;
    for (size_t i = 0; i < ev->n; i++)
        sum += s[i];
    __int128 c = sum * 100, n = (__int128)ev->n;
    ev->avg_cns = clamp128(c >= 0 ? (c + n / 2) / n : (c - n / 2) / n); /* rounded half away from zero */
    free(s);
}

static char *dup_slice(const tp_etdump *d, tp_ed_slice s) { return tp_xstrndup(tp_ed_text(d, s), s.len); }

static bool slice_is(const tp_etdump *d, tp_ed_slice s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(tp_ed_text(d, s), lit, n) == 0;
}

/* Name and delegate fields from one (profile or debug) signature half. */
static void apply_sig(const tp_etdump *d, tp_insp_event *ev, tp_ed_slice name, int32_t dint, tp_ed_slice dstr)
{
    free(ev->delegate_id);
    ev->delegate_id = NULL;
    ev->delegate_id_int = false;
    if (dint != -1) {
        char b[16];
        snprintf(b, sizeof b, "%d", dint);
        ev->delegate_id = tp_xstrdup(b);
        ev->delegate_id_int = true;
    } else if (dstr.len) {
        ev->delegate_id = dup_slice(d, dstr);
    }
    ev->delegated = ev->delegate_id != NULL;
    const char *nm = ev->delegated ? ev->delegate_id : NULL;
    if (nm || name.len) {
        free(ev->name);
        ev->name = nm ? tp_xstrdup(nm) : dup_slice(d, name);
    }
}

static void link_etrecord(const struct tp_etrecord *rec, tp_insp_event *ev)
{
    if (!rec || ev->instruction_id < 0 || ev->framework)
        return;
    const tp_etr_node *nodes[TP_ETR_MAX_NODES];
    const char *backend = NULL;
    size_t n = tp_etrecord_nodes(rec, ev->instruction_id, ev->delegate_id, ev->delegate_id ? strlen(ev->delegate_id) : 0,
                                 nodes, TP_ETR_MAX_NODES, &backend);
    if (backend)
        ev->backend = tp_xstrdup(backend);
    if (!n)
        return;
    tp_buf b = {0};
    tp_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            tp_buf_putc(&b, ',');
        tp_json_put_string(&b, nodes[i]->target, strlen(nodes[i]->target), NULL);
    }
    tp_buf_putc(&b, ']');
    ev->op_types = tp_xstrndup(b.data, b.len);
    tp_buf_free(&b);
    const tp_etr_node *mn = tp_etr_module_node(nodes, n); /* the module the derived Name Scope line shows */
    if (mn) {
        ev->module = tp_xstrdup(mn->module);
        ev->module_hierarchy = tp_xstrdup(mn->modules);
    }
}

static void finish_block(work *w, block_work *bw, tp_insp_block *ob, const struct tp_etrecord *rec)
{
    const tp_etdump *d = w->d;
    ob->name = dup_slice(d, bw->name);
    ob->bundled_input_index = bw->bundled;
    ob->nruns = bw->nruns;
    ob->runs = bw->runs;
    bw->runs = NULL;
    ob->outputs = bw->outputs;
    ob->nevents = bw->nsigs;
    ob->events = tp_xcalloc(bw->nsigs + 1, sizeof *ob->events);
    size_t exec = SIZE_MAX;
    for (size_t j = 0; j < bw->nsigs; j++) {
        const sig *s = &bw->sigs[j];
        tp_insp_event *ev = &ob->events[j];
        ev->name = tp_xstrdup("");
        ev->instruction_id = s->instr;
        ev->debug_only = !s->has_prof;
        ev->debug_values = s->dbg_count;
        ev->metadata_samples = bw->meta[j];
        if (s->has_prof) {
            const tp_ed_event *pe = &d->events[s->ev];
            ev->chain_index = pe->chain_index;
            apply_sig(d, ev, s->p_name, s->p_dint, s->p_dstr);
        }
        if (s->has_dbg)
            apply_sig(d, ev, s->d_name, s->d_dint, s->d_dstr);
        ev->framework = tp_ed_is_framework(ev->name, strlen(ev->name)) && !ev->delegated;
        ev->excluded = strstr(ev->name, "OPERATOR_CALL") != NULL;
        if (s->has_prof) {
            ev->n = bw->nruns;
            ev->raw_ns = tp_xmalloc((bw->nruns + 1) * sizeof *ev->raw_ns);
            for (size_t r = 0; r < bw->nruns; r++)
                ev->raw_ns[r] = bw->samples[r * bw->nsigs + j];
            event_stats(ev);
        }
        if (exec == SIZE_MAX && ev->framework && ev->n > 0 && strcmp(ev->name, "Method::execute") == 0)
            exec = j;
        link_etrecord(rec, ev);
    }
    /* Framework tax: Method::execute minus the instruction calls it made. */
    if (exec != SIZE_MAX && bw->nruns) {
        __int128 tax = 0;
        for (size_t r = 0; r < bw->nruns; r++) {
            __int128 t = bw->samples[r * bw->nsigs + exec];
            for (size_t j = 0; j < bw->nsigs; j++) {
                const sig *s = &bw->sigs[j];
                if (s->has_prof && s->p_dint == -1 && !s->p_dstr.len &&
                    (slice_is(d, s->p_name, "OPERATOR_CALL") || slice_is(d, s->p_name, "DELEGATE_CALL")))
                    t -= bw->samples[r * bw->nsigs + j];
            }
            tax += t;
        }
        __int128 c = tax * 100, n = (__int128)bw->nruns;
        ob->framework_tax_cns = clamp128(c >= 0 ? (c + n / 2) / n : (c - n / 2) / n);
        ob->has_tax = true;
    }
}

/* by total time, largest first, then name */
#define MODULE_LESS(x, y, c) \
    ((x)->total_ns > (y)->total_ns || ((x)->total_ns == (y)->total_ns && strcmp((x)->name, (y)->name) < 0))
TP_SORT_DEFINE(sort_modules, tp_insp_module, int, MODULE_LESS)

/* Time per innermost module (the Inspector's find_total_for_module skips OPERATOR_CALL). */
static void module_totals(tp_inspector *in)
{
    tp_strset names = {0}; /* module name -> its index + 1 */
    for (size_t b = 0; b < in->nblocks; b++)
        for (size_t j = 0; j < in->blocks[b].nevents; j++) {
            const tp_insp_event *ev = &in->blocks[b].events[j];
            if (!ev->module || ev->excluded || ev->framework)
                continue;
            size_t m = tp_strset_add(&names, ev->module, strlen(ev->module)) - 1;
            if (m == in->nmodules) {
                in->modules = tp_xrealloc(in->modules, (in->nmodules + 1) * sizeof *in->modules);
                in->modules[m] = (tp_insp_module){tp_xstrdup(ev->module), 0, 0};
                in->nmodules++;
            }
            for (size_t r = 0; r < ev->n; r++) {
                int64_t *tot = &in->modules[m].total_ns;
                *tot = *tot > SAMPLE_MAX - ev->raw_ns[r] ? SAMPLE_MAX : *tot + ev->raw_ns[r];
            }
            in->modules[m].events++;
        }
    tp_strset_free(&names);
    sort_modules(in->modules, in->nmodules, 0);
}

int tp_etdump_inspect(const tp_etdump *d, const struct tp_etrecord *rec, const tp_ed_scale *sc, tp_inspector *out,
                      tp_err *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    out->unit = sc->unit;
    out->nruns = d->nruns;
    out->nprofile = d->nprofile;
    out->ndebug = d->ndebug;
    out->nalloc_skipped = d->nalloc;
    work w = {.d = d, .sc = sc, .out = out};
    const tp_ed_run *prev = NULL;
    size_t prev_block = 0;
    uint32_t outputs = 0;
    for (size_t r = 0; r < d->nruns; r++) {
        const tp_ed_run *run = &d->runs[r];
        block_work *bw;
        if (prev && same_structure(d, prev, run)) {
            /* the usual N identical iterations: same signatures, same block;
             * only the events the signatures point at move */
            for (size_t j = 0; j < w.nsigs; j++)
                if (w.sigs[j].has_prof)
                    w.sigs[j].ev += (uint32_t)(run->first - prev->first);
            bw = &w.blocks[prev_block];
        } else {
            outputs = 0;
            run_signatures(&w, run, &outputs);
            if (w.nsigs == 0 && run->n == 0)
                continue; /* upstream skips runs without events */
            bw = find_block(&w, run, run_hash(&w, run));
            if (bw->nruns == 0)
                bw->outputs = outputs;
        }
        out->noutputs += outputs;
        prev = run;
        prev_block = (size_t)(bw - w.blocks);
        TP_GROW(bw->runs, bw->runs_cap, bw->nruns + 1);
        bw->runs[bw->nruns] = (uint32_t)r;
        TP_GROW(bw->samples, bw->samples_cap, (bw->nruns + 1) * bw->nsigs + 1);
        for (size_t j = 0; j < w.nsigs; j++) {
            const sig *s = &w.sigs[j];
            int64_t v = -1;
            if (s->has_prof) {
                const tp_ed_event *pe = &d->events[s->ev];
                v = elapsed_ns(&w, pe);
                if (pe->metadata.len)
                    bw->meta[j]++;
            }
            bw->samples[bw->nruns * bw->nsigs + j] = v;
        }
        bw->nruns++;
    }
    out->nblocks = w.nblocks;
    out->blocks = tp_xcalloc(w.nblocks + 1, sizeof *out->blocks);
    for (size_t b = 0; b < w.nblocks; b++) {
        finish_block(&w, &w.blocks[b], &out->blocks[b], rec);
        free(w.blocks[b].sigs);
        free(w.blocks[b].samples);
        free(w.blocks[b].meta);
        free(w.blocks[b].runs);
    }
    module_totals(out);
    free(w.blocks);
    free(w.next);
    free(w.groups);
    free(w.sigs);
    idx_free(&w.gidx);
    idx_free(&w.sidx);
    idx_free(&w.bidx);
    return 0;
}

void tp_inspector_free(tp_inspector *in)
{
    for (size_t b = 0; b < in->nblocks; b++) {
        tp_insp_block *ob = &in->blocks[b];
        for (size_t j = 0; j < ob->nevents; j++) {
            tp_insp_event *ev = &ob->events[j];
            free(ev->name);
            free(ev->delegate_id);
            free(ev->op_types);
            free(ev->module);
            free(ev->module_hierarchy);
            free(ev->backend);
            free(ev->raw_ns);
        }
        free(ob->events);
        free(ob->runs);
        free(ob->name);
    }
    free(in->blocks);
    for (size_t m = 0; m < in->nmodules; m++)
        free(in->modules[m].name);
    free(in->modules);
    memset(in, 0, sizeof *in);
}

/* ---- JSON ---- */

size_t tp_insp_ms(char *out, int64_t cns)
{
    size_t n = tp_format_fixed(out, cns, 8);
    if (memchr(out, '.', n)) {
        while (n > 1 && out[n - 1] == '0')
            n--;
        if (out[n - 1] == '.')
            n--;
    }
    out[n] = 0;
    return n;
}

static void put_ms(tp_buf *b, const char *key, int64_t cns)
{
    char num[48];
    tp_insp_ms(num, cns);
    tp_buf_printf(b, ",\"%s\":%s", key, num);
}

/* An id, or null for -1 (none). */
static void put_id(tp_buf *b, int v)
{
    if (v == -1)
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%d", v);
}

static void put_str_or_null(tp_buf *b, const char *key, const char *s)
{
    tp_buf_printf(b, ",\"%s\":", key);
    if (s)
        tp_json_put_string(b, s, strlen(s), NULL);
    else
        tp_buf_puts(b, "null");
}

void tp_inspector_json(const tp_inspector *in, tp_buf *b)
{
    tp_buf_printf(b, "{\"source_time_scale\":\"%s\",\"target_time_scale\":\"ms\",\"runs\":%llu,\"profile_events\":%llu,"
                     "\"debug_events\":%llu,\"program_outputs\":%llu,\"allocation_events_skipped\":%llu,"
                     "\"uint32_wraparounds\":%llu,\"bad_times\":%llu,\"blocks\":[",
                  in->unit, (unsigned long long)in->nruns, (unsigned long long)in->nprofile,
                  (unsigned long long)in->ndebug, (unsigned long long)in->noutputs,
                  (unsigned long long)in->nalloc_skipped, (unsigned long long)in->nwraparound,
                  (unsigned long long)in->nbad_time);
    for (size_t i = 0; i < in->nblocks; i++) {
        const tp_insp_block *ob = &in->blocks[i];
        tp_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        tp_json_put_string(b, ob->name, strlen(ob->name), NULL);
        tp_buf_printf(b, ",\"bundled_input_index\":");
        put_id(b, ob->bundled_input_index);
        tp_buf_puts(b, ",\"runs\":[");
        for (size_t r = 0; r < ob->nruns; r++)
            tp_buf_printf(b, "%s%u", r ? "," : "", ob->runs[r]);
        tp_buf_printf(b, "],\"program_outputs\":%u", ob->outputs);
        if (ob->has_tax)
            put_ms(b, "framework_tax_ms", ob->framework_tax_cns);
        tp_buf_puts(b, ",\"events\":[");
        for (size_t j = 0; j < ob->nevents; j++) {
            const tp_insp_event *ev = &ob->events[j];
            tp_buf_puts(b, j ? ",{\"event_name\":" : "{\"event_name\":");
            tp_json_put_string(b, ev->name, strlen(ev->name), NULL);
            tp_buf_printf(b, ",\"instruction_id\":");
            put_id(b, ev->instruction_id);
            tp_buf_printf(b, ",\"chain_index\":%lld,\"count\":%zu", (long long)ev->chain_index, ev->n);
            if (ev->n) {
                tp_buf_puts(b, ",\"raw_ms\":[");
                for (size_t r = 0; r < ev->n; r++) {
                    char num[48];
                    size_t len = tp_insp_ms(num, ev->raw_ns[r] * 100);
                    if (r)
                        tp_buf_putc(b, ',');
                    tp_buf_put(b, num, len);
                }
                tp_buf_putc(b, ']');
                put_ms(b, "p10_ms", ev->p10_cns);
                put_ms(b, "p50_ms", ev->p50_cns);
                put_ms(b, "p90_ms", ev->p90_cns);
                put_ms(b, "avg_ms", ev->avg_cns);
                put_ms(b, "min_ms", ev->min_ns * 100);
                put_ms(b, "max_ms", ev->max_ns * 100);
            }
            tp_buf_puts(b, ",\"delegate_debug_identifier\":");
            if (!ev->delegate_id)
                tp_buf_puts(b, "null");
            else if (ev->delegate_id_int)
                tp_buf_puts(b, ev->delegate_id);
            else
                tp_json_put_string(b, ev->delegate_id, strlen(ev->delegate_id), NULL);
            tp_buf_printf(b, ",\"is_delegated_op\":%s,\"framework\":%s,\"hidden_in_table\":%s,\"debug_values\":%u",
                          ev->delegated ? "true" : "false", ev->framework ? "true" : "false",
                          ev->excluded ? "true" : "false", ev->debug_values);
            if (ev->metadata_samples)
                tp_buf_printf(b, ",\"delegate_metadata_samples\":%u", ev->metadata_samples);
            tp_buf_printf(b, ",\"op_types\":%s", ev->op_types ? ev->op_types : "[]");
            put_str_or_null(b, "module_hierarchy", ev->module_hierarchy);
            put_str_or_null(b, "delegate_backend_name", ev->backend);
            tp_buf_putc(b, '}');
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_putc(b, ']');
    if (in->nmodules) {
        tp_buf_puts(b, ",\"modules\":[");
        for (size_t m = 0; m < in->nmodules; m++) {
            tp_buf_puts(b, m ? ",{\"module\":" : "{\"module\":");
            tp_json_put_string(b, in->modules[m].name, strlen(in->modules[m].name), NULL);
            put_ms(b, "total_ms", in->modules[m].total_ns * 100);
            tp_buf_printf(b, ",\"events\":%u}", in->modules[m].events);
        }
        tp_buf_putc(b, ']');
    }
    tp_buf_putc(b, '}');
}
