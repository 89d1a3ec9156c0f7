/* launch_stats.c: launches per step and device (see launch_stats.h). */
#include "report/formats/xplane/launch_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lcall {
    int64_t group;
    uint32_t device;
    int32_t ordinal; /* the device's ordinal for ordering (INT32_MAX: unknown) */
    uint32_t event;
} lcall;

static int cmp_call(const void *a, const void *b)
{
    const lcall *x = a, *y = b;
    bool nx = x->group == TP_DERIVE_NO_GROUP, ny = y->group == TP_DERIVE_NO_GROUP;
    if (nx != ny)
        return nx ? 1 : -1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->ordinal != y->ordinal)
        return x->ordinal < y->ordinal ? -1 : 1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

static int32_t ordinal_of(const tp_trace *t, uint32_t device)
{
    if (device == TP_NONE)
        return INT32_MAX;
    int32_t d = t->processes[device].device;
    return d >= 0 && d < INT32_MAX ? d : INT32_MAX - 1;
}

void tp_launch_device_label(const tp_trace *t, uint32_t device, char *buf, size_t n)
{
    if (device == TP_NONE) {
        snprintf(buf, n, "device ?");
        return;
    }
    const tp_process *p = &t->processes[device];
    const char *name = p->name ? tp_str_get(t, p->name) : "";
    if (strncmp(name, "/device:", 8) == 0 && name[8])
        snprintf(buf, n, "%s", name + 8);
    else if (*name)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "pid %lld", (long long)p->pid);
}

void tp_launch_stats_build(const tp_trace *t, const tp_xplane_data *xd, tp_launch_stats *ls)
{
    memset(ls, 0, sizeof *ls);
    if (!xd || xd->nlaunches == 0)
        return;
    /* the device of the activity each call launched (the pipeline's links) */
    uint32_t *launched_on = tp_xmalloc((t->nevents + 1) * sizeof *launched_on);
    for (size_t i = 0; i < t->nevents; i++)
        launched_on[i] = TP_NONE;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->link != TP_NONE && e->link < t->nevents && launched_on[e->link] == TP_NONE &&
            (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET))
            launched_on[e->link] = t->tracks[e->track].process;
    }
    lcall *c = tp_xmalloc((xd->nlaunches + 1) * sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; i < xd->nlaunches; i++) {
        const tp_xplane_launch *l = &xd->launches[i];
        if (l->event >= t->nevents || (t->events[l->event].flags & TP_EV_DROPPED) || t->events[l->event].ph != 'X')
            continue;
        uint32_t dev = l->device;
        if (dev == TP_NONE && launched_on[l->event] != TP_NONE) {
            dev = launched_on[l->event];
            ls->by_link++;
        }
        ls->ungrouped += l->group == TP_DERIVE_NO_GROUP;
        c[nc++] = (lcall){l->group, dev, ordinal_of(t, dev), l->event};
    }
    free(launched_on);
    qsort(c, nc, sizeof *c, cmp_call);
    ls->launches = nc;
    ls->rows = tp_xmalloc((nc + 1) * sizeof *ls->rows);
    for (size_t i = 0; i < nc; i++) {
        const tp_event *e = &t->events[c[i].event];
        if (i == 0 || c[i].group != c[i - 1].group || c[i].device != c[i - 1].device) {
            if (c[i].group != TP_DERIVE_NO_GROUP && (i == 0 || c[i].group != c[i - 1].group))
                ls->nsteps++;
            tp_launch_row *r = &ls->rows[ls->n++];
            memset(r, 0, sizeof *r);
            r->group = c[i].group;
            r->device = c[i].device;
            r->min_ns = INT64_MAX;
            r->start = INT64_MAX;
            r->end = INT64_MIN;
        }
        tp_launch_row *r = &ls->rows[ls->n - 1];
        r->count++;
        r->sum_ns += e->dur;
        r->min_ns = e->dur < r->min_ns ? e->dur : r->min_ns;
        r->max_ns = e->dur > r->max_ns ? e->dur : r->max_ns;
        r->start = e->ts < r->start ? e->ts : r->start;
        r->end = e->ts + e->dur > r->end ? e->ts + e->dur : r->end;
    }
    for (size_t i = 0; i < ls->n; i++) {
        tp_launch_row *r = &ls->rows[i];
        r->avg_ns = (r->sum_ns + (int64_t)(r->count / 2)) / (int64_t)r->count;
    }
    /* devices in row order of first appearance, sorted like the rows */
    lcall *d = tp_xmalloc((ls->n + 1) * sizeof *d);
    size_t nd = 0;
    for (size_t i = 0; i < ls->n; i++) {
        bool seen = false;
        for (size_t k = 0; k < nd && !seen; k++)
            seen = d[k].device == ls->rows[i].device;
        if (!seen)
            d[nd++] = (lcall){0, ls->rows[i].device, ordinal_of(t, ls->rows[i].device), 0};
    }
    qsort(d, nd, sizeof *d, cmp_call);
    ls->devices = tp_xmalloc((nd + 1) * sizeof *ls->devices);
    for (size_t k = 0; k < nd; k++)
        ls->devices[k] = d[k].device;
    ls->ndevices = nd;
    free(d);
    free(c);
}

void tp_launch_stats_free(tp_launch_stats *ls)
{
    free(ls->rows);
    free(ls->devices);
    memset(ls, 0, sizeof *ls);
}
