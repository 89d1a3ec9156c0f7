/* load_trace.h: a trace loaded as `tracepress report` loads it, for tests
 * that build analyses in-process (the report, GPU time and idle tests). */
#ifndef TP_TEST_LOAD_TRACE_H
#define TP_TEST_LOAD_TRACE_H

#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

/* tp_load with default options into a fresh *t; 0, or -1 with the reason
 * printed to stderr (the caller frees *t either way). */
int tp_test_load(const char *path, tp_trace *t);
/* tp_load as `report` and `diff` load (the args of the ops the analyses
 * read, no derived lines) into a fresh *t, then the whole summary into *s;
 * 0 (the caller frees both), or -1 with the reason printed (free *t). */
int tp_test_load_report(const char *path, tp_trace *t, tp_summary *s);

#endif
