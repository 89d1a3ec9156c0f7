/* chrome_read.c: streaming reader for Chrome Trace Event JSON, including
 * PyTorch profiler / Kineto traces (spec: shared/specs/KINETO.md §1, §4).
 *
 * Streaming without a document tree: the input is read in chunks into one
 * buffer; the parser handles one *unit* at a time (one event, or one
 * top-level key and its value).  Parsing a unit has no side effects until it
 * is complete, so when a unit runs past the end of the buffer the reader
 * keeps the unit's bytes, refills, and parses it again from its start.
 * Memory therefore grows with the events kept, not with the document.
 *
 * Times: `ts`/`dur` are microseconds as decimal text; they are converted to
 * integer nanoseconds exactly (tp_parse_fixed), never through a double. */
#include "convert/base/threads.h"
#include "convert/read/chrome/chrome_args.h"
#include "convert/read/formats.h"
#include "convert/io/input.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (4u << 20)
/* The largest single unit (one event, or one top-level key and its value)
 * the reader holds in memory.  Streaming keeps memory flat however long the
 * file is; this keeps one endless string or array (a gzip bomb, a corrupt
 * file) from growing the buffer until the machine runs out.  Real units are
 * kilobytes. */
#define MAX_UNIT ((size_t)128 << 20)

/* A token's text inside the buffer. */
typedef struct span {
    const char *p;
    size_t n;
    bool str;     /* was a JSON string */
    bool escaped; /* string with backslash escapes */
} span;

/* One event as parsed, pointing into the buffer; committed all at once. */
typedef struct raw_event {
    span ph, name, cat, ts, dur, pid, tid, id, bp, scope;
    const char *args;
    size_t args_n;
    tp_buf *extra; /* other keys, as "\"key\":value" pieces */
    bool has_corr;
    int64_t corr;
    /* 'M' args we interpret */
    span m_name, m_labels, m_sort;
    /* flow v2 keys ("bind_id", "flow_in":true, "flow_out":true): not kept
     * as keys, the writer regenerates them from the links they restore */
    span bind;
    uint8_t flow; /* FLOW_IN | FLOW_OUT */
} raw_event;

enum { FLOW_OUT = 1, FLOW_IN = 2, FLOW_V1 = 4 };

/* An event that carries flow keys, for restore_flows once all are read:
 * a slice with a v2 bind id (FLOW_OUT / FLOW_IN), or the 'f' of a v1
 * "launch" pair the writer adds for a launch's further device events. */
typedef struct flow_rec {
    uint64_t id;  /* bind id (FLOW_V1: the pair's id) */
    uint32_t ev;  /* event index */
    uint8_t what; /* FLOW_OUT, FLOW_IN or FLOW_V1 */
} flow_rec;

/* (pid text, tid text) -> track cache: events repeat a handful of pairs. */
typedef struct track_slot {
    tp_str pid, tid; /* interned raw texts; pid==0 && tid==0 means empty */
    bool pid_str, tid_str;
    uint32_t track;
    bool used;
} track_slot;

typedef struct reader {
    tp_input *in;
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    const char *buf;  /* the text being parsed: `own`, or the mapped file */
    char *own;        /* the streamed buffer (NULL when the file is mapped) */
    size_t cap, len, pos;
    uint64_t buf_off; /* input offset of buf[0] */
    bool eof;
    const char *map;  /* the whole file, parsed in place (tp_input_map), or NULL */
    uint64_t released; /* mapped pages before this offset are handed back */
    tp_buf extra;     /* scratch for extra keys */
    tp_buf scratch;   /* scratch for unescaping */
    track_slot *slots;
    size_t nslots, nused;
    /* open B events per track: stack of event indexes */
    uint32_t **bstack;
    size_t *bdepth, *bcap;
    size_t bstack_tracks;
    uint64_t bad_utf8;
    uint64_t bad_utf8_at; /* 1 + offset of the first bad string, 0 = none */
    uint64_t ev_at;       /* offset of the event being committed */
    /* the last few (pid, tid) texts and their tracks: events mostly repeat
     * the pair of one of the last few (a kernel's device stream, its
     * launch's host thread, ...) */
    struct last_pair {
        char pid[24], tid[24];
        uint8_t pid_n, tid_n;
        uint8_t flags; /* 1 valid, 2 pid string, 4 tid string, 8 tid present, 16 pid present */
        uint32_t track;
    } last[4];
    unsigned last_next; /* the entry replaced next */
    uint8_t *cat_kind;   /* cat string id -> tp_kind + 1 (0 = not looked up yet) */
    size_t cat_kind_cap;
    bool top_is_array;
    bool saw_events_key;
    /* names and categories repeat: the id of a text seen recently, found
     * by its length and end bytes instead of hashing all of it (see intern_text) */
    struct { uint32_t id, len; } recent[512];
    /* two halves (see "---- two halves ----"): the first reader's job, the
     * second reader's bookkeeping */
    struct half_job *half;     /* first half: the second half's job, or NULL */
    bool second;               /* this reader reads the second half */
    atomic_bool *abandon;      /* second half: set when the first half found the split bad */
    struct orphan_e *orphans;  /* second half: 'E' events whose 'B' may be in the first half */
    size_t norphans, orphans_cap;
    uint8_t *meta_set;         /* second half: per track / process, what metadata events set */
    size_t meta_set_cap;
    uint8_t *pmeta_set;
    size_t pmeta_set_cap;
    flow_rec *flows;           /* events with flow keys (see restore_flows) */
    size_t nflows, flows_cap;
    tp_i64map flow_seen;       /* no_corr: (track, cat) pairs that kept a flow event (keep_flow) */
} reader;

typedef struct orphan_e {
    uint32_t track;
    uint64_t at;   /* its file offset, for --strict's error */
    int64_t ts;
    uint64_t args; /* the E's args in the second half's arena (0 = none) */
} orphan_e;

enum { META_NAME = 1, META_LABEL = 2 };

static void meta_mark(uint8_t **a, size_t *cap, uint32_t i, uint8_t bit)
{
    if (i >= *cap) {
        size_t old = *cap;
        TP_GROW(*a, *cap, (size_t)i + 1);
        memset(*a + old, 0, *cap - old);
    }
    (*a)[i] |= bit;
}

static int half_meet(reader *r, uint64_t at);
static void half_cancel(reader *r);
static uint64_t half_split(const reader *r);

/* ---- buffer management ---- */

static int refill(reader *r, size_t keep_from)
{
    /* move the unfinished unit to the front and read more after it */
    size_t keep = r->len - keep_from;
    if (keep_from > 0) {
        memmove(r->own, r->own + keep_from, keep);
        r->buf_off += keep_from;
        r->pos -= keep_from;
    }
    r->len = keep;
    if (r->cap - r->len < CHUNK / 2) {
        /* a unit larger than half the buffer: grow */
        if (r->cap >= MAX_UNIT)
            return tp_fail(r->err, r->buf_off,
                           "one event or top-level value is larger than %zu MB (corrupt file?)", MAX_UNIT >> 20);
        r->cap = r->cap * 2;
        r->own = tp_xrealloc(r->own, r->cap + 1);
        r->buf = r->own;
    }
    long n = tp_input_read(r->in, r->own + r->len, r->cap - r->len, r->err);
    if (n < 0)
        return -1;
    if (n == 0)
        r->eof = true;
    r->len += (size_t)n;
    r->own[r->len] = 0;
    return 0;
}

/* A mapped file is parsed where it lies, all of it in the buffer from the
 * start (so no unit ever runs past the buffer but at the end of the file,
 * and MAX_UNIT does not apply: nothing is copied). */
static void use_map(reader *r, const char *map, uint64_t size, uint64_t pos)
{
    r->map = r->buf = map;
    r->len = r->cap = (size_t)size;
    r->pos = (size_t)pos;
    r->buf_off = 0;
    r->eof = true;
    r->released = pos;
}

/* Mapped pages count in the resident size: hand back those behind the
 * parser every RELEASE bytes (stats' peak is otherwise the whole file). */
#define RELEASE ((size_t)32 << 20)

static inline void release_behind(reader *r)
{
    if (r->map && r->pos - r->released >= RELEASE) {
        tp_input_unmap_pages(r->map, r->released, r->pos);
        r->released = r->pos;
    }
}

static uint64_t off_of(const reader *r, const char *p) { return r->buf_off + (uint64_t)(p - r->buf); }

/* The unit starting at `at` runs past the buffer: read more and have the
 * caller parse it again (0), or, at the end of the input, fail naming what
 * the file ends inside (-1). */
static int more_or_truncated(reader *r, const char *at, const char *inside)
{
    if (r->eof)
        return tp_fail(r->err, off_of(r, at), "file ends inside %s (truncated?)", inside);
    return refill(r, r->pos);
}

/* ---- value helpers ---- */

