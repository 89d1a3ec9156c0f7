/* job.h: a distributed job's ranks analysed together (ANALYSIS.md §4,
 * docs/REPORT.md "Jobs"): the reduce over rank summaries (rank_sum.h).
 *
 * Ranks are assigned by tp_job_assign_ranks (distributedInfo, file name,
 * order) and sorted by rank; clocks are aligned on collective ends
 * (convert/model/clock_align.h).  Steps are matched by number.  The calls
 * of one collective on several ranks are one *instance*: the calls with
 * the same kind, group and ranks and the same sequence number when both
 * record one, else whose aligned ends fall within TP_ALIGN_TOLERANCE_NS of
 * each other (one call per rank).  In an instance every rank ends together,
 * so the rank that arrived last ran the shortest kernel: its duration is
 * the transfer time, and every other rank waited (its duration - the
 * transfer time) for it. */
#ifndef TP_JOB_H
#define TP_JOB_H

#include "report/findings/findings.h"
#include "report/job/rank_sum.h"

/* One rank's row. */
typedef struct tp_job_rank {
    tp_rank_sum sum;          /* owned */
    int64_t rank;
    int rank_from;            /* TP_RANK_FROM_* */
    int64_t offset_ns;        /* clock offset onto the reference rank's clock */
    int align_method;         /* TP_ALIGN_* */
    uint32_t align_matched;
    int64_t align_spread_ns;
    /* over the steps the rank has (whole trace when it has none) */
    int64_t median_step_ns;   /* -1 without steps */
    int64_t computation_ns, communication_ns, exposed_communication_ns, idle_ns, span_ns;
    int64_t overlap_milli_pct; /* tp_gpu_overlap_milli_pct of the rank's figures, -1 without communication */
    int64_t wait_caused_ns;   /* what the others waited for this rank, over all instances */
    int64_t waited_ns;        /* what this rank waited for others */
    uint64_t last_arrivals;   /* instances it arrived last at (with a wait) */
    uint32_t flags;           /* TP_JOB_FLAG_* over any step */
} tp_job_rank;

enum { TP_JOB_FLAG_COMPUTE = 1, TP_JOB_FLAG_STEP = 2, TP_JOB_FLAG_ARRIVAL = 4 };

/* One (rank, step) cell; present false when the rank has no such step. */
typedef struct tp_job_cell {
    bool present;
    uint32_t rank, step;      /* indices into ranks and steps */
    int64_t step_ns, computation_ns, communication_ns, exposed_communication_ns, idle_ns;
    int64_t wait_caused_ns, waited_ns;
    int64_t late_ns;          /* sum over the instances it arrived last at of the others' mean wait */
    uint32_t last_arrivals;   /* instances it arrived last at, with a wait */
    uint32_t instances;       /* matched instances it took part in */
    uint32_t flags;           /* TP_JOB_FLAG_* */
    /* the instance it arrived latest at (the others' mean wait largest): the window it was late in, on
     * its own clock, from the others' earliest arrival or the end of its previous collective, whichever
     * is later, to its own arrival (its call's start); late_worst_ns 0: none */
    int64_t late_worst_ns, late_from_ns, late_to_ns;
    bool late_from_prev;      /* the window starts at its previous collective's end, not the others' arrival */
    uint32_t late_coll;       /* that call's collective (index into the rank summary's colls) */
} tp_job_cell;

typedef struct tp_job_step {
    int64_t number;
    uint32_t ranks;           /* ranks that have it */
    int64_t median_step_ns, median_computation_ns;
    int64_t noise_ns;         /* how far above the median a computation or step time is flagged
                               * (docs/REPORT.md "Stragglers") */
    int64_t wait_threshold_ns; /* how late (the others' mean wait) a straggler must be to be flagged */
    int64_t straggler;        /* the rank whose lateness cost the most waiting, -1 none */
    int64_t wait_ns;          /* the waiting that straggler caused */
} tp_job_step;

/* One row of the job's collectives: (kind, S, dtype, group, ranks). */
typedef struct tp_job_coll {
    char *kind, *dtype, *group, *ranks; /* owned */
    int64_t group_size;       /* 0 unknown */
    bool group_implied;       /* group_size not recorded: every rank of the world took part in each instance */
    uint64_t bytes;           /* S (the largest participant's), 0 unknown */
    uint64_t instances;       /* occurrences: calls matched across ranks, or a call seen on one rank only */
    uint64_t single_rank;     /* of them, seen on one rank only (their transfer time may include waiting) */
    uint64_t calls;           /* calls on all ranks */
    uint64_t participants;    /* sum over instances of the ranks in each */
    int64_t transfer_ns;      /* sum over instances of the transfer time */
    int64_t rank_ns;          /* sum over all calls of their duration */
    int64_t wait_ns;          /* rank_ns - participants x transfer: the waiting */
    double factor;            /* nccl-tests bus factor, 0 unknown */
    double algbw, busbw;      /* GB/s: instances x S / transfer_ns; 0 unknown */
    int64_t slowest_rank;     /* arrived last most often (ties: most wait caused, then lower rank), -1 none */
    uint64_t slowest_count;   /* instances it arrived last at */
    int64_t slowest_wait_ns;  /* the waiting it caused there */
} tp_job_coll;

