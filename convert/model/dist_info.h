/* dist_info.h: which rank of which job a trace is (Kineto's top-level
 * "distributedInfo"; ANALYSIS.md §4): the
 * identity a job report (issue 21) matches ranks by.  docs/REPORT.md
 * "Distributed identity". */
#ifndef TP_DIST_INFO_H
#define TP_DIST_INFO_H

#include "convert/model/model.h"

typedef struct tp_pg_info {
    char name[64];         /* pg_name ("0") */
    char desc[64];         /* pg_desc ("default_pg") */
    int64_t size;          /* pg_size, -1 unknown */
    int64_t *ranks;        /* the group's global ranks, as recorded */
    size_t nranks;
} tp_pg_info;

typedef struct tp_dist_info {
    bool present;          /* the trace has a "distributedInfo" object */
    int64_t rank, world_size; /* -1 unknown */
    char backend[32];      /* "nccl", "" unknown */
    tp_pg_info *groups;    /* pg_config, in input order */
    size_t ngroups;
    const char *problem;   /* static text when distributedInfo is there but not as expected, else NULL */
} tp_dist_info;

/* The ranks of a job's traces (d[i] read from the trace at paths[i]): each
 * trace's distributedInfo rank, else the number after the last "rank" in
 * its file name (rank-3.json, worker_rank03.pt.trace.json), else its place
 * in the order given; from[i] says which (TP_RANK_FROM_*).  Refused (-1,
 * with err naming the files): world sizes that differ, default process
 * groups (pg_desc "default_pg", else pg_name "0") whose size or ranks
 * differ, a rank not below the world size, two traces of one rank.  Other
 * groups may differ between ranks (each rank records the groups it knows). */
enum { TP_RANK_FROM_TRACE = 0, TP_RANK_FROM_NAME, TP_RANK_FROM_ORDER };
int tp_job_assign_ranks(const tp_dist_info *d, const char *const *paths, size_t n, int64_t *rank, int *from,
                        tp_err *err);
int64_t tp_rank_from_path(const char *path); /* -1 when the name has none */
const char *tp_rank_from_name(int from);    /* "distributedInfo", "file name", "order" */

void tp_dist_info_read(const tp_trace *t, tp_dist_info *d);
void tp_dist_info_free(tp_dist_info *d);

#endif
