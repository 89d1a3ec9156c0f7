/* devices.h: TEMPORARY stand-in with the agreed API (the device table lands from branch issue20-devices). */
#ifndef TP_DEVICES_H
#define TP_DEVICES_H

#include "convert/model/model.h"

typedef enum tp_peak_class { TP_PEAK_MATRIX_FP8, TP_PEAK_MATRIX_BF16, TP_PEAK_MATRIX_FP16, TP_PEAK_MATRIX_TF32,
                             TP_PEAK_MATRIX_FP32, TP_PEAK_VECTOR_FP32, TP_PEAK_CLASSES } tp_peak_class;
extern const char *const tp_peak_class_names[TP_PEAK_CLASSES];
typedef struct tp_device_table { int dummy; } tp_device_table;
typedef struct tp_device_peaks {
    bool known;
    char label[96];
    char trace_name[96];
    char id[48];
    char source[256];
    double tflops[TP_PEAK_CLASSES];
    double mem_tbps;
} tp_device_peaks;
void tp_device_resolve(const tp_device_table *dt, const tp_trace *t, const tp_device_info *d, tp_device_peaks *out);
const char *tp_device_unknown_hint(void);
#endif
