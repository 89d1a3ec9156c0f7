/* common.h: small helpers every part of tracepress uses: checked allocation,
 * growable arrays, and the error record readers fill.
 *
 * Error contract (see README "Errors"): a reader that meets bad input calls
 * tp_fail() once with the byte offset (or record number) and returns -1; the
 * command prints "tracepress: FILE: offset N: what is wrong" and exits 2. */
#ifndef TP_COMMON_H
#define TP_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdarg.h>

/* Exit codes, documented in README and `tracepress help`. */
enum { TP_EXIT_OK = 0, TP_EXIT_USAGE = 1, TP_EXIT_INPUT = 2, TP_EXIT_GATE = 3 };

/* What a fatal exit (out of memory) runs first: the output layer registers
 * the removal of its temporary files (base cannot call up into io). */
void tp_on_fatal_exit(void (*cleanup)(void));

/* Allocation never returns NULL: running out of memory ends the process with
 * a clear message (there is nothing sensible a converter can do instead). */
void *tp_xmalloc(size_t n);
void *tp_xcalloc(size_t n, size_t size);
/* n zeroed bytes aligned to align (a power of two, a multiple of
 * sizeof(void *)): per-thread structs on cache lines of their own.  free(). */
void *tp_xaligned_zero(size_t align, size_t n);
void *tp_xrealloc(void *p, size_t n);
char *tp_xstrdup(const char *s);
char *tp_xstrndup(const char *s, size_t n);

/* Grow *p (an array of elem-sized items with capacity *cap) to hold need items. */
void tp_grow(void **p, size_t *cap, size_t need, size_t elem);
/* The same with the usual "already big enough" answered inline, no call:
 * TP_GROW runs once per appended item in the readers' loops. */
static inline void tp_grow_inline(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need > *cap)
        tp_grow(p, cap, need, elem);
}
#define TP_GROW(arr, cap, need) tp_grow_inline((void **)&(arr), &(cap), (need), sizeof *(arr))

/* The error a reader reports.  `where` is "offset N" for byte positions or a
 * reader-chosen locus such as "record 12". */
typedef struct tp_err {
    char where[48];
    char msg[400];
    bool set;
} tp_err;

/* Record the first error (later calls do not overwrite it).  Returns -1 so a
 * reader can `return tp_fail(err, off, "...")`. */
int tp_fail(tp_err *err, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tp_fail_at(tp_err *err, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "tracepress: FILE: WHERE: MSG" on stderr (WHERE omitted when empty). */
/* s written as one line of valid UTF-8, the one escaping of every message
 * and text-table name that a trace, a file name or an option chose: control
 * characters escaped (\n, \t, \x1b), C1 controls, bidirectional controls
 * and line separators as \u202e (they would reorder or split what a reader
 * sees), bytes that are not UTF-8 as \xff; the rest as is.  Names from a
 * trace or a file name cannot split a line, drive the terminal or hide text. */
void tp_put_printable(FILE *f, const char *s);
/* The length (1-4) of the valid UTF-8 sequence starting s[0..n) (shortest
 * form, no surrogates, at most U+10FFFF), 0 when s[0] starts none. */
size_t tp_utf8_len(const unsigned char *s, size_t n);
/* The code point of s[0..len), len from tp_utf8_len. */
uint32_t tp_utf8_cp(const unsigned char *s, size_t len);
/* A code point that reorders or splits text around it when shown: C1
 * controls, U+061C, U+200E/F, U+2028/9, U+202A-202E, U+2066-2069. */
bool tp_is_hidden_control(uint32_t cp);
void tp_report_error(const char *file, const tp_err *err);
/* A message line built in memory and written to stderr at once: stderr is
 * unbuffered, and piece by piece the lines of processes that print together
 * (a job's workers) mix.  tp_line_open returns where to write the line
 * ("tracepress: " is there already; stderr itself when memory fails);
 * tp_line_end writes it. */
typedef struct tp_line {
    FILE *mem;
    char *text;
    size_t len;
} tp_line;
FILE *tp_line_open(tp_line *l);
void tp_line_end(tp_line *l);
/* "tracepress: " and the formatted message on stderr as one escaped line
 * (tp_put_printable; fmt without the newline): for messages that name a
 * path or a value as given. */
void tp_print_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a + b for durations (>= 0): corrupt inputs can sum past int64, so the
 * sums saturate instead of overflowing. */
static inline int64_t tp_sat_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* printf to a growable string (used for args and messages). */
typedef struct tp_buf {
    char *data;
    size_t len, cap;
} tp_buf;
void tp_buf_put(tp_buf *b, const void *p, size_t n);
void tp_buf_putc(tp_buf *b, char c);
void tp_buf_puts(tp_buf *b, const char *s);
void tp_buf_printf(tp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_buf_free(tp_buf *b);

/* Words of a line of a small data file (rule and device tables): blanks
 * are spaces and tabs. */
static inline const char *tp_skip_blanks(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}
static inline const char *tp_word_end(const char *p, const char *e)
{
    while (p < e && *p != ' ' && *p != '\t')
        p++;
    return p;
}

/* A small data file a user gives (--categories, --device-spec) read whole
 * into *b (NUL-terminated; the caller frees b): 0, or -1 with a one-line
 * reason in err ("cannot open: ...", "offset N: larger than LIMIT bytes:
 * not WHAT"). */
int tp_read_small_file(const char *path, size_t limit, const char *what, tp_buf *b, char *err, size_t errn);

/* Program name for messages. */
#define TP_PROG "tracepress"

/* A 64-bit hash of n bytes, eight at a time (kernel names are 200+
 * characters): the string pool and the writers' string sets use it. */
uint64_t tp_hash_bytes(const char *s, size_t n);

#endif

/* Phase timings for measurements: with TP_TIMING=1 in the environment, each
 * call prints "timing: <phase> <seconds since the previous call>" to stderr
 * (wall clock, so never part of an output file). */
void tp_timing(const char *phase);
