/* gpu_json.c: the GPU time model, the op categories and the leaf ops as
 * summary.json members (gpu_json.h). */
#include "report/out/gpu_json.h"
#include "convert/codec/json_write.h"

#include <string.h>

static void figs(tp_buf *b, const tp_gpu_figs *f);

void tp_fraction_json(tp_buf *b, int64_t part, int64_t whole)
{
    if (whole <= 0) {
        tp_buf_puts(b, "null");
        return;
    }
    /* six decimals, rounded half up, exact integer arithmetic */
    __int128 v = ((__int128)part * 2000000 + whole) / (2 * (__int128)whole);
    char f[48];
    tp_format_fixed(f, (int64_t)v, 6);
    tp_buf_puts(b, f);
}

void tp_gpu_figs_json(tp_buf *b, const tp_gpu_figs *f)
{
    tp_buf_printf(b,
                  "\"span_ns\":%lld,\"busy_ns\":%lld,\"idle_ns\":%lld,\"computation_ns\":%lld,"
                  "\"communication_ns\":%lld,\"exposed_communication_ns\":%lld,\"memcpy_ns\":%lld,"
                  "\"exposed_memcpy_ns\":%lld,\"memset_ns\":%lld,\"unlinked_ns\":%lld,\"kernels\":%llu,"
                  "\"memcpys\":%llu,\"memsets\":%llu,\"busy_share\":",
                  (long long)f->span_ns, (long long)f->busy_ns, (long long)f->idle_ns, (long long)f->computation_ns,
                  (long long)f->communication_ns, (long long)f->exposed_communication_ns, (long long)f->memcpy_ns,
                  (long long)f->exposed_memcpy_ns, (long long)f->memset_ns, (long long)f->unlinked_ns,
                  (unsigned long long)f->kernels, (unsigned long long)f->memcpys, (unsigned long long)f->memsets);
    tp_fraction_json(b, f->busy_ns, f->span_ns);
    tp_buf_puts(b, ",\"comm_overlap_share\":");
    if (f->communication_ns > 0)
        tp_fraction_json(b, f->communication_ns - f->exposed_communication_ns, f->communication_ns);
    else
        tp_buf_puts(b, "null");
}

static void figs(tp_buf *b, const tp_gpu_figs *f) { tp_gpu_figs_json(b, f); }

void tp_gpu_time_json(const tp_summary *s, tp_buf *b)
{
    const tp_gpu_time *g = &s->gt;
    tp_buf_puts(b, "\"gpu_time\":{\"whole\":{");
    figs(b, &g->whole);
    tp_buf_puts(b, "},\n\"linked_only\":{");
    figs(b, &g->linked);
    tp_buf_puts(b, "},\n\"outside_steps\":{");
    figs(b, &g->outside);
    tp_buf_puts(b, "},\n\"devices\":[");
    for (size_t d = 0; d < g->ndevices; d++) {
        const tp_gpu_device *dv = &g->devices[d];
        tp_buf_puts(b, d ? ",\n{\"device\":" : "\n{\"device\":");
        tp_json_str(b, dv->label);
        tp_buf_printf(b, ",\"start_ns\":%lld,", (long long)(s->t->base_ns + dv->start_ns));
        figs(b, &dv->whole);
        tp_buf_puts(b, ",\"linked_only\":{");
        figs(b, &dv->linked);
        tp_buf_puts(b, "}}");
    }
    tp_buf_puts(b, "],\n\"steps\":[");
    for (size_t k = 0; k < g->nsteps; k++) {
        tp_buf_printf(b, "%s{\"step\":%lld,", k ? ",\n" : "\n", (long long)s->sf.steps[k].step);
        uint32_t p = tp_step_device(s->t, &s->sf.steps[k]);
        if (p != TP_NONE) {
            char lab[96];
            tp_device_label(s->t, p, lab, sizeof lab);
            tp_buf_puts(b, "\"device\":");
            tp_json_str(b, lab);
            tp_buf_putc(b, ',');
        }
        figs(b, &g->steps[k]);
        tp_buf_putc(b, '}');
    }
    tp_buf_puts(b, "]}");
}

void tp_categories_json(const tp_summary *s, tp_buf *b)
{
    const tp_categories *c = &s->cat;
    const tp_cat_rules *r = c->rules;
    tp_buf_printf(b, "\"categories\":[");
    for (size_t i = 0; i < c->n; i++) {
        const tp_cat_row *row = &c->rows[i];
        tp_buf_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
        tp_json_str(b, r->names[row->category]);
        tp_buf_printf(b, ",\"device_ns\":%lld,\"count\":%llu,\"share\":", (long long)row->device_ns,
                      (unsigned long long)row->count);
        tp_fraction_json(b, row->device_ns, c->total_ns);
        tp_buf_printf(b, ",\"graph_ns\":%lld,\"compiled_ns\":%lld", (long long)row->graph_ns,
                      (long long)row->compiled_ns);
        tp_buf_puts(b, ",\"steps_ns\":[");
        for (size_t k = 0; k < c->nsteps; k++)
            tp_buf_printf(b, "%s%lld", k ? "," : "", (long long)row->step_ns[k]);
        tp_buf_puts(b, "],\"top_ops\":[");
        for (size_t k = 0; k < row->ntop; k++) {
            const tp_leaf_row *l = &c->leaves[row->top[k]];
            tp_buf_puts(b, k ? ",{\"name\":" : "{\"name\":");
            tp_json_str(b, l->name);
            tp_buf_printf(b, ",\"device_ns\":%lld}", (long long)l->device_ns);
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_puts(b, "],\n\"leaf_ops\":[");
    for (size_t i = 0; i < c->nleaves; i++) {
        const tp_leaf_row *l = &c->leaves[i];
        tp_buf_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
        tp_json_str(b, l->name);
        tp_buf_puts(b, ",\"category\":");
        tp_json_str(b, r->names[l->category]);
        tp_buf_printf(b, ",\"occurrences\":%llu,\"count\":%llu,\"device_ns\":%lld}", (unsigned long long)l->occurrences,
                      (unsigned long long)l->count, (long long)l->device_ns);
    }
    tp_buf_puts(b, "],\n\"modules\":[");
    for (size_t i = 0; i < c->nmodules; i++) {
        const tp_module_row *m = &c->modules[i];
        tp_buf_puts(b, i ? ",\n{\"path\":" : "\n{\"path\":");
        tp_json_str(b, m->path);
        tp_buf_printf(b, ",\"count\":%llu,\"device_ns\":%lld}", (unsigned long long)m->count, (long long)m->device_ns);
    }
    tp_buf_puts(b, "]");
    if (c->modules_cut) /* only then: summaries of ordinary traces keep their bytes */
        tp_buf_printf(b, ",\n\"modules_cut\":%llu", (unsigned long long)c->modules_cut);
}
