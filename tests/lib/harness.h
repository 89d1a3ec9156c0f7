/* harness.h: the test harness.  A test is
 *     TEST(name) { CHECK(cond); CHECK_EQ_INT(a, b); CHECK_STR(a, b); }
 * in any tests/ C file; it registers itself.  `tp_tests [FILTER]` runs the
 * tests whose file or name contains FILTER and ends with "N passed, N failed". */
#ifndef TP_HARNESS_H
#define TP_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*tp_test_fn)(void);
void tp_test_register(const char *name, const char *file, tp_test_fn fn);
void tp_test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define TEST(name)                                                                    \
    static void name(void);                                                           \
    __attribute__((constructor)) static void tp_reg_##name(void)                      \
    {                                                                                 \
        tp_test_register(#name, __FILE__, name);                                      \
    }                                                                                 \
    static void name(void)

#define CHECK(c)                                                                      \
    do {                                                                              \
        if (!(c))                                                                     \
            tp_test_fail(__FILE__, __LINE__, "CHECK(%s)", #c);                        \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
    do {                                                                              \
        long long tp_a_ = (long long)(a), tp_b_ = (long long)(b);                     \
        if (tp_a_ != tp_b_)                                                           \
            tp_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a,   \
                         tp_a_, #b, tp_b_);                                           \
    } while (0)

#define CHECK_STR(a, b)                                                               \
    do {                                                                              \
        const char *tp_a_ = (a), *tp_b_ = (b);                                        \
        if (!tp_a_ || !tp_b_ || strcmp(tp_a_, tp_b_) != 0)                            \
            tp_test_fail(__FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #a,     \
                         tp_a_ ? tp_a_ : "(null)", tp_b_ ? tp_b_ : "(null)");         \
    } while (0)

/* Paths: the repository root is the working directory; shared samples are in
 * TP_SHARED (default ../shared). */
const char *tp_test_shared(const char *rel);  /* "../shared/<rel>" (static buffer rotation) */
const char *tp_test_tmpdir(void);             /* a fresh directory for this run */
const char *tp_test_tmp(const char *name);    /* tmpdir/name */
/* Write len bytes (or a C string) to tmpdir/name; returns its path (a failure is a test failure). */
const char *tp_test_write(const char *name, const void *data, size_t len);
const char *tp_test_write_text(const char *name, const char *text);
/* The names in dir, space-separated, "." and ".." left out: "" when empty,
 * "(missing)" when it cannot be read.  Static buffer. */
const char *tp_test_dir_listing(const char *dir);
/* dir/name: its contents (malloc'ed, NUL-terminated; NULL if unreadable), or whether it exists. */
char *tp_test_read_in(const char *dir, const char *name);
bool tp_test_exists_in(const char *dir, const char *name);
const char *tp_test_bin(void);                /* the tracepress binary under test */
/* Run a shell command; returns its exit status; stdout+stderr into *out (malloc'ed, may be NULL). */
int tp_test_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *tp_test_read_file(const char *path, size_t *len); /* malloc'ed, NULL if missing */
bool tp_test_file_exists(const char *path);
/* fn(path) for each shared sample rel[i] (as tp_test_shared names it) that is present. */
void tp_test_each_shared(const char *const *rel, size_t n, void (*fn)(const char *path));
size_t tp_test_count(const char *s, const char *what); /* non-overlapping occurrences of what in s (0 when s is NULL) */
bool tp_test_have(const char *program);                  /* is PROGRAM on PATH */
/* Compare `actual` with golden/<name>; with TP_GOLDEN_UPDATE=1 rewrite it. */
void tp_test_golden(const char *file, int line, const char *name, const char *actual, size_t len);
#define CHECK_GOLDEN(name, data, len) tp_test_golden(__FILE__, __LINE__, name, data, len)

#endif
