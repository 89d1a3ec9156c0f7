/* trace_append.c: append a second reader's trace to the first's (see
 * trace_append.h). */
#include "convert/model/trace_append.h"

#include <stdlib.h>
#include <string.h>

static void map_processes(tp_trace *t, const tp_trace *u, const tp_append_how *how, tp_append_map *m)
{
    m->process = tp_xmalloc((u->nprocesses + 1) * sizeof *m->process);
    for (size_t i = 0; i < u->nprocesses; i++) {
        const tp_process *q = &u->processes[i];
        uint32_t k = q->key ? tp_process_get_key(t, m->str[q->key]) : tp_process_get(t, q->pid);
        tp_process *p = &t->processes[k]; /* after the call: it may grow the array */
        if (!how->merge_meta) {
            p->name = m->str[q->name];
            p->label = m->str[q->label];
            p->sort_index = q->sort_index;
            p->has_sort = q->has_sort;
            p->is_device = q->is_device;
            p->device = q->device;
        } else {
            uint8_t set = i < how->nprocess_set ? how->process_set[i] : 0;
            if (set & TP_APPEND_SET_NAME)
                p->name = m->str[q->name];
            if (set & TP_APPEND_SET_LABEL)
                p->label = m->str[q->label];
            if (q->has_sort) {
                p->sort_index = q->sort_index;
                p->has_sort = true;
            }
        }
        m->process[i] = k;
    }
}

static void map_tracks(tp_trace *t, const tp_trace *u, const tp_append_how *how, tp_append_map *m)
{
    m->track = tp_xmalloc((u->ntracks + 1) * sizeof *m->track);
    for (size_t i = 0; i < u->ntracks; i++) { /* derived_of points back: set below */
        const tp_track *q = &u->tracks[i];
        uint32_t proc = m->process[q->process], k;
        if (q->role == TP_TRACK_DERIVED) /* derived lines are not found by tid */
            k = tp_track_add(t, proc, m->str[q->name], q->role, TP_NONE);
        else
            k = q->key ? tp_track_get_key(t, proc, m->str[q->key]) : tp_track_get(t, proc, q->tid);
        tp_track *tk = &t->tracks[k];
        if (!how->merge_meta) {
            tk->tid = q->tid;
            tk->name = m->str[q->name];
            tk->role = q->role;
            tk->sort_index = q->sort_index;
            tk->has_sort = q->has_sort;
        } else {
            /* a thread_name event always wins; a name from elsewhere (a
             * "stream 7" tid) only names a nameless track */
            bool meta = i < how->ntrack_set && (how->track_set[i] & TP_APPEND_SET_NAME);
            if (meta || (q->name && !tk->name))
                tk->name = m->str[q->name];
            if (q->has_sort) {
                tk->sort_index = q->sort_index;
                tk->has_sort = true;
            }
        }
        m->track[i] = k;
    }
    for (size_t i = 0; i < u->ntracks; i++)
        if (u->tracks[i].derived_of != TP_NONE)
            t->tracks[m->track[i]].derived_of = m->track[u->tracks[i].derived_of];
}

static inline void remap_event(tp_event *e, const tp_append_map *m)
{
    e->name = m->str[e->name];
    e->cat = m->str[e->cat];
    e->track = m->track[e->track];
    if (e->args && !(e->args & TP_ARGS_EXTERNAL)) /* external handles mean the same in both */
        e->args += m->args_shift;
    if (e->flags & TP_EV_ID_STRING)
        e->id = m->str[e->id];
    if (e->link != TP_NONE)
        e->link += m->first_event;
    if (e->op != TP_NONE)
        e->op += m->first_event;
}

bool tp_trace_append(tp_trace *t, tp_trace *u, const tp_append_how *how, tp_append_map *m)
{
    memset(m, 0, sizeof *m);
    m->str = tp_xmalloc((u->nstr + 1) * sizeof *m->str);
    for (size_t i = 0; i < u->nstr; i++)
        m->str[i] = tp_intern(t, tp_str_get(u, (tp_str)i), tp_str_len(u, (tp_str)i));
    m->first_event = (uint32_t)t->nevents;
    if (how->strings_mapped && !how->strings_mapped(how->ctx, m))
        return false;
    map_processes(t, u, how, m);
    map_tracks(t, u, how, m);
    m->args_shift = tp_args_append(t, u); /* u's arena after t's */
    if (t->events && u->events == t->events + t->nevents) { /* a slice of t's array (no arithmetic on NULL) */
        for (size_t i = 0; i < u->nevents; i++)
            remap_event(&u->events[i], m);
        t->nevents += u->nevents;
    } else {
        TP_GROW_EVENTS(t, t->nevents + u->nevents); /* with the usual room for derived events */
        for (size_t i = 0; i < u->nevents; i++) {
            tp_event e = u->events[i];
            remap_event(&e, m);
            tp_event_add(t, &e);
        }
        free(u->events);
    }
    u->events = NULL;
    u->nevents = u->events_cap = 0;
    if (how->events_appended)
        how->events_appended(how->ctx, m);
    /* devices after t's (input order), costs merged (one per name) */
    for (size_t i = 0; i < u->ndevinfo; i++) {
        tp_device_info d = u->devinfo[i];
        d.name = m->str[d.name];
        d.vendor = m->str[d.vendor];
        tp_devinfo_add(t, &d);
    }
    tp_costs_add(t, u->costs, u->ncosts, m->str);
    tp_launch_flows_append(t, u, m->first_event, m->track);
    for (size_t i = 0; i < u->nwarnings; i++)
        tp_warn_merge(t, &u->warnings[i]);
    for (size_t i = 0; i < u->ndrops; i++)
        tp_drop_count(t, u->drops[i].what, u->drops[i].count);
    t->events_in += u->events_in;
    return true;
}

void tp_append_map_free(tp_append_map *m)
{
    free(m->str);
    free(m->process);
    free(m->track);
    memset(m, 0, sizeof *m);
}
