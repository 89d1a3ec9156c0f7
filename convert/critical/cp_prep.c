/* cp_prep.c: the per-trace part of the critical path (cp_prep.h): the
 * candidates sorted once, the queue length of each stream at each launch
 * and start (HTA's TraceCounters queue length: +1 at a launch call, -1 when
 * the activity starts), and the synchronisation matches: a
 * cudaStreamWaitEvent or cudaEventSynchronize waits for the event record
 * its device event names (args wait_on_cuda_event_record_corr_id), whose
 * work is the last activity launched on the recorded stream
 * (wait_on_stream) before the cudaEventRecord call. */
#include "convert/critical/cp_prep.h"
#include "convert/base/sort.h"
#include "convert/codec/json_value.h"

#include <stdlib.h>
#include <string.h>

bool cp_is_activity(const tp_event *e)
{
    return e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET;
}

static bool is_comm(const char *n)
{
    return strstr(n, "nccl") || strstr(n, "NCCL") || strstr(n, "rccl") || strstr(n, "RCCL");
}

/* The bits of a name, worked out on its first candidate (cp_prep_build only: one thread). */
static uint8_t work_out_name(cp_prep *p, tp_str name)
{
    const char *s = tp_str_get(p->t, name);
    uint8_t b = CPN_KNOWN;
    if (strstr(s, "DataLoader")) /* enumerate(DataLoader)#..., a cpu_op in older traces */
        b |= CPN_DATA_LOADING;
    if (is_comm(s))
        b |= CPN_COMM;
    for (int k = 0; name && k < 3; k++)
        if (name == p->lock[k])
            b |= CPN_LOCK;
    for (int k = 0; name && k < 6; k++)
        if (name == p->blocking[k])
            b |= CPN_BLOCKING | (k < 2 ? CPN_DEVICE_WAIT : 0); /* cudaDeviceSynchronize, cudaStreamSynchronize */
    p->name_bits[name] = b;
    return b;
}

static inline uint8_t learn_name(cp_prep *p, tp_str name)
{
    if (name >= p->t->nstr)
        return CPN_KNOWN;
    return p->name_bits[name] ? p->name_bits[name] : work_out_name(p, name);
}

bool cp_is_data_loading(const cp_prep *p, const tp_event *e)
{
    return (e->kind == TP_KIND_ANNOTATION || e->kind == TP_KIND_HOST_OP) && (cp_name_bits(p, e->name) & CPN_DATA_LOADING);
}

static bool usable(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED));
}

int cp_item_kind(const cp_prep *p, const tp_event *e)
{
    if (cp_is_activity(e))
        return CP_ITEM_ACTIVITY;
    if (e->kind != TP_KIND_SYNC)
        return CP_ITEM_OTHER;
    if (e->name == p->stream_sync && e->name)
        return CP_ITEM_STREAM_SYNC;
    if (e->name == p->context_sync && e->name)
        return CP_ITEM_CONTEXT_SYNC;
    if (e->name == p->event_sync && e->name)
        return CP_ITEM_EVENT_SYNC;
    return CP_ITEM_OTHER;
}

bool tp_critical_wants_args(const char *name, size_t len)
{
    return (len == 10 && memcmp(name, "Event Sync", 10) == 0) ||
           (len == 17 && memcmp(name, "Stream Wait Event", 17) == 0);
}

/* ---- sorted keys ---- */

typedef struct tkey {
    int64_t ts;
    uint32_t ev;
} tkey;
#define TKEY_LESS(x, y, c) ((x)->ts < (y)->ts || ((x)->ts == (y)->ts && (x)->ev < (y)->ev))
TP_SORT_DEFINE(sort_tkeys, tkey, int, TKEY_LESS)

/* a stream's launches or starts: by time, then dev position */
typedef struct qkey {
    int64_t ts;
    uint32_t pos;
} qkey;
#define QKEY_LESS(x, y, c) ((x)->ts < (y)->ts || ((x)->ts == (y)->ts && (x)->pos < (y)->pos))
TP_SORT_DEFINE(sort_qkeys, qkey, int, QKEY_LESS)

/* launches of a stream: (stream, host thread or 0, launch ts, position) */
typedef struct lkey {
    uint32_t stream, host;
    int64_t ts;
    uint32_t pos;
} lkey;
#define LKEY_LESS(x, y, c)                                                                                             \
    ((x)->stream < (y)->stream ||                                                                                      \
     ((x)->stream == (y)->stream &&                                                                                    \
      ((x)->host < (y)->host || ((x)->host == (y)->host && ((x)->ts < (y)->ts || ((x)->ts == (y)->ts && (x)->pos < (y)->pos))))))
