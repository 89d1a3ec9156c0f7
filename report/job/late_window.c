/* late_window.c: what the straggler ran in the windows it was late in
 * (job.h tp_job.late, docs/REPORT.md "Jobs"): only the reduce knows when
 * the others arrived, only the trace what the late rank did then, so its
 * trace is read again here, once, for its two latest steps. */
#include "report/job/job_run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int read_windows(tp_job *j, const tp_job_opts *o)
{
    int64_t late, wait;
    size_t best = tp_job_late_rank(j, &late, &wait);
    if (best == SIZE_MAX || !j->ranks[best].sum.path)
        return 0;
    size_t worst[2];
    tp_job_late_rank_worst(j, best, worst);
    int64_t span[2][2];
    size_t n = 0, cell[2];
    for (int w = 0; w < 2; w++)
        if (worst[w] != SIZE_MAX && j->cells[worst[w]].late_worst_ns > 0) {
            cell[n] = worst[w];
            span[n][0] = j->cells[worst[w]].late_from_ns;
            span[n][1] = j->cells[worst[w]].late_to_ns;
            n++;
        }
    if (!n)
        return 0;
    struct stat st; /* the path comes from a rank summary, a file: only a regular file is read (no FIFO to hang on) */
    if (stat(j->ranks[best].sum.path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    tp_load_opts lo = *o->load;
    lo.read.keep_args = false;
    lo.read.keep_args_of = NULL; /* kernels, host ops and gaps need no args */
    lo.read.flows_as_ids = true; /* analysed, not written */
    lo.no_derive = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(j->ranks[best].sum.path, &lo, &t, &err) < 0) { /* gone since the map (a --merge elsewhere) */
        tp_trace_free(&t);
        return -1;
    }
    tp_report_opts ro = {j->ranks[best].sum.path, o->steps, 0, o->rules, true, o->devices, true, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    for (size_t i = 0; i < n; i++) { /* the rank summary's clock: the trace's base + its times */
        span[i][0] -= t.base_ns;
        span[i][1] -= t.base_ns;
    }
    memset(j->late, 0, sizeof j->late);
    tp_rank_window_contents(&s, (const int64_t(*)[2])span, n, j->late);
    for (size_t i = 0; i < n; i++)
        j->late_cell[i] = cell[i];
    j->nlate = n;
    tp_summary_free(&s);
    tp_trace_free(&t);
    return 0;
}

int tp_job_late_read(tp_job *j, const tp_job_opts *o)
{
    int rc = read_windows(j, o);
    j->late_unread = rc < 0;
    if (j->nlate || j->late_unread || o->find_rules) { /* the straggler's evidence, the file's rules */
        tp_findings_free(&j->findings);
        tp_job_findings_build_with(j, o->find_rules, &j->findings);
    }
    return rc;
}
