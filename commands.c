/* commands.c: the command table.  Adding a subcommand: write its cmd_NAME.c
 * in the folder it belongs to (convert/, report/) with its run function and
 * its `const tp_command tp_command_NAME` (name, summary, help text, whether it
 * loads traces: its help then lists the formats' own options),
 * add one row here, and a line to the README's command table. */
#include "convert/base/cli.h"
#include "convert/read/formats.h"

#include <stdio.h>
#include <string.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

extern const tp_command tp_command_convert; /* convert/cmd_convert.c */
extern const tp_command tp_command_stats; /* report/cmd_stats.c */
extern const tp_command tp_command_report; /* report/cmd_report.c */
extern const tp_command tp_command_diff; /* report/cmd_diff.c */
extern const tp_command tp_command_batch; /* report/cmd_batch.c */
extern const tp_command tp_command_formats; /* convert/cmd_formats.c */

static int tp_cmd_help(int argc, char **argv);
static const tp_command tp_command_help = {"help", "show help for tracepress or one command",
                                           "usage: tracepress help [COMMAND]\n", tp_cmd_help, false};

/* One row per command, in `tracepress help` order. */
const tp_command *const tp_commands[] = {
    &tp_command_convert,
    &tp_command_stats,
    &tp_command_report,
    &tp_command_diff,
    &tp_command_batch,
    &tp_command_formats,
    &tp_command_help,
    NULL,
};

void tp_print_usage(FILE *f)
{
    fprintf(f, "tracepress %s: fast converter and report generator for ML performance traces\n\n"
               "usage: tracepress COMMAND [options]\n\ncommands:\n",
            TP_VERSION);
    for (const tp_command *const *cp = tp_commands; *cp; cp++)
        fprintf(f, "  %-9s %s\n", (*cp)->name, (*cp)->summary);
    fprintf(f, "\n`tracepress help COMMAND` or `tracepress COMMAND --help` for details.\n" TP_EXIT_CODES_HELP);
}

int tp_print_help(const char *cmd)
{
    for (const tp_command *const *cp = tp_commands; *cp; cp++)
        if (strcmp((*cp)->name, cmd) == 0) {
            fputs((*cp)->help, stdout);
            if ((*cp)->loads_traces) { /* declared by each format in its row (convert/read/formats.h) */
                fputs("\nformat options:\n", stdout);
                tp_format_options_help(stdout);
            }
            return TP_EXIT_OK;
        }
    fprintf(stderr, TP_PROG ": no command '%s' (see `" TP_PROG " help`)\n", cmd);
    return TP_EXIT_USAGE;
}

static int tp_cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        tp_print_usage(stdout);
        return TP_EXIT_OK;
    }
    return tp_print_help(argv[1]);
}

