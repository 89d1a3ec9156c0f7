/* xplane.h: the XPlane (XSpace protobuf) reader's entry over a byte range,
 * for tests and tools that already hold the bytes (truncation tests). */
#ifndef TP_XPLANE_H
#define TP_XPLANE_H

#include "formats.h"

/* Read one serialized XSpace from buf[0..len) into t (same contract as
 * tp_format_xplane.read).  buf must stay valid during the call only. */
int tp_xplane_read_mem(const void *buf, size_t len, tp_trace *t, const tp_read_opts *o, tp_err *err);

/* True when an XLine id is one of the derived-line ids (0xdeadbeef + 0..399
 * compared as int32, XPLANE.md §2). */
bool tp_xplane_is_derived_line_id(int64_t id);

#endif