TP_SORT_DEFINE(sort_lkeys, lkey, int, LKEY_LESS)

/* the last key with (stream, host) and ts <= at, or SIZE_MAX */
static size_t last_at_or_before(const lkey *k, size_t n, uint32_t stream, uint32_t host, int64_t at)
{
    size_t lo = 0, hi = n; /* first key greater than (stream, host, at, max) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const lkey *m = &k[mid];
        bool le = m->stream < stream || (m->stream == stream && (m->host < host || (m->host == host && m->ts <= at)));
        if (le)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || k[lo - 1].stream != stream || k[lo - 1].host != host)
        return SIZE_MAX;
    return lo - 1;
}

/* the first key with (stream, host) and ts >= at, or SIZE_MAX */
static size_t first_at_or_after(const lkey *k, size_t n, uint32_t stream, uint32_t host, int64_t at)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const lkey *m = &k[mid];
        bool lt = m->stream < stream || (m->stream == stream && (m->host < host || (m->host == host && m->ts < at)));
        if (lt)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || k[lo].stream != stream || k[lo].host != host)
        return SIZE_MAX;
    return lo;
}

typedef struct ckey {
    uint32_t corr, ev;
} ckey;
#define CKEY_LESS(x, y, c) ((x)->corr < (y)->corr || ((x)->corr == (y)->corr && (x)->ev < (y)->ev))
TP_SORT_DEFINE(sort_ckeys, ckey, int, CKEY_LESS)

typedef struct skey {
    uint32_t process;
    int64_t tid;
    uint32_t track;
} skey;
#define SKEY_LESS(x, y, c) ((x)->process < (y)->process || ((x)->process == (y)->process && (x)->tid < (y)->tid))
TP_SORT_DEFINE(sort_skeys, skey, int, SKEY_LESS)

/* The two args of a sync event naming its event record; false when absent. */
static bool wait_args(const tp_trace *t, const tp_event *e, tp_jdoc *d, int64_t *record_corr, int64_t *stream)
{
    if (!e->args)
        return false;
    size_t len = 0;
    const char *a = NULL, *extra = NULL;
    size_t elen = 0;
    tp_args_split(t, e->args, &a, &len, &extra, &elen);
    if (!a || !len)
        return false;
    tp_jdoc_reset(d);
    const tp_jv *v = NULL;
    tp_err err = {0};
    if (tp_jv_parse_all(d, a, len, &v, &err) < 0 || !v)
        return false;
    return tp_jv_int(tp_jv_get(v, "wait_on_cuda_event_record_corr_id"), record_corr) == 0 && *record_corr >= 0 &&
           tp_jv_int(tp_jv_get(v, "wait_on_stream"), stream) == 0 && *stream >= 0;
}

