/* job_json.c: the job report's summary.json (job_out.h). */
#include "report/job/job_out.h"
#include "convert/codec/json_write.h"
#include "convert/model/clock_align.h"
#include "report/out/coll_out.h"
#include "report/out/find_out.h"

#include <stdio.h>
#include <string.h>

void tp_job_flags_text(uint32_t flags, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s%s", flags & TP_JOB_FLAG_COMPUTE ? "compute" : "",
             (flags & TP_JOB_FLAG_COMPUTE) && (flags & (TP_JOB_FLAG_STEP | TP_JOB_FLAG_ARRIVAL)) ? ", " : "",
             flags & TP_JOB_FLAG_STEP ? "step" : "",
             (flags & TP_JOB_FLAG_STEP) && (flags & TP_JOB_FLAG_ARRIVAL) ? ", " : "",
             flags & TP_JOB_FLAG_ARRIVAL ? "arrival" : "");
}

static void flags_json(tp_buf *b, uint32_t flags)
{
    tp_buf_printf(b, "[%s%s%s%s%s]", flags & TP_JOB_FLAG_COMPUTE ? "\"compute\"" : "",
                  (flags & TP_JOB_FLAG_COMPUTE) && (flags & (TP_JOB_FLAG_STEP | TP_JOB_FLAG_ARRIVAL)) ? "," : "",
                  flags & TP_JOB_FLAG_STEP ? "\"step\"" : "",
                  (flags & TP_JOB_FLAG_STEP) && (flags & TP_JOB_FLAG_ARRIVAL) ? "," : "",
                  flags & TP_JOB_FLAG_ARRIVAL ? "\"arrival\"" : "");
}

static void int_or_null(tp_buf *b, int64_t v)
{
    if (v < 0)
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%lld", (long long)v);
}

static void rate(tp_buf *b, double v)
{
    if (v > 0)
        tp_buf_printf(b, "%.6g", v);
    else
        tp_buf_puts(b, "null");
}

static void rank_json(const tp_job *j, size_t r, tp_buf *b)
{
    const tp_job_rank *x = &j->ranks[r];
    const tp_rank_sum *s = &x->sum;
    tp_buf_printf(b, "{\"rank\":%lld,\"rank_from\":\"%s\",\"file\":", (long long)x->rank,
                  tp_rank_from_name(x->rank_from));
    tp_json_str(b, s->path);
    tp_buf_puts(b, ",\"format\":");
    tp_json_str(b, s->format);
    tp_buf_puts(b, ",\"device\":");
    tp_json_str_or_null(b, s->device);
    tp_buf_printf(b, ",\"events\":%llu,\"warnings\":%llu,\"clock_offset_ns\":%lld,\"alignment\":\"%s\","
                     "\"aligned_on_calls\":%u,\"alignment_spread_ns\":%lld,\"steps\":%zu,\"median_step_ns\":",
                  (unsigned long long)s->events, (unsigned long long)s->warnings, (long long)x->offset_ns,
                  tp_align_method_name(x->align_method), x->align_matched, (long long)x->align_spread_ns,
                  s->nsteps);
    int_or_null(b, x->median_step_ns);
    const tp_gpu_figs *w = &s->whole;
    tp_buf_printf(b,
                  ",\"gpu_span_ns\":%lld,\"gpu_span_computation_ns\":%lld,\"gpu_span_communication_ns\":%lld,"
                  "\"gpu_span_exposed_communication_ns\":%lld,\"gpu_span_exposed_memcpy_ns\":%lld,"
                  "\"gpu_span_idle_ns\":%lld,\"gpu_span_overlap_pct\":",
                  (long long)w->span_ns, (long long)w->computation_ns, (long long)w->communication_ns,
                  (long long)w->exposed_communication_ns, (long long)w->exposed_memcpy_ns, (long long)w->idle_ns);
    if (x->overlap_milli_pct < 0)
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%lld.%03lld", (long long)(x->overlap_milli_pct / 1000),
                      (long long)(x->overlap_milli_pct % 1000));
    tp_buf_printf(b, ",\"collective_calls\":%zu,\"wait_caused_ns\":%lld,\"waited_ns\":%lld,\"last_arrivals\":%llu,"
                     "\"flags\":",
                  s->ncalls, (long long)x->wait_caused_ns, (long long)x->waited_ns,
                  (unsigned long long)x->last_arrivals);
    flags_json(b, x->flags);
    tp_buf_puts(b, ",\"top_finding\":");
    if (s->top.present) {
        tp_buf_puts(b, "{\"id\":");
        tp_json_str(b, s->top.id);
        tp_buf_puts(b, ",\"title\":");
        tp_json_str(b, s->top.title);
        tp_buf_printf(b, ",\"severity\":\"%s\",\"impact_ns\":%lld,\"impact_pct\":%lld.%03lld,\"impact_base\":",
                      tp_find_severity_name(s->top.severity), (long long)s->top.impact_ns,
                      (long long)(s->top.impact_milli / 1000), (long long)(s->top.impact_milli % 1000));
        tp_json_str(b, s->top.impact_base);
        tp_buf_putc(b, '}');
    } else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"per_step\":[");
    bool first = true;
    for (size_t i = j->rank_cells[r]; i < j->rank_cells[r + 1]; i++) {
        const tp_job_cell *c = &j->cells[i];
        size_t k = c->step;
        tp_buf_printf(b, "%s[%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%u,%u,", first ? "" : ",",
                      (long long)j->steps[k].number, (long long)c->step_ns, (long long)c->computation_ns,
                      (long long)c->communication_ns, (long long)c->exposed_communication_ns, (long long)c->idle_ns,
                      (long long)c->waited_ns, (long long)c->wait_caused_ns, c->last_arrivals, c->instances);
        flags_json(b, c->flags);
        tp_buf_putc(b, ']');
        first = false;
    }
    tp_buf_puts(b, "]}");
}

