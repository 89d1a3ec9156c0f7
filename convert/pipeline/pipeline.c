/* pipeline.c: load a trace and apply the format-independent steps every
 * command relies on (see pipeline.h for the order and why). */
#include "convert/base/threads.h"
#include "convert/pipeline/pipeline.h"
#include "convert/pipeline/graph_capture.h"
#include "convert/model/derive.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/model/tracks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_parse_steps(const char *s, int64_t *first, int64_t *last)
{
    const char *colon = strchr(s, ':');
    *first = INT64_MIN;
    *last = INT64_MAX;
    if (!colon) {
        if (tp_parse_int(s, strlen(s), first) != 0)
            return -1;
        *last = *first;
        return 0;
    }
    if (colon > s && tp_parse_int(s, (size_t)(colon - s), first) != 0)
        return -1;
    if (colon[1] && tp_parse_int(colon + 1, strlen(colon + 1), last) != 0)
        return -1;
    return *first <= *last ? 0 : -1;
}

int tp_parse_duration(const char *s, int64_t *ns)
{
    static const struct {
        const char *unit;
        int decimals;
    } units[] = {{"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}};
    size_t n = strlen(s);
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t ul = strlen(units[u].unit);
        if (n > ul && strcmp(s + n - ul, units[u].unit) == 0 && (ul == 2 || (s[n - 2] >= '0' && s[n - 2] <= '9'))) {
            const char *why;
            return tp_parse_fixed(s, n - ul, units[u].decimals, ns, &why) == 0 && *ns >= 0 ? 0 : -1;
        }
    }
    const char *why;
    return tp_parse_fixed(s, n, 0, ns, &why) == 0 && *ns >= 0 ? 0 : -1;
}

/* --drop-cat and --min-dur */
static void filter_events(tp_trace *t, const tp_load_opts *o)
{
    tp_str cats[16];
    size_t nc = 0;
    for (size_t c = 0; c < o->ndrop_cats && c < 16; c++)
        cats[nc++] = tp_intern_cstr(t, o->drop_cats[c]);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        for (size_t c = 0; c < nc; c++)
            if (e->cat == cats[c]) {
                tp_drop(t, (uint32_t)i, "--drop-cat");
                break;
            }
        if (o->min_dur_ns > 0 && e->ph == 'X' && e->dur < o->min_dur_ns)
            tp_drop(t, (uint32_t)i, "shorter than --min-dur");
    }
}

static bool is_device_kind(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET || k == TP_KIND_SYNC;
}

/* Device processes, track roles, legacy no-category events, steps: one walk
 * over the events (the array is hundreds of MB; each walk costs).  A step
 * must be on a host thread, which is known only after the walk, so named
 * steps are taken tentatively and the few on device tracks given back. */
typedef struct step_guess {
    uint32_t ev;
    uint16_t flags;
    uint8_t kind;
    uint64_t id;
} step_guess;

/* What classifying needs of the strings, read before it starts: the
 * derived lines may be built (and strings added) while it runs. */
typedef struct class_strings {
    tp_str cuda_fn;          /* "CUDA functions" (looked up: classifying adds no string), or 0 */
    int64_t *step_of;        /* per string: N of "ProfilerStep#N", else -1 */
    size_t nstr;
} class_strings;

static class_strings classify_strings(const tp_trace *t)
{
    class_strings c = {tp_str_find(t, "CUDA functions", 14), NULL, t->nstr};
    c.step_of = tp_xmalloc((c.nstr + 1) * sizeof *c.step_of);
    for (size_t i = 0; i < c.nstr; i++) {
        const char *n = tp_str_get(t, (tp_str)i);
        int64_t step;
        c.step_of[i] = strncmp(n, "ProfilerStep#", 13) == 0 && tp_parse_int(n + 13, strlen(n + 13), &step) == 0 &&
                               step >= 0
                           ? step
                           : -1;
    }
    return c;
}

