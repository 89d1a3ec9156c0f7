/* names.c: names for the processes and tracks a trace left unnamed (names.h). */
#include "convert/model/names.h"

#include <stdio.h>

size_t tp_name_unnamed(tp_trace *t)
{
    size_t named = 0;
    char buf[96];
    for (size_t i = 0; i < t->nprocesses; i++) {
        tp_process *p = &t->processes[i];
        if (p->name || p->key)
            continue;
        if (p->is_device && p->device >= 0) /* the ordinal: Kineto's GPU pid is the device's number */
            snprintf(buf, sizeof buf, "GPU %d", (int)p->device);
        else if (p->is_device)
            snprintf(buf, sizeof buf, "device (pid %lld)", (long long)p->pid);
        else if (p->pid >= 0)
            snprintf(buf, sizeof buf, "pid %lld", (long long)p->pid);
        else /* a pid no operating system gives ("-1"): say what it holds, not a process number */
            snprintf(buf, sizeof buf, "host (no process id)");
        tp_str name = tp_intern_cstr(t, buf);
        t->processes[i].name = name; /* interning may move nothing in processes, but p is re-read anyway */
        named++;
    }
    for (size_t i = 0; i < t->ntracks; i++) {
        tp_track *k = &t->tracks[i];
        if (k->name || k->key || (k->role != TP_TRACK_HOST && k->role != TP_TRACK_DEVICE))
            continue;
        bool device = k->role == TP_TRACK_DEVICE || t->processes[k->process].is_device;
        snprintf(buf, sizeof buf, device ? "stream %lld" : "thread %lld", (long long)k->tid);
        tp_str name = tp_intern_cstr(t, buf);
        t->tracks[i].name = name;
        named++;
    }
    return named;
}
