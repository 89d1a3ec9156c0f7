/* chrome_write.h: write a trace as Chrome Trace Event JSON for Perfetto. */
#ifndef TP_CHROME_WRITE_H
#define TP_CHROME_WRITE_H

#include "convert/model/model.h"
#include "convert/io/output.h"

typedef struct tp_write_stats {
    uint64_t events_out; /* JSON events written, metadata included */
    uint64_t repaired;   /* slices moved to overlap tracks to keep nesting */
    uint64_t bad_utf8;   /* invalid UTF-8 sequences replaced */
    uint64_t flows;      /* launch -> device flows written */
    uint64_t flows_cut;  /* device events in the window whose launch call is outside it (a part of
                          * a --split): the link cannot be drawn in this file */
    uint64_t invalid_args; /* args with characters JSON does not allow: written as a string */
    int64_t start_ns;    /* the rebase offset (trace time of ts 0) */
} tp_write_stats;

/* Repairs nesting (moves overlapping slices, see tracks.h), assigns output
 * ids, and writes.  The caller commits or aborts `o`. */
int tp_write_chrome(tp_trace *t, tp_out *o, tp_write_stats *st);

/* Several outputs of one trace (--split): prepare once, then write the
 * events whose start lies in [lo, hi) to each output.  Each output is a
 * complete trace on its own: metadata of its tracks, flows whose both ends
 * it holds, its own baseTimeNanoseconds. */
typedef struct tp_chrome_writer tp_chrome_writer;
tp_chrome_writer *tp_chrome_writer_new(tp_trace *t);
int tp_chrome_writer_write(tp_chrome_writer *cw, tp_out *o, int64_t lo, int64_t hi, tp_write_stats *st);
void tp_chrome_writer_free(tp_chrome_writer *cw);

#endif