static void classify(tp_trace *t, class_strings cs)
{
    tp_str cuda_fn = cs.cuda_fn;
    int64_t *step_of = cs.step_of;
    step_guess *guess = NULL;
    size_t nguess = 0, guess_cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        tp_process *p = &t->processes[t->tracks[e->track].process];
        if (e->kind == TP_KIND_OTHER && e->cat == 0 && e->ph == 'X')
            e->kind = cuda_fn && p->key == cuda_fn ? TP_KIND_KERNEL : TP_KIND_HOST_OP; /* legacy autograd profiler */
        if (is_device_kind(e->kind))
            p->is_device = true;
        /* PyTorch 1.8/1.9 record the step as an Operator, later versions as a user annotation */
        if (e->ph == 'X' && (e->kind == TP_KIND_ANNOTATION || e->kind == TP_KIND_HOST_OP) && e->name < cs.nstr &&
            step_of[e->name] >= 0 && t->tracks[e->track].role == TP_TRACK_HOST) {
            TP_GROW(guess, guess_cap, nguess + 1);
            guess[nguess++] = (step_guess){(uint32_t)i, e->flags, e->kind, e->id};
            e->flags |= TP_EV_STEP;
            e->kind = TP_KIND_ANNOTATION; /* a step is not an operator, whatever its category */
            e->id = (uint64_t)step_of[e->name];
        }
    }
    free(step_of);
    for (size_t i = 0; i < t->nprocesses; i++) {
        tp_process *p = &t->processes[i];
        if (p->is_device && p->device < 0 && p->key == 0 && p->pid >= 0 && p->pid < (1 << 20))
            p->device = (int32_t)p->pid;
    }
    for (size_t i = 0; i < t->ntracks; i++) {
        tp_track *k = &t->tracks[i];
        if (k->role == TP_TRACK_HOST && t->processes[k->process].is_device)
            k->role = TP_TRACK_DEVICE;
    }
    for (size_t g = 0; g < nguess; g++) { /* steps are on host threads only */
        tp_event *e = &t->events[guess[g].ev];
        if (t->tracks[e->track].role != TP_TRACK_HOST) {
            e->flags = guess[g].flags;
            e->kind = guess[g].kind;
            e->id = guess[g].id;
        }
    }
    free(guess);
}

/* ---- linking ---- */

typedef struct corr_map {
    uint32_t *keys; /* corr + 1 (0 = empty) */
    uint32_t *vals;
    size_t cap;
    bool dense;     /* slot = corr: ids count up from about 1 (half the memory of the hash table) */
} corr_map;

static size_t corr_slot(const corr_map *m, uint32_t corr)
{
    if (m->dense) /* the last slot stays empty: ids beyond the launches' */
        return corr < m->cap - 1 ? corr : m->cap - 1;
    size_t i = ((uint64_t)corr * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != corr + 1u)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool is_host_slice(const tp_trace *t, const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & TP_EV_DROPPED) && t->tracks[e->track].role == TP_TRACK_HOST;
}

typedef struct corr_ev {
    uint32_t corr, ev;
} corr_ev;

/* device event -> launch call by correlation id; launch call -> innermost
 * enclosing host op on the same thread (by time containment).  Two walks
 * over the events (they dominate on large traces): the first lists the
 * launch calls and the host slices, the second links device activity once
 * the launch calls know their ops. */
/* The categories of the input's own launch flows (replaced when linked),
 * looked up before linking: linking reads no string (derive.h). */
static void launch_flow_cats(const tp_trace *t, tp_str cats[4])
{
    static const char *const names[4] = {"ac2g", "async", "async_cpu_to_gpu", "async_gpu"};
    for (int c = 0; c < 4; c++)
        cats[c] = tp_str_find(t, names[c], strlen(names[c]));
}

/* hs: the host slices of each track in time order, as the sweep below
 * needs them, kept for the derived lines (derive.h). */
