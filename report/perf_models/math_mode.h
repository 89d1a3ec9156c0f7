/* math_mode.h: the math a device kernel ran, read from its name (docs/REPORT.md
 * "Efficiency", "The math mode").
 *
 * A GEMM, convolution or attention op is held against the peak of the math
 * its kernels ran, not only its dtype's: an fp32 `aten::mm` whose kernel is
 * `cutlass_80_tensorop_s1688gemm_*` ran on TF32 tensor cores (156 TFLOPS/s on
 * an A100), not at the 19.5 of fp32.  Library kernel names say the mode
 * (cuBLAS/CUTLASS type tags and MMA shapes, cuBLASLt nvjet type letters,
 * AMD Tensile type letters); tp_math_mode_of_kernel is the one place that
 * reads them. */
#ifndef TP_MATH_MODE_H
#define TP_MATH_MODE_H

#include <stddef.h>

typedef enum tp_math_mode {
    TP_MATH_UNKNOWN = 0, /* the name does not say */
    TP_MATH_FP64,
    TP_MATH_FP32,        /* fp32 on CUDA cores / vector ALUs (SIMT) */
    TP_MATH_FP32_MATRIX, /* fp32 on matrix cores (AMD MFMA fp32, NVIDIA xmma f32) */
    TP_MATH_TF32,
    TP_MATH_16BIT,       /* fp16 or bf16 tensor cores, the name does not say which (the op's dtype does) */
    TP_MATH_FP16,
    TP_MATH_BF16,
    TP_MATH_FP8,
    TP_MATH_INT8,
    TP_MATH_MODES
} tp_math_mode;

/* "unknown", "fp64", "fp32", "fp32 matrix", "tf32", "fp16 or bf16", "fp16", "bf16", "fp8", "int8" */
const char *tp_math_mode_name(tp_math_mode m);

/* The mode a kernel name says (rules in docs/REPORT.md, first match wins). */
tp_math_mode tp_math_mode_of_kernel(const char *name);

/* The peak class (devices.h tp_peak_class) of a mode, -1 when the device
 * table has none (fp64, int8) or the mode is unknown.  TP_MATH_16BIT takes
 * bf16 when dtype_peak (the op's dtype class) is bf16, else fp16. */
int tp_math_mode_peak(tp_math_mode m, int dtype_peak);

#endif
