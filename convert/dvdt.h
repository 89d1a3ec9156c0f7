/* dvdt.h: internal interface of the dv/dt prof reader (convert/dvdt_*.c).
 * dvdt_read.c finds the records (cjson array, framed stdout, CK point,
 * text mode via dvdt_text.c); dvdt_calls.c turns each call record into
 * model events, one "run" (trace or CK repetition) at a time. */
#ifndef TP_DVDT_H
#define TP_DVDT_H

#include "formats.h"
#include "json_value.h"

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

/* "2018-02-09T10:36:48.553314" -> ns since the epoch (UTC).  -1: not an ISO
 * time (the WALLCLOCK=timeofday placeholder included). */
int dv_parse_iso(const char *s, size_t len, int64_t *ns);
/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t dv_days_from_civil(int64_t y, unsigned m, unsigned d);

/* Little-endian hex bytes ("e0000000" -> 224).  -1 if not hex, odd length
 * or longer than 8 bytes. */
int dv_hex_le(const char *s, size_t len, uint64_t *out);

#endif
