/* render_samples.h: sample data shared by the chart tests and the demo
 * (tests/render/test_render_demo.c).  Names are real Kineto kernel names. */
#ifndef TP_RENDER_SAMPLES_H
#define TP_RENDER_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

extern const char *const tp_sample_kernels[];
extern const size_t tp_sample_nkernels;

/* n (<= 80) kernel names, cycling through the real ones and making the
 * rest 200-character templated names; values: a deterministic spread.
 * Returns malloc'ed arrays (free each name, then the arrays). */
void tp_sample_top_kernels(size_t n, char ***names, int64_t **values);
void tp_sample_free(char **names, int64_t *values, size_t n);

#endif