static size_t link_events(tp_trace *t, const tp_str cats[4], tp_host_slices *hs)
{
    corr_ev *rt = NULL;
    uint32_t *host = NULL;
    size_t nrt = 0, rt_cap = 0, nhost = 0, host_cap = 0;
    uint32_t maxcorr = 0;
    bool any_op = false; /* an event with an op (a reader's, or below): else there is none to pass on */
    size_t *start = tp_xcalloc(t->ntracks + 1, sizeof *start);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind == TP_KIND_RUNTIME && (e->flags & TP_EV_HAS_CORR) && e->ph == 'X' &&
            !(e->flags & TP_EV_DROPPED) && e->corr != UINT32_MAX) {
            TP_GROW(rt, rt_cap, nrt + 1);
            rt[nrt++] = (corr_ev){e->corr, (uint32_t)i};
            maxcorr = e->corr > maxcorr ? e->corr : maxcorr;
        }
        any_op |= e->op != TP_NONE;
        if (is_host_slice(t, e)) {
            TP_GROW(host, host_cap, nhost + 1);
            host[nhost++] = (uint32_t)i;
            start[e->track + 1]++;
        }
    }
    /* launch calls by correlation id (the first of a duplicate kept) */
    corr_map m = {0};
    if (nrt) {
        m.cap = 64;
        while (m.cap < nrt * 2)
            m.cap *= 2;
        m.dense = maxcorr < nrt * 2 + 1024;
        if (m.dense)
            m.cap = (size_t)maxcorr + 2;
        m.keys = tp_xcalloc(m.cap, sizeof *m.keys);
        m.vals = tp_xmalloc(m.cap * sizeof *m.vals);
        for (size_t j = 0; j < nrt; j++) {
            size_t s = corr_slot(&m, rt[j].corr);
            if (m.keys[s]) {
                tp_warn(t, "duplicate correlation ids on launch calls (first kept)", 1);
                continue;
            }
            m.keys[s] = rt[j].corr + 1u;
            m.vals[s] = rt[j].ev;
        }
    }
    free(rt);
    /* launch -> op: sweep each host thread's slices in time order */
    for (size_t k = 0; k < t->ntracks; k++)
        start[k + 1] += start[k];
    uint32_t *idx = tp_xmalloc((nhost + 1) * sizeof *idx);
    size_t *fill = tp_xmalloc((t->ntracks + 1) * sizeof *fill);
    memcpy(fill, start, (t->ntracks + 1) * sizeof *fill);
    for (size_t j = 0; j < nhost; j++)
        idx[fill[t->events[host[j]].track]++] = host[j];
    free(host);
    uint32_t *stack = NULL;
    size_t scap = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        size_t n = start[k + 1] - start[k];
        if (n == 0)
            continue;
        uint32_t *list = idx + start[k];
        tp_sort_by_time(t, list, n);
        size_t depth = 0;
        for (size_t j = 0; j < n; j++) {
            tp_event *e = &t->events[list[j]];
            while (depth && t->events[stack[depth - 1]].ts + t->events[stack[depth - 1]].dur <= e->ts &&
                   !(t->events[stack[depth - 1]].dur == 0 && t->events[stack[depth - 1]].ts == e->ts))
                depth--;
            if (e->kind == TP_KIND_RUNTIME && e->op == TP_NONE) { /* a reader's own op is kept */
                for (size_t d = depth; d > 0; d--)
                    if (t->events[stack[d - 1]].kind == TP_KIND_HOST_OP) {
                        e->op = stack[d - 1];
                        any_op = true;
                        break;
                    }
            }
            TP_GROW(stack, scap, depth + 1);
            stack[depth++] = list[j];
        }
    }
    free(stack);
    free(fill);
    *hs = (tp_host_slices){idx, start, t->nevents, t->ntracks};
    /* device activity -> its launch call by correlation id, and that call's
     * op.  A reader's own link is kept, except one the Chrome reader
     * restored from flow keys: correlation comes first.  The input's own
     * launch flows are noted, to be replaced by flows bound to the slices. */
    size_t linked = 0;
    uint32_t *flows = NULL;
    size_t nflows = 0, flows_cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        if (e->ph == 's' || e->ph == 't' || e->ph == 'f') {
            TP_GROW(flows, flows_cap, nflows + 1);
            flows[nflows++] = (uint32_t)i;
            continue;
        }
        if (nrt && is_device_kind(e->kind) && (e->flags & TP_EV_HAS_CORR) &&
            (e->link == TP_NONE || (e->flags & TP_EV_LINK_FLOW)) && e->ph == 'X' && e->corr != UINT32_MAX) {
            size_t s = corr_slot(&m, e->corr);
            if (m.keys[s]) { /* (TP_EV_LINK_FLOW stays: read only here, and X events' flags may be read beside) */
                e->link = m.vals[s];
                linked++;
            }
        }
        if (any_op && e->link != TP_NONE && e->op == TP_NONE) /* (XPlane: no host op, a miss per kernel saved) */
            e->op = t->events[e->link].op;
    }
    free(m.keys);
    free(m.vals);
    static const char replaced[] = "launch flows (replaced by flows bound to the slices)";
    for (size_t j = 0; linked && j < nflows; j++) {
        const tp_event *e = &t->events[flows[j]];
        for (int c = 0; c < 4; c++)
            if (cats[c] && e->cat == cats[c]) {
                tp_drop(t, flows[j], replaced);
                break;
            }
    }
    if (linked && t->nlaunch_flows) /* the ones noted as ids (tp_read_opts.flows_as_ids) go as the events do */
        tp_drop_count(t, replaced, t->nlaunch_flows);
    free(flows);
    return linked;
}

