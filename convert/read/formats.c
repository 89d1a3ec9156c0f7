/* formats.c: the format table and detection. */
#include "convert/read/formats.h"

#include <string.h>

const tp_format *const tp_formats[] = {
    &tp_format_chrome,
    &tp_format_xplane,
    &tp_format_etdump,
    &tp_format_plaidml,
    &tp_format_dvdt,
    NULL,
};

const tp_format *tp_format_find(const char *name)
{
    for (size_t i = 0; tp_formats[i]; i++)
        if (strcmp(tp_formats[i]->name, name) == 0)
            return tp_formats[i];
    return NULL;
}

const tp_format *tp_format_detect(tp_input *in, tp_err *err)
{
    const unsigned char *head;
    size_t n = tp_input_peek(in, &head);
    if (n == 0) {
        tp_fail(err, 0, "empty file");
        return NULL;
    }
    const tp_format *best = NULL;
    int best_score = 0;
    for (size_t i = 0; tp_formats[i]; i++) {
        int s = tp_formats[i]->probe(head, n, tp_input_path(in));
        if (s > best_score) {
            best_score = s;
            best = tp_formats[i];
        }
    }
    if (!best)
        tp_fail(err, 0, "not a trace format tracepress reads (see `tracepress formats`; force one with --format)");
    return best;
}
