/* fpages_golden.h: a format's report pages through the recording backend,
 * compared with their golden file (shared by the format-page tests). */
#ifndef TP_FPAGES_GOLDEN_H
#define TP_FPAGES_GOLDEN_H

#include "report/formats/format_pages.h"

/* Load PATH (report_data as the report asks for it), build the summary and
 * the format's pages, check that `want` is the row that drew them, draw them
 * on A4 portrait and compare the recording with golden/<golden>. */
void tp_test_fpages_golden(const char *path, const char *name, bool report_data, const tp_format_pages *want,
                           const char *golden);

#endif
