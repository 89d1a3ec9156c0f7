/* job_mem.c: the job's memory (docs/REPORT.md "Jobs", "Memory"): each
 * rank's peak allocated and reserved (its device with the highest peak,
 * rank_sum.h tp_rank_mem) and their spread across the ranks. */
#include "report/job/job_out.h"

#include "convert/codec/json_write.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct mem_spread {
    size_t n;                 /* ranks with memory levels */
    int64_t min, median, max; /* peak allocated */
    int64_t min_rank, max_rank;
} mem_spread;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void spread_of(const tp_job *j, mem_spread *sp)
{
    *sp = (mem_spread){0, 0, 0, 0, -1, -1};
    int64_t *v = tp_xmalloc((j->nranks + 1) * sizeof *v);
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_mem *m = &j->ranks[r].sum.mem;
        if (!m->present)
            continue;
        if (!sp->n || m->peak_allocated < sp->min)
            sp->min = m->peak_allocated, sp->min_rank = j->ranks[r].rank;
        if (!sp->n || m->peak_allocated > sp->max)
            sp->max = m->peak_allocated, sp->max_rank = j->ranks[r].rank;
        v[sp->n++] = m->peak_allocated;
    }
    if (sp->n) {
        qsort(v, sp->n, sizeof *v, cmp_i64);
        sp->median = v[(sp->n - 1) / 2]; /* the lower middle: a rank's own figure */
    }
    free(v);
}

void tp_job_mem_json(const tp_job *j, tp_buf *b)
{
    mem_spread sp;
    spread_of(j, &sp);
    tp_buf_printf(b, "\"memory\":{\"ranks_with_memory\":%zu,\"ranks\":[", sp.n);
    size_t k = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_mem *m = &j->ranks[r].sum.mem;
        if (!m->present)
            continue;
        tp_buf_printf(b, "%s{\"rank\":%lld,\"device\":", k++ ? ",\n" : "\n", (long long)j->ranks[r].rank);
        tp_json_str(b, m->device);
        tp_buf_printf(b, ",\"peak_allocated_bytes\":%lld,\"peak_reserved_bytes\":%lld}", (long long)m->peak_allocated,
                      (long long)m->peak_reserved);
    }
    tp_buf_puts(b, "],\"peak_allocated\":");
    if (sp.n)
        tp_buf_printf(b,
                      "{\"min\":%lld,\"min_rank\":%lld,\"median\":%lld,\"max\":%lld,\"max_rank\":%lld,"
                      "\"spread_bytes\":%lld}}",
                      (long long)sp.min, (long long)sp.min_rank, (long long)sp.median, (long long)sp.max,
                      (long long)sp.max_rank, (long long)(sp.max - sp.min));
    else
        tp_buf_puts(b, "null}");
}

void tp_job_mem_md(const tp_job *j, tp_buf *b)
{
    mem_spread sp;
    spread_of(j, &sp);
    if (!sp.n)
        return;
    char lo[48], md[48], hi[48], d[48];
    tp_mem_bytes(lo, sizeof lo, sp.min);
    tp_mem_bytes(md, sizeof md, sp.median);
    tp_mem_bytes(hi, sizeof hi, sp.max);
    tp_mem_bytes(d, sizeof d, sp.max - sp.min);
    tp_buf_printf(b, "**Memory**: peak allocated per rank from %s (rank %lld) to **%s** (rank %lld), median %s; "
                     "spread %s",
                  lo, (long long)sp.min_rank, hi, (long long)sp.max_rank, md, d);
    if (sp.n < j->nranks)
        tp_buf_printf(b, " (%zu of %zu ranks have memory events)", sp.n, j->nranks);
    tp_buf_puts(b, ".\n\n");
}
