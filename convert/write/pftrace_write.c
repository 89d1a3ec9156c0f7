/* pftrace_write.c: the Perfetto protobuf trace writer (see docs/PFTRACE.md).
 *
 * - one TrackDescriptor per process (ProcessDescriptor), per host thread or
 *   device stream (ThreadDescriptor), per derived or overflow line (a named
 *   track under its process) and per counter series (CounterDescriptor);
 *   children of a process carry sibling_order_rank in the JSON writer's
 *   display order, the process asks for explicit child ordering;
 * - slices as SLICE_BEGIN/SLICE_END pairs, emitted per track from the same
 *   time-sorted index and open-slice stack as the nesting repair, so every
 *   track's packets are in time order and properly nested;
 * - each track's slices in chunks of about 64 K events cut where no slice is
 *   open, each chunk a packet sequence of its own: the track is the
 *   sequence's default (TracePacketDefaults), times are deltas on the
 *   sequence's incremental clock, names, categories, annotation names and
 *   string values are interned per sequence.  Chunks are independent, so
 *   worker threads encode them in parallel; the bytes do not depend on the
 *   number of threads;
 * - track descriptors, counters and process / global instants on sequence 1
 *   with absolute times;
 * - launch flows and the input's own flows as flow_ids on their slices
 *   (pftrace_flows.c);
 * - times in ns (base_ns + ts) on the default (boot time) clock.
 * Same bytes for the same input: every id is numbered in output order. */
#include "convert/write/pftrace_enc.h"
#include "convert/base/ordered_pool.h"
#include "convert/codec/pbwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A track's slices go out in chunks of about this many events, each on a
 * packet sequence of its own: chunks are independent (their own interned
 * data and clock), so worker threads encode them in parallel and the output
 * does not depend on how many there are. */
#define CHUNK_EVENTS 65536

static size_t chunk_events(void)
{
    const char *s = getenv("TP_PF_CHUNK_EVENTS"); /* tests: cuts in small traces */
    long n = s && *s ? strtol(s, NULL, 10) : 0;
    return n > 0 ? (size_t)n : CHUNK_EVENTS;
}

/* ---- chunks ---- */

typedef struct unit {
    uint32_t track;
    uint32_t seq;
    size_t from, n;        /* ix.ev[from .. from + n) */
    int64_t t0;            /* absolute time of its first packet */
    tp_buf out;
} unit;

/* What one walk over the index in output order finds. */
typedef struct survey {
    bool *live;      /* per track: holds slices or thread instants (it gets a descriptor and chunks) */
    bool *other;     /* per track: holds counters or process / global instants (the main sequence's) */
    bool has_global;
    unit *u;         /* the chunks, in output order */
    size_t nu;
} survey;

/* One walk in output order: which tracks hold what, counter series
 * registered (numbered in output order), events no packet carries counted,
 * every event visited for the flow plan (pftrace_flows.h), and each track's
 * slices cut into chunks of about CHUNK_EVENTS events where no slice is open
 * (the same stack rule as write_chunk). */
static void survey_and_plan(pfw *w, const uint32_t *torder, survey *sv)
{
    const tp_trace *t = w->t;
    const tp_track_index *ix = w->ix;
    sv->live = tp_xcalloc(t->ntracks + 1, sizeof *sv->live);
    sv->other = tp_xcalloc(t->ntracks + 1, sizeof *sv->other);
    size_t cap = 0;
    uint32_t *stack = NULL;
    size_t scap = 0;
    uint32_t seq = MAIN_SEQ + 1;
    size_t chunk = chunk_events();
    for (size_t j = 0; j < t->ntracks; j++) {
        uint32_t k = torder[j];
        size_t a = ix->start[k], end = ix->start[k + 1], depth = 0, items = 0;
        int64_t t0 = 0;
        for (size_t q = a; q <= end; q++) {
            /* launches are far from their device events: fetched ahead (a
             * cache miss each was most of the flow plan's time) */
            if (q + 16 < end)
                __builtin_prefetch(&t->events[ix->ev[q + 16]]);
            if (q + 8 < end) {
                uint32_t ahead = t->events[ix->ev[q + 8]].link;
                if (ahead != TP_NONE)
                    __builtin_prefetch(&t->events[ahead]);
            }
            if (q < end)
                tp_pf_flows_visit(&w->flows, t, ix->ev[q]);
            const tp_event *x = q < end ? &t->events[ix->ev[q]] : NULL;
            if (x && !thread_item(x)) {
                if (x->ph == 'C') {
                    pf_counter_plan(w, x);
                    sv->other[k] = true;
                } else if (x->ph == 'i') { /* process or global */
                    sv->other[k] = true;
                    sv->has_global |= (x->flags & TP_EV_INSTANT_GLOBAL) != 0;
                } else if (x->ph != 's' && x->ph != 't' && x->ph != 'f') {
                    w->st->not_written++;
                }
                continue;
            }
            if (x)
                sv->live[k] = true;
            while (x && depth && !still_open(&t->events[stack[depth - 1]], x))
                depth--;
            if (!x || (items >= chunk && depth == 0)) {
                if (items) {
                    TP_GROW(sv->u, cap, sv->nu + 1);
                    sv->u[sv->nu++] = (unit){k, seq++, a, q - a, t0, {0}};
                }
                a = q;
                items = 0;
            }
            if (!x)
                break;
            if (!items)
                t0 = abs_ts(w, x->ts);
            items++;
            if (x->ph == 'X' && !(depth && x->ts + x->dur > t->events[stack[depth - 1]].ts + t->events[stack[depth - 1]].dur)) {
                TP_GROW(stack, scap, depth + 1);
                stack[depth++] = ix->ev[q];
            }
        }
    }
    free(stack);
}

