/* pbstream.c: delimited protobuf records over a tp_input stream. */
#include "convert/codec/pbstream.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PBS_CHUNK (256u << 10)

void tp_pbstream_init(tp_pbstream *s, tp_input *in, uint64_t max_record)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->max_record = max_record;
    s->cap = PBS_CHUNK;
    s->buf = tp_xmalloc(s->cap);
}

void tp_pbstream_free(tp_pbstream *s)
{
    free(s->buf);
    s->buf = NULL;
}

/* An input error carries a byte offset; restate it at the record it broke. */
static int relabel(tp_pbstream *s, tp_err *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    err->set = false;
    char where[32];
    snprintf(where, sizeof where, "record %llu", (unsigned long long)s->records + 1);
    return tp_fail_at(err, where, "%s", msg);
}

/* An error at the record being read ("record N", counted from 1). */
__attribute__((format(printf, 3, 4))) static int fail(tp_pbstream *s, tp_err *err, const char *fmt, ...)
{
    char where[32], msg[300];
    snprintf(where, sizeof where, "record %llu", (unsigned long long)s->records + 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tp_fail_at(err, where, "%s", msg);
}

/* Make at least `need` unread bytes available; fewer only at end of data. */
static int fill(tp_pbstream *s, size_t need, tp_err *err)
{
    if (s->len - s->pos >= need || s->eof)
        return 0;
    if (s->pos > 0) { /* move the unread tail to the front */
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->len -= s->pos;
        s->pos = 0;
    }
    while (s->len < need && !s->eof) {
        if (s->len == s->cap) { /* grow as the bytes arrive, not by a length read from the file */
            s->cap *= 2;
            s->buf = tp_xrealloc(s->buf, s->cap);
        }
        long r = tp_input_read(s->in, s->buf + s->len, s->cap - s->len, err);
        if (r < 0)
            return relabel(s, err);
        if (r == 0)
            s->eof = true;
        s->len += (size_t)r;
    }
    return 0;
}

int tp_pbstream_next(tp_pbstream *s, const unsigned char **rec, size_t *len, bool *zero, tp_err *err)
{
    *zero = false;
    /* The common case first: a one-byte length (records of 1..127 bytes)
     * whose record is already in the buffer, with the 10 bytes buffered that
     * fill() below asks for (so it would not read either: the same result,
     * and an input error is met at the same record). */
    const unsigned char *p = s->buf + s->pos;
    size_t avail = s->len - s->pos;
    if (avail >= 10 && p[0] > 0 && p[0] < 0x80 && p[0] < avail && p[0] <= s->max_record) {
        *rec = p + 1;
        *len = p[0];
        s->pos += 1 + (size_t)p[0];
        s->bytes += 1 + (uint64_t)p[0];
        s->records++;
        return 1;
    }
    if (fill(s, 10, err) < 0)
        return -1;
    if (s->pos == s->len)
        return 0;
    uint64_t n = 0;
    size_t i = s->pos;
    int shift = 0;
    for (;;) {
        if (i == s->len)
            return fail(s, err, "length prefix cut short (truncated log)");
        if (shift > 63)
            return fail(s, err, "length prefix is not a valid varint");
        unsigned char b = s->buf[i++];
        n |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    if (n == 0) {
        s->pos = i;
        s->bytes += 1;
        *zero = true;
        return 0;
    }
    if (n > s->max_record)
        return fail(s, err, "record length %llu is larger than the %llu-byte limit (corrupt log?)",
                    (unsigned long long)n, (unsigned long long)s->max_record);
    size_t hdr = i - s->pos;
    if (fill(s, hdr + (size_t)n, err) < 0)
        return -1;
    if (s->len - s->pos < hdr + n)
        return fail(s, err, "record needs %llu bytes but the log ends after %llu (truncated log)",
                    (unsigned long long)n, (unsigned long long)(s->len - s->pos - hdr));
    *rec = s->buf + s->pos + hdr;
    *len = (size_t)n;
    s->pos += hdr + (size_t)n;
    s->bytes += hdr + n;
    s->records++;
    return 1;
}
