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
