/* idle_json.c: idle attribution and launch statistics per stream as a
 * summary.json member (idle_json.h). */
#include "report/out/idle_json.h"
#include "convert/codec/json_write.h"
#include "report/analysis/gpu_time.h"
#include "report/out/gpu_json.h"

#include <string.h>

void tp_idle_json(const tp_summary *s, tp_buf *b)
{
    const tp_trace *t = s->t;
    tp_buf_puts(b, "\"idle_attribution\":[");
    for (size_t i = 0; i < s->idle.n; i++) {
        const tp_idle_stream *r = &s->idle.streams[i];
        char lab[256];
        tp_stream_label(t, r->track, lab, sizeof lab);
        tp_buf_puts(b, i ? ",\n{\"stream\":" : "\n{\"stream\":");
        tp_json_str(b, lab);
        tp_device_label(t, r->process, lab, sizeof lab);
        tp_buf_puts(b, ",\"device\":");
        tp_json_str(b, lab);
        tp_buf_printf(b,
                      ",\"activities\":%llu,\"span_ns\":%lld,\"busy_ns\":%lld,\"idle_ns\":%lld,\"host_wait_ns\":%lld,"
                      "\"kernel_wait_ns\":%lld,\"other_ns\":%lld,\"gaps\":{\"host_wait\":%llu,\"kernel_wait\":%llu,"
                      "\"other\":%llu},\"launch_delay\":{\"count\":%llu,\"clipped\":%llu,",
                      (unsigned long long)r->activities, (long long)(r->end_ns - r->start_ns), (long long)r->busy_ns,
                      (long long)r->idle_ns, (long long)r->host_wait_ns, (long long)r->kernel_wait_ns,
                      (long long)r->other_ns, (unsigned long long)r->host_wait_gaps,
                      (unsigned long long)r->kernel_wait_gaps, (unsigned long long)r->other_gaps,
                      (unsigned long long)r->launched, (unsigned long long)r->clipped);
        if (r->launched)
            tp_buf_printf(b, "\"p50_ns\":%lld,\"p90_ns\":%lld,\"max_ns\":%lld}", (long long)r->delay_p50_ns,
                          (long long)r->delay_p90_ns, (long long)r->delay_max_ns);
        else
            tp_buf_puts(b, "\"p50_ns\":null,\"p90_ns\":null,\"max_ns\":null}");
        tp_buf_printf(b, ",\"queue_length\":{\"max\":%llu,\"mean\":", (unsigned long long)r->queue_max);
        tp_fraction_json(b, r->queue_wait_ns, r->queue_window_ns);
        tp_buf_puts(b, "}}");
    }
    tp_buf_puts(b, "]");
}
