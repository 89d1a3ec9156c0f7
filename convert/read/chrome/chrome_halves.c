/* chrome_halves.c: a large plain file read by two threads.  Part of the
 * Chrome reader (chrome_read_int.h).
 *
 * A large plain file is read by two threads: the second starts at an event
 * boundary guessed near the middle of the file and reads the rest of the
 * traceEvents array into a trace of its own; the first reads from the start.
 * When the first reaches the guessed offset *as the start of an event of the
 * array* the guess was right: it joins the second thread, appends the
 * second trace to its own (strings, processes, tracks, args, events, in the
 * order a single reader would have created them) and goes on after the
 * array.  If it passes the offset anywhere else (inside an event or args, or
 * after the array), the guess was wrong: the second thread's work is thrown
 * away and the first reads on alone.  Either way the trace is exactly the
 * one a single reader builds: the tests compare the two on every sample and
 * bad input (TP_READ_THREADS=1 forces one reader, TP_READ_SPLIT_MIN=0 splits
 * even small files, TP_READ_SPLIT_REPORT=1 says on stderr what happened).
 *
 * What crosses the split: 'E' events in the second half whose 'B' is open
 * in the first (kept as orphans and matched at the join), the 'B' events
 * still open in the second half (pushed after the first half's), metadata
 * that names a track or process of the first half (the later one wins, as
 * in a single pass), warnings and counters (added).  The join itself is
 * tp_trace_append (convert/model/trace_append.h), as for the XPlane reader
 * parts. */
#include "convert/read/chrome/chrome_read_int.h"
#include "convert/read/chrome/chrome_args.h"
#include "convert/base/threads.h"
#include "convert/model/trace_append.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Files below this are read by one thread (the second costs a thread, a
 * second buffer and the join). */
#define HALF_MIN ((uint64_t)64 << 20)

typedef struct half_job {
    const char *path;
    uint64_t split;       /* file offset of the '{' the second half starts at */
    tp_trace t;           /* the second half's trace */
    reader r;
    tp_input *in;
    tp_err err;
    int rc;               /* the second half's result: 0, or -1 with err */
    uint64_t end;         /* file offset just after the array's ']' */
    tp_side side;
    atomic_bool abandon;
} half_job;

static void *half_main(void *arg)
{
    half_job *j = arg;
    reader *r = &j->r;
    j->rc = -1;
    if (!r->map) {
        j->in = tp_input_open(j->path, &j->err);
        if (!j->in || tp_input_seek(j->in, j->split, &j->err) < 0)
            return NULL;
        r->in = j->in;
        r->buf_off = j->split;
        if (chrome_refill(r, 0) < 0)
            return NULL;
    }
    if (chrome_read_events(r) < 0)
        return NULL;
    j->end = off_of(r, r->buf + r->pos);
    j->rc = 0;
    return NULL;
}

/* The '{' of the first event that starts a line in the window of the file
 * around its middle, or 0: ",\n  {" in Kineto's layout (a newline cannot be
 * inside a JSON string, but the guess is checked anyway, see above). */
static uint64_t guess_split(const char *path, uint64_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    enum { WINDOW = 1 << 20 };
    char *w = tp_xmalloc(WINDOW);
    uint64_t from = size / 2, found = 0;
    ssize_t n = pread(fd, w, WINDOW, (off_t)from);
    for (ssize_t i = 0; i + 2 < n && !found; i++) {
        if (w[i] != ',')
            continue;
        ssize_t k = i + 1;
        bool nl = false;
        while (k < n && (w[k] == ' ' || w[k] == '\n' || w[k] == '\r' || w[k] == '\t'))
            nl |= w[k++] == '\n';
        if (nl && k < n && w[k] == '{')
            found = from + (uint64_t)k;
    }
    free(w);
    close(fd);
    return found;
}

/* Start the second half when the file is large and plain (threads.h: when
 * no thread starts, it is read here at once and joined all the same). */
void chrome_half_start(reader *r)
{
    if (tp_single_thread("TP_READ_THREADS") || !tp_input_seekable(r->in))
        return;
    uint64_t size = tp_input_compressed_size(r->in), min = HALF_MIN;
    const char *m = getenv("TP_READ_SPLIT_MIN");
    if (m && *m)
        min = strtoull(m, NULL, 10);
    if (size < min || size < 64)
        return;
    uint64_t split = guess_split(tp_input_path(r->in), size);
    if (!split)
        return;
    half_job *j = tp_xcalloc(1, sizeof *j);
    j->path = tp_input_path(r->in);
    j->split = split;
    tp_trace_init(&j->t);
    j->t.format = r->t->format;
    j->t.strict = r->t->strict;
    j->t.keep_args = r->t->keep_args;
    tp_chrome_args_share(&j->t, r->t);
    atomic_init(&j->abandon, false);
    reader *b = &j->r;
    b->t = &j->t;
    b->o = r->o;
    b->err = &j->err;
    if (r->map) {
        chrome_use_map(b, r->map, r->len, split);
    } else {
        b->cap = CHUNK;
        b->buf = b->own = tp_xmalloc(b->cap + 1);
    }
    b->second = true;
    b->abandon = &j->abandon;
    r->half = j;
    r->half_split = split;
    tp_side_start(&j->side, half_main, j, "TP_READ_THREADS");
}

