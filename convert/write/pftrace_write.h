/* pftrace_write.h: write a trace as a Perfetto protobuf trace (.pftrace).
 * Perfetto loads this format with far less memory than JSON; see
 * docs/PFTRACE.md for what is written and the field numbers used. */
#ifndef TP_PFTRACE_WRITE_H
#define TP_PFTRACE_WRITE_H

#include "convert/model/model.h"
#include "convert/io/output.h"

typedef struct tp_pftrace_stats {
    uint64_t packets;      /* TracePackets written */
    uint64_t slices;       /* 'X' events (one BEGIN and one END packet each) */
    uint64_t instants;
    uint64_t counter_values; /* TYPE_COUNTER packets (one per numeric arg of a 'C' event) */
    uint64_t flows;        /* launch -> device flows (one id per device event) */
    uint64_t input_flows;  /* the input's own flows ('s'/'t'/'f', e.g. fwdbwd) bound to two or more slices */
    uint64_t tracks;       /* TrackDescriptors: processes, threads, named and counter tracks */
    uint64_t not_written;  /* events this format does not hold here (async, unbound flow events, unknown phases) */
    uint64_t repaired;     /* slices moved to overlap tracks to keep nesting */
    uint64_t clipped;      /* slices cut at their parent's end (only if nesting repair gave up) */
    uint64_t bad_utf8;     /* invalid UTF-8 sequences replaced */
    uint64_t invalid_args; /* args that are not a JSON object: kept as one "invalid_args" string */
} tp_pftrace_stats;

/* Repairs nesting, assigns output ids and writes the trace.  The caller
 * commits or aborts `o` (a name ending in .gz is written gzip'ed). */
int tp_write_pftrace(tp_trace *t, tp_out *o, tp_pftrace_stats *st);

/* Does this output name ask for the protobuf format?  (.pftrace,
 * .perfetto-trace, each optionally followed by .gz) */
bool tp_pftrace_wanted(const char *path);

#endif
