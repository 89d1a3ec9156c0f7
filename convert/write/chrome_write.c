/* chrome_write.c: the Chrome Trace Event JSON writer (Perfetto-ready).
 *
 * - numeric pid/tid only; 'M' names and sort indexes first, in display order;
 * - ts/dur in microseconds with exactly 3 decimals, printed from the integer
 *   nanoseconds and rebased on the earliest event (offset kept in
 *   baseTimeNanoseconds), so values stay far below 2^53;
 * - slices properly nested on every track (tp_nest_repair before writing);
 * - launch flows bound to their slices: flow v2 (bind_id + flow_out/flow_in)
 *   from each launch call to its first device event, v1 's'/'f' for further
 *   device events of the same call;
 * - args copied minified, with UTF-8 repaired and counted;
 * - one event per line, same bytes for the same input. */
#include "convert/base/threads.h"
#include "convert/write/chrome_write.h"
#include "convert/base/ordered_pool.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_min.h"
#include "convert/codec/json_write.h"
#include "convert/model/tracks.h"

#include <stdlib.h>
#include <string.h>

/* A track's ",\"pid\":P,\"tid\":T" text, made once per trace (formatting
 * the two numbers for every event was 2% of a conversion): two signed
 * 20-digit numbers fit. */
typedef struct pid_tid_text {
    char s[63];
    uint8_t len;
} pid_tid_text;

typedef struct writer {
    tp_trace *t;
    const pid_tid_text *pid_tid; /* by track */
    tp_out *o;
    tp_buf *b;
    int64_t start;
    uint64_t bad_utf8;
    uint64_t events_out;
    uint64_t flows;
    uint64_t invalid_args;
    bool first;
    int64_t lo, hi; /* the time window written: [lo, hi) */
    void *cursor;   /* this thread's args renderer (tp_args_get_r), or NULL */
    tp_buf *scratch;
    const uint8_t *plain; /* string id -> 1: JSON as it is (tp_chrome_writer's) */
    size_t nplain;
} writer;

static bool in_window(const writer *w, const tp_event *e)
{
    return !(e->flags & TP_EV_DROPPED) && (e->ph == 'M' || (e->ts >= w->lo && e->ts < w->hi));
}

/* Events are separated by ",\n" written before each one, so a flush between
 * events never leaves a separator that would have to be taken back. */
static void begin_event(writer *w)
{
    if (!w->first)
        tp_buf_puts(w->b, ",\n");
    w->first = false;
    w->events_out++;
}

static void put_str(writer *w, tp_str s)
{
    tp_json_put_string(w->b, tp_str_get(w->t, s), tp_str_len(w->t, s), &w->bad_utf8);
}

static void put_meta(writer *w, const char *what, const tp_track *tk, bool thread, tp_str sval, int64_t ival,
                     bool is_int)
{
    begin_event(w);
    tp_buf_puts(w->b, "{\"ph\":\"M\",\"name\":\"");
    tp_buf_puts(w->b, what);
    tp_buf_putc(w->b, '"');
    const tp_process *p = &w->t->processes[tk->process];
    tp_buf_puts(w->b, ",\"pid\":");
    tp_buf_put_int(w->b, p->pid);
    if (thread) {
        tp_buf_puts(w->b, ",\"tid\":");
        tp_buf_put_int(w->b, tk->tid);
    }
    if (is_int) {
        tp_buf_puts(w->b, ",\"args\":{\"sort_index\":");
        tp_buf_put_int(w->b, ival);
    } else {
        tp_buf_puts(w->b, strcmp(what, "process_labels") == 0 ? ",\"args\":{\"labels\":" : ",\"args\":{\"name\":");
        put_str(w, sval);
    }
    tp_buf_puts(w->b, "}}");
}

