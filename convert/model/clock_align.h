/* clock_align.h: the clock offsets of a job's ranks (ANALYSIS.md §4
 * "Alignment", docs/REPORT.md "Jobs").
 *
 * Every rank's clock is its own.  A collective that several ranks take part
 * in ends at the same moment on all of them (to within the network's
 * latency), so the offset between two ranks' clocks is the difference of
 * the recorded ends of one collective.  Which call on one rank is which on
 * another: the points carry a key (kind, group, its ranks and, when
 * recorded, the group's sequence number); with a sequence number a key
 * names one call, without one a key repeats and the offset is the one that
 * the most points agree on.
 *
 * Per rank, in the order given (the first is the reference, offset 0): a
 * key's partners are the points of the first aligned rank that has the key.
 * The candidate offsets are the differences between 64 of its points, spread
 * evenly over its time (the first and the last among them), and the
 * partners of their key (per point the 16,384 nearest its own place in the
 * key's order, at most); the eight offsets most differences vote for
 * (windows of `TP_ALIGN_TOLERANCE_NS`; ties: the smaller |offset|) are
 * scored by how many of all its points pair up with partners, in order and
 * one to one (per key, each point with the earliest partner not yet paired
 * that ends within the tolerance: collectives of a group run in the same
 * order on every rank, so with calls closer than the tolerance the k-th
 * pairs with the k-th), the best score wins (ties: the smaller |offset|,
 * then the smaller), and the offset is the median difference over the
 * paired points (an even count: the mean of the middle two, rounded down).
 * O(n log n) per rank in its points and their partners.  A rank whose best
 * score is under two keeps offset 0 (method "recorded"): one point always finds its own
 * partner, so it proves nothing.  Its clock is then as recorded (absolute
 * times include baseTimeNanoseconds, so traces that record one are aligned
 * on it), and its points are no evidence for the ranks after it.
 *
 * Offsets are added to a rank's absolute times (base_ns + ts) to put them
 * on the reference's clock. */
#ifndef TP_CLOCK_ALIGN_H
#define TP_CLOCK_ALIGN_H

#include "convert/base/common.h"

/* Ends farther than this from 0 take no part, and offsets are at most
 * TP_ALIGN_MAX_OFFSET_NS (73 years): the sums of ends and offsets stay far
 * from int64's limits whatever a file holds. */
#define TP_ALIGN_MAX_END_NS (3LL << 60)
#define TP_ALIGN_MAX_OFFSET_NS (1LL << 61)
#define TP_ALIGN_TOLERANCE_NS 1000000 /* 1 ms: ends of one collective on two ranks (the HTA job's differ by up to 0.33 ms) */

typedef struct tp_sync_point {
    uint64_t key;   /* tp_sync_key */
    int64_t end_ns; /* absolute end (base_ns + ts + dur) */
} tp_sync_point;

enum { TP_ALIGN_REFERENCE = 0, TP_ALIGN_COLLECTIVES, TP_ALIGN_RECORDED };

typedef struct tp_align_result {
    int64_t offset_ns;   /* add to the rank's absolute times */
    int method;          /* TP_ALIGN_* */
    uint32_t matched;    /* points that found a partner */
    int64_t spread_ns;   /* largest |difference - offset| over the matched points */
} tp_align_result;

uint64_t tp_sync_key(const char *kind, const char *group, const char *ranks, int64_t seq);

/* ranks[i] points at n[i] points (any order); out[i] gets rank i's result. */
void tp_clock_align(const tp_sync_point *const *ranks, const size_t *n, size_t nranks, tp_align_result *out);

/* The method's name in outputs: "reference", "collectives", "recorded". */
const char *tp_align_method_name(int method);

#endif
