/* stats_sections.c: the table of format-specific `stats --json` sections. */
#include "stats_sections.h"
#include "etdump_inspector.h"
#include "etrecord.h"

#include <string.h>

/* ETDump: the Inspector's event blocks (per event count, p10/p50/p90, avg,
 * min, max in ms, op types, delegated or not), from the file itself because
 * merging runs needs the ETDump's own signatures, not the trace model. */
static int etdump_section(const char *path, const tp_read_opts *o, tp_buf *out, tp_err *err)
{
    tp_ed_scale sc;
    if (tp_ed_scale_parse(o->time_scale, &sc, err) < 0)
        return -1;
    tp_etdump d;
    if (tp_etdump_load(path, &d, err) < 0) {
        tp_etdump_free(&d);
        return -1;
    }
    tp_etrecord *rec = NULL;
    if (o->etrecord && !(rec = tp_etrecord_load(o->etrecord, err))) {
        tp_etdump_free(&d);
        return -1;
    }
    tp_inspector in;
    int rc = tp_etdump_inspect(&d, rec, &sc, &in, err);
    if (rc == 0) {
        tp_inspector_json(&in, out);
        tp_inspector_free(&in);
    }
    tp_etrecord_free(rec);
    tp_etdump_free(&d);
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
        if (strcmp(path, "-") == 0) { /* sections re-read the file: stdin is gone */
            tp_buf_puts(out, "null");
            continue;
        }
        if (sections[i].json(path, o, out, err) < 0)
            return -1;
    }
    return 0;
}