static void write_metadata(writer *w, const uint32_t *porder, const uint32_t *torder)
{
    tp_trace *t = w->t;
    for (size_t pi = 0; pi < t->nprocesses; pi++) {
        const tp_process *p = &t->processes[porder[pi]];
        /* a representative track for the pid field */
        tp_track fake = {0};
        fake.process = porder[pi];
        tp_str name = p->name ? p->name : p->key;
        if (name)
            put_meta(w, "process_name", &fake, false, name, 0, false);
        if (p->label)
            put_meta(w, "process_labels", &fake, false, p->label, 0, false);
        put_meta(w, "process_sort_index", &fake, false, 0, (int64_t)pi, true);
    }
    /* thread metadata only for tracks that have events: an empty thread
     * would come back as a different track when the output is read again */
    bool *live = tp_xcalloc(t->ntracks + 1, sizeof *live);
    for (size_t i = 0; i < t->nevents; i++)
        if (in_window(w, &t->events[i]))
            live[t->events[i].track] = true;
    size_t rank = 0;
    uint32_t last_proc = TP_NONE;
    for (size_t j = 0; j < t->ntracks; j++) {
        const tp_track *tk = &t->tracks[torder[j]];
        if (!live[torder[j]])
            continue;
        if (tk->process != last_proc) {
            rank = 0;
            last_proc = tk->process;
        }
        tp_str name = tk->name ? tk->name : tk->key;
        if (name)
            put_meta(w, "thread_name", tk, true, name, 0, false);
        put_meta(w, "thread_sort_index", tk, true, 0, (int64_t)rank++, true);
        tp_out_maybe_flush(w->o);
    }
    free(live);
}

/* Flow bookkeeping: per launch event, the bind id of its v2 flow (0 = none). */
typedef struct flow_plan {
    uint32_t *first_target;  /* launch event -> first device event linked to it */
    uint64_t *bind;          /* event -> bind id (0 none), for launch and first target */
} flow_plan;

/* Does event i get a v1 flow pair (a later device event of a launch whose
 * first one has the v2 flow)? */
static bool needs_v1_pair(const writer *w, const flow_plan *fp, uint32_t i)
{
    const tp_event *e = &w->t->events[i];
    if (e->link == TP_NONE || fp->bind[i] || e->ph != 'X')
        return false;
    const tp_event *l = &w->t->events[e->link];
    return in_window(w, l) && l->ph == 'X';
}

/* An event's fixed fields and numbers are appended through a cursor into
 * room reserved once (EVENT_ROOM bytes hold all of them), not by a tp_buf
 * call per field: a tenth of the writer's time went to those calls. */
enum { EVENT_ROOM = 512 };

static inline char *room(tp_buf *b)
{
    TP_GROW(b->data, b->cap, b->len + EVENT_ROOM);
    return b->data + b->len;
}

