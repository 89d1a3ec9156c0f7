/* inputs.c: many traces named on a command line: files, folders, globs,
 * @lists (inputs.h). */
#include "convert/pipeline/inputs.h"
#include "convert/read/formats.h"
#include "convert/io/input.h"
#include "convert/base/cli.h"
#include "convert/base/strset.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
    bool found = false, broken = false;
    /* does the top-level object end (brackets outside strings)?  One cut
     * before its "traceEvents" is a trace cut short, not some other JSON */
    long depth = 0;
    bool in_str = false, esc = false, closed = false;
    tp_err err = {0};
    while (!found && total < TRACE_EVENTS_WITHIN) {
        long k = tp_input_read(in, buf + carry, CHUNK, &err);
        if (k <= 0) {
            broken = k < 0; /* a gzip stream cut short or corrupt */
            break;
        }
        total += (size_t)k;
        size_t len = carry + (size_t)k;
        found = memmem(buf, len, key, K) != NULL;
        for (size_t b = carry; b < len && !closed; b++) {
            char c = buf[b];
            if (in_str) {
                if (esc)
                    esc = false;
                else if (c == '\\')
                    esc = true;
                else if (c == '"')
                    in_str = false;
            } else if (c == '"')
                in_str = true;
            else if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                closed = true;
        }
        carry = len < K - 1 ? len : K - 1; /* a key split between two reads */
        memmove(buf, buf + len - carry, carry);
    }
    free(buf);
    /* a longer file gets the benefit of the doubt, and so does an object
     * that does not end (a trace cut before its "traceEvents") */
    return !found && !broken && total < TRACE_EVENTS_WITHIN && closed;
}

/* Is this file named like a trace: a typical name of a format
 * (tp_format.extensions: ".xplane.pb", "eventlog.gz", "ckp-*.json") or one
 * of the endings profilers give them (.json, .gz, .pb, .etdp)? */
static bool named_like_trace(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    static const char *const endings[] = {".json", ".gz", ".pb", ".etdp", NULL};
    for (int i = 0; endings[i]; i++) {
        size_t l = strlen(endings[i]);
        if (bl > l && strcasecmp(base + bl - l, endings[i]) == 0)
            return true;
    }
    for (size_t i = 0; tp_formats[i]; i++) {
        const char *e = tp_formats[i]->extensions ? tp_formats[i]->extensions : "";
        while (*e) {
            size_t l = strcspn(e, " ");
            char tok[64];
            if (l && l < sizeof tok) {
                memcpy(tok, e, l);
                tok[l] = 0;
                if (strchr(tok, '*') ? fnmatch(tok, base, 0) == 0
                                     : (bl >= l && strcasecmp(base + bl - l, tok) == 0))
                    return true;
            }
            e += l;
            e += strspn(e, " ");
        }
    }
    return false;
}

/* Does the file start with gzip's magic (a trace cut short or corrupt may
 * inflate to nothing a reader knows, but it is no text note)? */
static bool gzip_magic(const char *path)
{
    unsigned char m[2] = {0, 0};
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool gz = read(fd, m, 2) == 2 && m[0] == 0x1f && m[1] == 0x8b;
    close(fd);
    return gz;
}

/* A folder entry is a trace when a reader recognises it; when none does,
 * it is still taken (and fails as a trace, with its error) if it looks like
 * one by its name or its magic: a truncated broken.json.gz is a failed row,
 * never dropped as "not a trace".  Only files that are clearly something
 * else (a note, an image, a JSON object without "traceEvents") are not. */
static bool is_trace(const char *path)
{
    tp_err err = {0};
    tp_input *in = tp_input_open(path, &err);
    if (!in)
        return named_like_trace(path) || gzip_magic(path);
    const tp_format *f = tp_format_detect(in, &err);
    bool ok = f != NULL ? !(strcmp(f->name, "chrome") == 0 && json_object_without_events(in))
                        : named_like_trace(path) || gzip_magic(path);
    tp_input_close(in);
    return ok;
}

/* nftw has no user pointer: the walk's state. */
static tp_strlist *g_out;
static const char *g_exclude;
static size_t g_skipped, g_not_regular;

/* The names of the entries skipped as not regular: the first few in name
 * order (a walk's order is the file system's, the line must not be), each
 * with what it is, so the warning says which were skipped, not only how many. */
#define TP_NOT_REGULAR_NAMED 3
static char g_nr_names[TP_NOT_REGULAR_NAMED][320];
static size_t g_nr_kept;

