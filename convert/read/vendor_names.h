/* vendor_names.h: what the vendors' profiler readers (nsys, rocprof) read
 * alike from names: a range named like a training step, and an API entry
 * point's version suffix. */
#ifndef TP_VENDOR_NAMES_H
#define TP_VENDOR_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* A range named like a training step ("ProfilerStep#3", "step 3",
 * "train_step_12", "Iteration 5", "iter=5"): its number, else -1. */
int64_t tp_vendor_step_number(const char *s, size_t n);
/* "cudaLaunchKernel_v7000" -> the length of "cudaLaunchKernel" (the name
 * `nsys stats` and Kineto show); n when there is no "_vN" suffix. */
size_t tp_vendor_api_name_len(const char *s, size_t n);

#endif
