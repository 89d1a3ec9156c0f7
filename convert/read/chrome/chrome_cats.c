/* chrome_cats.c: what each category's events are, beyond the one-name
 * table of tp_kind_from_cat, and what the reader could not place.  Part of
 * the Chrome reader (chrome_read_int.h; the decisions and how they differ
 * from HTA's: docs/JSON_READER.md "What is a trace, and what is device
 * activity").
 *
 * MTIA (Meta's accelerator) traces, read as HTA reads them (its
 * KERNEL_CATEGORY_PATTERN and DEVICE_RUNTIME_CATEGORY_PATTERN):
 *   mtia_ccp_events  device activity on the "Stream N" tracks.  By name:
 *                    dma_*  a copy (HTA's "MTIA Memory" group), memcpy;
 *                    event_wait, event_record  a stream waiting on / marking
 *                    an event, not work: sync (as CUDA's "Stream Wait
 *                    Event" in cuda_sync; HTA counts them as kernels);
 *                    anything else (pe_exe, merge, remote, job_exe ...) a
 *                    kernel.
 *   mtia_runtime     host calls (recordEvent, enqueueCommand memcpyHtoDAsync,
 *                    runFunction - job_prep_and_submit_for_execution, the
 *                    launch, ...): runtime, linked to the device events by
 *                    their "correlation" arg as cuda_runtime is.  The same
 *                    category on a device's "Submission Queue" tracks
 *                    ("synchronize", carrying its host synchronizeStream's
 *                    correlation id) is the device's view of a host call:
 *                    sync, decided once the read knows which processes are
 *                    devices (chrome_cats_finish).
 *
 * Unknown categories: a slice of a category no table knows, on a process
 * that holds device activity or that Kineto labels as a device ("GPU N",
 * "MTIA N"), is kept (convert writes it) but is not device activity to any
 * analysis: the reader counts it by category and says so in a warning that
 * names the categories (CUPTI range-profiler traces: "cuda_profiler_range",
 * one replayed measurement range per kernel, whose times are not the
 * kernel's). */
#include "convert/read/chrome/chrome_read_int.h"
#include "convert/model/derive.h"
#include "convert/model/trace_append.h"
#include "convert/read/vendor_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_device_kind(unsigned k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET || k == TP_KIND_SYNC;
}

uint8_t chrome_cat_class(const char *cat, size_t n)
{
    if (key_is(cat, n, TP_MTIA_DEVICE_CAT))
        return CAT_MTIA_DEVICE;
    if (key_is(cat, n, TP_MTIA_RUNTIME_CAT))
        return CAT_MTIA_RUNTIME;
    /* known, and no device activity: what tracepress itself writes on a
     * device (converted traces read again) and Kineto's profiler span */
    if (key_is(cat, n, tp_kind_name(TP_KIND_OTHER)) || key_is(cat, n, TP_DERIVED_CAT) ||
        key_is(cat, n, "queue_wait") /* dv/dt: a command waiting in its queue */ || key_is(cat, n, "Trace"))
        return CAT_KNOWN_OTHER;
    return (uint8_t)(1 + tp_kind_from_cat(cat, n));
}

uint8_t chrome_kind_by_name(const tp_trace *t, uint8_t cls, tp_str name)
{
    if (cls == CAT_MTIA_RUNTIME)
        return TP_KIND_RUNTIME; /* the device-side ones: chrome_cats_finish */
    return tp_vendor_mtia_device_kind(tp_str_get(t, name));
}

static void grow_zero(uint8_t **a, size_t *cap, size_t need)
{
    if (need > *cap) {
        size_t old = *cap;
        TP_GROW(*a, *cap, need);
        memset(*a + old, 0, *cap - old);
    }
}

void chrome_cats_note(reader *r, const tp_event *e, uint32_t idx, uint8_t cls)
{
    if (is_device_kind(e->kind)) {
        grow_zero(&r->dev_track, &r->dev_track_cap, (size_t)e->track + 1);
        r->dev_track[e->track] = 1;
    }
    if (cls == CAT_MTIA_RUNTIME && e->ph == 'X') {
        TP_GROW(r->mtia_rt, r->mtia_rt_cap, r->nmtia_rt + 1);
        r->mtia_rt[r->nmtia_rt++] = idx;
    }
    if (e->kind != TP_KIND_OTHER || e->cat == 0 || e->ph != 'X' || cls == CAT_KNOWN_OTHER)
        return;
    int64_t key = (int64_t)((uint64_t)e->track << 32 | e->cat);
    uint32_t k = r->nunk && key == r->unk_last_key ? r->unk_last : tp_i64map_get(&r->unk_index, key);
    if (k == TP_I64MAP_EMPTY) {
        TP_GROW(r->unk, r->unk_cap, r->nunk + 1);
        r->unk[r->nunk] = (unk_cat){e->cat, e->track, 0};
        k = (uint32_t)r->nunk++;
        tp_i64map_put(&r->unk_index, key, k);
    }
    r->unk_last_key = key; /* a browser trace's host threads: runs of one category */
    r->unk_last = k;
    r->unk[k].count++;
}