/* recs: the cudaEventRecord calls (cp_prep_build's pass over the events) */
static void match_syncs(const tp_trace *t, cp_prep *p, tp_str wait, ckey *recs, size_t nrec)
{
    /* records by correlation id */
    sort_ckeys(recs, nrec, 0);
    /* device streams by (process, tid) */
    skey *streams = tp_xmalloc((t->ntracks + 1) * sizeof *streams);
    size_t nstreams = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (p->logical[k] == k)
            streams[nstreams++] = (skey){t->tracks[k].process, t->tracks[k].tid, (uint32_t)k};
    sort_skeys(streams, nstreams, 0);
    /* launches by stream (any thread: host 0), and by stream and thread */
    lkey *any = tp_xmalloc((p->ndev + 1) * sizeof *any), *by_thread = tp_xmalloc((p->ndev + 1) * sizeof *by_thread);
    size_t nl = 0;
    for (size_t i = 0; i < p->ndev; i++) {
        const tp_event *e = &t->events[p->dev[i]];
        if (!cp_is_activity(e))
            continue;
        const tp_event *l = &t->events[e->link];
        any[nl] = (lkey){p->logical[e->track], 0, l->ts, (uint32_t)i};
        by_thread[nl] = (lkey){p->logical[e->track], p->logical[l->track] + 1, l->ts, (uint32_t)i};
        nl++;
    }
    sort_lkeys(any, nl, 0);
    sort_lkeys(by_thread, nl, 0);
    tp_jdoc d;
    tp_jdoc_init(&d);
    for (size_t i = 0; i < p->ndev; i++) {
        const tp_event *e = &t->events[p->dev[i]];
        bool is_wait = wait && e->name == wait, is_esync = p->event_sync && e->name == p->event_sync;
        if (e->kind != TP_KIND_SYNC || (!is_wait && !is_esync))
            continue;
        int64_t rc, stream_tid;
        if (!wait_args(t, e, &d, &rc, &stream_tid) || rc > UINT32_MAX)
            continue;
        /* the record */
        size_t lo = 0, hi = nrec;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (recs[mid].corr < (uint32_t)rc)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == nrec || recs[lo].corr != (uint32_t)rc)
            continue;
        const tp_event *rec = &t->events[recs[lo].ev];
        /* the recorded stream: on the sync event's device */
        skey want = {t->tracks[e->track].process, stream_tid, 0};
        size_t a = 0, b = nstreams;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (SKEY_LESS(&streams[mid], &want, 0))
                a = mid + 1;
            else
                b = mid;
        }
        if (a == nstreams || streams[a].process != want.process || streams[a].tid != want.tid)
            continue;
        size_t src = last_at_or_before(any, nl, streams[a].track, 0, rec->ts);
        if (src == SIZE_MAX)
            continue;
        uint32_t src_ev = p->dev[any[src].pos];
        if (is_esync) {
            p->sync_src[i] = src_ev;
            p->matched_event_syncs++;
            continue;
        }
        /* cudaStreamWaitEvent: the next activity its thread launches on the waiting stream */
        const tp_event *call = &t->events[e->link];
        size_t dst = first_at_or_after(by_thread, nl, p->logical[e->track], p->logical[call->track] + 1, call->ts);
        if (dst == SIZE_MAX)
            continue;
        p->wait_src[by_thread[dst].pos] = src_ev;
        p->matched_waits++;
    }
    tp_jdoc_free(&d);
    free(any);
    free(by_thread);
    free(streams);
}

/* Each stream's launches and starts in time order (a launch before a start at one time; then by dev position):
 * the launches come in that order (p->dev is by launch time), the starts nearly (a stream runs its work in
 * launch order), so each stream's starts are sorted apart and the two merged. */
static void queue_lengths(const tp_trace *t, cp_prep *p)
{
    uint32_t *at = tp_xcalloc(t->ntracks + 1, sizeof *at); /* stream -> its count, then its first place */
    size_t n = 0;
    for (size_t i = 0; i < p->ndev; i++)
        if (cp_is_activity(&t->events[p->dev[i]])) {
            at[p->logical[t->events[p->dev[i]].track]]++;
            n++;
        }
    uint32_t first = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        uint32_t count = at[k];
        at[k] = first;
        first += count;
    }
    qkey *run = tp_xmalloc((n + 1) * sizeof *run), *dev = tp_xmalloc((n + 1) * sizeof *dev);
    for (size_t i = 0; i < p->ndev; i++) {
        const tp_event *e = &t->events[p->dev[i]];
        if (!cp_is_activity(e))
            continue;
        uint32_t k = at[p->logical[e->track]]++;
        run[k] = (qkey){t->events[e->link].ts, (uint32_t)i};
        dev[k] = (qkey){e->ts, (uint32_t)i};
    }
    for (size_t s = 0, begin = 0; s < t->ntracks; begin = at[s++]) { /* at[s]: one past stream s's last */
        size_t end = at[s];
        sort_qkeys(dev + begin, end - begin, 0);
        int32_t len = 0;
        for (size_t a = begin, b = begin; a < end || b < end;)
            if (b == end || (a < end && run[a].ts <= dev[b].ts))
                p->q_run[run[a++].pos] = ++len;
            else
                p->q_dev[dev[b++].pos] = --len;
    }
    free(run);
    free(dev);
    free(at);
}

