/* load_options.c: the options every command that loads a trace accepts,
 * parsed in one place so `convert`, `stats`, `report`, `diff` and `batch`
 * agree (documented once: LOAD_OPTIONS_HELP in pipeline.h). */
#include "convert/base/cli.h"
#include "convert/pipeline/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_parse_load_option(int argc, char **argv, int *i, tp_load_opts *lo)
{
    const char *v;
    int k;
    if ((k = tp_format_option_parse(argc, argv, i, &lo->read)) != 0) /* --etrecord, --rederive, ...: the formats' own */
        return k;
    if ((k = tp_opt_value(argc, argv, i, "--format", &lo->format)) != 0)
        return k;
    if (tp_opt_flag(argv, *i, "--strict")) {
        lo->read.strict = true;
        return 1;
    }
    if ((k = tp_opt_value(argc, argv, i, "--derive-rule", &v)) != 0) {
        if (k < 0)
            return -1;
        if (strcmp(v, "2020") != 0 && strcmp(v, "2022") != 0 && strcmp(v, "2024") != 0) {
            tp_usage_error(argv[0], "--derive-rule takes 2020, 2022 or 2024 (got '%s')", v);
            return -1;
        }
        lo->read.derive_era = strcmp(v, "2024") == 0 ? 0 : (v[3] == '0' ? 2020 : 2022);
        return 1;
    }
    if ((k = tp_opt_value(argc, argv, i, "--steps", &v)) != 0) {
        if (k < 0)
            return -1;
        if (tp_parse_steps(v, &lo->step_first, &lo->step_last) != 0) {
            tp_usage_error(argv[0], "--steps takes A:B, A:, :B or N (got '%s')", v);
            return -1;
        }
        lo->has_steps = true;
        return 1;
    }
    if ((k = tp_opt_value(argc, argv, i, "--drop-cat", &v)) != 0) {
        if (k < 0)
            return -1;
        if (lo->ndrop_cats >= sizeof lo->drop_cats / sizeof lo->drop_cats[0]) {
            tp_usage_error(argv[0], "at most 16 --drop-cat options");
            return -1;
        }
        lo->drop_cats[lo->ndrop_cats++] = v;
        return 1;
    }
    if ((k = tp_opt_value(argc, argv, i, "--max-inflate", &v)) != 0) {
        if (k < 0)
            return -1;
        char *end;
        unsigned long r = strtoul(v, &end, 10);
        if (end == v || *end || r > 1000000 || v[0] == '-') {
            tp_usage_error(argv[0], "--max-inflate takes a whole number of times, 0 for no limit (got '%s')", v);
            return -1;
        }
        tp_input_set_max_inflate((unsigned)r);
        return 1;
    }
    if ((k = tp_opt_file(argc, argv, i, "--graph-capture", &v)) != 0) {
        if (k < 0)
            return -1;
        if (lo->ncaptures >= sizeof lo->captures / sizeof lo->captures[0]) {
            tp_usage_error(argv[0], "at most 16 --graph-capture options");
            return -1;
        }
        lo->captures[lo->ncaptures++] = v;
        return 1;
    }
    if ((k = tp_opt_value(argc, argv, i, "--min-dur", &v)) != 0) {
        if (k < 0)
            return -1;
        if (tp_parse_duration(v, &lo->min_dur_ns) != 0) {
            tp_usage_error(argv[0], "--min-dur takes a duration such as 1us, 500ns, 2ms (got '%s')", v);
            return -1;
        }
        return 1;
    }
    return 0;
}