static int scan_scalar(const char *p, const char *end, span *s, const char **next, const char **why)
{
    if (p >= end)
        return TP_JL_MORE;
    if (*p == '"') {
        bool esc;
        int k = tp_json_string(p, end, &s->p, &s->n, &esc, next, why);
        s->str = true;
        s->escaped = esc;
        return k;
    }
    /* fast path: [-]digits[.digits] ended by a byte that cannot continue a
     * token, the form of every Kineto ts, dur, pid and tid; anything else
     * (exponents, literals, "01", the end of the buffer) goes the long way */
    const char *q = p + (*p == '-'), *d0 = q;
    while (q < end && (unsigned)(*q - '0') < 10)
        q++;
    if (q > d0 && (*d0 != '0' || q - d0 == 1)) {
        if (q < end && *q == '.') {
            const char *f = ++q;
            while (q < end && (unsigned)(*q - '0') < 10)
                q++;
            if (q == f)
                q = end; /* "1." is not a number: the long way says so */
        }
        if (q < end && !tp_json_token_char((unsigned char)*q)) {
            s->p = p;
            s->n = (size_t)(q - p);
            s->str = false;
            s->escaped = false;
            *next = tp_json_ws(q, end);
            return TP_JL_OK;
        }
    }
    const char *start = p;
    int k = tp_json_skip(p, end, next, why);
    if (k)
        return k;
    /* trim trailing whitespace that skip consumed */
    const char *e = *next;
    while (e > start && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\t'))
        e--;
    s->p = start;
    s->n = (size_t)(e - start);
    s->str = false;
    s->escaped = false;
    return TP_JL_OK;
}

static bool key_is(const char *k, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(k, lit, l) == 0;
}

/* The first `key` (n >= 2 bytes) in [p, e), or NULL.  glibc's memmem
 * sets up for long haystacks; args are ~200 bytes and this runs on every
 * one (memmem was 2% of a conversion).  SSE2 (baseline on x86-64) tests
 * 16 places at once for the key's second and last bytes, then compares
 * the few that match both. */
static const char *find_key(const char *p, const char *e, const char *key, size_t n)
{
#ifdef __SSE2__
    const __m128i first = _mm_set1_epi8(key[1]), last = _mm_set1_epi8(key[n - 1]);
    for (; e - p >= (ptrdiff_t)(n + 15); p += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        __m128i z = _mm_loadu_si128((const __m128i *)(const void *)(p + n - 1));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(z, last)));
        for (; m; m &= m - 1)
            if (memcmp(p + __builtin_ctz(m), key, n) == 0)
                return p + __builtin_ctz(m);
    }
#endif
    for (; e - p >= (ptrdiff_t)n; p++) /* the last few places */
        if (*p == *key && memcmp(p, key, n) == 0)
            return p;
    return NULL;
}

/* Scan an args object: find its end and pick out the keys analyses need. */
static int scan_args(reader *r, const char *p, const char *end, raw_event *ev, bool meta, const char **next,
                     const char **why)
{
    const char *start = p;
    if (!meta && *p == '{') {
        /* Fast path: find the end with the table-driven skipper, then look
         * for the one key analyses need.  A match counts only where a key
         * can stand (after '{' or ',', followed by ':'). */
        int rc = tp_json_skip(p, end, next, why);
        if (rc)
            return rc;
        const char *e = *next;
        while (e > start && e[-1] != '}')
            e--;
        ev->args = start;
        ev->args_n = (size_t)(e - start);
        if (r->o->no_corr)
            return TP_JL_OK;
        const char *k = start;
        static const char key[] = "\"correlation\"";
        while ((k = find_key(k, e, key, sizeof key - 1)) != NULL) {
            const char *b = k;
            while (b > start && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '\t'))
                b--;
            const char *a = tp_json_ws(k + sizeof key - 1, e);
            if (b > start && (b[-1] == '{' || b[-1] == ',') && a < e && *a == ':') {
                a = tp_json_ws(a + 1, e);
                const char *d = a;
                while (d < e && *d >= '0' && *d <= '9')
                    d++;
                int64_t c;
                if (d > a && tp_parse_int(a, (size_t)(d - a), &c) == 0 && c > 0) { /* 0 = no correlation */
                    ev->has_corr = true;
                    ev->corr = c;
                }
                break;
            }
            k += sizeof key - 1;
        }
        return TP_JL_OK;
    }
    if (*p != '{') {
        /* args that are not an object are not valid Trace Event Format: dropped */
        ev->args = NULL;
        ev->args_n = 0;
        return tp_json_skip(p, end, next, why);
    }
    p = tp_json_ws(p + 1, end);
    if (p >= end)
        return TP_JL_MORE;
    if (*p != '}') {
        for (;;) {
            if (p >= end)
                return TP_JL_MORE;
            if (*p != '"') {
                *why = "expected a key in args";
                return TP_JL_BAD;
            }
            const char *k;
            size_t kn;
            bool kesc;
            int rc = tp_json_string(p, end, &k, &kn, &kesc, &p, why);
            if (rc)
                return rc;
            p = tp_json_ws(p, end);
            if (p >= end)
                return TP_JL_MORE;
            if (*p != ':') {
                *why = "expected ':' in args";
                return TP_JL_BAD;
            }
            p = tp_json_ws(p + 1, end);
            span v;
            rc = scan_scalar(p, end, &v, &p, why);
            if (rc)
                return rc;
            if (!v.str && (key_is(k, kn, "correlation") || key_is(k, kn, "correlationId"))) {
                int64_t c;
                if (tp_parse_int(v.p, v.n, &c) == 0 && c > 0) { /* 0 = no correlation */
                    ev->has_corr = true;
                    ev->corr = c;
                }
            } else if (meta) {
                if (key_is(k, kn, "name"))
                    ev->m_name = v;
                else if (key_is(k, kn, "labels"))
                    ev->m_labels = v;
                else if (key_is(k, kn, "sort_index"))
                    ev->m_sort = v;
            }
            p = tp_json_ws(p, end);
            if (p >= end)
                return TP_JL_MORE;
            if (*p == ',') {
                p = tp_json_ws(p + 1, end);
                continue;
            }
            if (*p == '}')
                break;
            *why = "expected ',' or '}' in args";
            return TP_JL_BAD;
        }
    }
    p++;
    ev->args = start;
    ev->args_n = (size_t)(p - start);
    *next = p;
    (void)r;
    return TP_JL_OK;
}

/* An event's key at p (its opening quote): keys are short and plain, so
 * one 16-byte look (SSE2) or a short byte loop finds their end, without
 * tp_json_string's call and loop, which stays for the others. */
static inline int scan_key(const char *p, const char *end, const char **k, size_t *kn, const char **next,
                           const char **why)
{
    const char *q = NULL;
#ifdef __SSE2__
    if (end - p > 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
        if (m && p[1 + __builtin_ctz(m)] == '"')
            q = p + 1 + __builtin_ctz(m);
    }
#else
    for (const char *c = p + 1; c < end && c - p <= 16 && *c != '\\'; c++)
        if (*c == '"') {
            q = c;
            break;
        }
#endif
    if (q) {
        *k = p + 1;
        *kn = (size_t)(q - p - 1);
        *next = q + 1;
        return TP_JL_OK;
    }
    bool esc;
    return tp_json_string(p, end, k, kn, &esc, next, why);
}