void cp_prep_build(const tp_trace *t, const uint32_t *logical, cp_prep *p)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    /* overlap rows folded back into their thread (as the report's host tree does) */
    p->logical = tp_xmalloc((t->ntracks + 1) * sizeof *p->logical);
    for (size_t k = 0; k < t->ntracks; k++) {
        const tp_track *tk = &t->tracks[k];
        p->logical[k] = logical && logical[k] < t->ntracks ? logical[k]
                        : tk->role == TP_TRACK_OVERFLOW && tk->derived_of < t->ntracks ? tk->derived_of
                                                                                      : (uint32_t)k;
    }
    static const char *const blocking[6] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                                            "cudaEventSynchronize",  "cudaMemcpy",            "cudaMemcpyAsync"};
    for (int k = 0; k < 6; k++)
        p->blocking[k] = tp_str_find(t, blocking[k], strlen(blocking[k]));
    p->lock[0] = tp_str_find(t, "cudaLaunchKernel", 16);
    p->lock[1] = tp_str_find(t, "cudaMemcpyAsync", 15);
    p->lock[2] = tp_str_find(t, "cudaHostAlloc", 13);
    p->stream_sync = tp_str_find(t, "Stream Sync", 11);
    p->context_sync = tp_str_find(t, "Context Sync", 12);
    p->event_sync = tp_str_find(t, "Event Sync", 10);
    p->name_bits = tp_xcalloc(t->nstr + 1, 1);

    /* the synchronisation matches need the event records: gathered in the same pass */
    tp_str record = tp_str_find(t, "cudaEventRecord", 15), wait = tp_str_find(t, "Stream Wait Event", 17);
    bool syncs = record && (p->event_sync || wait);
    ckey *recs = syncs ? tp_xmalloc((t->nevents + 1) * sizeof *recs) : NULL;
    size_t nrec = 0;
    tkey *hk = tp_xmalloc((t->nevents + 1) * sizeof *hk), *dk = tp_xmalloc((t->nevents + 1) * sizeof *dk);
    size_t nh = 0, nd = 0;
    bool *on_device = tp_xmalloc(t->ntracks + 1); /* track -> a device's (once a track, not once an event) */
    for (size_t k = 0; k < t->ntracks; k++)
        on_device[k] = t->processes[t->tracks[k].process].is_device || t->tracks[k].role == TP_TRACK_DEVICE;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!usable(e))
            continue;
        if (syncs && e->name == record && (e->flags & TP_EV_HAS_CORR))
            recs[nrec++] = (ckey){e->corr, (uint32_t)i};
        if (!on_device[e->track]) {
            if (e->dur > 0 && (e->kind == TP_KIND_HOST_OP || e->kind == TP_KIND_RUNTIME ||
                               (e->kind == TP_KIND_ANNOTATION && (learn_name(p, e->name) & CPN_DATA_LOADING)))) {
                learn_name(p, e->name);
                hk[nh++] = (tkey){e->ts, (uint32_t)i};
            }
            continue;
        }
        if (e->link >= t->nevents || (!cp_is_activity(e) && e->kind != TP_KIND_SYNC))
            continue;
        const tp_event *l = &t->events[e->link];
        if (l->dur > 0 && usable(l)) {
            learn_name(p, e->name);
            dk[nd++] = (tkey){l->ts, (uint32_t)i};
        }
    }
    free(on_device);
    sort_tkeys(hk, nh, 0);
    sort_tkeys(dk, nd, 0);
    p->host = tp_xmalloc((nh + 1) * sizeof *p->host);
    p->dev = tp_xmalloc((nd + 1) * sizeof *p->dev);
    for (size_t k = 0; k < nh; k++)
        p->host[k] = hk[k].ev;
    for (size_t k = 0; k < nd; k++)
        p->dev[k] = dk[k].ev;
    p->nhost = nh;
    p->ndev = nd;
    free(hk);
    free(dk);
    p->q_run = tp_xcalloc(nd + 1, sizeof *p->q_run);
    p->q_dev = tp_xcalloc(nd + 1, sizeof *p->q_dev);
    p->wait_src = tp_xmalloc((nd + 1) * sizeof *p->wait_src);
    p->sync_src = tp_xmalloc((nd + 1) * sizeof *p->sync_src);
    for (size_t k = 0; k < nd; k++)
        p->wait_src[k] = p->sync_src[k] = TP_NONE;
    queue_lengths(t, p);
    if (syncs)
        match_syncs(t, p, wait, recs, nrec);
    free(recs);
    p->has_sync = tp_xcalloc(t->nevents + 1, 1);
    for (size_t k = 0; k < nd; k++) {
        const tp_event *e = &t->events[p->dev[k]];
        if (e->kind == TP_KIND_SYNC)
            p->has_sync[e->link] = 1;
    }
    p->ev2local = tp_xcalloc(t->nevents + 1, sizeof *p->ev2local);
    p->last_of = tp_xmalloc((t->ntracks + 1) * sizeof *p->last_of);
    memset(p->last_of, 0xff, (t->ntracks + 1) * sizeof *p->last_of);
}

void cp_prep_free(cp_prep *p)
{
    free(p->logical);
    free(p->host);
    free(p->dev);
    free(p->q_run);
    free(p->q_dev);
    free(p->wait_src);
    free(p->sync_src);
    free(p->ev2local);
    free(p->last_of);
    free(p->has_sync);
    free(p->name_bits);
    memset(p, 0, sizeof *p);
}
