/* eff_json.c: the "efficiency" member of summary.json (eff_json.h). */
#include "report/out/eff_json.h"
#include "convert/codec/json_write.h"
#include "report/out/gpu_json.h"

#include <math.h>
#include <string.h>

void tp_eff_number_json(tp_buf *b, double v)
{
    if (!(v >= 0) || !isfinite(v))
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%.6g", v);
}

static void device_json(const tp_efficiency *e, tp_buf *b)
{
    const tp_device_peaks *d = &e->device;
    if (!e->have_device) {
        tp_buf_puts(b, "null");
        return;
    }
    tp_buf_puts(b, "{\"name\":");
    tp_json_str(b, d->trace_name);
    tp_buf_puts(b, ",\"known\":");
    tp_buf_puts(b, d->known ? "true" : "false");
    tp_buf_puts(b, ",\"label\":");
    tp_json_str(b, d->label);
    tp_buf_puts(b, ",\"table_id\":");
    if (d->id[0])
        tp_json_str(b, d->id);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"source\":");
    tp_json_str(b, d->source);
    tp_buf_puts(b, ",\"peak_tflops_per_s\":{");
    for (int k = 0; k < TP_PEAK_CLASSES; k++) {
        tp_buf_printf(b, "%s\"%s\":", k ? "," : "", tp_peak_class_names[k]);
        tp_eff_number_json(b, d->tflops[k] > 0 ? d->tflops[k] : -1);
    }
    tp_buf_puts(b, "},\"memory_tb_per_s\":");
    tp_eff_number_json(b, d->mem_tbps > 0 ? d->mem_tbps : -1);
    tp_buf_printf(b, ",\"devices_described\":%zu,\"mixed_models\":%s", e->ndevices,
                  e->mixed_devices ? "true" : "false");
    if (!d->known) {
        tp_buf_puts(b, ",\"note\":");
        tp_json_str(b, tp_device_unknown_hint());
    }
    tp_buf_puts(b, "}");
}

static void raw_or_null(tp_buf *b, const char *json)
{
    tp_buf_puts(b, json && *json ? json : "null");
}

static void row_json(const tp_summary *s, const tp_eff_row *r, tp_buf *b)
{
    tp_buf_puts(b, "{\"op\":");
    tp_json_str(b, r->op);
    tp_buf_puts(b, ",\"family\":");
    tp_json_str(b, tp_op_family_name((tp_op_family)r->family));
    tp_buf_puts(b, ",\"category\":");
    if (r->category != UINT32_MAX && s->cat.rules)
        tp_json_str(b, s->cat.rules->names[r->category]);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"input_dims\":");
    raw_or_null(b, r->input_dims);
    tp_buf_puts(b, ",\"dtypes\":");
    raw_or_null(b, r->dtypes);
    tp_buf_puts(b, ",\"input_strides\":");
    raw_or_null(b, r->strides);
    tp_buf_printf(b, ",\"count\":%llu,\"device_ns\":%lld,\"mean_ns\":%lld,\"median_ns\":%lld,\"flops\":%llu,\"bytes\":%llu",
                  (unsigned long long)r->count, (long long)r->device_ns, (long long)r->mean_ns,
                  (long long)r->median_ns, (unsigned long long)r->flops, (unsigned long long)r->bytes);
    const struct {
        const char *key;
        double v;
    } nums[] = {{"tflops_per_s_mean", r->tflops_mean}, {"tflops_per_s_median", r->tflops_median},
                {"tb_per_s_mean", r->tbps_mean},       {"tb_per_s_median", r->tbps_median},
                {"tflops_per_s", r->tflops},           {"tb_per_s", r->tbps},
                {"intensity", r->bytes ? r->intensity : -1}, {"peak_fraction", r->peak_fraction}};
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
        tp_buf_printf(b, ",\"%s\":", nums[k].key);
        tp_eff_number_json(b, nums[k].v);
    }
    tp_buf_puts(b, ",\"peak\":");
    if (r->peak >= 0)
        tp_json_str(b, tp_peak_class_names[r->peak]);
    else
        tp_buf_puts(b, "null");
    /* the math its kernels ran and the roof it is held against (docs/REPORT.md "The math mode") */
    const char *mode = tp_eff_math_mode(r);
    tp_buf_puts(b, ",\"math_mode\":");
    if (mode)
        tp_json_str(b, mode);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"roof_tflops_per_s\":");
    tp_eff_number_json(b, r->peak_fraction >= 0 ? r->roof_tflops : -1);
    tp_buf_puts(b, ",\"roof_note\":");
    if (r->roof_note)
        tp_json_str(b, r->roof_note);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"bound\":");
    tp_buf_puts(b, r->bound == TP_BOUND_COMPUTE ? "\"compute\"" : r->bound == TP_BOUND_MEMORY ? "\"memory\"" : "null");
    tp_buf_puts(b, ",\"opportunity_ns\":");
    if (r->peak_fraction >= 0)
        tp_buf_printf(b, "%lld", (long long)r->opportunity_ns);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, "}");
}

void tp_efficiency_json(const tp_summary *s, tp_buf *b)
{
    const tp_efficiency *e = &s->eff;
    tp_buf_puts(b, "\"efficiency\":{\"device\":");
    device_json(e, b);
    tp_buf_printf(b,
                  ",\"shapes_recorded\":%s,\"invocations\":%llu,\"modelled_ns\":%lld,\"modelled_share\":",
                  e->with_shapes || e->xla_costs ? "true" : "false", (unsigned long long)e->invocations,
                  (long long)e->modelled_ns);
    tp_fraction_json(b, e->modelled_ns, e->device_ns);
    tp_buf_printf(b, ",\"no_cost\":{\"invocations\":%llu,\"device_ns\":%lld,\"by_reason\":[",
                  (unsigned long long)e->skipped, (long long)e->skipped_ns);
    for (size_t i = 0; i < e->nskips; i++) {
        tp_buf_puts(b, i ? ",{\"op\":" : "{\"op\":");
        tp_json_str(b, e->skips[i].op);
        tp_buf_puts(b, ",\"reason\":");
        tp_json_str(b, e->skips[i].why);
        tp_buf_printf(b, ",\"count\":%llu,\"device_ns\":%lld}", (unsigned long long)e->skips[i].count,
                      (long long)e->skips[i].device_ns);
    }
    tp_buf_printf(b, "]},\"host_device_copies\":%llu,\"opportunities\":[", (unsigned long long)e->host_copies);
    for (size_t i = 0; i < e->nopportunities && i < TP_EFF_TOP_OPPORTUNITIES; i++)
        tp_buf_printf(b, "%s%zu", i ? "," : "", e->by_opportunity[i]);
    tp_buf_puts(b, "],\"ops\":[");
    for (size_t i = 0; i < e->n; i++) {
        tp_buf_puts(b, i ? ",\n" : "\n");
        row_json(s, &e->rows[i], b);
    }
    tp_buf_puts(b, "]}");
}
