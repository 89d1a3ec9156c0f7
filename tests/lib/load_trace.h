/* load_trace.h: a trace loaded as `tracepress report` loads it, for tests
 * that build analyses in-process (the report, GPU time and idle tests). */
#ifndef TP_TEST_LOAD_TRACE_H
#define TP_TEST_LOAD_TRACE_H

#include "convert/pipeline/pipeline.h"

/* tp_load with default options into a fresh *t; 0, or -1 with the reason
 * printed to stderr (the caller frees *t either way). */
int tp_test_load(const char *path, tp_trace *t);

#endif
