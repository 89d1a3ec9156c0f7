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
/* MTIA (Meta's accelerator) device events (Kineto's category
 * "mtia_ccp_events"), by name, as HTA groups them: "dma*" a copy,
 * "event_wait" / "event_record" a stream waiting on / marking an event
 * (sync), anything else a kernel.  A tp_kind (convert/model/model.h); the
 * Chrome and Perfetto readers both read Kineto's MTIA traces. */
#define TP_MTIA_DEVICE_CAT "mtia_ccp_events"
#define TP_MTIA_RUNTIME_CAT "mtia_runtime"
uint8_t tp_vendor_mtia_device_kind(const char *name);

#endif