void chrome_cats_join(reader *a, const reader *b, const tp_append_map *m)
{
    for (size_t k = 0; k < b->dev_track_cap; k++)
        if (b->dev_track[k]) {
            grow_zero(&a->dev_track, &a->dev_track_cap, (size_t)m->track[k] + 1);
            a->dev_track[m->track[k]] = 1;
        }
    for (size_t i = 0; i < b->nmtia_rt; i++) {
        TP_GROW(a->mtia_rt, a->mtia_rt_cap, a->nmtia_rt + 1);
        a->mtia_rt[a->nmtia_rt++] = m->first_event + b->mtia_rt[i];
    }
    for (size_t i = 0; i < b->nunk; i++) {
        tp_event e;
        tp_event_init(&e);
        e.cat = m->str[b->unk[i].cat];
        e.track = m->track[b->unk[i].track];
        int64_t key = (int64_t)((uint64_t)e.track << 32 | e.cat);
        uint32_t k = tp_i64map_get(&a->unk_index, key);
        if (k == TP_I64MAP_EMPTY) {
            TP_GROW(a->unk, a->unk_cap, a->nunk + 1);
            a->unk[a->nunk] = (unk_cat){e.cat, e.track, 0};
            k = (uint32_t)a->nunk++;
            tp_i64map_put(&a->unk_index, key, k);
        }
        a->unk[k].count += b->unk[i].count;
    }
}

/* Kineto labels device processes "GPU 0", "MTIA 17" (process_labels). */
static bool device_label(const tp_trace *t, tp_str s)
{
    const char *v = tp_str_get(t, s);
    return strncmp(v, "GPU ", 4) == 0 || strncmp(v, "MTIA ", 5) == 0;
}

/* Text from the trace in a warning: printable ASCII only (other bytes as
 * \xNN, quotes and backslashes escaped), at most CAT_SHOWN input bytes. */
#define CAT_SHOWN 48
static void put_shown(tp_buf *b, const char *s, size_t n)
{
    tp_buf_putc(b, '"');
    for (size_t i = 0; i < n && i < CAT_SHOWN; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            tp_buf_printf(b, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            tp_buf_putc(b, (char)c);
        else
            tp_buf_printf(b, "\\x%02x", c);
    }
    tp_buf_puts(b, n > CAT_SHOWN ? "...\"" : "\"");
}

typedef struct cat_total {
    tp_str cat;
    uint64_t count;
} cat_total;

static int by_count(const void *x, const void *y, void *t)
{
    const cat_total *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(tp_str_get(t, a->cat), tp_str_get(t, b->cat));
}

/* qsort has no context: a small insertion sort (categories are few) */
static void sort_totals(cat_total *v, size_t n, const tp_trace *t)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && by_count(&v[j], &v[j - 1], (void *)t) < 0; j--) {
            cat_total x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
}

#define CATS_LISTED 5

void chrome_cats_finish(reader *r)
{
    tp_trace *t = r->t;
    if (!r->nmtia_rt && !r->nunk)
        return;
    /* device processes: a track with device activity, or a device label */
    uint8_t *dev = tp_xcalloc(t->nprocesses + 1, 1);
    for (size_t k = 0; k < r->dev_track_cap && k < t->ntracks; k++)
        if (r->dev_track[k])
            dev[t->tracks[k].process] = 1;
    for (size_t p = 0; p < t->nprocesses; p++)
        if (device_label(t, t->processes[p].label) || device_label(t, t->processes[p].name))
            dev[p] = 1;
    for (size_t i = 0; i < r->nmtia_rt; i++) {
        tp_event *e = &t->events[r->mtia_rt[i]];
        if (dev[t->tracks[e->track].process])
            e->kind = TP_KIND_SYNC;
    }
    cat_total *tot = NULL;
    size_t ntot = 0, cap = 0;
    uint64_t all = 0;
    for (size_t i = 0; i < r->nunk; i++) {
        const unk_cat *u = &r->unk[i];
        if (!dev[t->tracks[u->track].process])
            continue;
        all += u->count;
        size_t j = 0;
        while (j < ntot && tot[j].cat != u->cat)
            j++;
        if (j == ntot) {
            TP_GROW(tot, cap, ntot + 1);
            tot[ntot++] = (cat_total){u->cat, 0};
        }
        tot[j].count += u->count;
    }
    free(dev);
    if (!all) {
        free(tot);
        return;
    }
    sort_totals(tot, ntot, t);
    /* one notice, printed by every command (tp_load): it names the categories and
     * holds the count, so no counted warning says it a second time */
    tp_buf *b = &t->notices;
    if (ntot == 1) {
        tp_buf_printf(b, "%llu device events in unknown category ", (unsigned long long)all);
        put_shown(b, tp_str_get(t, tot[0].cat), tp_str_len(t, tot[0].cat));
    } else {
        tp_buf_printf(b, "%llu device events in %zu unknown categories: ", (unsigned long long)all, ntot);
        for (size_t j = 0; j < ntot && j < CATS_LISTED; j++) {
            if (j)
                tp_buf_puts(b, ", ");
            put_shown(b, tp_str_get(t, tot[j].cat), tp_str_len(t, tot[j].cat));
            tp_buf_printf(b, " (%llu)", (unsigned long long)tot[j].count);
        }
        if (ntot > CATS_LISTED)
            tp_buf_printf(b, " and %zu more", ntot - CATS_LISTED);
    }
    tp_buf_puts(b, " not read as device activity (kept in conversions, not counted as kernels)\n");
    free(tot);
}
