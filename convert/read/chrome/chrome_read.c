/* chrome_read.c: streaming reader for Chrome Trace Event JSON, including
 * PyTorch profiler / Kineto traces (spec: shared/specs/KINETO.md §1, §4):
 * the format and its probe, the input buffer, and the top-level value (the
 * traceEvents array is read by chrome_events.c; the reader's files are
 * listed in chrome_read_int.h).
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
#include "convert/read/chrome/chrome_read_int.h"
#include "convert/read/chrome/chrome_args.h"
#include "convert/codec/json_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffer management ---- */

int chrome_refill(reader *r, size_t keep_from)
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
void chrome_use_map(reader *r, const char *map, uint64_t size, uint64_t pos)
{
    r->map = r->buf = map;
    r->len = r->cap = (size_t)size;
    r->pos = (size_t)pos;
    r->buf_off = 0;
    r->eof = true;
    r->released = pos;
}

/* The unit starting at `at` runs past the buffer: read more and have the
 * caller parse it again (0), or, at the end of the input, fail naming what
 * the file ends inside (-1). */
int chrome_more_or_truncated(reader *r, const char *at, const char *inside)
{
    if (r->eof)
        return tp_fail(r->err, off_of(r, at), "file ends inside %s (truncated?)", inside);
    return chrome_refill(r, r->pos);
}

/* ---- top level ---- */

/* --strict: the first lenient problem counted so far (the smallest offset)
 * as the error.  Checked after every event, so it is the first in the file. */
int chrome_strict_error(reader *r)
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

const char *chrome_json_what(char c)
{
    switch (c) {
    case '"': return "a string";
    case '[': return "an array";
    case '{': return "an object";
    case 't': case 'f': return "a boolean";
    case 'n': return "null";
    default: return (c >= '0' && c <= '9') || c == '-' ? "a number" : "something that is not JSON";
    }
}

/* The first bytes of a JSON string, number, true, false or null. */
static bool json_scalar_start(const unsigned char *p, size_t n)
{
    if (n == 0)
        return false;
    if (*p == '"' || *p == '-' || (*p >= '0' && *p <= '9'))
        return true;
    return (n >= 4 && (!memcmp(p, "true", 4) || !memcmp(p, "null", 4))) || (n >= 5 && !memcmp(p, "false", 5));
}

/* A PyTorch Execution Trace ("schema", "nodes": the graph of ops, no
 * times) is JSON an object too: said so, and said at once (its "nodes"
 * array can be gigabytes). */
static int not_a_trace(reader *r, uint64_t top_at)
{
    if (r->saw_et_keys == 3)
        return tp_fail(r->err, top_at, "not a trace: a PyTorch Execution Trace (\"schema\", \"nodes\"), which has "
                                       "no times; read the profiler's Kineto trace instead");
    return tp_fail(r->err, top_at, "not a trace: a JSON object without \"traceEvents\"");
}

static int read_top_object(reader *r, uint64_t top_at)
{
    bool first = true;
    for (;;) {
        const char *p = tp_json_ws(r->buf + r->pos, r->buf + r->len);
        r->pos = (size_t)(p - r->buf);
        const char *end = r->buf + r->len;
        if (p >= end) {
            if (chrome_more_or_truncated(r, p, "the top-level object") < 0)
                return -1;
            continue;
        }
        if (*p == '}') {
            r->pos++;
            return r->saw_events_key || r->saw_system_key ? 0 : not_a_trace(r, top_at);
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
                return r->saw_events_key || r->saw_system_key ? 0 : not_a_trace(r, top_at);
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
            if (chrome_more_or_truncated(r, unit, "the top-level object") < 0)
                return -1;
            continue;
        }
        if (rc == TP_JL_BAD)
            return tp_fail(r->err, off_of(r, p), "%s", why);
        if (!r->saw_events_key && (key_is(k, kn, "schema") || key_is(k, kn, "nodes"))) {
            r->saw_et_keys |= key_is(k, kn, "schema") ? 1 : 2;
            if (r->saw_et_keys == 3)
                return not_a_trace(r, top_at);
        }
        r->saw_system_key |= key_is(k, kn, "systemTraceEvents");
        if (key_is(k, kn, "traceEvents") || key_is(k, kn, "systemTraceEvents")) {
            if (key_is(k, kn, "traceEvents")) {
                if (*q != '[')
                    return tp_fail(r->err, off_of(r, q), "traceEvents is not an array");
                r->saw_events_key = true;
                r->pos = (size_t)(q - r->buf) + 1;
                if (chrome_read_events(r) < 0)
                    return -1;
                first = false;
                continue;
            }
        }
        const char *vend;
        rc = tp_json_skip(q, end, &vend, &why);
        if (rc == TP_JL_MORE) {
            if (chrome_more_or_truncated(r, unit, "the top-level object") < 0)
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
            if (key_is(k, kn, "deviceProperties"))
                chrome_read_devices(r, q, ve);
            tp_buf *tl = &r->t->toplevel;
            if (tl->len)
                tp_buf_putc(tl, ',');
            tp_buf_put(tl, k - 1, kn + 2);
            tp_buf_putc(tl, ':');
            tp_buf_put(tl, q, (size_t)(ve - q));
        }
        if (r->o->strict && r->t->nwarnings)
            return chrome_strict_error(r);
        r->pos = (size_t)(vend - r->buf);
        first = false;
    }
}

