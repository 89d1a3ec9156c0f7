/* collectives.c: collective calls, their sizes and bandwidths
 * (collectives.h). */
#include "report/comm/collectives.h"
#include "convert/base/strset.h"
#include "convert/model/coll_calls.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tp_collectives_want_args(const char *name, size_t len) { return tp_coll_want_args(name, len); }

/* ---- kinds and factors ---- */

double tp_coll_factor(const char *kind, int64_t n)
{
    if (n < 1)
        return 0;
    double f = (double)(n - 1) / (double)n;
    if (strcmp(kind, "all_reduce") == 0)
        return 2 * f;
    if (strcmp(kind, "all_gather") == 0 || strcmp(kind, "reduce_scatter") == 0 || strcmp(kind, "all_to_all") == 0)
        return f;
    if (strcmp(kind, "broadcast") == 0 || strcmp(kind, "reduce") == 0 || strcmp(kind, "send_recv") == 0)
        return 1;
    return 0;
}

/* ---- rows ---- */

typedef struct builder {
    tp_collectives *c;
    tp_strset keys;
    size_t cap;
    double *alg_sum, *bus_sum; /* per row: sums of per-call rates */
    tp_buf key;
} builder;

static size_t add_call(builder *b, const tp_coll_call *cl, int64_t ns)
{
    tp_collectives *c = b->c;
    b->key.len = 0;
    tp_buf_printf(&b->key, "%s\x1f%s\x1f%s\x1f%s\x1f%lld\x1f%llu", cl->kind, cl->dtype, cl->group, cl->ranks,
                  (long long)cl->group_size, (unsigned long long)cl->bytes);
    size_t before = b->keys.n;
    uint32_t id = tp_strset_add(&b->keys, b->key.data, b->key.len);
    if (b->keys.n > before) {
        size_t old = b->cap;
        TP_GROW(c->rows, b->cap, c->n + 1);
        if (b->cap > old) {
            b->alg_sum = tp_xrealloc(b->alg_sum, b->cap * sizeof *b->alg_sum);
            b->bus_sum = tp_xrealloc(b->bus_sum, b->cap * sizeof *b->bus_sum);
        }
        tp_coll_row *r = &c->rows[c->n];
        memset(r, 0, sizeof *r);
        r->kind = tp_xstrdup(cl->kind);
        r->dtype = tp_xstrdup(cl->dtype);
        r->group = tp_xstrdup(cl->group);
        r->ranks = tp_xstrdup(cl->ranks);
        r->group_size = cl->group_size;
        r->bytes = cl->bytes;
        r->min_ns = INT64_MAX;
        r->factor = tp_coll_factor(cl->kind, cl->group_size);
        b->alg_sum[c->n] = b->bus_sum[c->n] = 0;
        c->n++;
    }
    size_t i = id - 1;
    tp_coll_row *r = &c->rows[i];
    r->count++;
    r->total_ns = tp_sat_add(r->total_ns, ns);
    r->min_ns = ns < r->min_ns ? ns : r->min_ns;
    r->max_ns = ns > r->max_ns ? ns : r->max_ns;
    if (r->bytes && ns > 0) { /* bytes per ns = GB/s */
        double alg = (double)r->bytes / (double)ns;
        b->alg_sum[i] += alg;
        b->bus_sum[i] += alg * r->factor;
    }
    return i;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const tp_coll_row *a = pa, *b = pb;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    int k = strcmp(a->kind, b->kind);
    if (k)
        return k;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    k = strcmp(a->group, b->group);
    return k ? k : strcmp(a->dtype, b->dtype);
}

void tp_collectives_build(const tp_trace *t, const uint32_t *of, uint32_t comm, tp_collectives *c)
{
    memset(c, 0, sizeof *c);
    builder b = {.c = c};
    tp_coll_reader *rd = tp_coll_reader_new(t);
    if (of)
        tp_coll_reader_use_classes(rd, of, comm);
    size_t ccap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        tp_coll_call cl;
        if (!tp_coll_read(rd, i, &cl))
            continue;
        const tp_event *a = &t->events[i];
        c->calls++;
        c->total_ns = tp_sat_add(c->total_ns, a->dur);
        c->from_kernel += cl.source == TP_COLL_FROM_KERNEL;
        c->from_op += cl.source == TP_COLL_FROM_OP;
        c->from_annotation += cl.source == TP_COLL_FROM_ANNOTATION;
        c->sized += cl.bytes != 0;
        size_t row = add_call(&b, &cl, a->dur);
        TP_GROW(c->list, ccap, c->nlist + 1);
        c->list[c->nlist++] = (tp_coll_inst){(uint32_t)row, t->tracks[a->track].process, a->ts, a->dur, cl.seq};
    }
    for (size_t i = 0; i < c->n; i++) {
        tp_coll_row *r = &c->rows[i];
        r->algbw_mean = r->count ? b.alg_sum[i] / (double)r->count : 0;
        r->busbw_mean = r->count ? b.bus_sum[i] / (double)r->count : 0;
        r->algbw = r->bytes && r->total_ns > 0 ? (double)r->bytes * (double)r->count / (double)r->total_ns : 0;
        r->busbw = r->algbw * r->factor;
        r->id = (uint32_t)i;
    }
    if (c->n)
        qsort(c->rows, c->n, sizeof *c->rows, cmp_rows);
    uint32_t *pos = tp_xcalloc(c->n + 1, sizeof *pos); /* calls name rows by their sorted place */
    for (size_t i = 0; i < c->n; i++)
        pos[c->rows[i].id] = (uint32_t)i;
    for (size_t i = 0; i < c->nlist; i++)
        c->list[i].row = pos[c->list[i].row];
    for (size_t i = 0; i < c->n; i++)
        c->rows[i].id = (uint32_t)i;
    free(pos);
    free(b.alg_sum);
    free(b.bus_sum);
    tp_strset_free(&b.keys);
    tp_buf_free(&b.key);
    tp_coll_reader_free(rd);
}

void tp_collectives_free(tp_collectives *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->rows[i].kind);
        free(c->rows[i].dtype);
        free(c->rows[i].group);
        free(c->rows[i].ranks);
    }
    free(c->rows);
    free(c->list);
    memset(c, 0, sizeof *c);
}