static inline void room_done(tp_buf *b, char *o)
{
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

#define PUT_LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) + sizeof(s) - 1)

/* Numbers are written straight into the room: their length first (from
 * the highest bit, then one comparison), then two digits per division,
 * backwards.  Digits stored one by one into a scratch and moved with one
 * 32-byte copy made that copy wait on the stores (a quarter of the event
 * formatting's own time). */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

static inline int dec_len(uint64_t v)
{
    static const uint64_t pow10[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
                                       1000000000u, 10000000000u, 100000000000u, 1000000000000u,
                                       10000000000000u, 100000000000000u, 1000000000000000u,
                                       10000000000000000u, 100000000000000000u, 1000000000000000000u,
                                       10000000000000000000u};
    int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12; /* 1233 / 4096 ~ log10(2): t or t + 1 digits */
    t += v >= pow10[t];
    return t ? t : 1;
}

/* v's digits, ending just before e */
static inline void put_digits_before(char *e, uint64_t v)
{
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        e -= 2;
        memcpy(e, digit_pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(e - 2, digit_pairs + 2 * v, 2);
    else
        e[-1] = (char)('0' + v);
}

static inline char *put_u64_at(char *o, uint64_t v)
{
    o += dec_len(v);
    put_digits_before(o, v);
    return o;
}

static inline char *put_i64_at(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return put_u64_at(o, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64_at(o, (uint64_t)v);
}

/* Nanoseconds as microseconds with 3 decimals (tp_format_fixed's text). */
static inline char *put_us_at(char *o, int64_t ns)
{
    uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(v % 1000);
    if (ns < 0)
        *o++ = '-';
    o = put_u64_at(o, v / 1000);
    o[0] = '.';
    o[1] = (char)('0' + frac / 100);
    memcpy(o + 2, digit_pairs + 2 * (frac % 100), 2);
    return o + 4;
}

static inline char *begin_event_at(writer *w, char *o)
{
    if (!w->first)
        o = PUT_LIT(o, ",\n");
    w->first = false;
    w->events_out++;
    return o;
}

static inline char *pid_tid_at(const writer *w, char *o, const tp_track *tk)
{
    const pid_tid_text *pt = &w->pid_tid[tk - w->t->tracks];
    memcpy(o, pt->s, sizeof pt->s);
    return o + pt->len;
}

/* A string field.  One that needs no escaping (nearly all: names,
 * categories) is copied in its quotes; the others are escaped in the
 * buffer itself. */
static inline char *put_str_at(writer *w, char *o, tp_str str)
{
    if (str < w->nplain && w->plain[str]) {
        size_t n = tp_str_len(w->t, str), at = (size_t)(o - w->b->data);
        TP_GROW(w->b->data, w->b->cap, at + n + 2 + EVENT_ROOM); /* the room stays whole after it */
        o = w->b->data + at;
        *o++ = '"';
        memcpy(o, tp_str_get(w->t, str), n);
        o += n;
        *o++ = '"';
        return o;
    }
    room_done(w->b, o);
    put_str(w, str);
    return room(w->b);
}

static void write_event(writer *w, uint32_t i, const flow_plan *fp, uint64_t *v1_next)
{
    tp_trace *t = w->t;
    const tp_event *e = &t->events[i];
    const tp_track *tk = &t->tracks[e->track];
    tp_buf *b = w->b;
    char *o = begin_event_at(w, room(b));
    o = PUT_LIT(o, "{\"ph\":\"");
    *o++ = e->ph == '"' || e->ph == '\\' || (unsigned char)e->ph < 0x20 ? '?' : e->ph;
    *o++ = '"';
    if (e->cat) {
        o = PUT_LIT(o, ",\"cat\":");
        o = put_str_at(w, o, e->cat);
    }
    o = PUT_LIT(o, ",\"name\":");
    o = put_str_at(w, o, e->name);
    o = pid_tid_at(w, o, tk);
    if (e->ph != 'M') {
        o = PUT_LIT(o, ",\"ts\":");
        o = put_us_at(o, e->ts - w->start);
    }
    if (e->ph == 'X') {
        o = PUT_LIT(o, ",\"dur\":");
        o = put_us_at(o, e->dur);
    }
    if (e->ph == 'i') {
        if (e->flags & TP_EV_INSTANT_GLOBAL)
            o = PUT_LIT(o, ",\"s\":\"g\"");
        else if (e->flags & TP_EV_INSTANT_PROCESS)
            o = PUT_LIT(o, ",\"s\":\"p\"");
        else
            o = PUT_LIT(o, ",\"s\":\"t\"");
    }
    if ((e->flags & TP_EV_HAS_ID) && e->ph != 'X') {
        o = PUT_LIT(o, ",\"id\":");
        if (e->flags & TP_EV_ID_STRING)
            o = put_str_at(w, o, (tp_str)e->id);
        else
            o = put_u64_at(o, e->id);
    }
    if (e->flags & TP_EV_BP_ENCLOSING)
        o = PUT_LIT(o, ",\"bp\":\"e\"");
    if (fp->bind[i]) {
        o = PUT_LIT(o, ",\"bind_id\":");
        o = put_u64_at(o, fp->bind[i]);
        if (e->link != TP_NONE)
            o = PUT_LIT(o, ",\"flow_in\":true");
        else
            o = PUT_LIT(o, ",\"flow_out\":true");
    }
    room_done(b, o);
    const char *args, *extra;
    size_t alen, elen;
    tp_args_split_r(t, w->cursor, w->scratch, e->args, &args, &alen, &extra, &elen);
    if (alen) {
        tp_buf_puts(b, ",\"args\":");
        if (tp_args_is_minified(t, e->args) && args[0] == '{')
            tp_buf_put(b, args, alen); /* rendered by the reader as minified, valid JSON */
        else if (!tp_json_min(b, args, alen, TP_MIN_VALUE, &w->bad_utf8)) {
            /* never write broken JSON: keep the text, as a string */
            tp_buf_puts(b, "{\"invalid_args\":");
            tp_json_put_string(b, args, alen, &w->bad_utf8);
            tp_buf_putc(b, '}');
            w->invalid_args++;
        }
    }
    if (elen && !tp_json_min(b, extra, elen, TP_MIN_MEMBERS_AFTER_COMMA, &w->bad_utf8))
        w->invalid_args++;
    tp_buf_putc(b, '}');
    /* a second, third ... device event of one launch: a v1 flow pair */
    if (needs_v1_pair(w, fp, i)) {
        const tp_event *l = &t->events[e->link];
        uint64_t id = (*v1_next)++;
        o = begin_event_at(w, room(b));
        o = PUT_LIT(o, "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\"");
        o = pid_tid_at(w, o, &t->tracks[l->track]);
        o = PUT_LIT(o, ",\"ts\":");
        o = put_us_at(o, l->ts - w->start);
        o = PUT_LIT(o, ",\"id\":");
        o = put_u64_at(o, id);
        *o++ = '}';
        room_done(b, o);
        o = begin_event_at(w, room(b));
        o = PUT_LIT(o, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\"");
        o = pid_tid_at(w, o, tk);
        o = PUT_LIT(o, ",\"ts\":");
        o = put_us_at(o, e->ts - w->start);
        o = PUT_LIT(o, ",\"id\":");
        o = put_u64_at(o, id);
        *o++ = '}';
        room_done(b, o);
        w->flows++;
    }
}

/* What every window of one trace shares: computed once. */
struct tp_chrome_writer {
    tp_trace *t;
    uint32_t *porder, *torder;
    tp_track_index ix;
    uint32_t *trank;        /* track -> its place in torder */
    pid_tid_text *pid_tid;  /* track -> its pid and tid fields */
    uint8_t *plain;         /* string id -> 1 when it needs no escaping */
    size_t nplain;
    flow_plan fp;           /* per-window scratch, all zero/TP_NONE between windows */
    uint64_t repaired;
};

/* Whether event a is written before event b: tracks in torder, and on one
 * track the track index's order (start, longer first, index).  An array of
 * every event's output position said the same for 4 bytes an event (70 MB
 * at a 1 GB XSpace). */
static bool written_before(const tp_chrome_writer *cw, uint32_t a, uint32_t b)
{
    const tp_event *x = &cw->t->events[a], *y = &cw->t->events[b];
    if (x->track != y->track)
        return cw->trank[x->track] < cw->trank[y->track];
    if (x->ts != y->ts)
        return x->ts < y->ts;
    if (x->dur != y->dur)
        return x->dur > y->dur;
    return a < b;
}

tp_chrome_writer *tp_chrome_writer_new(tp_trace *t)
{
    tp_chrome_writer *cw = tp_xcalloc(1, sizeof *cw);
    cw->t = t;
    cw->repaired = tp_nest_repair(t, &cw->ix);
    tp_assign_ids(t);
    cw->porder = tp_process_order(t);
    cw->torder = tp_track_order_of(t, cw->porder);
    cw->trank = tp_xmalloc((t->ntracks + 1) * sizeof *cw->trank);
    for (size_t j = 0; j < t->ntracks; j++)
        cw->trank[cw->torder[j]] = (uint32_t)j;
    cw->pid_tid = tp_xcalloc(t->ntracks + 1, sizeof *cw->pid_tid);
    for (size_t k = 0; k < t->ntracks; k++) {
        char *o = cw->pid_tid[k].s;
        o = PUT_LIT(o, ",\"pid\":");
        o = put_i64_at(o, t->processes[t->tracks[k].process].pid);
        o = PUT_LIT(o, ",\"tid\":");
        o = put_i64_at(o, t->tracks[k].tid);
        cw->pid_tid[k].len = (uint8_t)(o - cw->pid_tid[k].s);
    }
    cw->nplain = t->nstr;
    cw->plain = tp_xmalloc(t->nstr + 1);
    for (size_t k = 0; k < t->nstr; k++) {
        const char *s = tp_str_get(t, (tp_str)k), *e = s + tp_str_len(t, (tp_str)k);
        cw->plain[k] = tp_json_plain_end(s, e) == e;
    }
    cw->fp.bind = tp_xcalloc(t->nevents + 1, sizeof *cw->fp.bind);
    cw->fp.first_target = tp_xmalloc((t->nevents + 1) * sizeof *cw->fp.first_target);
    for (size_t i = 0; i < t->nevents; i++)
        cw->fp.first_target[i] = TP_NONE;
    return cw;
}

void tp_chrome_writer_free(tp_chrome_writer *cw)
{
    if (!cw)
        return;
    tp_track_index_free(&cw->ix);
    free(cw->porder);
    free(cw->torder);
    free(cw->trank);
    free(cw->pid_tid);
    free(cw->plain);
    free(cw->fp.bind);
    free(cw->fp.first_target);
    free(cw);
}

/* Writing the events: the window's events in output order are cut into
 * chunks that two workers format into buffers of their own (the trace is
 * only read) while this thread cuts the next ones and appends the finished
 * ones to the output in order (convert/base/ordered_pool.h), so the bytes are
 * those of one thread writing alone.  What one event's text depends on
 * beyond itself is set before: the flow plan, and the v1 flow id each chunk
 * starts at (counted in order here). */
enum { CHUNK_EVENTS = 4096, SLOTS = 8, WORKERS = 2 };

typedef struct chunk_job {
    writer w;                  /* a copy of the window's writer, with its own buffer */
    tp_buf buf;
    uint32_t ev[CHUNK_EVENTS]; /* the chunk's events */
    size_t n;
    const flow_plan *fp;
    uint64_t v1_next;
} chunk_job;

typedef struct worker_state {
    struct { /* one args renderer and scratch buffer per worker, on lines of its own */
        _Alignas(64) void *cursor;
        tp_buf scratch;
    } of[WORKERS];
} worker_state;

/* Args left in the input file (a raw_text args source: the Chrome reader's) are read in track
 * order, not file order: the first bytes of each were a cache miss that
 * held up the minifier (40% of its time on a 1 GB Kineto trace).  Their
 * cache lines are asked for PREFETCH_AHEAD events before they are needed.
 * A pure look-up: no cursor, nothing touched but the cache. */
enum { PREFETCH_AHEAD = 4 };

static void prefetch_args(const tp_trace *t, uint32_t i)
{
    uint64_t h = t->events[i].args;
    if ((h & (TP_ARGS_EXTERNAL | TP_ARGS_RESERVED)) != TP_ARGS_EXTERNAL || !t->args_source || !t->args_source->raw_text)
        return;
    size_t n = 0;
    const char *why = NULL, *s = t->args_source->json(t, NULL, h, &n, &why);
    if (!s)
        return;
    for (size_t k = 0; k < n && k < 256; k += 64)
        __builtin_prefetch(s + k);
}

/* Write a chunk's events with its writer. */
static void write_chunk_events(writer *w, const chunk_job *j, uint64_t *v1_next)
{
    for (size_t q = 0; q < j->n; q++) {
        if (q + PREFETCH_AHEAD < j->n)
            prefetch_args(w->t, j->ev[q + PREFETCH_AHEAD]);
        write_event(w, j->ev[q], j->fp, v1_next);
    }
}

static void format_chunk(void *job, int worker, void *ctx)
{
    chunk_job *j = job;
    worker_state *ws = ctx;
    j->buf.len = 0;
    j->w.b = &j->buf;
    j->w.cursor = ws->of[worker].cursor;
    j->w.scratch = &ws->of[worker].scratch;
    write_chunk_events(&j->w, j, &j->v1_next);
}

/* The next chunk of the walk (track order, then time) into j; false at the end. */
static bool cut_chunk(writer *w, const tp_chrome_writer *cw, size_t *tj, size_t *tq, chunk_job *j, uint64_t *v1_next)
{
    const tp_trace *t = w->t;
    const tp_track_index *ix = &cw->ix;
    j->n = 0;
    while (j->n < CHUNK_EVENTS && *tj < t->ntracks) {
        uint32_t k = cw->torder[*tj];
        if (*tq >= ix->start[k + 1]) {
            if (++*tj < t->ntracks)
                *tq = ix->start[cw->torder[*tj]];
            continue;
        }
        uint32_t e = ix->ev[(*tq)++];
        if (in_window(w, &t->events[e]))
            j->ev[j->n++] = e;
    }
    if (!j->n)
        return false;
    j->w = *w;
    j->w.events_out = j->w.flows = j->w.bad_utf8 = j->w.invalid_args = 0;
    j->fp = &cw->fp;
    j->v1_next = *v1_next;
    for (size_t q = 0; q < j->n; q++) /* where the next chunk's v1 ids start */
        *v1_next += needs_v1_pair(w, &cw->fp, j->ev[q]);
    w->first = false; /* the chunk writes at least one event */
    return true;
}

/* Two workers format chunks into buffers of their own; this thread appends
 * them to the output in the order cut. */
static void write_chunks(writer *w, const tp_chrome_writer *cw, size_t *tjp, size_t *tqp, chunk_job *slot,
                         worker_state *ws, uint64_t v1_next)
{
    tp_opool *pool = tp_opool_new(WORKERS, SLOTS, format_chunk, ws);
    size_t cut = 0;
    bool more = true;
    for (;;) {
        while (more && !tp_opool_full(pool)) { /* a slot is free once its chunk is taken */
            chunk_job *j = &slot[cut % SLOTS];
            if ((more = cut_chunk(w, cw, tjp, tqp, j, &v1_next))) {
                tp_opool_give(pool, j);
                cut++;
            }
        }
        const chunk_job *j = tp_opool_take(pool);
        if (!j)
            break;
        tp_buf_put(w->b, j->buf.data, j->buf.len);
        tp_out_maybe_flush(w->o);
        w->b = tp_out_buf(w->o);
        w->events_out += j->w.events_out;
        w->flows += j->w.flows;
        w->bad_utf8 += j->w.bad_utf8;
        w->invalid_args += j->w.invalid_args;
    }
    tp_opool_free(pool);
}

static void write_events(writer *w, const tp_chrome_writer *cw, uint64_t v1_next)
{
    const tp_trace *t = w->t;
    size_t tj = 0, tq = t->ntracks ? cw->ix.start[cw->torder[0]] : 0;
    worker_state ws = {0};
    for (int k = 0; k < WORKERS; k++)
        ws.of[k].cursor = tp_args_cursor_new(t);
    /* the event lists: no array of every event (20 M at 1 GB) */
    chunk_job *slot = tp_xcalloc(SLOTS, sizeof *slot);
    if (tp_single_thread("TP_WRITER_THREADS")) {
        /* this thread alone (TP_WRITER_THREADS=1 / TP_THREADS=1: the tests
         * compare the two): the same walk, formatted straight into the
         * output buffer, without a chunk buffer to copy from (4% of a 1 GB
         * conversion) */
        chunk_job *j = slot;
        void *cursor = w->cursor;
        tp_buf *scratch = w->scratch;
        w->cursor = ws.of[0].cursor;
        w->scratch = &ws.of[0].scratch;
        bool first = w->first;
        while (cut_chunk(w, cw, &tj, &tq, j, &v1_next)) {
            w->first = first;
            write_chunk_events(w, j, &j->v1_next);
            first = w->first;
            tp_out_maybe_flush(w->o);
            w->b = tp_out_buf(w->o);
        }
        w->first = first;
        w->cursor = cursor;
        w->scratch = scratch;
    } else {
        write_chunks(w, cw, &tj, &tq, slot, &ws, v1_next);
    }
    for (int k = 0; k < SLOTS; k++)
        tp_buf_free(&slot[k].buf);
    free(slot);
    for (int k = 0; k < WORKERS; k++) {
        tp_buf_free(&ws.of[k].scratch);
        tp_args_cursor_free(t, ws.of[k].cursor);
    }
}

int tp_chrome_writer_write(tp_chrome_writer *cw, tp_out *o, int64_t lo, int64_t hi, tp_write_stats *st)
{
    tp_trace *t = cw->t;
    memset(st, 0, sizeof *st);
    st->repaired = cw->repaired;
    writer w = {0};
    w.t = t;
    w.pid_tid = cw->pid_tid;
    w.plain = cw->plain;
    w.nplain = cw->nplain;
    w.scratch = t->args_text; /* the shared one: this thread alone uses it */
    w.o = o;
    w.b = tp_out_buf(o);
    w.start = INT64_MAX;
    w.first = true;
    w.lo = lo;
    w.hi = hi;
    /* Plan flows so that ids depend only on the output, never on the input's
     * event order (re-converting gives the same bytes): each launch call gets
     * a v2 flow to its earliest device event; ids are numbered in the order
     * the launches are written.  Both ends must be in the window.  The same
     * walk over the events finds the earliest time. */
    flow_plan *fp = &cw->fp;
    uint64_t cut = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!in_window(&w, e))
            continue;
        if (e->ph != 'M' && e->ts < w.start)
            w.start = e->ts;
        if (e->link == TP_NONE || e->ph != 'X')
            continue;
        const tp_event *l = &t->events[e->link];
        if (!in_window(&w, l)) { /* counted, never dropped in silence */
            cut++;
            continue;
        }
        if (l->ph != 'X')
            continue;
        uint32_t cur = fp->first_target[e->link];
        if (cur == TP_NONE || e->ts < t->events[cur].ts || (e->ts == t->events[cur].ts && written_before(cw, (uint32_t)i, cur)))
            fp->first_target[e->link] = (uint32_t)i;
    }
    if (w.start == INT64_MAX)
        w.start = 0;
    uint64_t next_bind = 1;
    const uint32_t *torder = cw->torder;
    const tp_track_index *ix = &cw->ix;
    for (size_t j = 0; j < t->ntracks; j++)
        for (size_t q = ix->start[torder[j]]; q < ix->start[torder[j] + 1]; q++) {
            uint32_t i = ix->ev[q];
            if (fp->first_target[i] != TP_NONE) {
                fp->bind[i] = next_bind;
                fp->bind[fp->first_target[i]] = next_bind;
                next_bind++;
                w.flows++;
            }
        }
    uint64_t v1_next = next_bind;

    tp_buf_puts(w.b, "{\"traceEvents\":[\n");
    write_metadata(&w, cw->porder, torder);
    write_events(&w, cw, v1_next);
    /* reset the scratch for the next window */
    for (size_t i = 0; i < t->nevents; i++)
        if (fp->first_target[i] != TP_NONE) {
            fp->bind[fp->first_target[i]] = 0;
            fp->bind[i] = 0;
            fp->first_target[i] = TP_NONE;
        }
    tp_buf_puts(w.b, "\n]");
    if (t->toplevel.len) {
        size_t mark = w.b->len;
        tp_buf_puts(w.b, ",\n");
        if (!tp_json_min(w.b, t->toplevel.data, t->toplevel.len, TP_MIN_MEMBERS, &w.bad_utf8)) {
            w.b->len = mark; /* no dangling comma */
            w.invalid_args++;
        }
    }
    tp_buf_puts(w.b, ",\n\"baseTimeNanoseconds\":");
    tp_buf_put_int(w.b, t->base_ns + w.start);
    tp_buf_puts(w.b, "}\n");
    st->events_out = w.events_out;
    st->bad_utf8 = w.bad_utf8;
    st->flows = w.flows;
    st->flows_cut = cut;
    st->invalid_args = w.invalid_args;
    st->start_ns = w.start;
    return 0;
}

int tp_write_chrome(tp_trace *t, tp_out *o, tp_write_stats *st)
{
    tp_chrome_writer *cw = tp_chrome_writer_new(t);
    int rc = tp_chrome_writer_write(cw, o, INT64_MIN, INT64_MAX, st);
    tp_chrome_writer_free(cw);
    return rc;
}
