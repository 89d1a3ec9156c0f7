/* pftrace_example.h: a small Perfetto trace built by hand the way Perfetto's
 * documentation builds its examples (docs "Converting arbitrary timestamped
 * data to Perfetto", "Track events"): a process and its thread described by
 * TrackDescriptors, a GPU process with a "stream 7" track, a counter track
 * and a delta counter track with a unit multiplier,
 * a sequence with interned names, categories, annotation names and string
 * values and a default track, a sequence on an incremental clock defined by
 * a clock snapshot, and a legacy ThreadDescriptor packet whose sequence's
 * events name no track.  With `compress`, the interned sequence's packets go
 * inside one compressed_packets (zlib).  What it holds, in
 * tests/pftrace/test_pftrace_read.c. */
#ifndef TP_TEST_PFTRACE_EXAMPLE_H
#define TP_TEST_PFTRACE_EXAMPLE_H

#include "convert/base/common.h"

void tp_pftrace_example(tp_buf *out, bool compress);

/* A packet compressed_packets deep inside `depth` levels of themselves, around one track event. */
void tp_pftrace_nested(tp_buf *out, int depth);

/* A trace whose one compressed_packets inflates to `mb` MB of padding packets. */
void tp_pftrace_bomb(tp_buf *out, unsigned mb);

/* rocprofv3's shape (rocprofiler-sdk's Perfetto output): a hip_api call on its
 * thread and a kernel_dispatch on a queue track of the process, one flow id. */
void tp_pftrace_rocprof_like(tp_buf *out);

#endif