/* ---- a reader's derived lines, built beside linking ---- */

typedef struct derive_beside {
    tp_trace *t;
    tp_derive_later *later;
    tp_derive_job *job;
} derive_beside;

static void *derive_main(void *p)
{
    derive_beside *d = p;
    d->job = tp_derive_begin(d->t, &d->later->in, &d->later->opts);
    return NULL;
}

/* ---- --steps ---- */

static int filter_steps(tp_trace *t, int64_t first, int64_t last, tp_err *err)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t seen_lo = INT64_MAX, seen_hi = INT64_MIN;
    size_t nsteps = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!(e->flags & TP_EV_STEP))
            continue;
        int64_t n = (int64_t)e->id;
        if (n < seen_lo)
            seen_lo = n;
        if (n > seen_hi)
            seen_hi = n;
        if (n < first || n > last)
            continue;
        nsteps++;
        if (e->ts < lo)
            lo = e->ts;
        if (e->ts + e->dur > hi)
            hi = e->ts + e->dur;
    }
    if (nsteps == 0) {
        if (seen_lo == INT64_MAX)
            return tp_fail_at(err, "", "--steps: the trace has no steps (no ProfilerStep#N annotations)");
        return tp_fail_at(err, "", "--steps: no step in the range given (steps present: %lld..%lld)",
                          (long long)seen_lo, (long long)seen_hi);
    }
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        if (e->ph == 'M')
            continue;
        bool keep;
        if (e->flags & TP_EV_STEP)
            keep = (int64_t)e->id >= first && (int64_t)e->id <= last;
        else if (e->link != TP_NONE)
            keep = t->events[e->link].ts >= lo && t->events[e->link].ts < hi;
        else
            keep = e->ts >= lo && e->ts < hi;
        if (!keep)
            tp_drop(t, (uint32_t)i, "outside the --steps window");
    }
    /* device events launched from dropped calls go too (their launch is gone) */
    for (size_t i = 0; i < t->nevents; i++) {
        tp_event *e = &t->events[i];
        if (e->link != TP_NONE && (t->events[e->link].flags & TP_EV_DROPPED))
            tp_drop(t, (uint32_t)i, "outside the --steps window");
    }
    return 0;
}

/* Strings holding bytes that are not UTF-8.  The Chrome reader counts bad
 * escapes as it unescapes, but raw bytes are only met by the writers (which
 * replace them): --strict looks here so stats and report reject what convert
 * rejects. */
static uint64_t strings_not_utf8(const tp_trace *t)
{
    uint64_t n = 0;
    for (size_t id = 1; id < t->nstr; id++) {
        const unsigned char *s = (const unsigned char *)tp_str_get(t, (tp_str)id);
        size_t len = tp_str_len(t, (tp_str)id);
        for (size_t i = 0; i < len;) {
            size_t k = s[i] < 0x80 ? 1 : tp_utf8_seq_len(s + i, len - i);
            if (!k) {
                n++;
                break;
            }
            i += k;
        }
    }
    return n;
}

