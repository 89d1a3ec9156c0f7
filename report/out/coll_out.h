/* coll_out.h: the collectives (report/comm/collectives.h) in summary.json
 * ("collectives") and summary.md; docs/REPORT.md "Collectives". */
#ifndef TP_COLL_OUT_H
#define TP_COLL_OUT_H

#include "report/analysis/summary.h"

/* "collectives":{...} (no separator before or after) */
void tp_collectives_json(const tp_summary *s, tp_buf *b);
/* summary.md's table of the collectives with the most time; nothing when
 * the trace has none. */
void tp_collectives_md(const tp_summary *s, tp_buf *b);

/* A collective row's identity as JSON members (no braces): "kind", "dtype",
 * "process_group", "group_ranks" ("" as null); summary.json's and the job
 * report's rows. */
void tp_coll_key_json(tp_buf *b, const char *kind, const char *dtype, const char *group, const char *ranks);

/* trace.distributed: null without distributedInfo, else its identity */
void tp_dist_info_json(const tp_dist_info *d, tp_buf *b);

#define TP_COLL_MD_TOP 8

#endif
