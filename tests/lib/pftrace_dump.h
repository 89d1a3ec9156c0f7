/* pftrace_dump.h: a Perfetto protobuf trace as readable text (like
 * `protoc --decode_raw`, but with the field names of the messages tracepress
 * writes), for golden files and reviews.  Built on pbwire, no .proto files. */
#ifndef TP_PFTRACE_DUMP_H
#define TP_PFTRACE_DUMP_H

#include "convert/base/common.h"

/* Appends the text to out; returns 0, or -1 if the bytes are not a valid
 * protobuf message (err filled). */
int tp_pftrace_dump(const void *data, size_t len, tp_buf *out, tp_err *err);

#endif
