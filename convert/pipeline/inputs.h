/* inputs.h: the traces a command line names (batch, and the commands that
 * take a distributed job: report, stats, diff, convert).
 *
 * Each argument is a file (always taken), a folder (walked; only files a
 * reader recognises are taken, hidden entries and anything under `exclude`
 * skipped), a glob pattern (expanded; a pattern naming an existing file is
 * that file), or @FILE (one argument per line, '#' comments, nested at most
 * 8 deep).  The result is sorted, duplicates removed. */
#ifndef TP_INPUTS_H
#define TP_INPUTS_H

#include "convert/base/common.h"

typedef struct tp_strlist {
    char **v;
    size_t n, cap;
} tp_strlist;
void tp_strlist_add(tp_strlist *l, const char *s);
void tp_strlist_free(tp_strlist *l);

/* Bounds of @lists, all of them together (docs/ERRORS.md): bytes read,
 * entries (lines that are neither blank nor comments), bytes per line.  An
 * endless file (@/dev/zero) stops at the first of these with an error. */
#define TP_LIST_MAX_BYTES (64u << 20)
#define TP_LIST_MAX_ENTRIES 1000000u
#define TP_LIST_MAX_LINE 4096

/* 0, or -1 with err; *not_traces counts folder entries that are regular
 * files but clearly no trace (a reader recognises none of them and neither
 * their name nor their magic looks like a trace's: those are taken, and
 * fail as traces). */
int tp_inputs_expand(char **args, int nargs, const char *exclude, tp_strlist *out, size_t *not_traces, tp_err *err);

/* Folder entries and glob matches the last tp_inputs_expand skipped
 * without opening them (not a regular file or a link to one: a FIFO, a
 * device, a socket, a link to a folder in a walk, a broken link), and one
 * warning line naming their count under `who` (nothing when there are
 * none). */
size_t tp_inputs_not_regular(void);
void tp_inputs_warn_not_regular(const char *who);
/* One line on stderr: "tracepress: WHO: N files in the folders given are not traces (skipped): a, b, c and K more"
 * (the first three by name, of the last tp_inputs_expand); nothing when not_traces is 0. */
void tp_inputs_warn_not_traces(const char *who, size_t not_traces);

/* Do these arguments name a job (several traces): more than one, or one
 * that is a folder, a glob or an @list?  One plain file is one trace. */
bool tp_inputs_are_job(char **args, int nargs);

/* Arguments that name a job by their form (a folder, a glob, an @list)
 * but hold one trace among other files are that one trace, not a job of
 * one rank: its path (malloc'ed), with the count of files that are no
 * trace in *not_traces and the entries skipped for tp_inputs_warn_not_regular;
 * NULL when they hold none or several (or fail: the job path says why). */
char *tp_inputs_single(char **args, int nargs, const char *exclude, size_t *not_traces);

#endif
