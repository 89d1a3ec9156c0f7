/* batch_work.c: one trace of a batch, run in a forked worker: the same
 * functions `tracepress report` and `tracepress convert` call, on one load
 * of the trace (batch.h). */
#include "report/batch/batch.h"
#include "convert/pipeline/graph_capture.h"
#include "convert/write/chrome_write.h"
#include "convert/io/output.h"
#include "report/assemble/report_write.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void fail(tp_batch_row *r, const char *file, const tp_err *err)
{
    char line[600];
    if (err->where[0])
        snprintf(line, sizeof line, "%s: %s: %s", file, err->where, err->msg);
    else
        snprintf(line, sizeof line, "%s: %s", file, err->msg);
    free(r->status);
    r->status = tp_xstrdup("error");
    free(r->error);
    r->error = tp_xstrdup(line);
}

void tp_batch_work(const char *path, const char *dir, const char *name, const tp_batch_opts *o, tp_batch_row *r)
{
    tp_load_opts lo = {0};
    if (o->load)
        lo = *o->load;
    lo.read.keep_args = true;
    tp_capture_stats capture;
    lo.capture = &capture, lo.discover_captures = true;
    lo.read.report_data = true; /* the report's format pages (XPlane) */
    if (o->steps && tp_parse_steps(o->steps, &lo.step_first, &lo.step_last) == 0)
        lo.has_steps = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    r->median_step_ns = -1;
    tp_out_protect(path); /* this worker process's one input */
    /* no record claims the outputs while they change: written again last */
    tp_batch_record_remove(dir, name);
    if (tp_load(path, &lo, &t, &err) < 0) {
        fail(r, path, &err);
        if (t.format) {
            free(r->format);
            r->format = tp_xstrdup(t.format);
        }
        tp_trace_free(&t);
        return;
    }
    free(r->format);
    r->format = tp_xstrdup(t.format ? t.format : "");
    char tdir[4096], rdir[4096], pngdir[4200], conv[4200];
    snprintf(tdir, sizeof tdir, "%s/%s", dir, name);
    snprintf(rdir, sizeof rdir, "%s/%s/report", dir, name);
    snprintf(pngdir, sizeof pngdir, "%s/png", rdir);
    snprintf(conv, sizeof conv, "%s/trace.json.gz", tdir);

    /* the report first: tp_write_chrome repairs nesting in the trace */
    tp_report_opts ro = {path, o->steps, o->batch_size, o->rules, false, o->devices, false, o->find_rules};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    s.capture = &capture;
    r->events = (int64_t)t.events_in;
    r->steps = (int64_t)s.sf.nsteps;
    if (s.sf.nsteps)
        r->median_step_ns = s.sf.steps[s.sf.median].host_ns;
    r->device_ns = s.kt.total_ns;
    r->span_ns = s.sf.whole.host_ns;
    tp_page_opts po = {595, 842, 2};
    tp_fp_opts fo = {0};
    if (o->load)
        fo.read = o->load->read;
    int rc = tp_report_write(&s, &fo, &po, rdir, &err);
    tp_summary_free(&s);
    if (rc < 0) {
        fail(r, rdir, &err);
        tp_trace_free(&t);
        return;
    }
    tp_out *out = tp_out_open(conv, path, &err);
    tp_write_stats ws = {0};
    if (!out)
        rc = -1;
    else if (tp_write_chrome(&t, out, &ws) < 0) {
        tp_out_abort(out);
        if (!err.set)
            tp_fail_at(&err, "", "cannot write the converted trace");
        rc = -1;
    } else if (tp_out_commit(out, &err) < 0)
        rc = -1;
    if (rc < 0)
        fail(r, conv, &err);
    else {
        free(r->status);
        r->status = tp_xstrdup("ok");
        if (tp_batch_record_write(dir, r, o->made_with, &err) < 0) /* the last step */
            fail(r, tdir, &err);
    }
    tp_trace_free(&t);
}
