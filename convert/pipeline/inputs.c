/* inputs.c: many traces named on a command line: files, folders, globs,
 * @lists (inputs.h). */
#include "convert/pipeline/inputs.h"
#include "convert/read/formats.h"
#include "convert/io/input.h"
#include "convert/base/cli.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tp_strlist_add(tp_strlist *l, const char *s)
{
    TP_GROW(l->v, l->cap, l->n + 1);
    l->v[l->n++] = tp_xstrdup(s);
}

void tp_strlist_free(tp_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* A JSON object is a Chrome trace only with a "traceEvents" key: look for
 * it in the first 8 MB (Kineto writes a few KB of metadata before it), so a
 * config file or a generator's planted.json in a folder of ranks is counted
 * as not a trace instead of failing the run.  Arrays are event lists. */
#define TRACE_EVENTS_WITHIN (8u << 20)
static bool json_object_without_events(tp_input *in)
{
    const unsigned char *head;
    size_t n = tp_input_peek(in, &head), i = 0;
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        i++;
    if (i >= n || head[i] != '{')
        return false;
    static const char key[] = "\"traceEvents\"";
    enum { K = sizeof key - 1, CHUNK = 1 << 16 };
    char *buf = tp_xmalloc(CHUNK + K);
    size_t carry = 0, total = 0;
    bool found = false;
    tp_err err = {0};
    while (!found && total < TRACE_EVENTS_WITHIN) {
        long k = tp_input_read(in, buf + carry, CHUNK, &err);
        if (k <= 0)
            break;
        total += (size_t)k;
        size_t len = carry + (size_t)k;
        found = memmem(buf, len, key, K) != NULL;
        carry = len < K - 1 ? len : K - 1; /* a key split between two reads */
        memmove(buf, buf + len - carry, carry);
    }
    free(buf);
    return !found && total < TRACE_EVENTS_WITHIN; /* a longer file gets the benefit of the doubt */
}

/* Does a reader recognise this file? */
static bool is_trace(const char *path)
{
    tp_err err = {0};
    tp_input *in = tp_input_open(path, &err);
    if (!in)
        return false;
    const tp_format *f = tp_format_detect(in, &err);
    bool ok = f != NULL && !(strcmp(f->name, "chrome") == 0 && json_object_without_events(in));
    tp_input_close(in);
    return ok;
}

/* nftw has no user pointer: the walk's state. */
static tp_strlist *g_out;
static const char *g_exclude;
static size_t g_skipped;

static int walk_fn(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    if (ftw->level > 0 && base[0] == '.')
        return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
    if (type == FTW_D && g_exclude) {
        char rp[PATH_MAX];
        if (realpath(path, rp) && strcmp(rp, g_exclude) == 0)
            return FTW_SKIP_SUBTREE;
    }
    if (type != FTW_F || !S_ISREG(st->st_mode))
        return FTW_CONTINUE;
    if (is_trace(path))
        tp_strlist_add(g_out, path);
    else
        g_skipped++;
    return FTW_CONTINUE;
}

static int add_one(const char *arg, int depth, tp_strlist *out, tp_err *err);

static int add_list(const char *file, int depth, tp_strlist *out, tp_err *err)
{
    tp_opt_file_named(file); /* an input too: no output may replace it (cli.h) */
    FILE *f = fopen(file, "r");
    if (!f)
        return tp_fail_at(err, "", "%s: %s", file, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t k;
    int rc = 0;
    while (rc == 0 && (k = getline(&line, &cap, f)) >= 0) {
        while (k > 0 && (line[k - 1] == '\n' || line[k - 1] == '\r' || line[k - 1] == ' '))
            line[--k] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s && *s != '#')
            rc = add_one(s, depth + 1, out, err);
    }
    free(line);
    fclose(f);
    return rc;
}

static int add_path(const char *p, tp_strlist *out, tp_err *err)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return tp_fail_at(err, "", "%s: %s", p, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        g_out = out;
        if (nftw(p, walk_fn, 32, FTW_PHYS | FTW_ACTIONRETVAL) != 0)
            return tp_fail_at(err, "", "%s: cannot walk the directory", p);
        return 0;
    }
    tp_strlist_add(out, p); /* a file named on the command line is always taken */
    return 0;
}

static int add_one(const char *arg, int depth, tp_strlist *out, tp_err *err)
{
    if (depth > 8)
        return tp_fail_at(err, "", "%s: @list files nested too deep", arg);
    if (arg[0] == '@')
        return add_list(arg + 1, depth, out, err);
    if (strpbrk(arg, "*?[")) {
        struct stat st;
        if (stat(arg, &st) == 0)
            return add_path(arg, out, err);
        glob_t g;
        int r = glob(arg, 0, NULL, &g);
        if (r == GLOB_NOMATCH) {
            globfree(&g);
            return tp_fail_at(err, "", "%s: no file matches", arg);
        }
        int rc = r == 0 ? 0 : tp_fail_at(err, "", "%s: glob failed", arg);
        for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
            rc = add_path(g.gl_pathv[i], out, err);
        globfree(&g);
        return rc;
    }
    return add_path(arg, out, err);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int tp_inputs_expand(char **args, int nargs, const char *exclude, tp_strlist *out, size_t *not_traces, tp_err *err)
{
    char rp[PATH_MAX];
    g_exclude = exclude && realpath(exclude, rp) ? rp : NULL;
    g_skipped = 0;
    for (int i = 0; i < nargs; i++)
        if (add_one(args[i], 0, out, err) < 0)
            return -1;
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (k && strcmp(out->v[k - 1], out->v[i]) == 0) {
            free(out->v[i]);
            continue;
        }
        out->v[k++] = out->v[i];
    }
    out->n = k;
    *not_traces = g_skipped;
    g_exclude = NULL;
    return 0;
}


bool tp_inputs_are_job(char **args, int nargs)
{
    if (nargs != 1)
        return nargs > 1;
    const char *arg = args[0];
    struct stat st;
    if (arg[0] == '@' || (strpbrk(arg, "*?[") && stat(arg, &st) != 0))
        return true;
    return stat(arg, &st) == 0 && S_ISDIR(st.st_mode); /* a missing file fails as one trace, as ever */
}