/* Parse one event object at p.  No side effects on the trace. */
static int parse_event(reader *r, const char *p, const char *end, raw_event *ev, const char **next,
                       const char **why)
{
    memset(ev, 0, sizeof *ev);
    ev->extra = &r->extra;
    r->extra.len = 0;
    /* p at '{' */
    p = tp_json_ws(p + 1, end);
    if (p >= end)
        return TP_JL_MORE;
    if (*p == '}') {
        *next = p + 1;
        return TP_JL_OK;
    }
    bool is_meta_hint = false;
    for (;;) {
        if (p >= end)
            return TP_JL_MORE;
        if (*p != '"') {
            *why = "expected a key in event";
            return TP_JL_BAD;
        }
        const char *k;
        size_t kn;
        const char *key_start = p;
        int rc = scan_key(p, end, &k, &kn, &p, why);
        if (rc)
            return rc;
        p = tp_json_ws(p, end);
        if (p >= end)
            return TP_JL_MORE;
        if (*p != ':') {
            *why = "expected ':' after key";
            return TP_JL_BAD;
        }
        p = tp_json_ws(p + 1, end);
        if (p >= end)
            return TP_JL_MORE;
        span *dst = NULL;
        switch (kn) {
        case 2:
            if (k[0] == 'p' && k[1] == 'h')
                dst = &ev->ph;
            else if (k[0] == 't' && k[1] == 's')
                dst = &ev->ts;
            else if (k[0] == 'i' && k[1] == 'd')
                dst = &ev->id;
            else if (k[0] == 'b' && k[1] == 'p')
                dst = &ev->bp;
            break;
        case 1:
            if (k[0] == 's')
                dst = &ev->scope;
            break;
        case 3:
            if (!memcmp(k, "cat", 3))
                dst = &ev->cat;
            else if (!memcmp(k, "dur", 3))
                dst = &ev->dur;
            else if (!memcmp(k, "pid", 3))
                dst = &ev->pid;
            else if (!memcmp(k, "tid", 3))
                dst = &ev->tid;
            break;
        case 4:
            if (!memcmp(k, "name", 4))
                dst = &ev->name;
            else if (!memcmp(k, "args", 4)) {
                if (ev->ph.n == 1 && ev->ph.p[0] == 'M')
                    is_meta_hint = true;
                rc = scan_args(r, p, end, ev, is_meta_hint, &p, why);
                if (rc)
                    return rc;
                goto after_value;
            }
            break;
        }
        if (dst) {
            rc = scan_scalar(p, end, dst, &p, why);
            if (rc)
                return rc;
        } else {
            /* keys we regenerate are noted, not kept; everything else is kept verbatim */
            const char *vstart = p;
            rc = tp_json_skip(p, end, &p, why);
            if (rc)
                return rc;
            const char *vend = p;
            while (vend > vstart && (vend[-1] == ' ' || vend[-1] == '\n' || vend[-1] == '\r' || vend[-1] == '\t'))
                vend--;
            bool regenerated = false;
            if (kn == 7 && key_is(k, kn, "bind_id")) {
                ev->bind.p = vstart;
                ev->bind.n = (size_t)(vend - vstart);
                ev->bind.str = *vstart == '"';
                regenerated = true;
            } else if ((kn == 7 && key_is(k, kn, "flow_in")) || (kn == 8 && key_is(k, kn, "flow_out"))) {
                if (vend - vstart == 4 && memcmp(vstart, "true", 4) == 0)
                    ev->flow |= kn == 7 ? FLOW_IN : FLOW_OUT;
                regenerated = true;
            }
            if (!regenerated) {
                tp_buf_putc(&r->extra, ',');
                tp_buf_put(&r->extra, key_start, (size_t)(k + kn + 1 - key_start));
                tp_buf_putc(&r->extra, ':');
                tp_buf_put(&r->extra, vstart, (size_t)(vend - vstart));
            }
        }
    after_value:
        p = tp_json_ws(p, end);
        if (p >= end)
            return TP_JL_MORE;
        if (*p == ',') {
            p = tp_json_ws(p + 1, end);
            continue;
        }
        if (*p == '}') {
            *next = p + 1;
            break;
        }
        *why = "expected ',' or '}' in event";
        return TP_JL_BAD;
    }
    /* 'M' args may come before "ph": rescan them now that we know */
    if (ev->ph.n == 1 && ev->ph.p[0] == 'M' && !is_meta_hint && ev->args) {
        const char *dummy;
        scan_args(r, ev->args, ev->args + ev->args_n, ev, true, &dummy, why);
    }
    return TP_JL_OK;
}

/* ---- committing an event into the model ---- */

/* Where a span starts in the input (its opening quote), or the event's
 * offset when it does not point into the buffer. */
static uint64_t span_off(const reader *r, const span *s)
{
    if (s->p && s->p >= r->buf && s->p <= r->buf + r->len)
        return off_of(r, s->p) - (s->str && s->p > r->buf ? 1 : 0);
    return r->ev_at;
}

static void bad_string_at(reader *r, uint64_t off)
{
    if (!r->bad_utf8_at || off + 1 < r->bad_utf8_at)
        r->bad_utf8_at = off + 1;
}

static bool utf8_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x80 ? 1 : tp_utf8_seq_len(p + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* tp_intern with a cache in front: kernel names are 100-500 bytes, and
 * hashing all of them was a tenth of `stats`.  The slot comes from the
 * length and the first and last (up to) eight bytes; a hit is checked by comparing
 * the whole text, so a collision only costs a tp_intern. */
static tp_str intern_text(reader *r, const char *s, size_t n)
{
    if (n == 0)
        return tp_intern(r->t, s, n);
    uint64_t a = 0, b;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else { /* "ac2g", "kernel": categories and flow names are short */
        memcpy(&a, s, n);
        b = a;
    }
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xbf58476d1ce4e5b9ull;
    size_t slot = (size_t)(h >> 55); /* 512 slots */
    if (r->recent[slot].len == n) {
        tp_str id = r->recent[slot].id;
        if (memcmp(tp_str_get(r->t, id), s, n) == 0)
            return id;
    }
    tp_str id = tp_intern(r->t, s, n);
    r->recent[slot].id = id;
    r->recent[slot].len = (uint32_t)n;
    return id;
}

static tp_str intern_span(reader *r, const span *s)
{
    if (!s->escaped) {
        if (!r->o->strict)
            return intern_text(r, s->p, s->n);
        /* --strict: raw bytes that are not UTF-8 (the writers would replace
         * them) are an error at the string; each distinct string is checked once */
        size_t before = r->t->nstr;
        tp_str id = tp_intern(r->t, s->p, s->n);
        if (r->t->nstr > before && !utf8_ok(s->p, s->n)) {
            r->bad_utf8++;
            bad_string_at(r, span_off(r, s));
        }
        return id;
    }
    uint64_t before = r->bad_utf8;
    r->scratch.len = 0;
    tp_json_unescape(&r->scratch, s->p, s->n, &r->bad_utf8);
    if (r->bad_utf8 != before)
        bad_string_at(r, span_off(r, s));
    return tp_intern(r->t, r->scratch.data ? r->scratch.data : "", r->scratch.len);
}

/* A pid/tid: integer, integer-valued string, "stream N", or any string. */
typedef struct ident {
    bool is_str;
    int64_t num;
    tp_str key;
} ident;

static int ident_of(reader *r, const span *s, ident *id)
{
    memset(id, 0, sizeof *id);
    if (s->n == 0 && !s->str)
        return 0; /* missing: 0 */
    if (!s->str) {
        if (tp_parse_int(s->p, s->n, &id->num) == 0)
            return 0;
        int64_t v;
        const char *why;
        if (tp_parse_fixed(s->p, s->n, 0, &v, &why) == 0) { /* 7.0 */
            id->num = v;
            return 0;
        }
        tp_warn_at(r->t, "pid/tid beyond int64 (kept as text)", 1, span_off(r, s));
        id->is_str = true;
        id->key = tp_intern(r->t, s->p, s->n);
        return 0;
    }
    if (tp_parse_int(s->p, s->n, &id->num) == 0)
        return 0;
    if (s->n > 7 && memcmp(s->p, "stream ", 7) == 0 && tp_parse_int(s->p + 7, s->n - 7, &id->num) == 0)
        return 1; /* label kept as the thread name */
    id->is_str = true;
    id->key = intern_span(r, s);
    return 0;
}

static uint32_t track_for_slow(reader *r, const raw_event *ev);

static uint32_t track_for(reader *r, const raw_event *ev)
{
    uint8_t flags = (uint8_t)(1 | (ev->pid.str ? 2 : 0) | (ev->tid.str ? 4 : 0) | (ev->tid.p ? 8 : 0) |
                              (ev->pid.p ? 16 : 0));
    for (int i = 0; i < 4; i++) {
        const struct last_pair *l = &r->last[i];
        if (l->flags == flags && ev->pid.n == l->pid_n && ev->tid.n == l->tid_n &&
            (!ev->pid.p || memcmp(ev->pid.p, l->pid, ev->pid.n) == 0) &&
            (!ev->tid.p || memcmp(ev->tid.p, l->tid, ev->tid.n) == 0))
            return l->track;
    }
    uint32_t k = track_for_slow(r, ev);
    if (ev->pid.n <= sizeof r->last[0].pid && ev->tid.n <= sizeof r->last[0].tid) {
        struct last_pair *l = &r->last[r->last_next++ % 4];
        if (ev->pid.p)
            memcpy(l->pid, ev->pid.p, ev->pid.n);
        if (ev->tid.p)
            memcpy(l->tid, ev->tid.p, ev->tid.n);
        l->pid_n = (uint8_t)ev->pid.n;
        l->tid_n = (uint8_t)ev->tid.n;
        l->flags = flags;
        l->track = k;
    }
    return k;
}

static uint32_t track_for_slow(reader *r, const raw_event *ev)
{
    tp_trace *t = r->t;
    tp_str pk = tp_intern(t, ev->pid.p ? ev->pid.p : "", ev->pid.n);
    tp_str tk = ev->tid.p ? tp_intern(t, ev->tid.p, ev->tid.n) : pk; /* missing tid = pid */
    bool pstr = ev->pid.str, tstr = ev->tid.p ? ev->tid.str : ev->pid.str;
    size_t h = ((size_t)pk * 0x9E3779B1u + (size_t)tk * 31u + (pstr ? 7u : 0u) + (tstr ? 13u : 0u));
    if (r->nslots == 0) {
        r->nslots = 1024;
        r->slots = tp_xcalloc(r->nslots, sizeof *r->slots);
    }
    for (size_t probe = 0; probe < r->nslots; probe++) {
        track_slot *s = &r->slots[(h + probe) & (r->nslots - 1)];
        if (!s->used)
            break;
        if (s->pid == pk && s->tid == tk && s->pid_str == pstr && s->tid_str == tstr)
            return s->track;
    }
    /* slow path: resolve ids, find or create */
    ident pid, tid;
    ident_of(r, &ev->pid, &pid);
    int stream = 0;
    if (ev->tid.p)
        stream = ident_of(r, &ev->tid, &tid);
    else
        tid = pid;
    uint32_t proc = pid.is_str ? tp_process_get_key(t, pid.key) : tp_process_get(t, pid.num);
    uint32_t track = tid.is_str ? tp_track_get_key(t, proc, tid.key) : tp_track_get(t, proc, tid.num);
    if (stream && t->tracks[track].name == 0)
        t->tracks[track].name = intern_span(r, &ev->tid);
    /* insert (grow the table when half full) */
    if ((r->nused + 1) * 2 > r->nslots) {
        size_t ncap = r->nslots * 2;
        track_slot *ns = tp_xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < r->nslots; i++) {
            track_slot *s = &r->slots[i];
            if (!s->used)
                continue;
            size_t hh = ((size_t)s->pid * 0x9E3779B1u + (size_t)s->tid * 31u + (s->pid_str ? 7u : 0u) +
                         (s->tid_str ? 13u : 0u));
            size_t j = hh & (ncap - 1);
            while (ns[j].used)
                j = (j + 1) & (ncap - 1);
            ns[j] = *s;
        }
        free(r->slots);
        r->slots = ns;
        r->nslots = ncap;
    }
    size_t j = h & (r->nslots - 1);
    while (r->slots[j].used)
        j = (j + 1) & (r->nslots - 1);
    r->slots[j] = (track_slot){pk, tk, pstr, tstr, track, true};
    r->nused++;
    return track;
}