static const char *not_regular_kind(const char *path, int type, const struct stat *st)
{
    struct stat target;
    if (type == FTW_SL || type == FTW_SLN) {
        if (stat(path, &target) != 0)
            return "a broken link";
        return S_ISDIR(target.st_mode) ? "a link to a folder" : "a link to a FIFO, device or socket";
    }
    if (type == FTW_NS || type == FTW_DNR)
        return "unreadable";
    return S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISSOCK(st->st_mode) ? "a socket"
           : (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) ? "a device" : "not a regular file";
}

/* The files skipped as no trace, named likewise: "1 file ... is not a trace" left the user to guess which one (a
 * folder of ranks with a planted.json, notes beside a trace). */
static char g_nt_names[TP_NOT_REGULAR_NAMED][320];
static size_t g_nt_kept;

/* Keeps entry among the first TP_NOT_REGULAR_NAMED of names in name order. */
static void keep_first_named(char names[][320], size_t *kept, const char *entry)
{
    size_t at = *kept;
    while (at > 0 && strcmp(entry, names[at - 1]) < 0)
        at--;
    if (at >= TP_NOT_REGULAR_NAMED)
        return;
    size_t last = *kept < TP_NOT_REGULAR_NAMED ? *kept : TP_NOT_REGULAR_NAMED - 1;
    for (size_t k = last; k > at; k--)
        memcpy(names[k], names[k - 1], sizeof names[k]);
    snprintf(names[at], sizeof names[at], "%s", entry);
    if (*kept < TP_NOT_REGULAR_NAMED)
        (*kept)++;
}

static void note_not_regular(const char *path, const char *kind)
{
    g_not_regular++;
    char entry[320];
    snprintf(entry, sizeof entry, "%s (%s)", path, kind); /* a longer name is cut: the line stays one line */
    keep_first_named(g_nr_names, &g_nr_kept, entry);
}

static void put_names(char names[][320], size_t kept, size_t n)
{
    for (size_t i = 0; i < kept; i++) {
        fputs(i ? ", " : "", stderr);
        tp_put_printable(stderr, names[i]); /* file names: one line, no terminal control */
    }
    if (n > kept)
        fprintf(stderr, " and %zu more", n - kept);
    fputc('\n', stderr);
}

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
    if (type == FTW_D)
        return FTW_CONTINUE;
    /* a link to a file is followed (ranks linked into a folder are ranks); a
     * link to a folder is not (no loops), nor a FIFO, a device or a socket:
     * opening one may block or never end.  Those are counted, never dropped
     * in silence. */
    struct stat target;
    bool regular = (type == FTW_F && S_ISREG(st->st_mode)) ||
                   (type == FTW_SL && stat(path, &target) == 0 && S_ISREG(target.st_mode));
    if (!regular) {
        note_not_regular(path, not_regular_kind(path, type, st));
        return FTW_CONTINUE;
    }
    if (is_trace(path))
        tp_strlist_add(g_out, path);
    else {
        g_skipped++;
        keep_first_named(g_nt_names, &g_nt_kept, path);
    }
    return FTW_CONTINUE;
}

size_t tp_inputs_not_regular(void) { return g_not_regular; }

void tp_inputs_warn_not_regular(const char *who)
{
    if (!g_not_regular)
        return;
    fputs(TP_PROG ": ", stderr);
    tp_put_printable(stderr, who); /* a path from the command line: one line, no terminal control */
    fprintf(stderr, ": warning: %zu entr%s in the folders or patterns given %s not a regular file or a link to one "
                    "(a FIFO, a device, a socket, a link to a folder or a broken link), skipped: ",
            g_not_regular, g_not_regular == 1 ? "y" : "ies", g_not_regular == 1 ? "is" : "are");
    put_names(g_nr_names, g_nr_kept, g_not_regular);
}

void tp_inputs_warn_not_traces(const char *who, size_t not_traces)
{
    if (!not_traces)
        return;
    fputs(TP_PROG ": ", stderr);
    tp_put_printable(stderr, who);
    fprintf(stderr, ": %zu file%s in the folders given %s (skipped): ", not_traces, not_traces == 1 ? "" : "s",
            not_traces == 1 ? "is not a trace" : "are not traces");
    put_names(g_nt_names, g_nt_kept, not_traces);
}

static int add_one(const char *arg, int depth, tp_strlist *out, tp_err *err);

/* What @lists may hold (docs/ERRORS.md): an endless one (@/dev/zero, a FIFO
 * nobody closes) stops there with an error instead of reading forever. */
static size_t g_list_bytes, g_list_entries;

