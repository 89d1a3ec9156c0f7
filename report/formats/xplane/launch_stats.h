/* launch_stats.h: launches per step and device, and how long they took
 * (XProf's "Launch Stats" line, XPLANE.md §5.2), for the XPlane report page.
 *
 * Launches: the host calls the XPlane reader kept (tp_xplane_data: calls
 * with a correlation id that tp_launch_counted() accepts, i.e. not the CUDA
 * driver's own cu* calls), not dropped.  Where the Launch Stats line wants a
 * group_id and a device_id, this counts every such call:
 *   step    its group_id; calls without one form the "no step" rows (JAX
 *           files have no groups);
 *   device  the GPU plane its device_id names; when it names none
 *           (TensorFlow 2.x launches carry kernel_details / memcpy_details
 *           instead, JAX on ROCm writes 768) the device of the activity it
 *           launched (the correlation link); else unknown (TP_NONE),
 *           counted in rows of their own.
 * Per (step, device): count, min, max, sum and the average
 * (sum + count/2) / count, rounded as the line's avg_launch_time_us, and the
 * span from the first launch's start to the last one's end.  The line's own
 * numbers (when the file gets one) are the rows with a step and a device_id. */
#ifndef TP_LAUNCH_STATS_H
#define TP_LAUNCH_STATS_H

#include "convert/read/xplane/xplane.h"

typedef struct tp_launch_row {
    int64_t group;   /* the step (group id), TP_DERIVE_NO_GROUP for calls without one */
    uint32_t device; /* device process, or TP_NONE when unknown */
    uint64_t count;
    int64_t min_ns, max_ns, sum_ns, avg_ns;
    int64_t start, end;
} tp_launch_row;

typedef struct tp_launch_stats {
    tp_launch_row *rows;  /* by step (no step last), then device (ordinal, unknown last) */
    size_t n;
    uint32_t *devices;    /* the devices with launches, in row order (unknown: TP_NONE, last) */
    size_t ndevices;
    size_t nsteps;        /* distinct steps with launches (no step not counted) */
    uint64_t launches;    /* every call counted */
    uint64_t by_link;     /* of them, placed on a device through the link */
    uint64_t ungrouped;   /* of them, without a group_id */
} tp_launch_stats;

/* xd may be NULL (a trace the reader kept nothing for): no rows. */
void tp_launch_stats_build(const tp_trace *t, const tp_xplane_data *xd, tp_launch_stats *ls);
void tp_launch_stats_free(tp_launch_stats *ls);

/* "GPU:4" for a /device:GPU:4 process, "device ?" for TP_NONE; into buf. */
void tp_launch_device_label(const tp_trace *t, uint32_t device, char *buf, size_t n);

#endif
