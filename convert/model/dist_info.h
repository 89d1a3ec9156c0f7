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

void tp_dist_info_read(const tp_trace *t, tp_dist_info *d);
void tp_dist_info_free(tp_dist_info *d);

#endif