static int add_list(const char *file, int depth, tp_strlist *out, tp_err *err)
{
    tp_opt_file_named(file); /* an input too: no output may replace it (cli.h) */
    FILE *f = fopen(file, "r");
    if (!f)
        return tp_fail_at(err, "", "%s: %s", file, strerror(errno));
    char line[TP_LIST_MAX_LINE + 1];
    int rc = 0, c = 0;
    uint64_t off = 0; /* bytes of this list read */
    while (rc == 0 && c != EOF) {
        size_t k = 0;
        uint64_t start = off;
        bool nul = false;
        while ((c = getc_unlocked(f)) != EOF) { /* one line, read byte by byte: every byte is counted */
            off++;
            if (++g_list_bytes > TP_LIST_MAX_BYTES)
                break;
            if (c == '\n')
                break;
            nul |= c == 0;
            if (k == TP_LIST_MAX_LINE)
                break;
            line[k++] = (char)c;
        }
        line[k] = 0;
        if (g_list_bytes > TP_LIST_MAX_BYTES) {
            rc = tp_fail_at(err, "", "@%s: offset %llu: @lists hold more than %u MiB: not a list of paths", file,
                            (unsigned long long)(off - 1), TP_LIST_MAX_BYTES >> 20);
            break;
        }
        if (k == TP_LIST_MAX_LINE && c != '\n' && c != EOF) {
            rc = tp_fail_at(err, "", "@%s: offset %llu: a line longer than %d bytes: not a list of paths", file,
                            (unsigned long long)start, TP_LIST_MAX_LINE);
            break;
        }
        if (nul) {
            rc = tp_fail_at(err, "", "@%s: offset %llu: a NUL byte in a line: not a list of paths", file,
                            (unsigned long long)start);
            break;
        }
        if (c == EOF && k == 0)
            break;
        while (k > 0 && (line[k - 1] == '\r' || line[k - 1] == ' '))
            line[--k] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        if (++g_list_entries > TP_LIST_MAX_ENTRIES) {
            rc = tp_fail_at(err, "", "@%s: offset %llu: @lists name more than %u entries", file,
                            (unsigned long long)start, TP_LIST_MAX_ENTRIES);
            break;
        }
        rc = add_one(s, depth + 1, out, err);
    }
    if (rc == 0 && ferror(f))
        rc = tp_fail_at(err, "", "@%s: cannot read: %s", file, strerror(errno));
    fclose(f);
    return rc;
}

/* The folders walked, by device and inode: an @list naming one folder a
 * million times (`@<(yes DIR)`) walks it once, not a million times (every
 * walk opens each file to detect its format: minutes, not the list's bound). */
static tp_strset g_walked;

static int add_path(const char *p, tp_strlist *out, tp_err *err)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return tp_fail_at(err, "", "%s: %s", p, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        uint64_t key[2] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
        size_t walked = g_walked.n;
        tp_strset_add(&g_walked, (const char *)key, sizeof key);
        if (g_walked.n == walked)
            return 0; /* its files are in out already */
        g_out = out;
        /* a link to a folder named here is the caller's choice: walked (FTW_PHYS
         * alone reported it as a link and skipped it; links inside are not followed) */
        struct stat lst;
        size_t n = strlen(p) + 3;
        char *root = tp_xmalloc(n);
        snprintf(root, n, "%s", p);
        for (size_t k = strlen(root); k > 1 && root[k - 1] == '/';) /* LINK/ is the link too */
            root[--k] = 0;
        bool link = lstat(root, &lst) == 0 && S_ISLNK(lst.st_mode);
        snprintf(root, n, link ? "%s/." : "%s", p);
        int rc = nftw(root, walk_fn, 32, FTW_PHYS | FTW_ACTIONRETVAL);
        free(root);
        if (rc != 0)
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
        for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
            /* a pattern's matches are found, not named: a FIFO or a device among them is
             * skipped and counted as in a folder walk (a pattern naming an existing file takes it) */
            if (stat(g.gl_pathv[i], &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
                note_not_regular(g.gl_pathv[i], not_regular_kind(g.gl_pathv[i], FTW_F, &st));
                continue;
            }
            rc = add_path(g.gl_pathv[i], out, err);
        }
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
    g_skipped = g_not_regular = g_list_bytes = g_list_entries = g_nr_kept = g_nt_kept = 0;
    tp_strset_free(&g_walked); /* an earlier call's, when it failed */
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
    tp_strset_free(&g_walked);
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

char *tp_inputs_single(char **args, int nargs, const char *exclude, size_t *not_traces)
{
    tp_strlist files = {0};
    tp_err err = {0};
    *not_traces = 0;
    char *one = NULL;
    if (tp_inputs_are_job(args, nargs) && tp_inputs_expand(args, nargs, exclude, &files, not_traces, &err) == 0 &&
        files.n == 1) {
        one = files.v[0];
        files.n = 0;
    }
    tp_strlist_free(&files);
    return one;
}
