/* mem_counters.c: see mem_counters.h.  Work: one pass over the events when
 * the trace has memory events (one string lookup when it has none), then
 * each memory event's args read once. */
#include "convert/model/mem_counters.h"

#include "convert/model/mem_event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tp_mem_counters_add(tp_trace *t)
{
    tp_str name = tp_mem_event_name(t);
    if (!name)
        return 0;
    /* the events to read first: adding events moves the array */
    size_t n = 0, cap = 0;
    uint32_t *ev = NULL;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph == 'C' && strncmp(tp_str_get(t, e->name), TP_MEM_COUNTER_PREFIX, sizeof TP_MEM_COUNTER_PREFIX - 1) == 0) {
            free(ev); /* converted before: its counters are there */
            return 0;
        }
        if (tp_mem_event_is(t, name, e)) {
            TP_GROW(ev, cap, n + 1);
            ev[n++] = (uint32_t)i;
        }
    }
    tp_mem_event *me = tp_xmalloc((n ? n : 1) * sizeof *me);
    bool *ok = tp_xcalloc(n ? n : 1, sizeof *ok);
    tp_mem_reader *r = tp_mem_reader_new(t);
    for (size_t k = 0; k < n; k++)
        ok[k] = tp_mem_event_read(r, &t->events[ev[k]], &me[k]) == 0 && me[k].has_levels;
    tp_mem_reader_free(r); /* before any tp_args_add: its cursor reads the args as they are */
    size_t added = 0;
    for (size_t k = 0; k < n; k++) {
        if (!ok[k])
            continue;
        char label[32], cname[64], args[96];
        tp_mem_device_label(me[k].type, me[k].id, label, sizeof label);
        snprintf(cname, sizeof cname, TP_MEM_COUNTER_PREFIX "%s", label);
        int len = snprintf(args, sizeof args, "{\"allocated\":%lld,\"reserved\":%lld}", (long long)me[k].allocated,
                           (long long)me[k].reserved);
        tp_event c;
        tp_event_init(&c);
        c.ts = t->events[ev[k]].ts;
        c.track = t->events[ev[k]].track;
        c.name = tp_intern_cstr(t, cname);
        c.args = tp_args_add(t, args, (size_t)len);
        c.ph = 'C';
        tp_event_add(t, &c);
        added++;
    }
    free(ok);
    free(me);
    free(ev);
    return added;
}