/* The reader's warnings that name what it could not read, on success only
 * (an error is one line on its own). */
static void print_notices(const char *path, const tp_trace *t)
{
    const char *s = t->notices.data;
    for (size_t i = 0; i < t->notices.len;) {
        const char *nl = memchr(s + i, '\n', t->notices.len - i);
        size_t n = nl ? (size_t)(nl - (s + i)) : t->notices.len - i;
        fputs(TP_PROG ": ", stderr);
        tp_put_printable(stderr, path);
        fprintf(stderr, ": warning: %.*s\n", (int)n, s + i);
        i += n + 1;
    }
}

void tp_print_warnings(const char *path, const tp_trace *t)
{
    if (!t->nwarnings)
        return;
    tp_line l; /* one line written at once */
    FILE *f = tp_line_open(&l);
    tp_put_printable(f, path);
    fputs(": warning: ", f);
    for (size_t i = 0; i < t->nwarnings; i++)
        fprintf(f, "%s%s: %llu", i ? ", " : "", t->warnings[i].what, (unsigned long long)t->warnings[i].count);
    fputc('\n', f);
    tp_line_end(&l);
}

/* The graph-capture traces given (or found beside the input) merged into t. */
static int merge_captures(const char *path, const tp_load_opts *o, tp_trace *t, tp_err *err)
{
    tp_capture_stats *st = o->capture;
    memset(st, 0, sizeof *st);
    for (size_t k = 0; k < o->ncaptures && k < TP_CAPTURE_MAX_FILES; k++) {
        snprintf(st->files[k].path, sizeof st->files[k].path, "%s", o->captures[k]);
        st->nfiles++;
    }
    if (o->ncaptures)
        tp_graph_capture_details(st);
    else if (o->discover_captures && tp_graph_capture_discover(path, st, err) < 0)
        return -1;
    int rc = tp_graph_capture_merge(t, o, st, err);
    tp_timing("graph capture");
    return rc;
}

