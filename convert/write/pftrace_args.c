/* pftrace_args.c: args JSON text -> DebugAnnotation fields (see pftrace_args.h).
 * Field numbers: pftrace_fields.h. */
#include "convert/write/pftrace_args.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/pbwrite.h"
#include "convert/write/pftrace_fields.h"

#include <stdlib.h>
#include <string.h>


/* One top-level member: key (unescaped into `key`) and the value's range. */
typedef struct member {
    const char *k;
    size_t klen;
    const char *v, *vend;
} member;

typedef struct iter {
    const char *p, *end;
    tp_buf *key;
    bool first;
} iter;

static int iter_start(iter *it, const char *json, size_t n, tp_buf *scratch)
{
    it->end = json + n;
    it->p = tp_json_ws(json, it->end);
    it->key = scratch;
    it->first = true;
    if (it->p >= it->end || *it->p != '{')
        return -1;
    it->p++;
    return 0;
}

/* 1 got a member, 0 end of object, -1 malformed. */
static int iter_next(iter *it, member *m)
{
    const char *why;
    it->p = tp_json_ws(it->p, it->end);
    if (it->p < it->end && *it->p == '}')
        return 0;
    if (!it->first) {
        if (it->p >= it->end || *it->p != ',')
            return -1;
        it->p = tp_json_ws(it->p + 1, it->end);
    }
    it->first = false;
    if (it->p >= it->end || *it->p != '"')
        return -1;
    const char *s, *next;
    size_t len;
    bool esc;
    if (tp_json_string(it->p, it->end, &s, &len, &esc, &next, &why) != TP_JL_OK)
        return -1;
    if (esc) {
        it->key->len = 0;
        tp_json_unescape(it->key, s, len, NULL);
        m->k = it->key->data;
        m->klen = it->key->len;
    } else {
        m->k = s;
        m->klen = len;
    }
    it->p = tp_json_ws(next, it->end);
    if (it->p >= it->end || *it->p != ':')
        return -1;
    it->p = tp_json_ws(it->p + 1, it->end);
    m->v = it->p;
    if (tp_json_skip(it->p, it->end, &next, &why) != TP_JL_OK)
        return -1;
    it->p = next;
    while (next > m->v && (next[-1] == ' ' || next[-1] == '\n' || next[-1] == '\r' || next[-1] == '\t'))
        next--; /* the skip may take trailing whitespace along */
    m->vend = next;
    return 1;
}

static bool is_number_start(char c) { return c == '-' || (c >= '0' && c <= '9'); }

static double to_double(const char *s, size_t n)
{
    char tmp[64];
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return strtod(tmp, NULL);
}

/* ---- legacy_json values: the JSON text without whitespace outside strings ----
 * Kineto's nested values (Input Dims, Input Strides: a number a line, each
 * line indented) made a byte loop here a tenth of a 1 GB `.pftrace`
 * conversion.  Runs are found 16 bytes at a time instead: whitespace runs
 * skipped, runs of other bytes copied by one 16-byte store (made only while
 * 16 input bytes remain, and the output never runs ahead of the input: it
 * stays inside the n + 1 bytes reserved), string bodies by
 * tp_json_plain_end.  The bytes are those of the byte loop, for any input
 * (tests/write/test_pftrace_minify.c compares the two): a string runs from a
 * quote to the next quote not after a backslash, a backslash takes the byte
 * after it along, everything inside a string is kept as it is. */

void tp_pf_minify(tp_buf *out, const char *s, const char *end)
{
    size_t n = (size_t)(end - s);
    if (out->len + n + 1 > out->cap)
        TP_GROW(out->data, out->cap, out->len + n + 1);
    char *o = out->data + out->len;
    const char *p = s;
    while (p < end) {
        char c = *p;
        if (c == '"') { /* a string: kept as it is, up to its closing quote */
            *o++ = *p++;
            while (p < end) {
                const char *q = tp_json_plain_end(p, end); /* up to a quote, a backslash or a byte to look at */
                memcpy(o, p, (size_t)(q - p));
                o += q - p;
                p = q;
                if (p >= end)
                    break;
                c = *p;
                *o++ = *p++;
                if (c == '"')
                    break;
                if (c == '\\' && p < end) /* the escaped byte goes along, whatever it is */
                    *o++ = *p++;
            }
            continue;
        }
#ifdef __SSE2__
        if (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned ws = tp_json_ws_bits16(v);
            if (ws & 1) { /* whitespace: skipped to the first byte that is not */
                unsigned keep = ~ws & 0xffff;
                p += keep ? (unsigned)__builtin_ctz(keep) : 16;
            } else { /* a run of other bytes up to whitespace or a quote: one store */
                unsigned stop = ws | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
                unsigned k = stop ? (unsigned)__builtin_ctz(stop) : 16;
                _mm_storeu_si128((__m128i *)(void *)o, v);
                o += k;
                p += k;
            }
            continue;
        }
#endif
        if (!tp_json_is_ws(c))
            *o++ = c;
        p++;
    }
    *o = 0;
    out->len = (size_t)(o - out->data);
}

