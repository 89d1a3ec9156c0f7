/* common.c: allocation, growable arrays, error records, growable strings. */
#include "convert/base/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void (*fatal_cleanup)(void);

void tp_on_fatal_exit(void (*cleanup)(void)) { fatal_cleanup = cleanup; }

/* Fault injection for the tests of what an exhausted machine leaves behind:
 * TP_ALLOC_FAIL_ABOVE=N makes any single allocation of more than N bytes
 * fail as if memory had run out (ulimit -v is not deterministic enough). */
static size_t fail_above(void)
{
    static size_t limit = 1; /* 1: not read yet; 0: off */
    if (limit == 1) {
        const char *s = getenv("TP_ALLOC_FAIL_ABOVE");
        limit = s && *s ? (size_t)strtoull(s, NULL, 10) : 0;
    }
    return limit;
}

#define REFUSED(n) (fail_above() && (n) > fail_above())

static void out_of_memory(size_t n)
{
    if (fatal_cleanup) /* the temporary outputs (convert/io/output.c) */
        fatal_cleanup();
    fprintf(stderr, TP_PROG ": out of memory (asked for %zu bytes)\n", n);
    exit(TP_EXIT_INPUT);
}

/* Plain malloc, no transparent-huge-page advice: on a 1 GB real-shaped
 * Kineto trace the advice saved no time (BENCHMARKS.md, "speed tricks"). */
