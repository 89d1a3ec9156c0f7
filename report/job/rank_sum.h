/* rank_sum.h: what the job report keeps of one rank (docs/REPORT.md "Jobs").
 *
 * The job report is a map/reduce: each rank's trace is loaded, analysed
 * and freed (the map), leaving this small summary; the job is computed
 * from the summaries alone (job.h, the reduce).  The summary is also a
 * file (schema tracepress.rank/1, DIR/ranks/<name>.rank.json), the unit
 * `report --shard K/N` writes and `report --merge` reads; a one-process
 * run writes and reads the same text, so both give the same bytes.
 *
 * Memory: a tp_rank_sum owns all its strings and arrays
 * (tp_rank_sum_free). */
#ifndef TP_RANK_SUM_H
#define TP_RANK_SUM_H

#include "convert/model/dist_info.h"
#include "report/analysis/summary.h"

#define TP_RANK_SCHEMA "tracepress.rank/1"

/* The range of a summary's times (rank_sum.c): durations and GPU figures
 * in [0, 2^60] ns, starts in [-2^61, 2^61] ns. */
#define TP_RANK_MAX_NS (1LL << 60)
#define TP_RANK_MAX_START_NS (1LL << 61)

typedef struct tp_rank_step {
    int64_t number;      /* ProfilerStep number */
    int64_t start_ns;    /* absolute start (base_ns + ts) on the rank's clock */
    int64_t dur_ns;      /* the step's host duration */
    tp_gpu_figs gpu;     /* the GPU time model of the step, summed over the rank's devices */
} tp_rank_step;

/* One (kind, S, dtype, group) of the rank's collectives (tp_coll_row). */
typedef struct tp_rank_coll {
    char *kind, *dtype, *group, *ranks;
    int64_t group_size;
    uint64_t bytes;      /* S, 0 unknown */
    uint64_t count;
    int64_t total_ns;
} tp_rank_coll;

typedef struct tp_rank_call {
    uint32_t coll;       /* index into colls */
    int64_t start_ns;    /* absolute start on the rank's clock */
    int64_t dur_ns;
    int64_t seq;         /* -1 unknown */
} tp_rank_call;

/* What a rank did before it arrived at its collectives in one step
 * (rank_before.c, docs/REPORT.md "Jobs"): the window from the step's start
 * to the start of the step's first collective call, its top device
 * activities (communication left out: that is the arriving) and top-level
 * host ops by time inside the window, and the GPU idle in it (summed over
 * the rank's devices).  At most TP_RANK_BEFORE_TOP of each: the summary
 * stays a few items a step. */
#define TP_RANK_BEFORE_TOP 3
typedef struct tp_rank_named {
    char *name;          /* NULL: no such item */
    int64_t ns;
} tp_rank_named;

typedef struct tp_rank_before {
    int64_t number;      /* the step's number */
    int64_t window_ns;
    int64_t idle_ns;
    tp_rank_named kernels[TP_RANK_BEFORE_TOP], ops[TP_RANK_BEFORE_TOP]; /* largest first */
} tp_rank_before;

/* The rank's own top finding (report/findings, the built-in rules over what
 * a job's rank analysis computes); present false: none fired. */
typedef struct tp_rank_top {
    bool present;
    char *id, *title;
    uint8_t severity;    /* TP_SEV_* */
    int64_t impact_ns, impact_milli; /* impact_milli: of its impact base, thousandths of a percent */
    char *impact_base;
} tp_rank_top;

/* The rank's memory (report/memory/): the device with the highest peak allocated; present false: no
 * memory levels in the trace. */
typedef struct tp_rank_mem {
    bool present;
    char *device;        /* "cuda:0" */
    int64_t peak_allocated, peak_reserved; /* bytes, [0, 2^62] */
} tp_rank_mem;

typedef struct tp_rank_sum {
    char *path;          /* the input as given */
    uint64_t input_index, inputs; /* its place among the job's inputs (sorted), and their count */
    uint64_t inputs_hash; /* FNV-1a 64 of the sorted input paths, '\n' after each: shards of one run agree */
    char *name;          /* its base name (tp_trace_basename) */
    char *format;        /* reader name */
    char *device;        /* the first device's label ("GPU 0"), "" without */
    /* identity as recorded (distributedInfo); the job assigns the rank */
    bool dist_present;
    int64_t dist_rank, world_size; /* -1 unknown */
    char *backend;
    char *problem;       /* dist_info's problem text, or NULL */
    int64_t pg_size;     /* the default group's size, -1 unknown */
    int64_t *pg_ranks;   /* its ranks as recorded */
    size_t npg_ranks;
    uint64_t events, warnings;
    tp_gpu_figs whole;   /* the whole trace, summed over the devices */
    tp_rank_step *steps; /* by step number */
    size_t nsteps;
    tp_rank_coll *colls;
    size_t ncolls;
    tp_rank_call *calls; /* by start */
    size_t ncalls;
    /* optional members (a summary without them reads as none): */
    tp_rank_before *before; /* by step number: the steps with a collective call */
    size_t nbefore;
    tp_rank_top top;
    tp_rank_mem mem;
} tp_rank_sum;

/* From one rank's analysed trace (s->t must still be loaded); times
 * beyond the summary's range are saturated into it: the number of values
 * saturated (the caller warns). */
size_t tp_rank_sum_build(const tp_summary *s, tp_rank_sum *r);
/* r->before from the analysed trace (rank_before.c); called by
 * tp_rank_sum_build. */
void tp_rank_before_build(const tp_summary *s, tp_rank_sum *r);

/* Saturate r's times into the summary's range; the number changed. */
size_t tp_rank_sum_bound(tp_rank_sum *r);
void tp_rank_sum_free(tp_rank_sum *r);

/* The summary as a file's text (deterministic), and back: 0, or -1 with
 * err (what is wrong and where). */
void tp_rank_sum_json(const tp_rank_sum *r, tp_buf *b);
int tp_rank_sum_parse(const char *text, size_t len, tp_rank_sum *r, tp_err *err);

/* dist_info's view of the recorded identity (for tp_job_assign_ranks);
 * d borrows r's arrays: do not free it. */
void tp_rank_sum_dist(const tp_rank_sum *r, tp_dist_info *d, tp_pg_info *pg);

/* What the rank did in each window span[i] = [from, to) of its trace's clock
 * (rank_before.c): out[i]'s window_ns, idle_ns, kernels (communication left
 * out) and top-level host ops; number left as is.  For the straggler's
 * window at the reduce (late_window.c). */
void tp_rank_window_contents(const tp_summary *s, const int64_t (*span)[2], size_t n, tp_rank_before *out);

#endif
