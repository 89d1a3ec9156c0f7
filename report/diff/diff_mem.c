/* diff_mem.c: see diff_mem.h */
#include "report/diff/diff_mem.h"

#include "convert/codec/json_write.h"
#include "report/out/mem_out.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_MEM_HOLDERS 10

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void step_figs(const tp_mem_device *d, int64_t *median, int64_t *growth)
{
    *median = -1;
    *growth = 0;
    if (!d->nsteps)
        return;
    int64_t *v = tp_xmalloc(d->nsteps * sizeof *v);
    for (size_t k = 0; k < d->nsteps; k++)
        v[k] = d->steps[k].peak;
    qsort(v, d->nsteps, sizeof *v, cmp_i64);
    *median = v[(d->nsteps - 1) / 2]; /* the lower middle: a level that happened */
    free(v);
    if (d->nsteps >= 2)
        *growth = d->steps[d->nsteps - 1].end - d->steps[0].end;
}

/* A GPU's allocator names its runtime ("cuda:0" on NVIDIA, "hip:0" on a ROCm build that says so):
 * an H100 run against an MI300X run compares GPU 0 with GPU 0, not two devices each in one run. */
static void device_key(const char *label, char *key, size_t n)
{
    const char *colon = strchr(label, ':');
    size_t k = colon ? (size_t)(colon - label) : 0;
    if (colon && ((k == 4 && strncmp(label, "cuda", 4) == 0) || (k == 3 && strncmp(label, "hip", 3) == 0)))
        snprintf(key, n, "gpu%s", colon);
    else
        snprintf(key, n, "%s", label);
}

static tp_diff_mem_dev *dev_of(tp_diff_mem *m, const char *label)
{
    char key[32];
    device_key(label, key, sizeof key);
    for (size_t i = 0; i < m->ndev; i++)
        if (strcmp(m->dev[i].key, key) == 0) {
            tp_diff_mem_dev *d = &m->dev[i];
            if (strcmp(d->label, label) != 0 && !strchr(d->label, '/')) { /* the base's label, then the candidate's */
                char both[sizeof d->label];
                snprintf(both, sizeof both, "%.14s / %.14s", d->label, label);
                memcpy(d->label, both, sizeof both);
            }
            return d;
        }
    m->dev = tp_xrealloc(m->dev, (m->ndev + 1) * sizeof *m->dev);
    tp_diff_mem_dev *d = &m->dev[m->ndev++];
    memset(d, 0, sizeof *d);
    snprintf(d->label, sizeof d->label, "%s", label);
    memcpy(d->key, key, sizeof key);
    return d;
}

static const char *name_or_null(const tp_trace *t, tp_str s) { return s ? tp_str_get(t, s) : NULL; }