static void coll_json(const tp_job_coll *c, tp_buf *b)
{
    tp_buf_putc(b, '{');
    tp_coll_key_json(b, c->kind, c->dtype, c->group, c->ranks);
    tp_buf_puts(b, ",\"group_size\":");
    int_or_null(b, c->group_size ? c->group_size : -1);
    if (c->group_implied) /* not recorded: every rank of the world took part in each instance */
        tp_buf_puts(b, ",\"group_size_implied\":true");
    tp_buf_puts(b, ",\"bytes\":");
    int_or_null(b, c->bytes ? (int64_t)c->bytes : -1);
    tp_buf_printf(b, ",\"instances\":%llu,\"single_rank_instances\":%llu,\"calls\":%llu,\"transfer_ns\":%lld,"
                     "\"rank_ns\":%lld,\"wait_ns\":%lld,\"bus_factor\":",
                  (unsigned long long)c->instances, (unsigned long long)c->single_rank, (unsigned long long)c->calls,
                  (long long)c->transfer_ns,
                  (long long)c->rank_ns, (long long)c->wait_ns);
    rate(b, c->factor);
    tp_buf_puts(b, ",\"algbw_gb_per_s\":");
    rate(b, c->algbw);
    tp_buf_puts(b, ",\"busbw_gb_per_s\":");
    rate(b, c->factor > 0 ? c->busbw : 0);
    tp_buf_puts(b, ",\"slowest_rank\":");
    int_or_null(b, c->slowest_rank);
    tp_buf_printf(b, ",\"slowest_rank_last_arrivals\":%llu,\"slowest_rank_wait_caused_ns\":%lld}",
                  (unsigned long long)c->slowest_count, (long long)c->slowest_wait_ns);
}

