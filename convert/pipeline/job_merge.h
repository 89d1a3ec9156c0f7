/* job_merge.h: the ranks of a distributed job as one trace (`convert A B
 * ... -o job.json`, issue 21; README "Jobs: the merged trace").
 *
 * Each file is loaded as a single `convert` loads it (tp_load, the same
 * options), its rank identity read (dist_info.h) and its collective calls
 * taken as sync points (coll_calls.h); then it is appended to the merged
 * trace and freed, so the memory is the merged trace (every rank: a viewer
 * loads it whole anyway) plus the one rank being loaded.  Once all are in:
 * ranks assigned (tp_job_assign_ranks), clocks aligned in rank order with
 * the lowest rank as the reference (tp_clock_align), each rank's events
 * moved by its offset, its processes renamed "rank N: NAME", sorted rank by
 * rank (the rank's own process order within), pids made unique (below) and
 * the input's flow and async ids kept apart per rank.
 *
 * Pids: in rank order, then the rank's own process order, a process keeps
 * its pid unless a lower rank's process has it already; those that collide
 * take the numbers after the largest pid of the job, in the same order.
 * Flow and async ids ('s' 't' 'f' 'b' 'e' 'n'): the same rule per id (a
 * string id that collides becomes "ID@rankN", or "ID@rankN#2", "#3", ...
 * when a rank already uses that name; a number, the next one above every
 * id of the job), so one rank's flows never join another's. */
#ifndef TP_JOB_MERGE_H
#define TP_JOB_MERGE_H

#include "convert/model/clock_align.h"
#include "convert/pipeline/pipeline.h"

typedef struct tp_merge_rank {
    const char *path;      /* the caller's string */
    int64_t rank;
    int from;              /* TP_RANK_FROM_* */
    int64_t world_size;    /* -1 unknown */
    size_t sync_points;    /* collective calls found */
    tp_align_result align;
    uint64_t events_in;
} tp_merge_rank;

typedef struct tp_merged_job {
    tp_merge_rank *ranks;    /* in rank order; ranks[0] is the reference */
    size_t n;
} tp_merged_job;

/* Merge paths[0..n) into t (initialised by the caller).  0, or -1 with err
 * and *bad_path the file it is about (NULL: the job as a whole, e.g. ranks
 * that disagree).  Sets t->toplevel to the lowest rank's top-level keys
 * without "distributedInfo", plus "tracepress_job" (tp_merge_json). */
int tp_merge_job(const char *const *paths, size_t n, const tp_load_opts *lo, tp_trace *t, tp_merged_job *job,
                 const char **bad_path, tp_err *err);
void tp_merge_free(tp_merged_job *job);

/* The "tracepress_job" object (JSON text appended to b). */
void tp_merge_json(const tp_merged_job *job, tp_buf *b);
/* One stderr line per rank: "tracepress: job: rank 1 (FILE): clock offset
 * +12.345 us from 42 collectives". */
void tp_merge_print(const tp_merged_job *job);

#endif