static bool same_str(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static int cmp_grew(const void *a, const void *b)
{
    const tp_diff_mem_holder *x = a, *y = b;
    int64_t gx = x->bytes[1] - x->bytes[0], gy = y->bytes[1] - y->bytes[0];
    if (gx != gy)
        return gx > gy ? -1 : 1;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    c = strcmp(x->op ? x->op : "", y->op ? y->op : "");
    return c ? c : strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

typedef struct side_row {
    tp_diff_mem_holder h;
    int side;
} side_row;

static int cmp_key(const void *a, const void *b)
{
    const tp_diff_mem_holder *x = &((const side_row *)a)->h, *y = &((const side_row *)b)->h;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    c = strcmp(x->op ? x->op : "", y->op ? y->op : "");
    if (c)
        return c;
    c = strcmp(x->module ? x->module : "", y->module ? y->module : "");
    return c ? c : ((const side_row *)a)->side - ((const side_row *)b)->side;
}

void tp_diff_mem_build(const tp_summary *base, const tp_summary *cand, tp_diff_mem *m)
{
    memset(m, 0, sizeof *m);
    const tp_summary *s[2] = {base, cand};
    size_t cap = 0, n = 0;
    side_row *rows = NULL;
    for (int k = 0; k < 2; k++) {
        m->events[k] = s[k]->mem.events;
        for (size_t j = 0; j < s[k]->mem.ndev; j++) {
            const tp_mem_device *md = &s[k]->mem.dev[j];
            if (!md->events)
                continue;
            tp_diff_mem_dev *d = dev_of(m, md->label);
            d->in[k] = true;
            d->peak[k] = md->peak_allocated;
            d->reserved[k] = md->peak_reserved;
            step_figs(md, &d->step_peak_median[k], &d->end_growth[k]);
            for (size_t i = 0; i < md->nholders; i++) {
                TP_GROW(rows, cap, n + 1);
                side_row *r = &rows[n++];
                memset(r, 0, sizeof *r);
                memcpy(r->h.label, d->key, sizeof d->key); /* matched by the key; labelled as the device below */
                r->h.op = name_or_null(s[k]->t, md->holders[i].op);
                r->h.module = name_or_null(s[k]->t, md->holders[i].module);
                r->h.bytes[k] = md->holders[i].bytes;
                r->side = k;
            }
        }
    }
    /* matched by (device, op, module): sorted, then each key's rows of both runs merged (n log n) */
    if (n)
        qsort(rows, n, sizeof *rows, cmp_key);
    tp_diff_mem_holder *h = tp_xmalloc((n ? n : 1) * sizeof *h);
    size_t g = 0;
    for (size_t i = 0; i < n;) {
        tp_diff_mem_holder x = rows[i].h;
        size_t e = i + 1;
        while (e < n && strcmp(rows[e].h.label, x.label) == 0 && same_str(rows[e].h.op, x.op) &&
               same_str(rows[e].h.module, x.module)) {
            x.bytes[0] += rows[e].h.bytes[0];
            x.bytes[1] += rows[e].h.bytes[1];
            e++;
        }
        if (x.bytes[1] > x.bytes[0]) {
            for (size_t j = 0; j < m->ndev; j++)
                if (strcmp(m->dev[j].key, x.label) == 0)
                    memcpy(x.label, m->dev[j].label, sizeof x.label);
            h[g++] = x;
        }
        i = e;
    }
    free(rows);
    if (g)
        qsort(h, g, sizeof *h, cmp_grew);
    m->grew = h;
    m->ngrew = g;
}

void tp_diff_mem_free(tp_diff_mem *m)
{
    free(m->dev);
    free(m->grew);
    memset(m, 0, sizeof *m);
}

int tp_mem_gate_parse(const char *s, tp_mem_gate *g)
{
    memset(g, 0, sizeof *g);
    /* digits with an optional fraction, then the unit: strtod alone took "0x10" (16%), " 5", "1e2" */
    size_t k = 0, dots = 0;
    while ((s[k] >= '0' && s[k] <= '9') || (s[k] == '.' && k > 0 && dots++ == 0))
        k++;
    if (k == 0 || s[k - 1] == '.')
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (end != s + k || !(v >= 0) || v > 1e18)
        return -1;
    static const struct {
        const char *unit;
        double mult;
    } units[] = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"KiB", 1024.0}, {"MiB", 1048576.0},
                 {"GiB", 1073741824.0}};
    if (*end == 0 || strcmp(end, "%") == 0) {
        g->pct = v;
        g->on = true;
        return 0;
    }
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0 && v * units[i].mult < 9e18) {
            g->is_bytes = true;
            g->bytes = (int64_t)(v * units[i].mult + 0.5);
            g->on = true;
            return 0;
        }
    return -1;
}

int tp_diff_mem_gate(const tp_diff_mem *m, const tp_mem_gate *g, tp_buf *why)
{
    if (!g->on)
        return 0;
    int tripped = 0;
    for (size_t i = 0; i < m->ndev; i++) {
        const tp_diff_mem_dev *d = &m->dev[i];
        if (!d->in[0] || !d->in[1])
            continue;
        int64_t delta = d->peak[1] - d->peak[0];
        bool over = g->is_bytes ? delta > g->bytes
                                : delta > 0 && (d->peak[0] == 0 || (double)delta * 100.0 > g->pct * (double)d->peak[0]);
        if (!over)
            continue;
        char a[48], b[48], c[48];
        tp_mem_bytes(a, sizeof a, d->peak[0]);
        tp_mem_bytes(b, sizeof b, d->peak[1]);
        tp_mem_bytes(c, sizeof c, delta);
        tp_buf_printf(why, "%s peak allocated memory +%s (%s -> %s", d->label, c, a, b);
        if (d->peak[0])
            tp_buf_printf(why, ", %+.1f%%", (double)delta * 100.0 / (double)d->peak[0]);
        if (g->is_bytes)
            tp_buf_printf(why, "), over --fail-if-memory-higher %lld bytes\n", (long long)g->bytes);
        else
            tp_buf_printf(why, "), over --fail-if-memory-higher %g%%\n", g->pct);
        tripped++;
    }
    return tripped;
}

static void pair(tp_buf *b, const char *key, const bool in[2], const int64_t v[2])
{
    tp_buf_printf(b, ",\"%s\":[", key);
    for (int k = 0; k < 2; k++) {
        if (k)
            tp_buf_putc(b, ',');
        if (in[k] && v[k] >= 0)
            tp_buf_printf(b, "%lld", (long long)v[k]);
        else
            tp_buf_puts(b, "null");
    }
    tp_buf_putc(b, ']');
}