void tp_job_json(const tp_job *j, tp_buf *b)
{
    tp_buf_puts(b, "{\"schema\":\"" TP_JOB_SCHEMA "\",\n");
    tp_findings_json(&j->findings, b); /* the verdicts first, as a trace's summary.json */
    tp_buf_printf(b, ",\n\"job\":{\"ranks_given\":%zu,\"world_size\":", j->nranks);
    int_or_null(b, j->world_size);
    tp_buf_printf(b, ",\"steps\":%zu,\"median_step_ns\":", j->nsteps);
    int_or_null(b, j->median_step_ns);
    tp_buf_printf(b, ",\"collective_instances\":%llu,\"unmatched_calls\":%llu,",
                  (unsigned long long)j->instances, (unsigned long long)j->unmatched_calls);
    tp_buf_printf(b, "\n\"alignment\":{\"reference_rank\":");
    int_or_null(b, j->nranks ? j->ranks[0].rank : -1);
    tp_buf_printf(b, ",\"tolerance_ns\":%d},", TP_ALIGN_TOLERANCE_NS);
    tp_buf_puts(b, "\n\"per_step_fields\":[\"step\",\"step_ns\",\"computation_ns\",\"communication_ns\","
                   "\"exposed_communication_ns\",\"idle_ns\",\"waited_ns\",\"wait_caused_ns\",\"last_arrivals\","
                   "\"instances\",\"flags\"],\n\"ranks\":[");
    for (size_t r = 0; r < j->nranks; r++) {
        tp_buf_puts(b, r ? ",\n" : "\n");
        rank_json(j, r, b);
    }
    tp_buf_puts(b, "],\n\"spread\":[");
    for (int f = 0; f < TP_JOB_SPREADS; f++) {
        const tp_job_spread *sp = &j->spread[f];
        tp_buf_printf(b, "%s{\"figure\":\"%s\",\"ranks\":%u,\"min\":", f ? ",\n" : "\n", sp->figure, sp->ranks);
        int_or_null(b, sp->ranks ? sp->min : -1);
        tp_buf_puts(b, ",\"min_rank\":");
        int_or_null(b, sp->ranks ? sp->min_rank : -1);
        tp_buf_puts(b, ",\"median\":");
        int_or_null(b, sp->ranks ? sp->median : -1);
        tp_buf_puts(b, ",\"max\":");
        int_or_null(b, sp->ranks ? sp->max : -1);
        tp_buf_puts(b, ",\"max_rank\":");
        int_or_null(b, sp->ranks ? sp->max_rank : -1);
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "],\n");
    tp_job_mem_json(j, b);
    tp_buf_puts(b, ",\n\"per_step\":[");
    for (size_t k = 0; k < j->nsteps; k++) {
        const tp_job_step *st = &j->steps[k];
        tp_buf_printf(b, "%s{\"step\":%lld,\"ranks\":%u,\"median_step_ns\":%lld,\"median_computation_ns\":%lld,"
                         "\"noise_ns\":%lld,\"wait_threshold_ns\":%lld,\"straggler_rank\":",
                      k ? ",\n" : "\n", (long long)st->number, st->ranks, (long long)st->median_step_ns,
                      (long long)st->median_computation_ns, (long long)st->noise_ns, (long long)st->wait_threshold_ns);
        int_or_null(b, st->straggler);
        tp_buf_printf(b, ",\"straggler_wait_caused_ns\":%lld}", (long long)(st->straggler >= 0 ? st->wait_ns : 0));
    }
    tp_buf_puts(b, "],\n\"collectives\":[");
    for (size_t i = 0; i < j->ncolls; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        coll_json(&j->colls[i], b);
    }
    tp_buf_puts(b, "],\n\"stragglers\":[");
    for (size_t i = 0; i < j->nstragglers; i++) {
        const tp_job_straggler *s = &j->stragglers[i];
        tp_buf_printf(b, "%s{\"step\":%lld,\"rank\":%lld,\"flags\":", i ? ",\n" : "\n", (long long)s->step,
                      (long long)s->rank);
        flags_json(b, s->flags);
        tp_buf_printf(b,
                      ",\"computation_ns\":%lld,\"median_computation_ns\":%lld,\"step_ns\":%lld,"
                      "\"median_step_ns\":%lld,\"wait_caused_ns\":%lld,\"late_ns\":%lld,\"last_arrivals\":%u,\"instances\":%u,"
                      "\"noise_ns\":%lld,\"wait_threshold_ns\":%lld}",
                      (long long)s->computation_ns, (long long)s->median_computation_ns, (long long)s->step_ns,
                      (long long)s->median_step_ns, (long long)s->wait_caused_ns, (long long)s->late_ns, s->last_arrivals,
                      s->instances,
                      (long long)s->noise_ns, (long long)s->wait_threshold_ns);
    }
    tp_buf_puts(b, "]}}\n");
}
