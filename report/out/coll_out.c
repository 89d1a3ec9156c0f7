/* coll_out.c: the collectives as summary.json and summary.md text
 * (coll_out.h). */
#include "report/out/coll_out.h"
#include "convert/codec/json_write.h"
#include "report/out/eff_json.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <string.h>

void tp_coll_key_json(tp_buf *b, const char *kind, const char *dtype, const char *group, const char *ranks)
{
    tp_buf_puts(b, "\"kind\":");
    tp_json_str(b, kind);
    tp_buf_puts(b, ",\"dtype\":");
    tp_json_str_or_null(b, dtype);
    tp_buf_puts(b, ",\"process_group\":");
    tp_json_str_or_null(b, group);
    tp_buf_puts(b, ",\"group_ranks\":");
    tp_json_str_or_null(b, ranks);
}

void tp_collectives_json(const tp_summary *s, tp_buf *b)
{
    const tp_collectives *c = &s->coll;
    tp_buf_printf(b,
                  "\"collectives\":{\"calls\":%llu,\"device_ns\":%lld,\"sized_calls\":%llu,"
                  "\"metadata_from\":{\"kernel\":%llu,\"record_param_comms\":%llu,\"nccl_annotation\":%llu},\"rows\":[",
                  (unsigned long long)c->calls, (long long)c->total_ns, (unsigned long long)c->sized,
                  (unsigned long long)c->from_kernel, (unsigned long long)c->from_op,
                  (unsigned long long)c->from_annotation);
    for (size_t i = 0; i < c->n; i++) {
        const tp_coll_row *r = &c->rows[i];
        tp_buf_puts(b, i ? ",\n{" : "\n{");
        tp_coll_key_json(b, r->kind, r->dtype, r->group, r->ranks);
        tp_buf_puts(b, ",\"group_size\":");
        if (r->group_size)
            tp_buf_printf(b, "%lld", (long long)r->group_size);
        else
            tp_buf_puts(b, "null");
        tp_buf_puts(b, ",\"bytes\":");
        if (r->bytes)
            tp_buf_printf(b, "%llu", (unsigned long long)r->bytes);
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"count\":%llu,\"device_ns\":%lld,\"min_ns\":%lld,\"max_ns\":%lld,\"mean_ns\":%lld",
                      (unsigned long long)r->count, (long long)r->total_ns, (long long)r->min_ns,
                      (long long)r->max_ns, (long long)(r->total_ns / (int64_t)r->count));
        const struct {
            const char *key;
            double v;
        } nums[] = {{"bus_factor", r->factor ? r->factor : -1},
                    {"algbw_gb_per_s_mean", r->bytes ? r->algbw_mean : -1},
                    {"busbw_gb_per_s_mean", r->bytes && r->factor ? r->busbw_mean : -1},
                    {"algbw_gb_per_s", r->bytes ? r->algbw : -1},
                    {"busbw_gb_per_s", r->bytes && r->factor ? r->busbw : -1}};
        for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
            tp_buf_printf(b, ",\"%s\":", nums[k].key);
            tp_eff_number_json(b, nums[k].v);
        }
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "]}");
}

void tp_collectives_md(const tp_summary *s, tp_buf *b)
{
    const tp_collectives *c = &s->coll;
    if (!c->calls)
        return;
    char u[64];
    tp_md_dur(u, sizeof u, c->total_ns);
    int64_t mt = 0; /* the time column's unit: that of its largest shown value */
    for (size_t i = 0; i < c->n && i < TP_COLL_MD_TOP; i++)
        mt = c->rows[i].total_ns > mt ? c->rows[i].total_ns : mt;
    int ut = tp_dur_unit(mt);
    char ncalls[32];
    tp_fmt_count(ncalls, sizeof ncalls, c->calls);
    /* no mean column (time / count; summary.json has it): the table fits a comment's column (issue 36 item 9) */
    tp_buf_printf(b, "\n#### Collectives (%s calls, %s of device time)\n\n"
                     "| kind | size | dtype | group | count | time (%s) | algbw GB/s | busbw GB/s |\n"
                     "|---|---:|---|---|---:|---:|---:|---:|\n",
                  ncalls, u, tp_dur_unit_name(ut));
    for (size_t i = 0; i < c->n && i < TP_COLL_MD_TOP; i++) {
        const tp_coll_row *r = &c->rows[i];
        char sz[32], t[64], alg[32] = "-", bus[32] = "-", grp[96];
        tp_fmt_bytes(sz, sizeof sz, r->bytes);
        tp_str_nbsp(sz, sizeof sz);
        tp_fmt_dur_in(t, sizeof t, r->total_ns, ut);
        if (r->bytes)
            snprintf(alg, sizeof alg, "%.2f", r->algbw_mean);
        if (r->bytes && r->factor)
            snprintf(bus, sizeof bus, "%.2f", r->busbw_mean);
        if (r->group_size)
            snprintf(grp, sizeof grp, "%s%s%lld ranks", r->group, r->group[0] ? ", " : "", (long long)r->group_size);
        else
            snprintf(grp, sizeof grp, "%s", r->group);
        tp_buf_puts(b, "| ");
        tp_md_text(b, r->kind, 40);
        tp_buf_printf(b, " | %s | ", sz);
        tp_md_text(b, r->dtype, 30);
        tp_buf_puts(b, " | ");
        tp_md_text(b, grp, 90);
        char cnt[32];
        tp_fmt_count(cnt, sizeof cnt, r->count);
        tp_buf_printf(b, " | %s | %s | %s | %s |\n", cnt, t, alg, bus);
    }
    if (c->n > TP_COLL_MD_TOP)
        tp_buf_printf(b, "\n<sub>%zu more rows in summary.json collectives.rows.</sub>\n", c->n - TP_COLL_MD_TOP);
}

static void int_or_null(tp_buf *b, int64_t v)
{
    if (v >= 0)
        tp_buf_printf(b, "%lld", (long long)v);
    else
        tp_buf_puts(b, "null");
}

void tp_dist_info_json(const tp_dist_info *d, tp_buf *b)
{
    if (!d->present) {
        tp_buf_puts(b, "null");
        return;
    }
    tp_buf_puts(b, "{\"rank\":");
    int_or_null(b, d->rank);
    tp_buf_puts(b, ",\"world_size\":");
    int_or_null(b, d->world_size);
    tp_buf_puts(b, ",\"backend\":");
    tp_json_str_or_null(b, d->backend);
    tp_buf_puts(b, ",\"process_groups\":[");
    for (size_t i = 0; i < d->ngroups; i++) {
        const tp_pg_info *g = &d->groups[i];
        tp_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        tp_json_str_or_null(b, g->name);
        tp_buf_puts(b, ",\"description\":");
        tp_json_str_or_null(b, g->desc);
        tp_buf_puts(b, ",\"size\":");
        int_or_null(b, g->size);
        tp_buf_puts(b, ",\"ranks\":[");
        for (size_t k = 0; k < g->nranks; k++)
            tp_buf_printf(b, "%s%lld", k ? "," : "", (long long)g->ranks[k]);
        tp_buf_puts(b, "]}");
    }
    tp_buf_puts(b, "],\"problem\":");
    tp_json_str_or_null(b, d->problem);
    tp_buf_puts(b, "}");
}
