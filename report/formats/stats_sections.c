/* stats_sections.c: the table of format-specific `stats --json` sections. */
#include "report/formats/stats_sections.h"
#include "report/formats/etdump/etdump_stats.h"

#include <string.h>

static const tp_stats_section sections[] = {
    {"etdump", "etdump_inspector", tp_etdump_stats_json}, /* the Inspector's event blocks */
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
