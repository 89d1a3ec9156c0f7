/* report_write.c: a report folder from a summary (see report_write.h). */
#include "report/out/report_write.h"
#include "convert/io/output.h"

#include <stdio.h>
#include <stdlib.h>


int tp_report_write(tp_summary *s, const tp_fp_opts *fo, const tp_page_opts *po, const char *dir, tp_err *err)
{
    if (tp_format_pages_build(s, fo, err) < 0)
        return -1;
    tp_timing("format pages");
    const char **pngs = NULL;
    tp_buf json = {0}, md = {0};
    char pngdir[4096];
    snprintf(pngdir, sizeof pngdir, "%s/png", dir);
    int rc = 0;
    if (tp_mkdirs(pngdir, err) < 0 || tp_report_pages(s, dir, po, &pngs, err) < 0)
        rc = -1;
    tp_timing("pages");
    if (rc == 0) {
        tp_summary_json(s, &json);
        tp_summary_md(s, pngs, &md);
        if (tp_out_write_file(dir, "summary.json", json.data, json.len, err) < 0 ||
            tp_out_write_file(dir, "summary.md", md.data, md.len, err) < 0)
            rc = -1;
    }
    tp_timing("summary files");
    free(pngs);
    tp_buf_free(&json);
    tp_buf_free(&md);
    return rc;
}