void *tp_xmalloc(size_t n)
{
    void *p = REFUSED(n) ? NULL : malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *tp_xcalloc(size_t n, size_t size)
{
    void *p = REFUSED(n * size) ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *tp_xaligned_zero(size_t align, size_t n)
{
    void *p;
    n = (n + align - 1) / align * align; /* nothing else on its last line either */
    if (posix_memalign(&p, align, n ? n : align) != 0)
        out_of_memory(n);
    memset(p, 0, n);
    return p;
}

void *tp_xrealloc(void *p, size_t n)
{
    void *q = REFUSED(n) ? NULL : realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *tp_xstrdup(const char *s) { return tp_xstrndup(s, strlen(s)); }

char *tp_xstrndup(const char *s, size_t n)
{
    char *p = tp_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void tp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c += c / 2 + 16; /* 1.5x keeps peak memory closer to what is used */
    if (c > SIZE_MAX / elem)
        out_of_memory(SIZE_MAX);
    *p = tp_xrealloc(*p, c * elem);
    *cap = c;
}

static int vfail(tp_err *err, const char *where, const char *fmt, va_list ap)
{
    if (err && !err->set) {
        snprintf(err->where, sizeof err->where, "%s", where);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        /* one line: no newlines inside a message */
        for (char *c = err->msg; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        err->set = true;
    }
    return -1;
}

int tp_fail(tp_err *err, uint64_t offset, const char *fmt, ...)
{
    char where[48];
    snprintf(where, sizeof where, "offset %llu", (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    vfail(err, where, fmt, ap);
    va_end(ap);
    return -1;
}

int tp_fail_at(tp_err *err, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, where ? where : "", fmt, ap);
    va_end(ap);
    return -1;
}

size_t tp_utf8_len(const unsigned char *s, size_t n)
{
    if (!n)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0; /* overlong, a surrogate, past U+10FFFF */
    return len;
}

uint32_t tp_utf8_cp(const unsigned char *s, size_t len)
{
    if (len == 1)
        return s[0];
    uint32_t cp = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (s[i] & 0x3F);
    return cp;
}

bool tp_is_hidden_control(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x61C || cp == 0x200E || cp == 0x200F || cp == 0x2028 ||
           cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void tp_put_printable(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t len = tp_utf8_len(p + i, n - i);
        if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f || !len)
            fprintf(f, "\\x%02x", c);
        else if (len > 1 && tp_is_hidden_control(tp_utf8_cp(p + i, len)))
            fprintf(f, "\\u%04x", (unsigned)tp_utf8_cp(p + i, len));
        else
            fwrite(p + i, 1, len, f);
        i += len ? len : 1;
    }
}

FILE *tp_line_open(tp_line *l)
{
    l->text = NULL;
    l->len = 0;
    l->mem = open_memstream(&l->text, &l->len);
    FILE *f = l->mem ? l->mem : stderr;
    fputs(TP_PROG ": ", f);
    return f;
}

void tp_line_end(tp_line *l)
{
    if (l->mem && fclose(l->mem) == 0)
        fwrite(l->text, 1, l->len, stderr);
    free(l->text);
    l->mem = NULL;
    l->text = NULL;
}

void tp_print_line(const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    tp_line l;
    FILE *f = tp_line_open(&l);
    tp_put_printable(f, n >= 0 ? msg : fmt);
    fputc('\n', f);
    tp_line_end(&l);
    free(n >= 0 ? msg : NULL);
}

void tp_report_error(const char *file, const tp_err *err)
{
    /* one line whatever the file is called or the message quotes, written at once (tp_line) */
    tp_line l;
    FILE *f = tp_line_open(&l);
    tp_put_printable(f, file);
    fputs(": ", f);
    if (err->where[0]) {
        tp_put_printable(f, err->where);
        fputs(": ", f);
    }
    tp_put_printable(f, err->msg);
    fputc('\n', f);
    tp_line_end(&l);
}

void tp_buf_put(tp_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap)
        TP_GROW(b->data, b->cap, b->len + n + 1);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void tp_buf_putc(tp_buf *b, char c) { tp_buf_put(b, &c, 1); }
void tp_buf_puts(tp_buf *b, const char *s) { tp_buf_put(b, s, strlen(s)); }

void tp_buf_printf(tp_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tp_buf_put(b, small, (size_t)n);
        return;
    }
    TP_GROW(b->data, b->cap, b->len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void tp_buf_free(tp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

uint64_t tp_hash_bytes(const char *s, size_t n)
{
    /* eight bytes at a time: kernel names are long (200+ characters) */
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

void tp_timing(const char *phase)
{
    static int on = -1;
    static struct timespec last, last_cpu;
    if (on < 0) {
        const char *v = getenv("TP_TIMING");
        on = v && *v && strcmp(v, "0") != 0;
        clock_gettime(CLOCK_MONOTONIC, &last);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &last_cpu);
    }
    if (!on)
        return;
    struct timespec now, cpu;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    double s = (double)(now.tv_sec - last.tv_sec) + (double)(now.tv_nsec - last.tv_nsec) / 1e9;
    /* CPU seconds of all threads: on a busy machine the wall time says little */
    double c = (double)(cpu.tv_sec - last_cpu.tv_sec) + (double)(cpu.tv_nsec - last_cpu.tv_nsec) / 1e9;
    /* the peak so far, and what is resident now: anonymous and mapped file */
    char line[128], out[160] = "";
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f)) {
        unsigned long kb;
        char key[32];
        if (sscanf(line, "%31[^:]: %lu kB", key, &kb) == 2 &&
            (!strcmp(key, "VmHWM") || !strcmp(key, "RssAnon") || !strcmp(key, "RssFile")))
            snprintf(out + strlen(out), sizeof out - strlen(out), "  %s %lu MB", key, kb >> 10);
    }
    if (f)
        fclose(f);
    fprintf(stderr, "timing: %-24s %.3f s  cpu %.3f s%s\n", phase, s, c, out);
    last = now;
    last_cpu = cpu;
}

int tp_read_small_file(const char *path, size_t limit, const char *what, tp_buf *b, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errn, "cannot open: %s", strerror(errno));
        return -1;
    }
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        tp_buf_put(b, chunk, got);
        if (b->len > limit) { /* a table, not a trace */
            fclose(f);
            snprintf(err, errn, "offset %zu: larger than %zu MiB: not %s", limit, limit >> 20, what);
            return -1;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errn, "cannot read");
        return -1;
    }
    tp_buf_putc(b, 0);
    b->len--;
    return 0;
}
