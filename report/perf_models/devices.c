/* TEMPORARY stand-in (see devices.h). */
#include "report/perf_models/devices.h"
#include <stdio.h>
#include <string.h>
const char *const tp_peak_class_names[TP_PEAK_CLASSES] = {"matrix_fp8", "matrix_bf16", "matrix_fp16", "matrix_tf32", "matrix_fp32", "vector_fp32"};
void tp_device_resolve(const tp_device_table *dt, const tp_trace *t, const tp_device_info *d, tp_device_peaks *out)
{
    (void)dt;
    memset(out, 0, sizeof *out);
    const char *n = d->name ? tp_str_get(t, d->name) : "";
    snprintf(out->trace_name, sizeof out->trace_name, "%s", n);
    snprintf(out->label, sizeof out->label, "%s", n);
    if (strstr(n, "H100")) { /* stand-in numbers for development only */
        out->known = true;
        snprintf(out->id, sizeof out->id, "H100-SXM5-80GB");
        out->tflops[TP_PEAK_MATRIX_BF16] = 989.4; out->tflops[TP_PEAK_MATRIX_FP16] = 989.4;
        out->tflops[TP_PEAK_MATRIX_FP32] = 66.9; out->tflops[TP_PEAK_VECTOR_FP32] = 66.9; out->tflops[TP_PEAK_MATRIX_FP8] = 1978.9;
        out->tflops[TP_PEAK_MATRIX_TF32] = 494.7; out->mem_tbps = 3.35;
    }
}
const char *tp_device_unknown_hint(void) { return "add it with --device-spec FILE"; }
