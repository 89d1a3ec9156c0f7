/* mem_event.h: one allocator event of a trace, read from its args: Kineto's
 * "[memory]" instants (profile_memory=True) with "Device Type", "Device Id",
 * "Addr", "Bytes" (negative for a free), "Total Allocated" and "Total
 * Reserved" (the allocator's levels after the event).  Shared by the
 * report's memory model (report/memory/) and convert's counter tracks
 * (mem_counters.h), so both read the same fields the same way. */
#ifndef TP_MEM_EVENT_H
#define TP_MEM_EVENT_H

#include "convert/model/model.h"

#define TP_MEM_EVENT_NAME "[memory]"

typedef struct tp_mem_event {
    int64_t type, id;           /* c10 DeviceType (0 CPU, 1 CUDA) and Device Id */
    int64_t bytes;              /* > 0 allocation, < 0 free */
    int64_t addr;
    int64_t allocated, reserved; /* levels after the event */
    bool has_addr, has_levels;
} tp_mem_event;

typedef struct tp_mem_reader tp_mem_reader;

/* The name id of the events, 0 when the trace has none (then nothing to read). */
tp_str tp_mem_event_name(const tp_trace *t);
/* inline: asked of every event of the trace (2 M at 1 GB; a call each was 6 ms of 1.4 s on 500 MB) */
static inline bool tp_mem_event_is(const tp_trace *t, tp_str name_id, const tp_event *e)
{
    (void)t;
    return name_id && e->name == name_id && e->ph == 'i' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED));
}

tp_mem_reader *tp_mem_reader_new(const tp_trace *t);
void tp_mem_reader_free(tp_mem_reader *r);
/* 0 read (has_addr/has_levels say what was there), -1 the args lack the
 * device or the bytes (or are not an object): the event says nothing. */
int tp_mem_event_read(tp_mem_reader *r, const tp_event *e, tp_mem_event *out);

/* The same from an args object's text: a flat object of integers is read in one pass, anything else
 * through the JSON tree (tree_only: always; the fuzz target checks both give the same). */
int tp_mem_args_parse(tp_mem_reader *r, const char *args, size_t len, bool tree_only, tp_mem_event *out);

/* How many args tp_mem_args_parse read by the layout learnt from the args before (a profiler writes
 * them all alike: only the numbers differ); the rest went through the one-pass read or the tree. */
uint64_t tp_mem_reader_layout_reads(const tp_mem_reader *r);

/* The reader option's part (formats.h keep_args_of). */
bool tp_mem_wants_args(const char *name, size_t len);

/* "cuda:0", "cpu", "type5:1" */
void tp_mem_device_label(int64_t type, int64_t id, char *buf, size_t n);

#endif
