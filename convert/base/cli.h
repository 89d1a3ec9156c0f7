/* cli.h: the command table and small option-parsing helpers shared by every
 * subcommand.  A subcommand is one tp_command, defined beside its run
 * function in its cmd_*.c and listed in commands.c's table. */
#ifndef TP_CLI_H
#define TP_CLI_H

#include "convert/base/common.h"

#include <stdio.h>

typedef struct tp_command {
    const char *name;
    const char *summary; /* one line for `tracepress help` */
    const char *help;    /* full text for `tracepress help NAME` / `NAME --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    bool loads_traces;                 /* takes the load options: help lists the formats' own too */
} tp_command;

extern const tp_command *const tp_commands[]; /* NULL-terminated (commands.c) */

/* Option scanning: `--name value` and `--name=value`.
 * tp_opt_value: if argv[*i] is option `name` taking a value, store it in
 * *val, advance *i past it and return 1; return -1 (message printed) when the
 * value is missing; 0 when argv[*i] is not this option. */
int tp_opt_value(int argc, char **argv, int *i, const char *name, const char **val);
bool tp_opt_flag(char **argv, int i, const char *name);
/* An option whose value names a FILE the run reads (--categories,
 * --device-spec, --baseline, a format's --etrecord, an @list): parsed as
 * tp_opt_value and recorded, so that it is an input like the traces: the
 * output layer refuses any output that is this file, by device and inode
 * (tp_out_open, tp_out_protected), in every command.  A new option taking
 * a file is parsed with tp_opt_file and gets that for free. */
int tp_opt_file(int argc, char **argv, int *i, const char *name, const char **val);
/* Record a file the run reads that was not parsed by tp_opt_file (an @list). */
void tp_opt_file_named(const char *path);
/* The files recorded so far, in order. */
size_t tp_opt_files(const char *const **v);
/* Print "tracepress CMD: MSG" and a hint to --help; returns TP_EXIT_USAGE. */
int tp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `--shard K/N` (report, batch): decimal digits only (no sign, space or
 * exponent), 1 <= K <= N <= 2^31-1; 0, or -1 for anything else (a value
 * that does not fit is refused, never wrapped: 1/4294967297 was 1/1). */
int tp_parse_shard(const char *s, int *k, int *n);
/* Print the command's help text (from the table) to stdout; returns 0. */
int tp_print_help(const char *cmd);



/* The overall usage text (commands.c). */
void tp_print_usage(FILE *f);


/* "Exit codes: ..." paragraph shared by help texts. */
#define TP_EXIT_CODES_HELP                                                              \
    "Exit codes: 0 success, 1 usage error, 2 bad or unreadable input (or an output\n"   \
    "that could not be written), 3 a regression gate tripped.\n"
#endif
