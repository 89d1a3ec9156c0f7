/* kernel_json.c: kernel table rows and the op breakdown as JSON. */
#include "report/out/kernel_json.h"
#include "convert/codec/json_write.h"

#include <string.h>

void tp_kernel_row_json(tp_buf *b, const tp_trace *t, const tp_classes *cls, const tp_kernel_row *r)
{
    tp_buf_puts(b, "{\"name\":");
    tp_json_put_string(b, tp_str_get(t, r->name), tp_str_len(t, r->name), NULL);
    tp_buf_printf(b,
                  ",\"kind\":\"%s\",\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":%lld,\"min_ns\":%lld,"
                  "\"max_ns\":%lld,\"p10_ns\":%lld,\"p50_ns\":%lld,\"p90_ns\":%lld,\"stddev_ns\":%lld",
                  tp_kind_name((tp_kind)r->kind), (unsigned long long)r->count, (long long)r->total_ns,
                  (long long)r->mean_ns, (long long)r->min_ns, (long long)r->max_ns, (long long)r->p10_ns,
                  (long long)r->p50_ns, (long long)r->p90_ns, (long long)r->stddev_ns);
    if (cls && cls->of) {
        size_t n;
        const tp_class_share *sh = tp_class_name_split(cls, r->name, &n);
        const char *cat = cls->rules->names[tp_class_of_name(cls, r->name)];
        tp_buf_puts(b, ",\"category\":");
        tp_json_put_string(b, cat, strlen(cat), NULL);
        if (n > 1) {
            tp_buf_puts(b, ",\"categories\":{");
            for (size_t i = 0; i < n; i++) {
                const char *c = cls->rules->names[sh[i].category];
                tp_buf_puts(b, i ? "," : "");
                tp_json_put_string(b, c, strlen(c), NULL);
                tp_buf_printf(b, ":%lld", (long long)sh[i].device_ns);
            }
            tp_buf_putc(b, '}');
        }
    }
    tp_buf_putc(b, '}');
}

void tp_op_kernels_json(const tp_trace *t, const tp_op_kernels *ob, const char *none_key, tp_buf *b)
{
    tp_buf_putc(b, '[');
    for (size_t i = 0; i < ob->nops; i++) {
        const tp_opk_op *op = &ob->ops[i];
        tp_buf_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
        const char *name = tp_opk_op_name(t, op);
        tp_json_put_string(b, name, strlen(name), NULL);
        tp_buf_printf(b, ",\"%s\":%s,\"total_ns\":%lld,\"occurrences\":%llu,\"instances\":%llu,\"variants\":[",
                      none_key, op->no_op ? "true" : "false", (long long)op->total_ns,
                      (unsigned long long)op->occurrences, (unsigned long long)op->instances);
        for (size_t v = 0; v < op->n; v++) {
            const tp_opk_variant *va = &ob->variants[op->first + v];
            tp_buf_printf(b, "%s{\"occurrences\":%llu,\"total_ns\":%lld,\"kernels\":[", v ? "," : "",
                          (unsigned long long)va->occurrences, (long long)va->total_ns);
            for (size_t k = 0; k < va->n; k++) {
                const tp_opk_kernel *kk = &ob->kernels[va->first + k];
                tp_buf_puts(b, k ? ",{\"name\":" : "{\"name\":");
                const char *kn = tp_str_get(t, kk->name);
                tp_json_put_string(b, kn, strlen(kn), NULL);
                tp_buf_printf(b, ",\"kind\":\"%s\",\"count\":%llu,\"total_ns\":%lld}", tp_kind_name((tp_kind)kk->kind),
                              (unsigned long long)kk->count, (long long)kk->total_ns);
            }
            tp_buf_puts(b, "]}");
        }
        tp_buf_puts(b, "]}");
    }
    tp_buf_putc(b, ']');
}
