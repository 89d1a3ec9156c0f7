/* kernel_json.c: a kernel table row as JSON. */
#include "report/out/kernel_json.h"
#include "convert/codec/json_write.h"

void tp_kernel_row_json(tp_buf *b, const tp_trace *t, const tp_kernel_row *r)
{
    tp_buf_puts(b, "{\"name\":");
    tp_json_put_string(b, tp_str_get(t, r->name), tp_str_len(t, r->name), NULL);
    tp_buf_printf(b,
                  ",\"kind\":\"%s\",\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":%lld,\"min_ns\":%lld,"
                  "\"max_ns\":%lld,\"p10_ns\":%lld,\"p50_ns\":%lld,\"p90_ns\":%lld,\"stddev_ns\":%lld}",
                  tp_kind_name((tp_kind)r->kind), (unsigned long long)r->count, (long long)r->total_ns,
                  (long long)r->mean_ns, (long long)r->min_ns, (long long)r->max_ns, (long long)r->p10_ns,
                  (long long)r->p50_ns, (long long)r->p90_ns, (long long)r->stddev_ns);
}
