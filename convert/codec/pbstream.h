/* pbstream.h: a stream of varint-length-prefixed protobuf messages
 * ([varint32 len][message] ...), read through tp_input in a small growing
 * buffer so a multi-GB log is never held in memory at once.  Used by the
 * PlaidML event log reader; general enough for any delimited protobuf stream. */
#ifndef TP_PBSTREAM_H
#define TP_PBSTREAM_H

#include "convert/io/input.h"

typedef struct tp_pbstream {
    tp_input *in;
    unsigned char *buf;
    size_t cap, pos, len;  /* unread bytes are buf[pos..len) */
    bool eof;              /* tp_input reported the end */
    uint64_t max_record;   /* a longer length prefix is an error */
    uint64_t records;      /* records returned so far */
    uint64_t bytes;        /* bytes consumed (prefixes included) */
} tp_pbstream;

void tp_pbstream_init(tp_pbstream *s, tp_input *in, uint64_t max_record);
void tp_pbstream_free(tp_pbstream *s);

/* Next record: 1 with *rec and *len valid until the next call, 0 at a clean end
 * of data (or a zero length prefix, *zero set), -1 on error (err filled, with
 * `where` = "record N", N counted from 1).  A record cut short is an error. */
int tp_pbstream_next(tp_pbstream *s, const unsigned char **rec, size_t *len, bool *zero, tp_err *err);

#endif