int tp_load(const char *path, const tp_load_opts *o, tp_trace *t, tp_err *err)
{
    if (o->ncaptures && !o->capture) /* given, and this command would not read it: said, not ignored */
        return tp_fail_at(err, "", "--graph-capture is read by report and diff of traces, stats (not --kernels-only "
                                   "or --csv) and batch; not here");
    tp_input *in = tp_input_open(path, err);
    if (!in)
        return -1;
    const tp_format *f;
    if (o->format) {
        f = tp_format_find(o->format);
        if (!f) {
            tp_input_close(in);
            return tp_fail_at(err, "", "unknown format '%s' (see `tracepress formats`)", o->format);
        }
    } else {
        f = tp_format_detect(in, err);
        if (!f) {
            tp_input_close(in);
            return -1;
        }
    }
    t->strict = o->read.strict;
    t->keep_args = o->read.keep_args;
    t->format = f->name;
    tp_read_opts ro = o->read;
    bool links = !o->no_links || o->has_steps || (o->capture && o->ncaptures); /* a capture merge maps linked kernels */
    ro.no_corr = !links;
    /* the filters and the links read every event; TP_DEVICE_ONLY=0 reads them all anyway (the tests compare) */
    const char *dev_only = getenv("TP_DEVICE_ONLY");
    ro.device_only = ro.device_only && !links && !o->ndrop_cats && o->min_dur_ns <= 0 &&
                     !(dev_only && strcmp(dev_only, "0") == 0);
    const char *flow_ids = getenv("TP_FLOWS_AS_IDS"); /* 0: every launch flow an event (the tests compare) */
    if (o->written && (!tp_input_reopenable(in) || o->ndrop_cats || o->min_dur_ns > 0))
        ro.flows_as_ids = false; /* (tp_load_opts.written) */
    /* unlinked: keep_flow; --steps drops by time, and a track's one flow event may fall outside the window
     * while its notes lie inside: every flow an event then */
    ro.flows_as_ids = ro.flows_as_ids && links && !o->has_steps && !(flow_ids && strcmp(flow_ids, "0") == 0);
    /* XPlane's derived lines are built beside linking */
    tp_derive_later later = {0};
    if (links)
        ro.derive_later = &later;
    tp_timing("start");
    int rc = f->read(in, t, &ro, err);
    tp_input_close(in);
    if (rc < 0)
        return -1;
    uint64_t bad;
    if (o->read.strict && (bad = strings_not_utf8(t)) > 0) {
        tp_derive_input_free(&later.in);
        return tp_fail_at(err, "", "invalid UTF-8 in %llu strings, rejected by --strict", (unsigned long long)bad);
    }
    tp_timing("read");
    /* a reader's derived lines are built beside classifying and linking,
     * which read no string meanwhile (derive.h) */
    class_strings cs = classify_strings(t);
    tp_str cats[4];
    launch_flow_cats(t, cats);
    derive_beside beside_job = {t, &later, NULL};
    tp_side derive_side = {0}; /* without a thread the lines are derived here first: they only read */
    if (later.set)
        tp_side_start(&derive_side, derive_main, &beside_job, NULL);
    classify(t, cs);
    if (f->caps & TP_FMT_KEEPS_DERIVED_LINES) /* derived lines of a converted trace stay derived lines */
        tp_derived_lines_recognise(t);
    tp_timing("classify");
    /* the derived lines of linked traces (below) sort the host slices as linking does: they take its lists */
    bool derive_linked =
        !o->no_links && !o->no_derive && !(f->caps & TP_FMT_OWN_DERIVED_LINES);
    tp_host_slices host_slices = {0};
    if (links) {
        size_t linked = link_events(t, cats, &host_slices);
        if (!linked && t->nlaunch_flows && o->written && !later.set) { /* (the Chrome reader notes, XPlane derives) */
            /* nothing links: the input's own flows are written, so read them as events (tp_load_opts.written) */
            tp_host_slices_free(&host_slices);
            tp_trace_free(t);
            tp_trace_init(t);
            tp_load_opts again = *o;
            again.read.flows_as_ids = false;
            tp_timing("read again: nothing linked, launch flows as events");
            return tp_load(path, &again, t, err);
        }
        if (!derive_linked)
            tp_host_slices_free(&host_slices);
        tp_timing("link");
        if (later.set) {
            tp_side_join(&derive_side);
            tp_derive_commit(beside_job.job);
            tp_derive_input_free(&later.in);
            tp_timing("derived lines (beside linking)");
        }
    }
    if (o->has_steps && filter_steps(t, o->step_first, o->step_last, err) < 0) {
        tp_host_slices_free(&host_slices);
        return -1;
    }
    if (o->ndrop_cats || o->min_dur_ns > 0)
        filter_events(t, o);
    /* XPlane (and ETDump with an ETRecord) derive while reading.  PlaidML
     * gets none: it has no framework op above its kernels.  Its host tree
     * (ScheduleInvocation > Program::Run > Program::Enqueue > Kernel::Run)
     * is drawn nested on the host tracks with a flow to every execution; the
     * launch-link rule would name every kernel's op Program::Run, and as the
     * kernels have no scopes each one closes the op line (2024 rule), so the
     * line was a copy of every execution (19,598 on the 2017 sample). */
    if (derive_linked) {
        tp_derive_opts d = {.framework_names = true, /* "TensorFlow Ops" would mislead on PyTorch */
                            .per_stream = true,      /* compute and NCCL streams overlap: lines per stream nest */
                            .era = tp_derive_era_of(o->read.derive_era)};
        tp_derive_lines(t, &d, &host_slices); /* (drops since linking are skipped there) */
        tp_timing("derived lines");
    }
    tp_host_slices_free(&host_slices);
    if (links && o->capture && merge_captures(path, o, t, err) < 0)
        return -1;
    print_notices(path, t);
    return 0;
}