/* What a reader allocated (its trace is the caller's). */
void chrome_reader_free(reader *r)
{
    for (size_t k = 0; k < r->bstack_tracks; k++)
        free(r->bstack[k]);
    free(r->bstack);
    free(r->bdepth);
    free(r->bcap);
    free(r->slots);
    free(r->cat_kind);
    free(r->want);
    free(r->own);
    free(r->orphans);
    free(r->meta_set);
    free(r->pmeta_set);
    free(r->flows);
    tp_i64map_free(&r->flow_seen);
    free(r->dev_track);
    free(r->unk);
    tp_i64map_free(&r->unk_index);
    free(r->mtia_rt);
    tp_i64map_free(&r->name_kind);
    tp_buf_free(&r->extra);
    tp_buf_free(&r->scratch);
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
        chrome_use_map(&r, map, size, 0);
    } else {
        r.cap = CHUNK;
        r.buf = r.own = tp_xmalloc(r.cap + 1);
        if (chrome_refill(&r, 0) < 0) {
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
        if (chrome_refill(&r, r.pos) < 0) {
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
    if ((o->keep_args || o->keep_args_of) && tp_input_seekable(in)) /* args stay in the file (chrome_args.h) */
        tp_chrome_args_attach(t, tp_input_path(in), tp_input_compressed_size(in));
    chrome_half_start(&r);
    if (*p == '[') {
        r.top_is_array = true;
        rc = chrome_read_events(&r);
    } else if (*p == '{') {
        uint64_t top_at = off_of(&r, p);
        rc = read_top_object(&r, top_at);
        if (rc == 0 && !r.saw_events_key)
            tp_warn_at(t, "no traceEvents array", 1, top_at);
    } else if (json_scalar_start((const unsigned char *)p, (size_t)(r.buf + r.len - p))) {
        rc = tp_fail(err, off_of(&r, p), "not a trace: %s at the top level (a trace is an object with "
                                          "\"traceEvents\" or an array of events)", chrome_json_what(*p));
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
            if (chrome_refill(&r, r.pos) < 0) {
                rc = -1;
                break;
            }
        }
    }
    if (rc == 0)
        rc = chrome_close_open_b(&r); /* B events never closed */
    if (rc == 0)
        chrome_restore_flows(&r); /* after the B events are closed: flows bind to slices */
    if (rc == 0 && o->strict && (r.bad_utf8 || t->nwarnings))
        rc = chrome_strict_error(&r);
    if (rc == 0) /* after --strict's check: an unknown category is not a repair */
        chrome_cats_finish(&r);
    if (rc == 0 && r.bad_utf8 && r.bad_utf8_at)
        tp_warn_at(t, "invalid UTF-8 or escapes (replaced)", r.bad_utf8, r.bad_utf8_at - 1);
    else if (rc == 0 && r.bad_utf8)
        tp_warn(t, "invalid UTF-8 or escapes (replaced)", r.bad_utf8);
    if (rc == 0 && chrome_device_only(&r)) { /* TP_TIMING=1: what device_only left out (the tests read it) */
        char what[96];
        snprintf(what, sizeof what, "read: %zu of %llu events kept", t->nevents, (unsigned long long)t->events_in);
        tp_timing(what);
    } else if (rc == 0 && o->flows_as_ids) { /* TP_TIMING=1: the launch flows noted, not kept (the tests read it) */
        char what[96];
        snprintf(what, sizeof what, "read: %zu launch flows noted as ids", t->nlaunch_flows);
        tp_timing(what);
    }
done:
    chrome_half_cancel(&r); /* an error before the split, or a split never reached */
    chrome_reader_free(&r);
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
        return 1; /* JSON, not events: the reader says so ("not a trace") if nothing else reads it */
    }
    if (json_scalar_start(head + i, n - i))
        return 1; /* a JSON scalar: likewise */
    (void)path;
    return 0;
}

const tp_format tp_format_chrome = {
    "chrome",
    "Chrome Trace Event JSON: PyTorch profiler / Kineto traces, chrome://tracing, Perfetto JSON",
    ".json .json.gz .pt.trace.json",
    chrome_probe,
    chrome_read,
    TP_FMT_KEEPS_DERIVED_LINES,
    NULL,
};
