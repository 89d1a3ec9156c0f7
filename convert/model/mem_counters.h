/* mem_counters.h: the allocator's levels as counter tracks (ph "C") that
 * Perfetto and chrome://tracing draw: one counter "Memory <device>" (args
 * "allocated" and "reserved", bytes) per device, a value at every
 * "[memory]" event that carries the levels (mem_event.h), on the process of
 * that event.  `convert` adds them; a trace without memory events is left
 * as it is, and a trace that already has them (a converted one) too. */
#ifndef TP_MEM_COUNTERS_H
#define TP_MEM_COUNTERS_H

#include "convert/model/model.h"

#define TP_MEM_COUNTER_PREFIX "Memory "

/* Adds the counter events; returns how many. */
size_t tp_mem_counters_add(tp_trace *t);

#endif