void tp_diff_mem_json(const tp_diff_mem *m, tp_buf *b)
{
    tp_buf_printf(b, "\"memory\":{\"events\":[%llu,%llu],\"devices\":[", (unsigned long long)m->events[0],
                  (unsigned long long)m->events[1]);
    for (size_t i = 0; i < m->ndev; i++) {
        const tp_diff_mem_dev *d = &m->dev[i];
        tp_buf_puts(b, i ? ",\n{\"device\":" : "\n{\"device\":");
        tp_json_str(b, d->label);
        pair(b, "peak_allocated_bytes", d->in, d->peak);
        pair(b, "peak_reserved_bytes", d->in, d->reserved);
        pair(b, "step_peak_median_bytes", d->in, d->step_peak_median);
        bool both[2] = {d->in[0], d->in[1]};
        tp_buf_printf(b, ",\"step_end_growth_bytes\":[%lld,%lld]", (long long)(both[0] ? d->end_growth[0] : 0),
                      (long long)(both[1] ? d->end_growth[1] : 0));
        tp_buf_puts(b, ",\"peak_allocated_delta_bytes\":");
        if (d->in[0] && d->in[1])
            tp_buf_printf(b, "%lld}", (long long)(d->peak[1] - d->peak[0]));
        else
            tp_buf_puts(b, "null}");
    }
    tp_buf_puts(b, "],\"holders_grew\":[");
    for (size_t i = 0; i < m->ngrew && i < 50; i++) {
        const tp_diff_mem_holder *h = &m->grew[i];
        tp_buf_puts(b, i ? ",\n{\"device\":" : "\n{\"device\":");
        tp_json_str(b, h->label);
        tp_buf_puts(b, ",\"op\":");
        tp_json_str_or_null(b, h->op);
        tp_buf_puts(b, ",\"module\":");
        tp_json_str_or_null(b, h->module);
        tp_buf_printf(b, ",\"base_bytes\":%lld,\"candidate_bytes\":%lld,\"delta_bytes\":%lld}", (long long)h->bytes[0],
                      (long long)h->bytes[1], (long long)(h->bytes[1] - h->bytes[0]));
    }
    tp_buf_puts(b, "]}");
}

static void cell(tp_buf *b, bool in, int64_t v)
{
    char s[48];
    if (!in || v < 0)
        tp_buf_puts(b, " - |");
    else {
        tp_mem_bytes(s, sizeof s, v);
        tp_buf_printf(b, " %s |", s);
    }
}

void tp_diff_mem_md(const tp_diff_mem *m, tp_buf *b)
{
    if (!m->events[0] && !m->events[1])
        return;
    tp_buf_puts(b, "**Memory** (peak allocated per device; docs/DIFF.md \"Memory\"):\n\n"
                   "| device | base | candidate | change | reserved base | reserved candidate | step end growth base | "
                   "step end growth candidate |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < m->ndev; i++) {
        const tp_diff_mem_dev *d = &m->dev[i];
        tp_buf_printf(b, "| %s |", d->label);
        cell(b, d->in[0], d->peak[0]);
        cell(b, d->in[1], d->peak[1]);
        if (d->in[0] && d->in[1]) {
            char s[48];
            tp_mem_bytes(s, sizeof s, d->peak[1] - d->peak[0]);
            tp_buf_printf(b, " %s%s |", d->peak[1] > d->peak[0] ? "+" : "", s);
        } else
            tp_buf_puts(b, " - |");
        cell(b, d->in[0], d->reserved[0]);
        cell(b, d->in[1], d->reserved[1]);
        for (int k = 0; k < 2; k++) { /* a growth may be negative */
            char s[48];
            tp_mem_bytes(s, sizeof s, d->end_growth[k]);
            tp_buf_printf(b, " %s |", d->in[k] ? s : "-");
        }
        tp_buf_putc(b, '\n');
    }
    if (!m->events[0] || !m->events[1])
        tp_buf_printf(b, "\nThe %s has no memory events: its memory is not compared.\n",
                      m->events[0] ? "candidate" : "base");
    if (m->ngrew) {
        tp_buf_puts(b, "\nHolders at the peak that grew:\n\n| device | op | module | base | candidate | change |\n"
                       "|---|---|---|---:|---:|---:|\n");
        for (size_t i = 0; i < m->ngrew && i < DIFF_MEM_HOLDERS; i++) {
            const tp_diff_mem_holder *h = &m->grew[i];
            tp_buf_printf(b, "| %s | ", h->label);
            tp_md_code(b, h->op ? h->op : "(no op)", 120);
            tp_buf_puts(b, " | ");
            if (h->module)
                tp_md_code(b, h->module, 120);
            tp_buf_puts(b, " |");
            cell(b, true, h->bytes[0]);
            cell(b, true, h->bytes[1]);
            char s[48];
            tp_mem_bytes(s, sizeof s, h->bytes[1] - h->bytes[0]);
            tp_buf_printf(b, " +%s |\n", s);
        }
    }
    tp_buf_putc(b, '\n');
}
