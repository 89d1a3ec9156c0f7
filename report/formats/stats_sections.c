/* stats_sections.c: the table of format-specific `stats --json` sections. */
#include "report/formats/stats_sections.h"
#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/etdump/etrecord.h"
#include "convert/read/etdump/etdump_opts.h"

#include <string.h>

/* ETDump: the Inspector's event blocks (per event count, p10/p50/p90, avg,
 * min, max in ms, op types, delegated or not).  Merging runs needs the
 * ETDump's own signatures, not the trace model: the decoded file the reader
 * kept, or (a trace loaded with args) the file read again. */
static int etdump_section(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err)
{
    tp_ed_scale sc;
    const tp_etdump_opts *eo = tp_etdump_opts_of(o);
    if (tp_ed_scale_parse(eo->time_scale, &sc, err) < 0)
        return -1;
    const tp_etdump *d = t->format_data;
    tp_etdump own = {0};
    if (!d) {
        if (strcmp(path, "-") == 0) { /* stdin cannot be read twice */
            tp_buf_puts(out, "null");
            return 0;
        }
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
    tp_inspector in;
    int rc = tp_etdump_inspect(d, rec, &sc, &in, err);
    if (rc == 0) {
        tp_inspector_json(&in, out);
        tp_inspector_free(&in);
    }
    tp_etrecord_free(rec);
    tp_etdump_free(&own);
    return rc;
}

static const tp_stats_section sections[] = {
    {"etdump", "etdump_inspector", etdump_section},
};

int tp_stats_sections_json(const tp_trace *t, const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err)
{
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!t->format || strcmp(t->format, sections[i].format) != 0)
            continue;
        tp_buf_printf(out, ",\"%s\":", sections[i].key);
        if (sections[i].json(t, path, o, out, err) < 0)
            return -1;
    }
    return 0;
}
