/* chrome_parse.h: JSON text -> one raw event.  An event object is read
 * into spans that point into the buffer (raw_event), with no side effect on
 * the trace, so that an event cut by the end of the buffer is parsed again
 * from its start after a refill.  Keys are dispatched by length and first
 * bytes; only the args key analyses need (correlation) is looked for.
 *
 * Inline, for the one file that reads the traceEvents array
 * (chrome_events.c): a call per event there cost 0.6% more instructions of
 * `stats` (30 MB gen_kineto, cachegrind). */
#ifndef TP_CHROME_PARSE_H
#define TP_CHROME_PARSE_H

#include "convert/read/chrome/chrome_read_int.h"
#include "convert/codec/json_lex.h"

#include <string.h>

static inline int scan_scalar(const char *p, const char *end, span *s, const char **next, const char **why)
{
    if (p >= end)
        return TP_JL_MORE;
    s->int_n = s->frac_n = 0;
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
    const char *d0 = p + (*p == '-'), *q = tp_json_digits_end(d0, end);
    if (q > d0 && (*d0 != '0' || q - d0 == 1)) {
        size_t int_n = (size_t)(q - d0), frac_n = 0;
        if (q < end && *q == '.') {
            const char *f = ++q;
            q = tp_json_digits_end(q, end);
            frac_n = (size_t)(q - f);
            if (q == f)
                q = end; /* "1." is not a number: the long way says so */
        }
        if (q < end && !tp_json_token_char((unsigned char)*q)) {
            s->p = p;
            s->n = (size_t)(q - p);
            s->str = false;
            s->escaped = false;
            if (int_n <= 255 && frac_n <= 255) {
                s->int_n = (uint8_t)int_n;
                s->frac_n = (uint8_t)frac_n;
            }
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

/* The first `key` (n >= 2 bytes) in [p, e), or NULL.  glibc's memmem
 * sets up for long haystacks; args are ~200 bytes and this runs on every
 * one (memmem was 2% of a conversion).  SSE2 (baseline on x86-64) tests
 * 16 places at once for the key's second and last bytes, then compares
 * the few that match both. */
static inline const char *find_key(const char *p, const char *e, const char *key, size_t n)
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
static inline int scan_args(reader *r, const char *p, const char *end, raw_event *ev, bool meta,
                            const char **next, const char **why)
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

/* Zero ev as 16-byte stores: the 384-byte memset was a `rep stos`, 20% of
 * chrome_read_events' own samples (its start-up cost, per event). */
static inline void zero_event(raw_event *ev)
{
#ifdef __SSE2__
    _Static_assert(sizeof *ev % 16 == 0, "raw_event is zeroed 16 bytes at a time");
    char *b = (char *)ev;
    __m128i z = _mm_setzero_si128();
    __asm__("" : "+x"(z)); /* an opaque zero: else GCC makes the loop a memset again */
    for (size_t i = 0; i < sizeof *ev; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(b + i), z);
#else
    memset(ev, 0, sizeof *ev);
#endif
}

/* Parse one event object at p.  No side effects on the trace. */
static inline int parse_event(reader *r, const char *p, const char *end, raw_event *ev, const char **next,
                              const char **why)
{
    zero_event(ev);
    ev->extra = &r->extra;
    r->extra.len = 0;
    /* p at '{' */
    p = tp_json_ws_guess(&r->ws_key, p + 1, end);
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
        p = tp_json_ws_guess(&r->ws_colon, p + 1, end);
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
            p = tp_json_ws_guess(&r->ws_key, p + 1, end);
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

#endif
