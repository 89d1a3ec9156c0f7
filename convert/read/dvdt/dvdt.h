/* dvdt.h: internal interface of the dv/dt prof reader (convert/dvdt_*.c).
 * dvdt_read.c finds the records (cjson array, framed stdout, CK point,
 * text mode via dvdt_text.c); dvdt_calls.c turns each call record into
 * model events, one "run" (trace or CK repetition) at a time; dvdt_util.c
 * holds the small parsers they share. */
#ifndef TP_DVDT_H
#define TP_DVDT_H

#include "convert/read/formats.h"
#include "convert/codec/json_value.h"
#include "convert/codec/json_lex.h"
#include "convert/base/i64map.h"

typedef struct dv_run dv_run;

/* Start a run: a host process and a device process (repetition < 0: the
 * plain trace, else CK repetition number). */
dv_run *dv_run_begin(tp_trace *t, const tp_read_opts *o, int repetition);
/* One call record (a JSON object); `off` is its byte offset in the file for
 * messages.  Returns 0, or -1 with err filled. */
int dv_run_call(dv_run *r, const tp_jv *rec, uint64_t off, tp_err *err);
/* CK extras for this repetition: run.time_fw_ms etc. and per_layer_info. */
int dv_run_ck(dv_run *r, const tp_jv *run, tp_err *err);
/* Align device times to the host clock, add device events and the Layers
 * line; frees r.  Returns 0 or -1. */
int dv_run_end(dv_run *r, tp_err *err);
void dv_run_abort(dv_run *r);

/* Text (ostream) mode: feed every call block as a JSON record to
 * dv_run_call.  buf is the whole file. */
int dv_text_read(dv_run *r, const char *buf, size_t len, tp_err *err);

/* ---- dvdt_util.c ---- */

/* "2018-02-09T10:36:48.553314" -> ns since the epoch (UTC).  -1: not an ISO
 * time (the WALLCLOCK=timeofday placeholder included) or a year outside
 * 1970..2200 (every sum of times then stays inside int64). */
int dv_parse_iso(const char *s, size_t len, int64_t *ns);
/* "HH:MM:SS[.f{1,9}]", exactly len chars -> ns of the day. */
int dv_parse_clock(const char *s, size_t len, int64_t *ns);
/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t dv_days_from_civil(int64_t y, unsigned m, unsigned d);
/* n decimal digits -> *out; -1 if one is not a digit. */
int dv_digits(const char *s, int n, int *out);

/* Little-endian hex bytes ("e0000000" -> 224).  -1 if not hex, odd length
 * or longer than 8 bytes. */
int dv_hex_le(const char *s, size_t len, uint64_t *out);
bool dv_all_hex(const char *s, size_t n);
/* A pointer handle ("0x55a2b3dc00", "0", "(nil)") -> value; -1 if not one. */
int dv_parse_ptr(const tp_jv *v, uint64_t *out);

/* printf-free output: args are built for every call of big traces. */
void dv_put_u64(tp_buf *b, uint64_t v);
void dv_put_i64(tp_buf *b, int64_t v);
void dv_put_hex(tp_buf *b, uint64_t v);    /* "0x1f" */

/* dv/dt's own options (tp_format_dvdt.options: --with-source). */
typedef struct tp_dvdt_opts {
    bool with_source; /* keep kernel sources (clCreateProgramWithSource) in the args */
} tp_dvdt_opts;

static inline const tp_dvdt_opts *tp_dvdt_opts_of(const tp_read_opts *o)
{
    static const tp_dvdt_opts defaults;
    const tp_dvdt_opts *d = tp_format_opts(o, &tp_format_dvdt);
    return d ? d : &defaults;
}

#endif