int tp_pf_put_args(tp_buf *b, const char *json, size_t n, tp_pf_name_fn name_iid, tp_pf_value_iid_fn value_iid,
                   void *ctx, tp_buf *scratch, uint64_t *bad_utf8)
{
    size_t start = b->len;
    uint64_t bad_before = bad_utf8 ? *bad_utf8 : 0;
    iter it;
    member m;
    int k;
    tp_buf val = {0};
    if (iter_start(&it, json, n, scratch) < 0)
        return -1;
    while ((k = iter_next(&it, &m)) == 1) {
        uint64_t iid = name_iid(ctx, m.k, m.klen);
        size_t mark = tp_pbw_begin(b, TE_DEBUG_ANNOTATIONS);
        tp_pbw_uint(b, DA_NAME_IID, iid);
        const char *v = m.v;
        size_t vlen = (size_t)(m.vend - m.v);
        const char *why;
        if (*v == '"') {
            const char *s, *next;
            size_t len;
            bool esc;
            if (tp_json_string(v, m.vend, &s, &len, &esc, &next, &why) != TP_JL_OK) {
                k = -1;
                break;
            }
            if (esc) {
                val.len = 0;
                tp_json_unescape(&val, s, len, bad_utf8);
                s = val.data ? val.data : "";
                len = val.len;
            }
            uint64_t viid = value_iid ? value_iid(ctx, iid, s, len) : 0;
            if (viid)
                tp_pbw_uint(b, DA_STRING_IID, viid);
            else
                tp_pbw_utf8(b, DA_STRING, s, len, bad_utf8);
        } else if (is_number_start(*v)) {
            int64_t iv;
            bool frac = false; /* one pass over the few bytes, not three memchr calls */
            for (size_t i = 0; i < vlen && !frac; i++)
                frac = v[i] == '.' || v[i] == 'e' || v[i] == 'E';
            if (!frac && tp_parse_int(v, vlen, &iv) == 0)
                tp_pbw_int(b, DA_INT, iv);
            else if (frac)
                tp_pbw_double(b, DA_DOUBLE, to_double(v, vlen));
            else
                tp_pbw_bytes(b, DA_LEGACY_JSON, v, vlen); /* beyond int64: keep the digits */
        } else if (vlen == 4 && memcmp(v, "true", 4) == 0)
            tp_pbw_uint(b, DA_BOOL, 1);
        else if (vlen == 5 && memcmp(v, "false", 5) == 0)
            tp_pbw_uint(b, DA_BOOL, 0);
        else if (*v == '{' || *v == '[' || (vlen == 4 && memcmp(v, "null", 4) == 0)) {
            val.len = 0;
            tp_pf_minify(&val, v, m.vend);
            tp_pbw_utf8(b, DA_LEGACY_JSON, val.data ? val.data : "", val.len, bad_utf8);
        } else {
            k = -1;
            break;
        }
        tp_pbw_end(b, mark);
    }
    tp_buf_free(&val);
    if (k < 0) {
        b->len = start;
        if (bad_utf8)
            *bad_utf8 = bad_before;
        return -1;
    }
    return 0;
}

int tp_pf_counter_values(const char *json, size_t n, tp_pf_value_fn fn, void *ctx, tp_buf *scratch)
{
    iter it;
    member m;
    int k;
    if (iter_start(&it, json, n, scratch) < 0)
        return -1;
    while ((k = iter_next(&it, &m)) == 1)
        if (is_number_start(*m.v))
            fn(ctx, m.k, m.klen, to_double(m.v, (size_t)(m.vend - m.v)));
    return k;
}