/* The chunk is encoded into a buffer header on this thread's stack: units
 * lie side by side, and two workers storing the lengths of neighbouring
 * units' buffers made their cache line bounce between the cores (a quarter
 * of the annotation writer's time). */
static void encode_unit(penc *e, unit *u)
{
    tp_buf out = u->out;
    e->b = &out;
    pf_sequence_begin(e, u->seq, e->w->tuuid[u->track], u->t0);
    pf_write_chunk(e, e->w->ix->ev + u->from, u->n);
    e->b = NULL;
    u->out = out;
}

/* Worker threads encode chunks into buffers of their own; the calling
 * thread writes the buffers out in order (and the main sequence's packets
 * between them), so a few chunks are in memory at once
 * (convert/base/ordered_pool.h).  Each worker has its own encoder. */
static void encode_job(void *job, int worker, void *ctx)
{
    penc *enc = ctx;
    encode_unit(&enc[worker], job);
}

static void add_counts(tp_pftrace_stats *st, const penc *e)
{
    st->packets += e->packets;
    st->slices += e->slices;
    st->instants += e->instants;
    st->clipped += e->clipped;
    st->bad_utf8 += e->bad_utf8;
    st->invalid_args += e->invalid_args;
}

static int nthreads(void)
{
    const char *s = getenv("TP_THREADS"); /* for measurements: 1 encodes on the calling thread */
    long n = s && *s ? strtol(s, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

/* The events of track k that are not its slices (counters, process and
 * global instants), on the main sequence. */
static void write_other_events(pfw *w, uint32_t k)
{
    const tp_trace *t = w->t;
    const uint32_t *ev = w->ix->ev + w->ix->start[k];
    size_t n = w->ix->start[k + 1] - w->ix->start[k];
    for (size_t q = 0; q < n; q++) {
        const tp_event *e = &t->events[ev[q]];
        if (e->ph == 'C')
            pf_counter_write(w, e);
        else if (e->ph == 'i' && (e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS))) {
            pf_put_event(&w->main, ev[q], TYPE_INSTANT, e->ts,
                      e->flags & TP_EV_INSTANT_GLOBAL ? w->global_uuid : w->puuid[t->tracks[k].process]);
            tp_out_maybe_flush(w->o);
            w->main.instants++;
        }
    }
}

static void write_events(pfw *w, const uint32_t *torder, const survey *sv)
{
    const tp_trace *t = w->t;
    size_t nu = sv->nu;
    unit *u = sv->u;
    int nw = nthreads();
    size_t window = (size_t)nw + 1;
    penc *enc = tp_xaligned_zero(64, (size_t)nw * sizeof *enc);
    for (int i = 0; i < nw; i++)
        pf_penc_init(&enc[i], w, NULL, true);
    tp_opool *pool = tp_opool_new(nw > 1 ? nw : 0, window, encode_job, enc);
    /* buffers of written chunks, for the next ones (fresh pages cost a fault each) */
    tp_buf *spare = tp_xcalloc(window + 1, sizeof *spare);
    size_t nspare = 0, given = 0, q = 0;
    for (size_t j = 0; j < t->ntracks; j++) {
        uint32_t k = torder[j];
        for (; q < nu && u[q].track == k; q++) {
            while (given < nu && !tp_opool_full(pool)) {
                if (nspare)
                    u[given].out = spare[--nspare];
                tp_opool_give(pool, &u[given++]);
            }
            unit *x = tp_opool_take(pool); /* u[q]: taken in the order given */
            tp_out_write(w->o, x->out.data, x->out.len);
            x->out.len = 0;
            spare[nspare++] = x->out;
            memset(&x->out, 0, sizeof x->out);
        }
        if (sv->other[k])
            write_other_events(w, k);
    }
    tp_opool_free(pool);
    for (int i = 0; i < nw; i++) {
        add_counts(w->st, &enc[i]);
        pf_penc_free(&enc[i]);
    }
    free(enc);
    for (size_t i = 0; i < nspare; i++)
        tp_buf_free(&spare[i]);
    free(spare);
}

int tp_write_pftrace(tp_trace *t, tp_out *o, tp_pftrace_stats *st)
{
    memset(st, 0, sizeof *st);
    tp_track_index ix;
    st->repaired = tp_nest_repair(t, &ix);
    tp_timing("write: nesting repaired");
    tp_assign_ids(t);
    pfw w = {0};
    w.t = t;
    w.o = o;
    w.st = st;
    w.ix = &ix;
    pf_penc_init(&w.main, &w, tp_out_buf(o), false);
    w.main.seq = MAIN_SEQ;
    w.main.first = true;

    /* no negative timestamps: shift everything when base_ns + ts < 0 (each
     * track's first indexed event is its earliest) */
    int64_t lo = 0;
    for (size_t k = 0; k < ix.ntracks; k++)
        if (ix.start[k] < ix.start[k + 1] && t->base_ns + t->events[ix.ev[ix.start[k]]].ts < lo)
            lo = t->base_ns + t->events[ix.ev[ix.start[k]]].ts;
    w.shift = -lo;

    uint32_t *porder = tp_process_order(t);
    uint32_t *torder = tp_track_order_of(t, porder);

    survey sv = {0};
    tp_pf_flows_begin(&w.flows, t);
    survey_and_plan(&w, torder, &sv); /* (visits every event for the flow plan too) */
    tp_pf_flows_end(&w.flows, t, &ix);
    st->flows = w.flows.launch;
    st->input_flows = w.flows.input;
    st->not_written += w.flows.unbound;
    tp_timing("write: tracks surveyed, flows planned");
    const bool *live = sv.live;
    bool has_global = sv.has_global;

    w.puuid = tp_xmalloc((t->nprocesses + 1) * sizeof *w.puuid);
    w.tuuid = tp_xcalloc(t->ntracks + 1, sizeof *w.tuuid);
    uint64_t uuid = 1;
    for (size_t pi = 0; pi < t->nprocesses; pi++)
        w.puuid[porder[pi]] = uuid++;
    for (size_t j = 0; j < t->ntracks; j++)
        if (live[torder[j]])
            w.tuuid[torder[j]] = uuid++;
    w.counter_base = uuid;
    uuid += w.cm.n;
    w.global_uuid = uuid++;

    /* descriptors: processes, then each process's tracks in display order,
     * then its counters */
    for (size_t pi = 0; pi < t->nprocesses; pi++)
        pf_put_process_desc(&w, porder[pi], (int)pi);
    if (has_global)
        pf_put_named_desc(&w, w.global_uuid, 0, "Global instants", 15, false, (int)t->nprocesses);
    int *rank = tp_xcalloc(t->nprocesses + 1, sizeof *rank);
    for (size_t j = 0; j < t->ntracks; j++)
        if (live[torder[j]])
            pf_put_track_desc(&w, torder[j], rank[t->tracks[torder[j]].process]++);
    for (size_t c = 0; c < w.cm.n; c++) {
        size_t len;
        const char *name = tp_strset_get(&w.series, w.cm.name[c], &len);
        pf_put_named_desc(&w, w.counter_base + c, w.puuid[w.cm.process[c]], name, len, true,
                       rank[w.cm.process[c]]++);
    }
    free(rank);

    tp_timing("write: descriptors");
    write_events(&w, torder, &sv);
    free(sv.live);
    free(sv.other);
    free(sv.u);
    add_counts(st, &w.main);

    free(porder);
    free(torder);
    tp_track_index_free(&ix);
    free(w.puuid);
    free(w.tuuid);
    tp_pf_flows_free(&w.flows);
    tp_i64map_free(&w.cm.index);
    free(w.cm.process);
    free(w.cm.name);
    free(w.cm.val);
    free(w.cm.ev);
    tp_strset_free(&w.series);
    tp_buf_free(&w.key);
    pf_penc_free(&w.main);
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool tp_pftrace_wanted(const char *path)
{
    return ends_with(path, ".pftrace") || ends_with(path, ".pftrace.gz") || ends_with(path, ".perfetto-trace") ||
           ends_with(path, ".perfetto-trace.gz");
}
