/* formats.c: the format table and detection. */
#include "convert/read/formats.h"

#include "convert/base/cli.h"
#include "convert/io/output.h"

#include <stdio.h>
#include <string.h>

const tp_format *const tp_formats[] = {
    &tp_format_chrome,
    &tp_format_xplane,
    &tp_format_etdump,
    &tp_format_plaidml,
    &tp_format_dvdt,
    &tp_format_nsys,
    &tp_format_rocprof,
    &tp_format_rocpd,
    &tp_format_pftrace,
    NULL,
};
/* each format's options sit at its place in tp_read_opts.format_opts: a format past the end would lose them */
_Static_assert(sizeof tp_formats / sizeof *tp_formats - 1 <= TP_MAX_FORMATS, "raise TP_MAX_FORMATS");

const tp_format *tp_format_find(const char *name)
{
    for (size_t i = 0; tp_formats[i]; i++)
        if (strcmp(tp_formats[i]->name, name) == 0)
            return tp_formats[i];
    return NULL;
}

static size_t index_of(const tp_format *f)
{
    size_t i = 0;
    while (tp_formats[i] && tp_formats[i] != f)
        i++;
    return i;
}

const void *tp_format_opts(const tp_read_opts *o, const tp_format *f)
{
    size_t i = index_of(f);
    return i < TP_MAX_FORMATS ? o->format_opts[i] : NULL;
}

void tp_format_opts_set(tp_read_opts *o, const tp_format *f, const void *opts)
{
    size_t i = index_of(f);
    if (i < TP_MAX_FORMATS)
        o->format_opts[i] = opts;
}

int tp_format_option_parse(int argc, char **argv, int *i, tp_read_opts *o)
{
    const tp_format_option *hit = NULL; /* the option argv[*i] is, in the first format that has it */
    for (size_t k = 0; tp_formats[k] && !hit; k++)
        for (const tp_format_option *op = tp_formats[k]->options; op && op->flag && !hit; op++) {
            size_t n = strlen(op->flag);
            if (strncmp(argv[*i], op->flag, n) == 0 && (argv[*i][n] == 0 || (op->arg && argv[*i][n] == '=')))
                hit = op;
        }
    if (!hit)
        return 0;
    const char *value = NULL;
    /* a file it reads (marked, or its value named FILE in the table): an input too, no output may replace it */
    bool reads_file = hit->reads_file || (hit->arg && strcmp(hit->arg, "FILE") == 0);
    if (hit->arg && (reads_file ? tp_opt_file : tp_opt_value)(argc, argv, i, hit->flag, &value) < 0)
        return -1;
    if (reads_file) {
        if (o->nside_inputs == sizeof o->side_inputs / sizeof o->side_inputs[0]) {
            tp_usage_error(argv[0], "at most 4 files named by format options");
            return -1;
        }
        o->side_inputs[o->nside_inputs++] = value;
    }
    for (size_t k = 0; tp_formats[k] && k < TP_MAX_FORMATS; k++) /* every format that reads it */
        for (const tp_format_option *op = tp_formats[k]->options; op && op->flag; op++) {
            const char *why = NULL;
            if (strcmp(op->flag, hit->flag) == 0 && op->apply(&o->format_opts[k], value, &why) < 0) {
                tp_usage_error(argv[0], "%s: %s", op->flag, why ? why : "bad value");
                return -1;
            }
        }
    return 1;
}

void tp_format_options_help(FILE *f)
{
    for (size_t k = 0; tp_formats[k]; k++)
        for (const tp_format_option *op = tp_formats[k]->options; op && op->flag; op++) {
            bool first = true; /* an option several formats share is listed once */
            for (size_t j = 0; j < k && first; j++)
                for (const tp_format_option *q = tp_formats[j]->options; q && q->flag; q++)
                    first = first && strcmp(q->flag, op->flag) != 0;
            if (!first)
                continue;
            char lhs[64];
            snprintf(lhs, sizeof lhs, "%s%s%s", op->flag, op->arg ? " " : "", op->arg ? op->arg : "");
            fprintf(f, "  %-19s %s\n", lhs, op->help);
        }
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