/* Times the model can hold without overflow anywhere downstream: ts in
 * [-2^61, 2^62) ns (about 1897 .. 2116 as epoch times), |dur| below 2^61 ns
 * (73 years), so ts + dur and end - earliest start always fit in int64. */
#define TS_MIN (-((int64_t)1 << 61))
#define TS_MAX ((int64_t)1 << 62)
#define DUR_MAX ((int64_t)1 << 61)

static int parse_time(reader *r, const span *s, int64_t *out, uint64_t at, int64_t lo, int64_t hi)
{
    const char *why;
    if (tp_parse_fixed(s->p, s->n, 3, out, &why) == 0) {
        if (*out >= lo && *out < hi)
            return 0;
        why = "outside the time range tracepress keeps (2^61 ns around the epoch)";
    }
    if (r->o->strict)
        return tp_fail(r->err, at, "bad time value '%.*s': %s", (int)(s->n > 40 ? 40 : s->n), s->p, why);
    tp_warn_at(r->t, "bad or out-of-range ts/dur (event dropped)", 1, at);
    tp_drop_count(r->t, "bad or out-of-range ts/dur", 1);
    return 1;
}

static void bstack_push(reader *r, uint32_t track, uint32_t ev)
{
    if (track >= r->bstack_tracks) {
        size_t n = track + 16;
        r->bstack = tp_xrealloc(r->bstack, n * sizeof *r->bstack);
        r->bdepth = tp_xrealloc(r->bdepth, n * sizeof *r->bdepth);
        r->bcap = tp_xrealloc(r->bcap, n * sizeof *r->bcap);
        for (size_t i = r->bstack_tracks; i < n; i++) {
            r->bstack[i] = NULL;
            r->bdepth[i] = r->bcap[i] = 0;
        }
        r->bstack_tracks = n;
    }
    TP_GROW(r->bstack[track], r->bcap[track], r->bdepth[track] + 1);
    r->bstack[track][r->bdepth[track]++] = ev;
}

/* Merge E's args into B's: "{a}" + "{b}" -> "{a,b}". */
static void merge_args(reader *r, tp_event *b, const raw_event *ev)
{
    if (!r->o->keep_args || !ev->args || ev->args_n <= 2)
        return;
    size_t blen;
    const char *bargs = tp_args_get(r->t, b->args, &blen);
    if (!bargs || blen <= 2) {
        b->args = tp_args_add(r->t, ev->args, ev->args_n); /* ev may not be in the buffer (halves joining) */
        return;
    }
    tp_buf m = {0};
    tp_buf_put(&m, bargs, blen - 1); /* without '}' */
    const char *inner = tp_json_ws(ev->args + 1, ev->args + ev->args_n);
    if (*inner != '}') {
        tp_buf_putc(&m, ',');
        tp_buf_put(&m, inner, (size_t)(ev->args + ev->args_n - inner));
    } else
        tp_buf_putc(&m, '}');
    b->args = tp_args_add(r->t, m.data, m.len);
    tp_buf_free(&m);
}

/* ev's args as they stand in the input: a handle into the mapped file when
 * there is one (chrome_args.h), else a copy in the arena. */
static uint64_t args_of_input(reader *r, const raw_event *ev)
{
    uint64_t h = tp_chrome_args_handle(r->t, off_of(r, ev->args), ev->args_n);
    return h ? h : tp_args_add(r->t, ev->args, ev->args_n);
}

static uint64_t args_handle(reader *r, const raw_event *ev)
{
    tp_trace *t = r->t;
    if (r->o->strict) { /* bytes that are not UTF-8 in args: what convert's writer would replace */
        if (ev->args && !utf8_ok(ev->args, ev->args_n)) {
            r->bad_utf8++;
            bad_string_at(r, off_of(r, ev->args));
        } else if (ev->extra->len && !utf8_ok(ev->extra->data, ev->extra->len)) {
            r->bad_utf8++;
            bad_string_at(r, r->ev_at);
        }
    }
    bool keep = r->o->keep_args;
    if (!keep && !(ev->ph.n == 1 && ev->ph.p[0] == 'C'))
        return 0;
    if (ev->extra->len == 0)
        return ev->args ? args_of_input(r, ev) : 0;
    /* extra event keys travel with the args as "{args}\x1f,extra" so the
     * writer can put them back at event level */
    tp_buf *s = &r->scratch;
    s->len = 0;
    if (ev->args)
        tp_buf_put(s, ev->args, ev->args_n);
    tp_buf_putc(s, '\x1f');
    tp_buf_put(s, ev->extra->data, ev->extra->len);
    return tp_args_add(t, s->data, s->len);
}

/* ---- flow keys ----
 *
 * The writer draws each launch link (a device event's `link`, model.h) as a
 * flow v2 on the slices: "bind_id":N with "flow_out":true on the launch call
 * and "flow_in":true on its first device event; further device events of the
 * same call get a v1 pair right after them ({"ph":"s","cat":"launch",
 * "name":"launch"} on the call's thread at its start, {"ph":"f","bp":"e",...}
 * at the device event).  Formats whose links do not come from a
 * "correlation" arg (dv/dt, PlaidML) would lose them on a second conversion,
 * so the reader notes the events that carry these keys (only those pay) and
 * restore_flows links them back once everything is read: device side ->
 * launch side, flagged TP_EV_LINK_FLOW so that a correlation link, which the
 * pipeline finds later, still wins.  Matched v1 pairs are dropped: the writer
 * draws them again from the link.  Keys that make no pair are counted. */

static bool is_v1_launch_f(const raw_event *ev, const tp_event *e)
{
    return (e->flags & TP_EV_BP_ENCLOSING) && (e->flags & TP_EV_HAS_ID) && !(e->flags & TP_EV_ID_STRING) &&
           ev->cat.n == 6 && !ev->cat.escaped && memcmp(ev->cat.p, "launch", 6) == 0 && ev->name.n == 6 &&
           !ev->name.escaped && memcmp(ev->name.p, "launch", 6) == 0;
}

static void note_flow(reader *r, const raw_event *ev, const tp_event *e, uint32_t idx)
{
    tp_trace *t = r->t;
    if (r->o->no_corr)
        return; /* no links wanted (stats without --steps): the keys are only dropped */
    flow_rec fr = {0, idx, 0};
    if (e->ph == 'f' && is_v1_launch_f(ev, e)) {
        fr.id = e->id;
        fr.what = FLOW_V1;
    } else if (!ev->bind.p && !ev->flow) {
        return; /* an 'f' of someone else's flow */
    } else if (!ev->bind.p) {
        tp_warn(t, "flow keys: flow_in/flow_out without bind_id (ignored)", 1);
        return;
    } else if (!ev->flow) {
        tp_warn(t, "flow keys: bind_id without flow_in/flow_out true (ignored)", 1);
        return;
    } else if (e->ph != 'X' && e->ph != 'B') {
        tp_warn(t, "flow keys on events that are not slices (ignored)", 1);
        return;
    } else if (ev->flow == (FLOW_IN | FLOW_OUT)) {
        tp_warn(t, "flow keys: flow_in and flow_out on one slice (ignored)", 1);
        return;
    } else {
        int64_t id;
        if (ev->bind.str || tp_parse_int(ev->bind.p, ev->bind.n, &id) != 0 || id <= 0) {
            tp_warn(t, "flow keys: bind_id not an integer from 1 to 2^63-1 (ignored)", 1);
            return;
        }
        fr.id = (uint64_t)id;
        fr.what = ev->flow;
    }
    TP_GROW(r->flows, r->flows_cap, r->nflows + 1);
    r->flows[r->nflows++] = fr;
}

