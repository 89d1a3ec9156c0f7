/* fpages_golden.c: see fpages_golden.h. */
#include "tests/lib/fpages_golden.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

#include <stdlib.h>

void tp_test_fpages_golden(const char *path, const char *name, bool report_data, const tp_format_pages *want,
                           const char *golden)
{
    tp_load_opts lo = {0};
    lo.read.report_data = report_data;
    tp_err err = {0};
    tp_trace t;
    tp_trace_init(&t);
    CHECK_EQ_INT(tp_load(path, &lo, &t, &err), 0);
    tp_report_opts ro = {name, NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    tp_fp_opts fo = {lo.read};
    CHECK_EQ_INT(tp_format_pages_build(&s, &fo, &err), 0);
    CHECK(s.fp == want);
    tp_buf rec = {0};
    tp_canvas *cv = tp_canvas_rec(&rec);
    tp_page_notes notes = {0};
    tp_pagectx pc = {&s, 595, 842, 842, 595, NULL, 0, &notes, tp_category_colors(s.rules)};
    tp_format_pages_draw(cv, &pc);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    CHECK(rec.len > 1000);
    CHECK_GOLDEN(golden, rec.data, rec.len);
    tp_buf_free(&rec);
    tp_strs_free(&notes.text);
    free(pc.cat_colors);
    tp_summary_free(&s);
    tp_trace_free(&t);
}
