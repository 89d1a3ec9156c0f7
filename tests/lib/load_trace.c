/* load_trace.c: see load_trace.h. */
#include "tests/lib/load_trace.h"

#include <stdio.h>

int tp_test_load(const char *path, tp_trace *t)
{
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace_init(t);
    int rc = tp_load(path, &lo, t, &err);
    if (rc < 0)
        fprintf(stderr, "load %s: %s\n", path, err.msg);
    return rc;
}

int tp_test_load_report(const char *path, tp_trace *t, tp_summary *s)
{
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_summary_wants_args;
    lo.no_derive = true;
    tp_err err = {0};
    tp_trace_init(t);
    if (tp_load(path, &lo, t, &err) < 0) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return -1;
    }
    tp_report_opts ro = {path, NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary_build(t, &ro, s);
    return 0;
}
