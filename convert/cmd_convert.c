/* cmd_convert.c: `tracepress convert`. */
#include "chrome_write.h"
#include "cli.h"
#include "pipeline.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "launch flows: 9000, outside --steps: 12" */
static void print_counts(const tp_warning *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%s: %llu", i ? ", " : "", w[i].what, (unsigned long long)w[i].count);
}

int tp_cmd_convert(int argc, char **argv)
{
    tp_load_opts lo = {0};
    const char *in = NULL, *out = NULL, *steps = NULL;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        int k;
        if ((k = tp_opt_value(argc, argv, &i, "--format", &lo.format)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--steps", &steps)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--output", &out)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "-o", &out)) != 0) {
            if (k < 0)
                return TP_EXIT_USAGE;
        } else if (tp_opt_flag(argv, i, "--strict"))
            lo.read.strict = true;
        else if (tp_opt_flag(argv, i, "-q") || tp_opt_flag(argv, i, "--quiet"))
            quiet = true;
        else if ((k = tp_opt_value(argc, argv, &i, "--etrecord", &lo.read.etrecord)) != 0 ||
                 (k = tp_opt_value(argc, argv, &i, "--time-scale", &lo.read.time_scale)) != 0) {
            if (k < 0) /* ETDump options */
                return TP_EXIT_USAGE;
        }
        else if (argv[i][0] == '-' && argv[i][1])
            return tp_usage_error(argv[0], "unknown option %s", argv[i]);
        else if (in)
            return tp_usage_error(argv[0], "one input file at a time");
        else
            in = argv[i];
    }
    if (!in)
        return tp_usage_error(argv[0], "no input file");
    if (!out)
        return tp_usage_error(argv[0], "no output file (-o OUTPUT)");
    if (steps) {
        if (tp_parse_steps(steps, &lo.step_first, &lo.step_last) != 0)
            return tp_usage_error(argv[0], "--steps takes A:B, A:, :B or N (got '%s')", steps);
        lo.has_steps = true;
    }
    lo.read.keep_args = true;
    double t0 = now_s();
    tp_out_install_signal_cleanup();
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(in, &lo, &t, &err) < 0) {
        tp_report_error(in, &err);
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    tp_out *o = tp_out_open(out, in, &err);
    if (!o) {
        tp_report_error(out, &err);
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    tp_write_stats st;
    tp_write_chrome(&t, o, &st);
    if ((st.bad_utf8 || st.invalid_args) && lo.read.strict) {
        tp_out_abort(o);
        fprintf(stderr, TP_PROG ": %s: %llu invalid UTF-8 sequences, %llu invalid args (rejected by --strict)\n", in,
                (unsigned long long)st.bad_utf8, (unsigned long long)st.invalid_args);
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    uint64_t bytes = tp_out_bytes(o);
    if (tp_out_commit(o, &err) < 0) {
        tp_report_error(out, &err);
        tp_trace_free(&t);
        return TP_EXIT_INPUT;
    }
    if (st.bad_utf8)
        tp_warn(&t, "invalid UTF-8 (replaced)", st.bad_utf8);
    if (st.invalid_args)
        tp_warn(&t, "args that are not valid JSON (kept as a string)", st.invalid_args);
    if (!quiet) {
        fprintf(stderr, TP_PROG ": %s: %llu events in, %llu out, %llu repaired (moved to overlap tracks), "
                        "%llu dropped",
                out, (unsigned long long)t.events_in, (unsigned long long)st.events_out,
                (unsigned long long)st.repaired, (unsigned long long)tp_dropped_total(&t));
        if (t.ndrops) {
            fputs(" (", stderr);
            print_counts(t.drops, t.ndrops);
            fputs(")", stderr);
        }
        fprintf(stderr, ", %llu launch flows", (unsigned long long)st.flows);
        if (t.nwarnings) {
            fputs(", warnings: ", stderr);
            print_counts(t.warnings, t.nwarnings);
        }
        fprintf(stderr, ", %.1f MB, %.2f s\n", (double)bytes / 1e6, now_s() - t0);
        if (bytes > 500u * 1000 * 1000 || st.events_out > 1000000)
            fprintf(stderr, TP_PROG ": %s: warning: large output (%.0f MB, %llu events): Perfetto's web UI may run "
                            "out of memory; consider --steps or writing .json.gz\n",
                    out, (double)bytes / 1e6, (unsigned long long)st.events_out);
    }
    tp_trace_free(&t);
    return TP_EXIT_OK;
}
