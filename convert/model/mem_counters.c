/* mem_counters.c: see mem_counters.h.  Work: one pass over the events when
 * the trace has memory events (one string lookup when it has none), then
 * each memory event's args read once. */
#include "convert/model/mem_counters.h"

#include "convert/model/mem_event.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counter's name id by device: a trace's memory events come from a
 * few devices, so the last ones looked up are kept (formatting and interning
 * the name anew for every event was a fifth of this pass). */
enum { NAME_CACHE = 8 };
typedef struct name_cache {
    int64_t type[NAME_CACHE], id[NAME_CACHE];
    tp_str name[NAME_CACHE];
    size_t n, next;
} name_cache;

static tp_str counter_name(tp_trace *t, name_cache *c, int64_t type, int64_t id)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->type[k] == type && c->id[k] == id)
            return c->name[k];
    char label[32], cname[64];
    tp_mem_device_label(type, id, label, sizeof label);
    snprintf(cname, sizeof cname, TP_MEM_COUNTER_PREFIX "%s", label);
    size_t k = c->n < NAME_CACHE ? c->n++ : c->next++ % NAME_CACHE;
    c->type[k] = type;
    c->id[k] = id;
    c->name[k] = tp_intern_cstr(t, cname);
    return c->name[k];
}

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
    /* the array grows once, to its final size (an event at a time it was
     * moved as it doubled), and the text of each counter is put together
     * by hand: snprintf's two calls an event were half of this pass */
    size_t nok = 0;
    for (size_t k = 0; k < n; k++)
        nok += ok[k];
    TP_GROW_EVENTS(t, t->nevents + nok + 1);
    name_cache names = {0};
    tp_buf args = {0};
    size_t added = 0;
    for (size_t k = 0; k < n; k++) {
        if (!ok[k])
            continue;
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
        c.name = counter_name(t, &names, me[k].type, me[k].id);
        c.args = tp_args_add(t, args.data, args.len);
        c.ph = 'C';
        tp_event_add(t, &c);
        added++;
    }
    tp_buf_free(&args);
    free(ok);
    free(me);
    free(ev);
    return added;
}
