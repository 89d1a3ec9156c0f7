/* mem_counters.c: see mem_counters.h.  Work: one pass over the events when
 * the trace has memory events (one string lookup when it has none), then
 * each memory event's args read once, then one counter event each: its name
 * interned once per run of the same device, not once per event. */
#include "convert/model/mem_counters.h"

#include "convert/codec/json_write.h"
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
    for (size_t k = 0; k < n; k++)
        added += ok[k];
    TP_GROW_EVENTS(t, t->nevents + added); /* once, not event by event */
    tp_buf args = {0};
    tp_str cname = 0;
    int64_t ctype = 0, cid = 0;
    for (size_t k = 0; k < n; k++) {
        if (!ok[k])
            continue;
        if (!cname || me[k].type != ctype || me[k].id != cid) { /* a device's events come in runs */
            char label[32], text[64];
            tp_mem_device_label(me[k].type, me[k].id, label, sizeof label);
            snprintf(text, sizeof text, TP_MEM_COUNTER_PREFIX "%s", label);
            cname = tp_intern_cstr(t, text);
            ctype = me[k].type;
            cid = me[k].id;
        }
        args.len = 0;
        tp_buf_puts(&args, "{\"allocated\":");
        tp_buf_put_int(&args, me[k].allocated);
        tp_buf_puts(&args, ",\"reserved\":");
        tp_buf_put_int(&args, me[k].reserved);
        tp_buf_putc(&args, '}');
        tp_event c;
        tp_event_init(&c);
        c.ts = t->events[ev[k]].ts;
        c.track = t->events[ev[k]].track;
        c.name = cname;
        c.args = tp_args_add(t, args.data, args.len);
        c.ph = 'C';
        tp_event_add(t, &c);
    }
    tp_buf_free(&args);
    free(ok);
    free(me);
    free(ev);
    return added;
}
