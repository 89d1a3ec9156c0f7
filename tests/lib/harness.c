/* harness.c: test registration, running, and helpers for files and commands. */
#include "tests/lib/harness.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    const char *name, *file;
    tp_test_fn fn;
} test_entry;

static test_entry *tests;
static size_t ntests, cap;
static int current_failed;
static char tmpdir[256];

void tp_test_register(const char *name, const char *file, tp_test_fn fn)
{
    if (ntests == cap) {
        cap = cap ? cap * 2 : 256;
        tests = realloc(tests, cap * sizeof *tests);
        if (!tests)
            abort();
    }
    tests[ntests++] = (test_entry){name, file, fn};
}

void tp_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    current_failed++;
}

const char *tp_test_shared(const char *rel)
{
    static char bufs[8][1024];
    static int k;
    char *b = bufs[k++ & 7];
    const char *root = getenv("TP_SHARED");
    snprintf(b, 1024, "%s/%s", root && *root ? root : "../shared", rel);
    return b;
}

const char *tp_test_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "%s/tp-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return tmpdir;
}

const char *tp_test_tmp(const char *name)
{
    static char bufs[8][1024];
    static int k;
    char *b = bufs[k++ & 7];
    snprintf(b, 1024, "%s/%s", tp_test_tmpdir(), name);
    return b;
}

const char *tp_test_write(const char *name, const void *data, size_t len)
{
    const char *path = tp_test_tmp(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len)
        tp_test_fail(__FILE__, __LINE__, "cannot write %s", path);
    if (f)
        fclose(f);
    return path;
}

const char *tp_test_write_text(const char *name, const char *text) { return tp_test_write(name, text, strlen(text)); }

const char *tp_test_bin(void)
{
    const char *b = getenv("TP_BIN");
    return b && *b ? b : "build/tracepress";
}

int tp_test_run(char **out, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char full[8400];
    snprintf(full, sizeof full, "( %s ) 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t n = 0, c = 4096;
    char *buf = malloc(c);
    size_t r;
    while ((r = fread(buf + n, 1, c - n - 1, p)) > 0) {
        n += r;
        if (c - n < 1024) {
            c *= 2;
            buf = realloc(buf, c);
        }
    }
    buf[n] = 0;
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

char *tp_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    b[got] = 0;
    if (len)
        *len = got;
    return b;
}

bool tp_test_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void tp_test_each_shared(const char *const *rel, size_t n, void (*fn)(const char *path))
{
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", tp_test_shared(rel[i])); /* (tp_test_shared's buffers rotate) */
        if (tp_test_file_exists(path))
            fn(path);
    }
}

bool tp_test_have(const char *program)
{
    return tp_test_run(NULL, "command -v %s >/dev/null", program) == 0;
}

void tp_test_golden(const char *file, int line, const char *name, const char *actual, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "golden/%s", name);
    const char *upd = getenv("TP_GOLDEN_UPDATE");
    if (upd && *upd == '1') {
        FILE *f = fopen(path, "wb");
        if (!f) {
            tp_test_fail(file, line, "cannot write %s", path);
            return;
        }
        fwrite(actual, 1, len, f);
        fclose(f);
        return;
    }
    size_t elen;
    char *exp = tp_test_read_file(path, &elen);
    if (!exp) {
        tp_test_fail(file, line, "golden file %s is missing (run `make golden` and review)", path);
        return;
    }
    if (elen != len || memcmp(exp, actual, len) != 0) {
        char got[1100];
        snprintf(got, sizeof got, "%s/golden-%s", tp_test_tmpdir(), name);
        for (char *c = got + strlen(tp_test_tmpdir()) + 1; *c; c++)
            if (*c == '/')
                *c = '_';
        FILE *f = fopen(got, "wb");
        if (f) {
            fwrite(actual, 1, len, f);
            fclose(f);
        }
        tp_test_fail(file, line, "output differs from golden/%s (actual in %s; `make golden` to accept)", name,
                     got);
    }
    free(exp);
}

static int cmp_tests(const void *a, const void *b)
{
    const test_entry *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    qsort(tests, ntests, sizeof *tests, cmp_tests);
    int passed = 0, failed = 0;
    for (size_t i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter))
            continue;
        current_failed = 0;
        tests[i].fn();
        if (current_failed) {
            failed++;
            fprintf(stderr, "FAIL %s (%s)\n", tests[i].name, tests[i].file);
        } else {
            passed++;
            if (getenv("TP_VERBOSE"))
                fprintf(stderr, "ok   %s\n", tests[i].name);
        }
    }
    if (tmpdir[0] && !getenv("TP_KEEP_TMP") && failed == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

const char *tp_test_dir_listing(const char *dir)
{
    static char list[4096];
    list[0] = 0;
    DIR *d = opendir(dir);
    if (!d)
        return "(missing)";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (list[0])
            strncat(list, " ", sizeof list - strlen(list) - 1);
        strncat(list, e->d_name, sizeof list - strlen(list) - 1);
    }
    closedir(d);
    return list;
}

char *tp_test_read_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return tp_test_read_file(p, NULL);
}

bool tp_test_exists_in(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return tp_test_file_exists(p);
}

size_t tp_test_count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}