static void half_free(half_job *j)
{
    chrome_reader_free(&j->r);
    tp_input_close(j->in);
    tp_trace_free(&j->t);
    free(j);
}

/* The guess was wrong (or the first half failed): stop and drop the second half. */
void chrome_half_cancel(reader *r)
{
    half_job *j = r->half;
    if (!j)
        return;
    r->half = NULL;
    atomic_store(&j->abandon, true);
    tp_side_join(&j->side);
    half_free(j);
}

typedef struct crossing {
    reader *a;  /* the first half's reader */
    half_job *j;
    int rc;
} crossing;

/* What crosses the split, once the second half's events are appended and
 * before its warnings are added (what the first reader counts here comes
 * first): its 'E' events whose 'B' is open in the first half, its open 'B'
 * events, its events with flow keys. */
static void join_crossing(void *ctx, const tp_append_map *m)
{
    crossing *c = ctx;
    reader *a = c->a, *b = &c->j->r;
    tp_trace *t = a->t, *u = &c->j->t;
    /* 'E' events of the second half whose 'B' is open in the first */
    for (size_t i = 0; i < b->norphans && c->rc == 0; i++) {
        const orphan_e *o = &b->orphans[i];
        uint32_t track = m->track[o->track];
        if (track >= a->bstack_tracks || a->bdepth[track] == 0) {
            if (a->o->strict)
                c->rc = tp_fail(a->err, o->at, "'E' event without a matching 'B'");
            else {
                tp_warn_at(t, "unmatched E events (dropped)", 1, o->at);
                tp_drop_count(t, "'E' without a matching 'B'", 1);
            }
            continue;
        }
        tp_event *be = &t->events[a->bstack[track][--a->bdepth[track]]];
        be->ph = 'X';
        be->dur = o->ts >= be->ts ? o->ts - be->ts : 0;
        be->flags |= TP_EV_FROM_BE;
        raw_event ev;
        memset(&ev, 0, sizeof ev);
        ev.args = o->args ? tp_args_get(u, o->args, &ev.args_n) : NULL;
        chrome_merge_args(a, be, &ev);
    }
    /* the second half's open 'B' events stay open, above the first half's */
    for (size_t k = 0; k < b->bstack_tracks; k++)
        for (size_t d = 0; d < b->bdepth[k]; d++)
            chrome_bstack_push(a, m->track[k], m->first_event + b->bstack[k][d]);
    chrome_cats_join(a, b, m); /* device tracks, unknown categories, MTIA calls */
    /* events with flow keys: after the first half's, as one reader notes them */
    for (size_t i = 0; i < b->nflows; i++) {
        TP_GROW(a->flows, a->flows_cap, a->nflows + 1);
        a->flows[a->nflows] = b->flows[i];
        a->flows[a->nflows++].ev += m->first_event;
    }
}

/* Append the second half's trace to the first's (see the top comment). */
static int half_merge(reader *a, half_job *j)
{
    reader *b = &j->r;
    crossing c = {a, j, 0};
    tp_append_how how = {
        .merge_meta = true, /* metadata of the second half wins, as the later one in one pass */
        .process_set = b->pmeta_set,
        .nprocess_set = b->pmeta_set_cap,
        .track_set = b->meta_set,
        .ntrack_set = b->meta_set_cap,
        .events_appended = join_crossing,
        .ctx = &c,
    };
    tp_append_map m;
    tp_trace_append(a->t, &j->t, &how, &m);
    tp_append_map_free(&m);
    a->bad_utf8 += b->bad_utf8;
    if (b->bad_utf8_at)
        bad_string_at(a, b->bad_utf8_at - 1);
    return c.rc;
}

/* The first half reached offset `at` (>= the split) at the start of an
 * event.  Returns 0 when the halves were joined (the array is read: the
 * caller returns as after its ']'), 1 when the split was wrong (go on
 * alone), -1 on error. */
int chrome_half_meet(reader *r, uint64_t at)
{
    half_job *j = r->half;
    if (getenv("TP_READ_SPLIT_REPORT"))
        fprintf(stderr, "tracepress: halves: split at %llu %s\n", (unsigned long long)j->split,
                at == j->split ? "joined" : "abandoned");
    if (at != j->split) {
        chrome_half_cancel(r);
        return 1;
    }
    r->half = NULL;
    tp_side_join(&j->side);
    int rc = j->rc;
    if (rc < 0) {
        if (r->err && !r->err->set)
            *r->err = j->err;
    } else {
        tp_timing("read: first half, joined");
        rc = half_merge(r, j);
        tp_timing("read: halves merged");
        /* the first reader goes on just after the array */
        if (rc == 0 && r->map) {
            r->pos = (size_t)j->end;
        } else if (rc == 0)
            rc = tp_input_seek(r->in, j->end, r->err);
        if (rc == 0 && !r->map) {
            r->buf_off = j->end;
            r->len = r->pos = 0;
            r->own[0] = 0;
            r->eof = false;
        }
    }
    half_free(j);
    return rc < 0 ? -1 : 0;
}
