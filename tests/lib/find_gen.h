/* find_gen.h: generated Kineto traces for the findings tests
 * (tests/report/test_findings*.c).  A generated trace: host thread pid 1
 * tid 1, GPU 0 streams 7 and 20 (pid 0).  Times in us.  `gpu` is the
 * device's cursor: an activity starts no earlier than the previous one ended
 * (one queue for both streams, so nothing overlaps unless a scenario says
 * so). */
#ifndef TP_TEST_FIND_GEN_H
#define TP_TEST_FIND_GEN_H

#include "convert/base/common.h"

typedef struct fg_gen {
    tp_buf b;
    int corr;
    double gpu;
} fg_gen;

/* h100: the trace describes an H100 (the roofline has peaks) */
void fg_begin(fg_gen *g, bool h100);
/* The trace written to tp_test_tmp(file); its path. */
const char *fg_end(fg_gen *g, const char *file);
/* A host slice of category cat (args: a JSON object text or NULL). */
void fg_host(fg_gen *g, const char *cat, const char *name, double ts, double dur, const char *args);
/* A launch call at `ts` (2 us) of an activity that starts at max(gpu + gap, launch end + 1); returns its end. */
double fg_launch(fg_gen *g, double ts, const char *cat, const char *name, int tid, double dur, double gap);
/* A ProfilerStep#n annotation. */
void fg_step(fg_gen *g, int n, double ts, double dur);

#endif
