/* cli.c: option parsing helpers. */
#include "convert/base/cli.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int tp_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, TP_PROG " %s: option %s needs a value\n", argv[0], name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

/* The files FILE options named (tp_opt_file) and @lists: copies, kept for
 * the run (one per option or @list read: a few). */
static const char **named_files;
static size_t n_named_files, named_files_cap;

void tp_opt_file_named(const char *path)
{
    if (!path || !*path)
        return;
    TP_GROW(named_files, named_files_cap, n_named_files + 1);
    named_files[n_named_files++] = tp_xstrdup(path);
}

int tp_opt_file(int argc, char **argv, int *i, const char *name, const char **val)
{
    int k = tp_opt_value(argc, argv, i, name, val);
    if (k > 0)
        tp_opt_file_named(*val);
    return k;
}

size_t tp_opt_files(const char *const **v)
{
    *v = named_files;
    return n_named_files;
}

bool tp_opt_flag(char **argv, int i, const char *name) { return strcmp(argv[i], name) == 0; }

/* Decimal digits up to `end` as an int in [1, INT_MAX]: the end, or NULL. */
static const char *shard_number(const char *s, char end, int *out)
{
    long long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > INT_MAX)
            return NULL;
    }
    if (p == s || *p != end || v < 1)
        return NULL;
    *out = (int)v;
    return p;
}

int tp_parse_shard(const char *s, int *k, int *n)
{
    const char *p = shard_number(s, '/', k);
    if (!p || !shard_number(p + 1, 0, n) || *k > *n)
        return -1;
    return 0;
}

int tp_usage_error(const char *cmd, const char *fmt, ...)
{
    /* the message quotes what was given (--shard "$(printf '\e[2J\n')"): one escaped line, as
     * every error line (docs/ERRORS.md "Text is valid UTF-8, messages are one line") */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, TP_PROG " %s: ", cmd);
    tp_put_printable(stderr, msg);
    fprintf(stderr, " (see `" TP_PROG " help %s`)\n", cmd);
    return TP_EXIT_USAGE;
}