static int flow_rec_cmp(const void *a, const void *b)
{
    const flow_rec *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* a launch slice of a v2 flow, for matching the v1 pairs by (track, ts) */
typedef struct launch_at {
    uint32_t track;
    int64_t ts;
    uint32_t ev;
} launch_at;

static int launch_at_cmp(const void *a, const void *b)
{
    const launch_at *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The first launch slice at (track, ts), or TP_NONE. */
static uint32_t launch_find(const launch_at *l, size_t n, uint32_t track, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l[mid].track < track || (l[mid].track == track && l[mid].ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && l[lo].track == track && l[lo].ts == ts ? l[lo].ev : TP_NONE;
}

/* Link the in side of a v2 flow to its out side. */
static bool flow_link(tp_trace *t, uint32_t out, uint32_t in)
{
    if (t->events[out].ph != 'X' || t->events[in].ph != 'X' || t->events[in].link != TP_NONE)
        return false;
    t->events[in].link = out;
    t->events[in].flags |= TP_EV_LINK_FLOW;
    return true;
}

/* The pairs found so far: unmatched ends counted, and with v1 pairs in the
 * file the launches they start from. */
typedef struct flow_pairing {
    tp_trace *t;
    bool v1;
    uint64_t no_out, no_in;
    launch_at *launch;
    size_t nlaunch, launch_cap;
} flow_pairing;

static void pair_flow(flow_pairing *fp, uint32_t out, uint32_t in)
{
    if (out == TP_NONE)
        fp->no_out++;
    else if (in == TP_NONE)
        fp->no_in++;
    else if (flow_link(fp->t, out, in) && fp->v1) {
        TP_GROW(fp->launch, fp->launch_cap, fp->nlaunch + 1);
        fp->launch[fp->nlaunch++] = (launch_at){fp->t->events[out].track, fp->t->events[out].ts, out};
    }
}

static void restore_flows(reader *r)
{
    tp_trace *t = r->t;
    if (!r->nflows)
        return;
    /* the v1 'f' records to the end (few), the v2 ones keep their input order */
    size_t nv2 = 0;
    uint64_t maxid = 0;
    for (size_t i = 0; i < r->nflows; i++)
        if (r->flows[i].what != FLOW_V1) {
            flow_rec x = r->flows[i];
            r->flows[i] = r->flows[nv2];
            r->flows[nv2++] = x;
            if (x.id > maxid)
                maxid = x.id;
        }
    bool v1 = nv2 < r->nflows;
    uint64_t dup = 0;
    flow_pairing fp = {t, v1, 0, 0, NULL, 0, 0};
    /* v2: one flow_out and one flow_in per bind id, the first of each kept */
    if (maxid <= (uint64_t)nv2 * 2 + 1024) {
        /* the writer numbers its flows 1, 2, 3...: a table indexed by id */
        uint32_t *end = tp_xmalloc(((size_t)maxid + 1) * 2 * sizeof *end); /* [id][0 out, 1 in] */
        for (size_t k = 0; k <= maxid * 2 + 1; k++)
            end[k] = TP_NONE;
        for (size_t i = 0; i < nv2; i++) {
            uint32_t *side = &end[r->flows[i].id * 2 + (r->flows[i].what == FLOW_IN)];
            if (*side == TP_NONE)
                *side = r->flows[i].ev;
            else
                dup++;
        }
        for (size_t id = 1; id <= maxid; id++) {
            uint32_t out = end[id * 2], in = end[id * 2 + 1];
            if (out != TP_NONE || in != TP_NONE)
                pair_flow(&fp, out, in);
        }
        free(end);
    } else {
        qsort(r->flows, nv2, sizeof *r->flows, flow_rec_cmp);
        for (size_t i = 0; i < nv2;) {
            uint32_t out = TP_NONE, in = TP_NONE;
            size_t j = i;
            for (; j < nv2 && r->flows[j].id == r->flows[i].id; j++) {
                uint32_t *side = r->flows[j].what == FLOW_OUT ? &out : &in;
                if (*side == TP_NONE)
                    *side = r->flows[j].ev;
                else
                    dup++;
            }
            i = j;
            pair_flow(&fp, out, in);
        }
    }
    if (dup)
        tp_warn(t, "flow keys: bind_id on more than one flow_out or flow_in (first kept)", dup);
    if (fp.no_out)
        tp_warn(t, "flow keys: flow_in without a flow_out (ignored)", fp.no_out);
    if (fp.no_in)
        tp_warn(t, "flow keys: flow_out without a flow_in (ignored)", fp.no_in);
    if (!v1)
        return;
    /* v1 "launch" pairs: the writer puts the device slice, the 's' and the
     * 'f' one after the other, the 's' at the start of a launch slice that
     * has a v2 flow */
    qsort(fp.launch, fp.nlaunch, sizeof *fp.launch, launch_at_cmp);
    uint64_t unmatched = 0;
    for (size_t i = nv2; i < r->nflows; i++) {
        uint32_t f = r->flows[i].ev;
        const tp_event *fe = &t->events[f], *se = f >= 2 ? &t->events[f - 1] : NULL;
        tp_event *de = f >= 2 ? &t->events[f - 2] : NULL;
        uint32_t l = TP_NONE;
        if (se && se->ph == 's' && se->cat == fe->cat && se->name == fe->name && (se->flags & TP_EV_HAS_ID) &&
            !(se->flags & TP_EV_ID_STRING) && se->id == fe->id && !(se->flags & TP_EV_DROPPED) && de->ph == 'X' &&
            de->track == fe->track && de->ts == fe->ts && de->link == TP_NONE)
            l = launch_find(fp.launch, fp.nlaunch, se->track, se->ts);
        if (l == TP_NONE || l == f - 2) {
            unmatched++;
            continue;
        }
        de->link = l;
        de->flags |= TP_EV_LINK_FLOW;
        tp_drop(t, f - 1, "launch flows (replaced by flows bound to the slices)");
        tp_drop(t, f, "launch flows (replaced by flows bound to the slices)");
    }
    if (unmatched)
        tp_warn(t, "flow keys: \"launch\" flow pairs not next to their slices (kept as they are)", unmatched);
    free(fp.launch);
}

/* With nothing to link (o->no_corr: `stats` without --steps), the flow
 * events ('s', 't', 'f': a third of a Kineto trace's events, two per kernel
 * launch) draw nothing and nobody reads them: they are counted in
 * events_in, parsed and checked like the others (same warnings and
 * errors), and then only the first of each (track, category) is kept, so
 * that every track and category that has events still has one (the tracks
 * `stats` counts, under --drop-cat too).  Flows of a device kind (a
 * "kernel" category on an 's') are all kept: they mark device processes.
 * 1 GB: 0.09 s of CPU and 75 MB of fresh memory less. */
static bool keep_flow(reader *r, const tp_event *e)
{
    if (!r->o->no_corr || (e->ph != 's' && e->ph != 't' && e->ph != 'f') || e->kind != TP_KIND_OTHER)
        return true;
    int64_t key = (int64_t)((uint64_t)e->track << 32 | e->cat);
    if (tp_i64map_get(&r->flow_seen, key) != TP_I64MAP_EMPTY)
        return false;
    tp_i64map_put(&r->flow_seen, key, 1);
    return true;
}

static int commit_event(reader *r, raw_event *ev, uint64_t at)
{
    tp_trace *t = r->t;
    r->ev_at = at;
    if (!ev->ph.p) {
        if (!ev->name.p && !ev->ts.p && !ev->pid.p) {
            tp_warn_at(t, "empty {} events (skipped)", 1, at);
            return 0;
        }
        if (r->o->strict)
            return tp_fail(r->err, at, "event without \"ph\"");
        tp_warn_at(t, "events without \"ph\" (dropped)", 1, at);
        tp_drop_count(t, "no \"ph\"", 1);
        return 0;
    }
    t->events_in++;
    char ph = ev->ph.n ? ev->ph.p[0] : '?';
    if (ph == 'M' && ev->name.n > 8 && memcmp(ev->name.p, "process_", 8) == 0) {
        /* process metadata names no thread: resolve the process only */
        ident pid;
        ident_of(r, &ev->pid, &pid);
        uint32_t pi = pid.is_str ? tp_process_get_key(t, pid.key) : tp_process_get(t, pid.num);
        tp_process *pr = &t->processes[pi]; /* after the call: it may grow the array */
        int64_t v;
        if (key_is(ev->name.p, ev->name.n, "process_name") && ev->m_name.str) {
            pr->name = intern_span(r, &ev->m_name);
            if (r->second)
                meta_mark(&r->pmeta_set, &r->pmeta_set_cap, pi, META_NAME);
            return 0;
        }
        if (key_is(ev->name.p, ev->name.n, "process_labels") && ev->m_labels.str) {
            pr->label = intern_span(r, &ev->m_labels);
            if (r->second)
                meta_mark(&r->pmeta_set, &r->pmeta_set_cap, pi, META_LABEL);
            return 0;
        }
        if (key_is(ev->name.p, ev->name.n, "process_sort_index") && ev->m_sort.p &&
            tp_parse_int(ev->m_sort.p, ev->m_sort.n, &v) == 0) {
            pr->sort_index = v;
            pr->has_sort = true;
            return 0;
        }
    }
    uint32_t track = track_for(r, ev);
    if (ph == 'M') {
        tp_track *tk = &t->tracks[track];
        int64_t v;
        if (key_is(ev->name.p, ev->name.n, "thread_name") && ev->m_name.str) {
            tk->name = intern_span(r, &ev->m_name);
            if (r->second)
                meta_mark(&r->meta_set, &r->meta_set_cap, track, META_NAME);
            return 0;
        }
        if (key_is(ev->name.p, ev->name.n, "thread_sort_index") && ev->m_sort.p &&
            tp_parse_int(ev->m_sort.p, ev->m_sort.n, &v) == 0) {
            tk->sort_index = v;
            tk->has_sort = true;
            return 0;
        }
        /* other metadata: kept as an event and written back */
    }
    tp_event e;
    tp_event_init(&e);
    e.ph = ph;
    e.track = track;
    if (ev->name.p)
        e.name = intern_span(r, &ev->name);
    if (ev->cat.p)
        e.cat = intern_span(r, &ev->cat);
    if (ev->ts.p) {
        int k = parse_time(r, &ev->ts, &e.ts, at, TS_MIN, TS_MAX);
        if (k)
            return k < 0 ? -1 : 0;
    } else if (ph != 'M') {
        if (r->o->strict)
            return tp_fail(r->err, at, "event without \"ts\"");
        tp_warn_at(t, "events without \"ts\" (dropped)", 1, at);
        tp_drop_count(t, "no \"ts\"", 1);
        return 0;
    }
    if (ev->dur.p) {
        int k = parse_time(r, &ev->dur, &e.dur, at, -DUR_MAX, DUR_MAX);
        if (k)
            return k < 0 ? -1 : 0;
        if (e.dur < 0) {
            if (r->o->strict)
                return tp_fail(r->err, at, "negative duration");
            tp_warn_at(t, "negative durations (set to 0)", 1, at);
            e.dur = 0;
        }
    } else if (ph == 'X') {
        tp_warn_at(t, "X events without \"dur\" (dur 0)", 1, at);
    }
    if (ev->has_corr && ev->corr >= 0 && ev->corr <= UINT32_MAX) {
        e.corr = (uint32_t)ev->corr;
        e.flags |= TP_EV_HAS_CORR;
    }
    if (ev->id.p) {
        e.flags |= TP_EV_HAS_ID;
        int64_t v;
        if (!ev->id.str && tp_parse_int(ev->id.p, ev->id.n, &v) == 0)
            e.id = (uint64_t)v;
        else {
            /* string ids ("0x1f") and numbers beyond int64 are kept as text */
            e.flags |= TP_EV_ID_STRING;
            e.id = ev->id.str ? intern_span(r, &ev->id) : tp_intern(t, ev->id.p, ev->id.n);
        }
    }
    if (ev->bp.p && ev->bp.n == 1 && ev->bp.p[0] == 'e')
        e.flags |= TP_EV_BP_ENCLOSING;
    if (ev->scope.p && ev->scope.n == 1) {
        if (ev->scope.p[0] == 'g')
            e.flags |= TP_EV_INSTANT_GLOBAL;
        else if (ev->scope.p[0] == 'p')
            e.flags |= TP_EV_INSTANT_PROCESS;
    }
    switch (ph) {
    case 'X':
        break;
    case 'B': {
        e.args = args_handle(r, ev);
        uint32_t idx = tp_event_add(t, &e);
        bstack_push(r, track, idx);
        if (ev->bind.p || ev->flow)
            note_flow(r, ev, &e, idx);
        return 0;
    }
    case 'E': {
        if ((track >= r->bstack_tracks || r->bdepth[track] == 0) && r->second) {
            /* its 'B' may be open in the first half: decided when the halves join */
            TP_GROW(r->orphans, r->orphans_cap, r->norphans + 1);
            uint64_t a = r->o->keep_args && ev->args && ev->args_n > 2 ? args_of_input(r, ev) : 0;
            r->orphans[r->norphans++] = (orphan_e){track, at, e.ts, a};
            return 0;
        }
        if (track >= r->bstack_tracks || r->bdepth[track] == 0) {
            if (r->o->strict)
                return tp_fail(r->err, at, "'E' event without a matching 'B'");
            tp_warn_at(t, "unmatched E events (dropped)", 1, at);
            tp_drop_count(t, "'E' without a matching 'B'", 1);
            return 0;
        }
        tp_event *b = &t->events[r->bstack[track][--r->bdepth[track]]];
        b->ph = 'X';
        b->dur = e.ts >= b->ts ? e.ts - b->ts : 0;
        b->flags |= TP_EV_FROM_BE;
        merge_args(r, b, ev);
        return 0;
    }
    case 'I':
        e.ph = 'i';
        break;
    case 'i': case 'C': case 'b': case 'e': case 'n': case 's': case 't': case 'f': case 'M':
    case 'R': case 'N': case 'O': case 'D': case 'P': case 'S': case 'T': case 'F': case 'c':
    case 'V': case 'v': case '(': case ')':
        break;
    default:
        if (r->o->strict)
            return tp_fail(r->err, at, "unknown phase '%.*s'", (int)(ev->ph.n > 8 ? 8 : ev->ph.n), ev->ph.p);
        tp_warn_at(t, "unknown phases (kept)", 1, at);
    }
    e.args = args_handle(r, ev);
    if (e.cat >= r->cat_kind_cap) {
        size_t old = r->cat_kind_cap;
        TP_GROW(r->cat_kind, r->cat_kind_cap, (size_t)e.cat + 1);
        memset(r->cat_kind + old, 0, r->cat_kind_cap - old);
    }
    if (!r->cat_kind[e.cat])
        r->cat_kind[e.cat] = (uint8_t)(1 + tp_kind_from_cat(tp_str_get(t, e.cat), tp_str_len(t, e.cat)));
    e.kind = (uint8_t)(r->cat_kind[e.cat] - 1);
    if (!keep_flow(r, &e))
        return 0;
    uint32_t idx = tp_event_add(t, &e);
    if (ev->bind.p || ev->flow || e.ph == 'f')
        note_flow(r, ev, &e, idx);
    return 0;
}

/* ---- top level ---- */

/* --strict: the first lenient problem counted so far (the smallest offset)
 * as the error.  Checked after every event, so it is the first in the file. */
static int strict_error(reader *r)
{
    const tp_warning *w = tp_warning_first(r->t);
    if (r->bad_utf8 && (!w || !w->at || (r->bad_utf8_at && r->bad_utf8_at <= w->at))) {
        if (r->bad_utf8_at)
            return tp_fail(r->err, r->bad_utf8_at - 1, "invalid escape or UTF-8 in a string, rejected by --strict");
        return tp_fail_at(r->err, "", "invalid escapes or UTF-8 in %llu strings, rejected by --strict",
                          (unsigned long long)r->bad_utf8);
    }
    if (!w)
        return 0;
    if (w->at)
        return tp_fail(r->err, w->at - 1, "%s, rejected by --strict", w->what);
    return tp_fail_at(r->err, "", "%s (%llu), rejected by --strict", w->what, (unsigned long long)w->count);
}

/* Parse the traceEvents array body, event by event, refilling as needed.
 * On entry r->pos is just after '['.  Returns 0 or -1. */
/* Every cache line of the input is asked for PREFETCH_AHEAD bytes before
 * the parser reaches it: the hardware's prefetcher stops at each 4 KiB
 * page, and the first look at each event's keys was a miss (1 GB Kineto,
 * one core: 0.02 s of 0.89). */
#define PREFETCH_AHEAD 1024
static int read_events(reader *r)
{
    raw_event ev;
    bool first = true;
    const char *ahead_in = r->buf, *ahead = r->buf + r->pos; /* the input is asked for up to here */
    for (;;) {
        const char *p = tp_json_ws(r->buf + r->pos, r->buf + r->len);
        r->pos = (size_t)(p - r->buf);
        const char *end = r->buf + r->len;
        if (p >= end) {
            if (more_or_truncated(r, p, "the traceEvents array") < 0)
                return -1;
            continue;
        }
        if (*p == ']') {
            r->pos++;
            if (r->half)
                half_cancel(r); /* the array ended before the split: it was not between events */
            return 0;
        }
        if (r->abandon && atomic_load_explicit(r->abandon, memory_order_relaxed))
            return 0; /* second half, no longer wanted */
        if (!first) { /* an event was read: a comma (or the end) must follow */
            if (*p != ',')
                return tp_fail(r->err, off_of(r, p), "expected ',' or ']' between events");
            const char *q = tp_json_ws(p + 1, end);
            if (q >= end && !r->eof) {
                if (refill(r, r->pos) < 0)
                    return -1;
                continue;
            }
            first = true; /* the comma is consumed: an event comes next */
            if (q < end && *q == ']') {
                if (r->o->strict)
                    return tp_fail(r->err, off_of(r, p), "trailing comma in traceEvents");
                tp_warn_at(r->t, "trailing commas", 1, off_of(r, p));
                r->pos = (size_t)(q - r->buf) + 1;
                return 0;
            }
            p = q;
            r->pos = (size_t)(p - r->buf);
        }
        if (p >= end) {
            if (r->eof)
                return tp_fail(r->err, off_of(r, p), "file ends inside the traceEvents array (truncated?)");
            continue;
        }
        if (*p != '{')
            return tp_fail(r->err, off_of(r, p), "expected an event object");
        if (r->half && off_of(r, p) >= half_split(r)) {
            /* the first half reached the split: join the halves (0: the second half
             * read the rest of the array; 1: the split was not here, go on alone) */
            int k = half_meet(r, off_of(r, p));
            if (k <= 0)
                return k;
        }
        const char *next = p, *why = "malformed event";
        if (ahead_in != r->buf || ahead < p) /* a refill moved the buffer, or a long event passed it */
            ahead_in = r->buf, ahead = p;
        for (const char *to = end - p > PREFETCH_AHEAD ? p + PREFETCH_AHEAD : end; ahead < to; ahead += 64)
            __builtin_prefetch(ahead);
        int k = parse_event(r, p, end, &ev, &next, &why);
        if (k == TP_JL_MORE) {
            if (more_or_truncated(r, p, "an event") < 0)
                return -1;
            continue;
        }
        if (k == TP_JL_BAD) {
            /* find the failing position roughly: report the event start */
            return tp_fail(r->err, off_of(r, p), "%s", why);
        }
        if (commit_event(r, &ev, off_of(r, p)) < 0)
            return -1;
        if (r->o->strict && (r->t->nwarnings || r->bad_utf8)) /* a lenient problem: the first one in the file */
            return strict_error(r);
        r->pos = (size_t)(next - r->buf);
        release_behind(r);
        first = false;
    }
}

static int read_top_object(reader *r)
{
    bool first = true;
    for (;;) {
        const char *p = tp_json_ws(r->buf + r->pos, r->buf + r->len);
        r->pos = (size_t)(p - r->buf);
        const char *end = r->buf + r->len;
        if (p >= end) {
            if (more_or_truncated(r, p, "the top-level object") < 0)
                return -1;
            continue;
        }
        if (*p == '}') {
            r->pos++;
            return 0;
        }
        const char *unit = p;
        if (!first) {
            if (*p != ',')
                return tp_fail(r->err, off_of(r, p), "expected ',' or '}' in the top-level object");
            p = tp_json_ws(p + 1, end);
            if (p < end && *p == '}') {
                if (r->o->strict)
                    return tp_fail(r->err, off_of(r, p), "trailing comma in the top-level object");
                tp_warn_at(r->t, "trailing commas", 1, off_of(r, p));
                r->pos = (size_t)(p - r->buf) + 1;
                return 0;
            }
        }
        /* key */
        const char *k, *why = "malformed top-level key";
        size_t kn;
        bool kesc;
        const char *q;
        int rc = p < end ? (*p == '"' ? tp_json_string(p, end, &k, &kn, &kesc, &q, &why) : TP_JL_BAD)
                         : TP_JL_MORE;
        if (rc == TP_JL_OK) {
            q = tp_json_ws(q, end);
            if (q >= end)
                rc = TP_JL_MORE;
            else if (*q != ':') {
                rc = TP_JL_BAD;
                why = "expected ':' after a top-level key";
            } else
                q = tp_json_ws(q + 1, end);
            if (rc == TP_JL_OK && q >= end)
                rc = TP_JL_MORE;
        }
        if (rc == TP_JL_MORE) {
            if (more_or_truncated(r, unit, "the top-level object") < 0)
                return -1;
            continue;
        }
        if (rc == TP_JL_BAD)
            return tp_fail(r->err, off_of(r, p), "%s", why);
        if (key_is(k, kn, "traceEvents") || key_is(k, kn, "systemTraceEvents")) {
            if (key_is(k, kn, "traceEvents")) {
                if (*q != '[')
                    return tp_fail(r->err, off_of(r, q), "traceEvents is not an array");
                r->saw_events_key = true;
                r->pos = (size_t)(q - r->buf) + 1;
                if (read_events(r) < 0)
                    return -1;
                first = false;
                continue;
            }
        }
        const char *vend;
        rc = tp_json_skip(q, end, &vend, &why);
        if (rc == TP_JL_MORE) {
            if (more_or_truncated(r, unit, "the top-level object") < 0)
                return -1;
            continue;
        }
        if (rc == TP_JL_BAD)
            return tp_fail(r->err, off_of(r, q), "%s", why);
        const char *ve = vend;
        while (ve > q && (ve[-1] == ' ' || ve[-1] == '\n' || ve[-1] == '\r' || ve[-1] == '\t'))
            ve--;
        if (key_is(k, kn, "baseTimeNanoseconds")) {
            int64_t base;
            if (tp_parse_fixed(q, (size_t)(ve - q), 0, &base, &why) == 0)
                r->t->base_ns = base;
            else
                tp_warn_at(r->t, "bad baseTimeNanoseconds (ignored)", 1, off_of(r, q));
        } else {
            tp_buf *tl = &r->t->toplevel;
            if (tl->len)
                tp_buf_putc(tl, ',');
            tp_buf_put(tl, k - 1, kn + 2);
            tp_buf_putc(tl, ':');
            tp_buf_put(tl, q, (size_t)(ve - q));
        }
        if (r->o->strict && r->t->nwarnings)
            return strict_error(r);
        r->pos = (size_t)(vend - r->buf);
        first = false;
    }
}

/* ---- two halves ----
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
 * in a single pass), warnings and counters (added). */

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
    pthread_t thread;
    atomic_bool abandon;
} half_job;

static uint64_t half_split(const reader *r) { return r->half->split; }

static void reader_free(reader *r)
{
    for (size_t k = 0; k < r->bstack_tracks; k++)
        free(r->bstack[k]);
    free(r->bstack);
    free(r->bdepth);
    free(r->bcap);
    free(r->slots);
    free(r->cat_kind);
    free(r->own);
    free(r->orphans);
    free(r->meta_set);
    free(r->pmeta_set);
    free(r->flows);
    tp_i64map_free(&r->flow_seen);
    tp_buf_free(&r->extra);
    tp_buf_free(&r->scratch);
}

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
        if (refill(r, 0) < 0)
            return NULL;
    }
    if (read_events(r) < 0)
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

static void half_start(reader *r)
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
        use_map(b, r->map, r->len, split);
    } else {
        b->cap = CHUNK;
        b->buf = b->own = tp_xmalloc(b->cap + 1);
    }
    b->second = true;
    b->abandon = &j->abandon;
    if (pthread_create(&j->thread, NULL, half_main, j) != 0) {
        reader_free(b);
        tp_trace_free(&j->t);
        free(j);
        return;
    }
    r->half = j;
}

