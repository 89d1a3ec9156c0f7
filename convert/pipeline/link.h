/* link.h: linking, the step of tp_load (pipeline.c) after classifying:
 * device activity -> the launch call with its correlation id, launch call ->
 * the innermost host op around it on its thread (by time containment), and
 * device activity -> that op.  A reader's own links are kept, except those
 * the Chrome reader restored from flow keys (correlation comes first); the
 * input's own launch flows go once anything is linked (the writers bind new
 * ones to the slices).  Reads no string (derive.h: the derived lines may be
 * built beside it).
 *
 * It runs on two threads (TP_THREADS=1: on this one, the same result): the
 * walk over the events in two halves, then each host thread's slices sorted
 * and swept beside the correlation lookup of the device activity; what needs
 * both (a device event's op is its launch call's) is done after, over the
 * events linked only. */
#ifndef TP_LINK_H
#define TP_LINK_H

#include "convert/model/derive.h"

/* Device activity: what a launch call starts (classifying marks the
 * processes that hold it as devices). */
static inline bool tp_is_device_kind(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET || k == TP_KIND_SYNC;
}

/* cats: the categories of the input's own launch flows, looked up before
 * (tp_str_find: 0 when absent).  hs: filled with each track's host slices
 * in time order (derive.h), the caller's to free. */
void tp_link_events(tp_trace *t, const tp_str cats[4], tp_host_slices *hs);

#endif
