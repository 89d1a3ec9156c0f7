/* etdump_stats.c: see etdump_stats.h. */
#include "report/formats/etdump/etdump_stats.h"
#include "convert/read/etdump/etdump_opts.h"
#include "convert/read/etdump/etrecord.h"

#include <string.h>

int tp_etdump_inspect_trace(const tp_trace *t, const char *path, const tp_read_opts *o, tp_inspector *in,
                            bool *etrecord, tp_err *err)
{
    const tp_etdump_opts *eo = tp_etdump_opts_of(o);
    tp_ed_scale sc;
    if (tp_ed_scale_parse(eo->time_scale, &sc, err) < 0)
        return -1;
    /* merging runs needs the ETDump's own signatures, not the trace model */
    const tp_etdump *d = t->format_data;
    tp_etdump own = {0};
    if (!d) {
        if (tp_etdump_load(path, &own, err) < 0) {
            tp_etdump_free(&own);
            return -1;
        }
        d = &own;
    }
    tp_etrecord *rec = NULL;
    if (eo->etrecord && !(rec = tp_etrecord_load(eo->etrecord, err))) {
        tp_etdump_free(&own);
        return -1;
    }
    int rc = tp_etdump_inspect(d, rec, &sc, in, err);
    tp_etrecord_free(rec);
    tp_etdump_free(&own);
    if (etrecord)
        *etrecord = eo->etrecord != NULL;
    return rc;
}

int tp_etdump_stats_json(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err)
{
    if (!t->format_data && strcmp(path, "-") == 0) {
        tp_buf_puts(out, "null");
        return 0;
    }
    tp_inspector in;
    if (tp_etdump_inspect_trace(t, path, o, &in, NULL, err) < 0)
        return -1;
    tp_inspector_json(&in, out);
    tp_inspector_free(&in);
    return 0;
}