static void half_free(half_job *j)
{
    reader_free(&j->r);
    tp_input_close(j->in);
    tp_trace_free(&j->t);
    free(j);
}

/* The guess was wrong (or the first half failed): stop and drop the second half. */
static void half_cancel(reader *r)
{
    half_job *j = r->half;
    if (!j)
        return;
    r->half = NULL;
    atomic_store(&j->abandon, true);
    pthread_join(j->thread, NULL);
    half_free(j);
}

/* Append the second half's trace to the first's (see the section comment). */
static int half_merge(reader *a, half_job *j)
{
    tp_trace *t = a->t, *u = &j->t;
    reader *b = &j->r;
    tp_str *smap = tp_xmalloc((u->nstr + 1) * sizeof *smap);
    for (size_t i = 0; i < u->nstr; i++)
        smap[i] = tp_intern(t, tp_str_get(u, (tp_str)i), tp_str_len(u, (tp_str)i));
    uint32_t *pmap = tp_xmalloc((u->nprocesses + 1) * sizeof *pmap);
    for (size_t i = 0; i < u->nprocesses; i++) {
        const tp_process *q = &u->processes[i];
        uint32_t k = q->key ? tp_process_get_key(t, smap[q->key]) : tp_process_get(t, q->pid);
        uint8_t set = i < b->pmeta_set_cap ? b->pmeta_set[i] : 0;
        tp_process *p = &t->processes[k];
        if (set & META_NAME)
            p->name = smap[q->name];
        if (set & META_LABEL)
            p->label = smap[q->label];
        if (q->has_sort) {
            p->sort_index = q->sort_index;
            p->has_sort = true;
        }
        pmap[i] = k;
    }
    uint32_t *tmap = tp_xmalloc((u->ntracks + 1) * sizeof *tmap);
    for (size_t i = 0; i < u->ntracks; i++) {
        const tp_track *q = &u->tracks[i];
        uint32_t k = q->key ? tp_track_get_key(t, pmap[q->process], smap[q->key])
                            : tp_track_get(t, pmap[q->process], q->tid);
        tp_track *tk = &t->tracks[k];
        /* a thread_name event always wins; a "stream 7" label only names a nameless track */
        bool meta = i < b->meta_set_cap && (b->meta_set[i] & META_NAME);
        if (meta || (q->name && !tk->name))
            tk->name = smap[q->name];
        if (q->has_sort) {
            tk->sort_index = q->sort_index;
            tk->has_sort = true;
        }
        tmap[i] = k;
    }
    uint64_t shift = tp_args_append(t, u); /* the second arena after the first */
    uint32_t first_ev = (uint32_t)t->nevents;
    TP_GROW_EVENTS(t, t->nevents + u->nevents); /* with the usual room for derived events */
    for (size_t i = 0; i < u->nevents; i++) {
        tp_event e = u->events[i];
        e.name = smap[e.name];
        e.cat = smap[e.cat];
        e.track = tmap[e.track];
        if (e.args && !tp_chrome_args_is_file(t, e.args)) /* a file handle means the same in both */
            e.args += shift;
        if (e.flags & TP_EV_ID_STRING)
            e.id = smap[e.id];
        tp_event_add(t, &e);
    }
    free(u->events);
    u->events = NULL;
    u->nevents = u->events_cap = 0;
    /* 'E' events of the second half whose 'B' is open in the first */
    int rc = 0;
    for (size_t i = 0; i < b->norphans && rc == 0; i++) {
        const orphan_e *o = &b->orphans[i];
        uint32_t track = tmap[o->track];
        if (track >= a->bstack_tracks || a->bdepth[track] == 0) {
            if (a->o->strict)
                rc = tp_fail(a->err, o->at, "'E' event without a matching 'B'");
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
        merge_args(a, be, &ev);
    }
    /* the second half's open 'B' events stay open, above the first half's */
    for (size_t k = 0; k < b->bstack_tracks; k++)
        for (size_t d = 0; d < b->bdepth[k]; d++)
            bstack_push(a, tmap[k], first_ev + b->bstack[k][d]);
    /* events with flow keys: after the first half's, as one reader notes them */
    for (size_t i = 0; i < b->nflows; i++) {
        TP_GROW(a->flows, a->flows_cap, a->nflows + 1);
        a->flows[a->nflows] = b->flows[i];
        a->flows[a->nflows++].ev += first_ev;
    }
    for (size_t i = 0; i < u->nwarnings; i++)
        tp_warn_merge(t, &u->warnings[i]);
    for (size_t i = 0; i < u->ndrops; i++)
        tp_drop_count(t, u->drops[i].what, u->drops[i].count);
    t->events_in += u->events_in;
    a->bad_utf8 += b->bad_utf8;
    if (b->bad_utf8_at)
        bad_string_at(a, b->bad_utf8_at - 1);
    free(smap);
    free(pmap);
    free(tmap);
    return rc;
}

/* The first half reached offset `at` (>= the split) at the start of an
 * event.  Returns 0 when the halves were joined (the array is read: the
 * caller returns as after its ']'), 1 when the split was wrong (go on
 * alone), -1 on error. */
static int half_meet(reader *r, uint64_t at)
{
    half_job *j = r->half;
    if (getenv("TP_READ_SPLIT_REPORT"))
        fprintf(stderr, "tracepress: halves: split at %llu %s\n", (unsigned long long)j->split,
                at == j->split ? "joined" : "abandoned");
    if (at != j->split) {
        half_cancel(r);
        return 1;
    }
    r->half = NULL;
    pthread_join(j->thread, NULL);
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

static int chrome_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.in = in;
    r.t = t;
    r.o = o;
    r.err = err;
    t->format = "chrome";
    int rc = 0;
    uint64_t size;
    const char *map = tp_input_map(in, &size);
    if (map) {
        use_map(&r, map, size, 0);
    } else {
        r.cap = CHUNK;
        r.buf = r.own = tp_xmalloc(r.cap + 1);
        if (refill(&r, 0) < 0) {
            rc = -1;
            goto done;
        }
    }
    /* skip a UTF-8 byte order mark */
    if (r.len >= 3 && memcmp(r.buf, "\xEF\xBB\xBF", 3) == 0)
        r.pos = 3;
    const char *p = tp_json_ws(r.buf + r.pos, r.buf + r.len);
    while (p >= r.buf + r.len && !r.eof) {
        r.pos = (size_t)(p - r.buf);
        if (refill(&r, r.pos) < 0) {
            rc = -1;
            goto done;
        }
        p = tp_json_ws(r.buf + r.pos, r.buf + r.len);
    }
    if (p >= r.buf + r.len) {
        rc = tp_fail(err, off_of(&r, p), "empty input (no JSON value)");
        goto done;
    }
    r.pos = (size_t)(p - r.buf) + 1;
    if (o->keep_args && tp_input_seekable(in)) /* args stay in the file (chrome_args.h) */
        tp_chrome_args_attach(t, tp_input_path(in), tp_input_compressed_size(in));
    half_start(&r);
    if (*p == '[') {
        r.top_is_array = true;
        rc = read_events(&r);
    } else if (*p == '{') {
        uint64_t top_at = off_of(&r, p);
        rc = read_top_object(&r);
        if (rc == 0 && !r.saw_events_key)
            tp_warn_at(t, "no traceEvents array", 1, top_at);
    } else {
        rc = tp_fail(err, off_of(&r, p), "not JSON: expected '[' or '{'");
    }
    if (rc == 0) {
        /* anything after the top-level value other than whitespace */
        for (;;) {
            const char *q = tp_json_ws(r.buf + r.pos, r.buf + r.len);
            r.pos = (size_t)(q - r.buf);
            if (q < r.buf + r.len) {
                if (o->strict) {
                    rc = tp_fail(err, off_of(&r, q), "data after the end of the JSON document");
                    break;
                }
                tp_warn_at(t, "data after the end of the JSON document (ignored)", 1, off_of(&r, q));
                break;
            }
            if (r.eof)
                break;
            if (refill(&r, r.pos) < 0) {
                rc = -1;
                break;
            }
        }
    }
    if (rc == 0) {
        /* B events never closed: close them at the last time seen on their track */
        uint64_t open = 0;
        for (size_t k = 0; k < r.bstack_tracks; k++)
            open += r.bdepth[k];
        if (open) {
            if (o->strict)
                rc = tp_fail(err, off_of(&r, r.buf + r.pos), "%llu 'B' events never ended",
                             (unsigned long long)open);
            else {
                int64_t last = 0;
                for (size_t i = 0; i < t->nevents; i++)
                    if (t->events[i].ts + t->events[i].dur > last)
                        last = t->events[i].ts + t->events[i].dur;
                for (size_t k = 0; k < r.bstack_tracks; k++)
                    for (size_t d = 0; d < r.bdepth[k]; d++) {
                        tp_event *b = &t->events[r.bstack[k][d]];
                        b->ph = 'X';
                        b->dur = last > b->ts ? last - b->ts : 0;
                        b->flags |= TP_EV_FROM_BE;
                    }
                tp_warn(t, "B events never ended (closed at trace end)", open);
            }
        }
    }
    if (rc == 0)
        restore_flows(&r); /* after the B events are closed: flows bind to slices */
    if (rc == 0 && o->strict && (r.bad_utf8 || t->nwarnings))
        rc = strict_error(&r);
    if (rc == 0 && r.bad_utf8 && r.bad_utf8_at)
        tp_warn_at(t, "invalid UTF-8 or escapes (replaced)", r.bad_utf8, r.bad_utf8_at - 1);
    else if (rc == 0 && r.bad_utf8)
        tp_warn(t, "invalid UTF-8 or escapes (replaced)", r.bad_utf8);
done:
    half_cancel(&r); /* an error before the split, or a split never reached */
    reader_free(&r);
    return rc;
}

static int chrome_probe(const unsigned char *head, size_t n, const char *path)
{
    size_t i = 0;
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        i++;
    if (i >= n)
        return 0;
    if (head[i] == '{') {
        /* a JSON object: likely ours; other JSON formats probe higher on their own keys */
        return 40;
    }
    if (head[i] == '[') {
        /* array of events: '{' next; dv/dt cjson arrays hold call records and probe higher */
        size_t j = i + 1;
        while (j < n && (head[j] == ' ' || head[j] == '\n' || head[j] == '\r' || head[j] == '\t'))
            j++;
        if (j >= n || head[j] == '{' || head[j] == ']')
            return 30;
    }
    (void)path;
    return 0;
}

const tp_format tp_format_chrome = {
    "chrome",
    "Chrome Trace Event JSON: PyTorch profiler / Kineto traces, chrome://tracing, Perfetto JSON",
    ".json .json.gz .pt.trace.json",
    chrome_probe,
    chrome_read,
};
