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

/* 0, or -1 with err; *not_traces counts folder entries no reader knows. */
int tp_inputs_expand(char **args, int nargs, const char *exclude, tp_strlist *out, size_t *not_traces, tp_err *err);

/* Do these arguments name a job (several traces): more than one, or one
 * that is a folder, a glob or an @list?  One plain file is one trace. */
bool tp_inputs_are_job(char **args, int nargs);

#endif
