/* eff_text.h: short forms of an efficiency row for tables (summary.md, the
 * efficiency page, diff): its shape, its dtype, its rates. */
#ifndef TP_EFF_TEXT_H
#define TP_EFF_TEXT_H

#include "report/analysis/efficiency.h"

/* The tensors' sizes of a row's input_dims, "512, 141x512, 512x512" (inputs
 * that are not tensors left out; a tensor list "{3x4, 3x4}"), cut at n-1
 * bytes with "..."; "" for XLA ops. */
void tp_eff_shape(const tp_eff_row *r, char *buf, size_t n);
/* The first tensor dtype short: "bf16", "fp16", "fp32", "fp64", "fp8e4m3",
 * "i64", ...; the C++ name when unknown; "" when none. */
void tp_eff_dtype(const tp_eff_row *r, char *buf, size_t n);
/* A rate or ratio for a table: 3 significant digits ("612", "12.7",
 * "0.0441"), "-" when negative (unknown). */
void tp_eff_num(char *buf, size_t n, double v);
/* A fraction as a percentage, "1.3%", "-" when negative. */
void tp_eff_pct(char *buf, size_t n, double fraction);

#endif