/* A flagged (rank, step), with its evidence. */
typedef struct tp_job_straggler {
    int64_t step, rank;
    uint32_t flags;           /* TP_JOB_FLAG_* */
    int64_t computation_ns, median_computation_ns;
    int64_t step_ns, median_step_ns;
    int64_t wait_caused_ns;   /* the others' waiting at the instances it arrived last at */
    int64_t late_ns;          /* how late it was: the others' mean wait, summed over those instances */
    uint32_t last_arrivals, instances; /* of the step's instances it took part in */
    int64_t noise_ns, wait_threshold_ns; /* the step's */
} tp_job_straggler;

/* The spread across ranks of one headline figure. */
typedef struct tp_job_spread {
    const char *figure;       /* static: "median_step_ns", ... */
    int64_t min, median, max; /* median: the middle value, or the mean of the two middle ones rounded down */
    int64_t min_rank, max_rank;
    uint32_t ranks;           /* ranks with a value */
} tp_job_spread;

enum { TP_JOB_SPREADS = 6 };

typedef struct tp_job {
    tp_job_rank *ranks;       /* by rank */
    size_t nranks;
    int64_t world_size;       /* -1 unknown */
    tp_job_step *steps;       /* by number: every step some rank has */
    size_t nsteps;
    /* the cells that exist (a rank's steps), not ranks x the union of the
     * step numbers: 5,000 ranks of one step each are 5,000 cells */
    tp_job_cell *cells;       /* by rank, then step */
    size_t ncells;
    size_t *rank_cells;       /* nranks + 1: rank r's are cells[rank_cells[r] .. rank_cells[r + 1]) */
    uint32_t *by_step;        /* ncells indices into cells, by step, then rank */
    size_t *step_cells;       /* nsteps + 1: step k's are by_step[step_cells[k] .. step_cells[k + 1]) */
    tp_job_coll *colls;       /* by wait, then transfer time, kind, S, group */
    size_t ncolls;
    tp_job_straggler *stragglers; /* by step, then rank */
    size_t nstragglers;
    tp_job_spread spread[TP_JOB_SPREADS];
    uint64_t instances, unmatched_calls; /* calls matched with no other rank's */
    int64_t median_step_ns;   /* the median over steps of the steps' median step time, -1 without */
    tp_findings findings;     /* the job's findings (job_find.c, docs/REPORT.md "Jobs") */
    /* what the straggler ran in the windows it was late in (late_window.c, read again from its trace at
     * the reduce): cells[late_cell[i]]'s window; nlate 0 when not read (no straggler, no trace at hand) */
    tp_rank_before late[2];
    size_t late_cell[2], nlate;
    bool late_unread;         /* the straggler's trace could not be read again (gone since the map) */
} tp_job;

/* Takes the summaries (moved into job->ranks; the array is freed by the
 * caller, its items belong to the job).  0, or -1 with err when the traces
 * are not one job (tp_job_assign_ranks). */
int tp_job_build(tp_rank_sum *sums, size_t n, tp_job *job, tp_err *err);
void tp_job_free(tp_job *job);
/* The straggler the job's summaries name (summary.md and the PDF overview
 * alike): the rank last to arrive at collectives in the most steps (ties:
 * the most waiting caused), with those steps and that waiting; -1 none. */
int64_t tp_job_top_straggler(const tp_job *j, size_t *steps, int64_t *wait_ns);
/* When the world has ranks the traces lack (2 of 128), the caveat every
 * straggler and bandwidth figure carries, in buf; false when all are here
 * (or the world size is unknown). */
bool tp_job_missing_ranks(const tp_job *j, char *buf, size_t n);

/* The job's findings (job_find.c): its measures (late_rank,
 * job_exposed_communication, computation_spread) under the built-in job
 * rules (job_findings.rules), ranked as a trace's findings are; called by
 * tp_job_build. */
void tp_job_findings_build(const tp_job *j, tp_findings *f);
/* The same with user's rules of the job's measures (from `--rules FILE`: a
 * rule with a built-in job id replaces it, a new id adds one; its rules of a
 * trace's measures are the ranks'); NULL: the built-in ones. */
void tp_job_findings_build_with(const tp_job *j, const struct tp_find_rules *user, tp_findings *f);
/* The job's findings rebuilt under user's rules (NULL: left as built). */
void tp_job_findings_use(tp_job *j, const struct tp_find_rules *user);
/* `--rules FILE` of a job: the built-in trace rules with the file's, whose
 * MEASUREs may be a trace's or the job's; 0 or the error printed and
 * TP_EXIT_INPUT. */
int tp_job_rules_for_command(const char *file, struct tp_find_rules *r);
/* The straggler (job_find.c): the rank whose lateness summed over the steps it is flagged `arrival` in is
 * largest (ties: the lower rank), SIZE_MAX none; late and wait: its lateness and the waiting it caused. */
size_t tp_job_late_rank(const tp_job *j, int64_t *late, int64_t *wait);
/* Its two latest cells (indices into cells, SIZE_MAX none), the latest first. */
void tp_job_late_rank_worst(const tp_job *j, size_t r, size_t worst[2]);
/* Whether id is a built-in job rule's (diff --fail-on-finding of two jobs). */
bool tp_job_finding_id_known(const char *id);

/* The cell of (rank, step) by index; one with present false when the rank
 * has no such step.  O(log steps of the rank). */
const tp_job_cell *tp_job_cell_at(const tp_job *j, size_t rank_index, size_t step_index);

#endif
