/* devices.c: the device peak table, parsed from the built-in file and a
 * user's file, and matched against the devices a trace describes
 * (devices.h; the format is documented at the top of devices.table). */
#include "report/perf_models/devices.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* report/perf_models/devices.table, built in (devices_data.c) */
extern const char tp_devices_builtin[];

const char *const tp_peak_class_names[TP_PEAK_CLASSES] = {"matrix_fp8",  "matrix_bf16", "matrix_fp16",
                                                          "matrix_tf32", "matrix_fp32", "vector_fp32"};

enum { MAX_LINE = 1024, MAX_SOURCES = 8 };

/* The parser's position, for errors: "offset N: line L: ..." */
typedef struct pctx {
    const char *text;
    size_t line;
    char *err;
    size_t errn;
} pctx;

static int fail(pctx *c, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(pctx *c, const char *at, const char *fmt, ...)
{
    int k = snprintf(c->err, c->errn, "offset %zu: line %zu: ", (size_t)(at - c->text), c->line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < c->errn)
        vsnprintf(c->err + k, c->errn - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static bool word_is(const char *w, const char *we, const char *s)
{
    return (size_t)(we - w) == strlen(s) && memcmp(w, s, (size_t)(we - w)) == 0;
}

/* A decimal number > 0: digits, optionally '.' and digits.  0 or -1. */
static int parse_number(const char *w, const char *we, double *out)
{
    const char *p = w;
    while (p < we && *p >= '0' && *p <= '9')
        p++;
    if (p == w)
        return -1;
    if (p < we && *p == '.') {
        const char *d = ++p;
        while (p < we && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return -1;
    }
    if (p != we || we - w > 20)
        return -1;
    char buf[24];
    memcpy(buf, w, (size_t)(we - w));
    buf[we - w] = 0;
    *out = strtod(buf, NULL);
    return 0;
}

/* "LO-HI" of numbers (decimals when allow_dec) or, when allow_single, "N". */
static int parse_range(const char *w, const char *we, bool allow_dec, double *lo, double *hi)
{
    const char *dash = memchr(w, '-', (size_t)(we - w));
    const char *ae = dash ? dash : we;
    if (parse_number(w, ae, lo) != 0 || (!allow_dec && memchr(w, '.', (size_t)(ae - w))))
        return -1;
    if (!dash) {
        *hi = *lo;
        return allow_dec ? -1 : 0; /* memory wants a range; cores may be one number */
    }
    if (parse_number(dash + 1, we, hi) != 0 || (!allow_dec && memchr(dash + 1, '.', (size_t)(we - dash - 1))))
        return -1;
    return *hi >= *lo ? 0 : -1;
}

typedef struct src {
    char tag[32];
} src;

typedef struct entry_state {
    tp_device_entry *e;     /* the entry being read, NULL before the first device line */
    const char *at;         /* its device line, for errors */
    size_t line;
    src sources[MAX_SOURCES];
    size_t nsources;
    bool has_label, has_figure;
    bool seen[TP_PEAK_CLASSES + 1]; /* classes and memory_tbps given */
} entry_state;

static void entry_free(tp_device_entry *e)
{
    for (size_t i = 0; i < e->nmatch; i++)
        free(e->match[i].glob);
    free(e->match);
    free(e->id);
    free(e->label);
    free(e->source);
    memset(e, 0, sizeof *e);
}

/* The entry is complete: check what every entry needs. */
static int entry_finish(pctx *c, entry_state *s)
{
    if (!s->e)
        return 0;
    size_t line = c->line;
    c->line = s->line;
    int rc = 0;
    if (s->e->nmatch == 0)
        rc = fail(c, s->at, "device %s has no match line", s->e->id);
    else if (!s->has_figure)
        rc = fail(c, s->at, "device %s gives no peak (a CLASS TFLOPS or memory_tbps line)", s->e->id);
    if (!s->has_label)
        s->e->label = tp_xstrdup(s->e->id);
    c->line = line;
    s->e = NULL;
    return rc;
}

static int parse_match(pctx *c, tp_device_entry *e, const char *p, const char *le)
{
    if (p >= le || *p != '"')
        return fail(c, p, "want match \"GLOB\" [memory_gib LO-HI] [cores N|LO-HI]");
    const char *g = p + 1, *ge = memchr(g, '"', (size_t)(le - g));
    if (!ge)
        return fail(c, p, "the glob's closing '\"' is missing");
    if (ge == g)
        return fail(c, p, "an empty glob");
    tp_device_match m = {0};
    p = tp_skip_blanks(ge + 1, le);
    if (p < le && p == ge + 1)
        return fail(c, p, "want a space after the glob's closing '\"'");
    while (p < le) {
        const char *ke = tp_word_end(p, le), *v = tp_skip_blanks(ke, le), *ve = tp_word_end(v, le);
        if (word_is(p, ke, "memory_gib") && m.mem_hi == 0) {
            if (v == le || parse_range(v, ve, true, &m.mem_lo, &m.mem_hi) != 0 || m.mem_hi <= 0)
                return fail(c, v, "memory_gib wants LO-HI, two numbers in GiB (LO <= HI)");
        } else if (word_is(p, ke, "cores") && m.cores_hi == 0) {
            double lo, hi;
            if (v == le || parse_range(v, ve, false, &lo, &hi) != 0 || hi > 1e6)
                return fail(c, v, "cores wants N or LO-HI, whole numbers from 1");
            m.cores_lo = (int32_t)lo;
            m.cores_hi = (int32_t)hi;
        } else
            return fail(c, p, "\"%.*s\" is not a match condition (memory_gib LO-HI or cores N|LO-HI, once each)",
                        (int)(ke - p > 40 ? 40 : ke - p), p);
        p = tp_skip_blanks(ve, le);
    }
    m.glob = tp_xstrndup(g, (size_t)(ge - g));
    e->match = tp_xrealloc(e->match, (e->nmatch + 1) * sizeof *e->match);
    e->match[e->nmatch++] = m;
    return 0;
}

static int parse_line(pctx *c, tp_device_table *dt, entry_state *s, const char *a, const char *le)
{
    const char *ke = tp_word_end(a, le), *v = tp_skip_blanks(ke, le), *ve = tp_word_end(v, le);
    if (word_is(a, ke, "device")) {
        if (entry_finish(c, s) != 0)
            return -1;
        if (v == le)
            return fail(c, a, "device wants an id");
        if (tp_skip_blanks(ve, le) != le)
            return fail(c, ve, "a device id has no spaces");
        if (ve - v > 47)
            return fail(c, v, "a device id longer than 47 bytes");
        for (const char *q = v; q < ve; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '-' ||
                  *q == '_' || *q == '.'))
                return fail(c, q, "a device id is letters, digits and - _ .");
        for (size_t i = 0; i < dt->n; i++)
            if (strlen(dt->e[i].id) == (size_t)(ve - v) && memcmp(dt->e[i].id, v, (size_t)(ve - v)) == 0)
                return fail(c, v, "device %.*s given twice", (int)(ve - v), v);
        dt->e = tp_xrealloc(dt->e, (dt->n + 1) * sizeof *dt->e);
        s->e = &dt->e[dt->n++];
        memset(s->e, 0, sizeof *s->e);
        s->e->id = tp_xstrndup(v, (size_t)(ve - v));
        s->at = a;
        s->line = c->line;
        s->nsources = 0;
        s->has_label = s->has_figure = false;
        memset(s->seen, 0, sizeof s->seen);
        return 0;
    }
    if (!s->e)
        return fail(c, a, "a line before the first device line");
    if (word_is(a, ke, "label")) {
        if (s->has_label)
            return fail(c, a, "label given twice");
        if (v == le)
            return fail(c, a, "label wants a name");
        if (le - v > 95)
            return fail(c, v, "a label longer than 95 bytes");
        s->e->label = tp_xstrndup(v, (size_t)(le - v));
        s->has_label = true;
        return 0;
    }
    if (word_is(a, ke, "match"))
        return parse_match(c, s->e, v, le);
    if (word_is(a, ke, "source")) {
        const char *u = tp_skip_blanks(ve, le), *ue = tp_word_end(u, le), *d = tp_skip_blanks(ue, le);
        if (d == le)
            return fail(c, a, "want source TAG URL DOCUMENT");
        if (ve - v > 31)
            return fail(c, v, "a source tag longer than 31 bytes");
        for (size_t i = 0; i < s->nsources; i++)
            if (word_is(v, ve, s->sources[i].tag))
                return fail(c, v, "source %.*s given twice", (int)(ve - v), v);
        if (s->nsources == MAX_SOURCES)
            return fail(c, a, "more than %d sources in one entry", MAX_SOURCES);
        snprintf(s->sources[s->nsources++].tag, sizeof s->sources[0].tag, "%.*s", (int)(ve - v), v);
        /* the entry's source text: "DOCUMENT <URL>", sources joined with "; " */
        tp_buf b = {0};
        if (s->e->source) {
            tp_buf_put(&b, s->e->source, strlen(s->e->source));
            tp_buf_put(&b, "; ", 2);
        }
        tp_buf_put(&b, d, (size_t)(le - d));
        tp_buf_put(&b, " <", 2);
        tp_buf_put(&b, u, (size_t)(ue - u));
        tp_buf_putc(&b, '>');
        free(s->e->source);
        s->e->source = tp_xstrndup(b.data, b.len);
        tp_buf_free(&b);
        return 0;
    }
    int cls = -1;
    for (int k = 0; k < TP_PEAK_CLASSES; k++)
        if (word_is(a, ke, tp_peak_class_names[k]))
            cls = k;
    if (cls < 0 && word_is(a, ke, "memory_tbps"))
        cls = TP_PEAK_CLASSES;
    if (cls < 0)
        return fail(c, a, "\"%.*s\" is not a key (device label match source memory_tbps or a class: matrix_fp8 "
                          "matrix_bf16 matrix_fp16 matrix_tf32 matrix_fp32 vector_fp32)",
                    (int)(ke - a > 40 ? 40 : ke - a), a);
    const char *key = cls < TP_PEAK_CLASSES ? tp_peak_class_names[cls] : "memory_tbps";
    if (s->seen[cls])
        return fail(c, a, "%s given twice", key);
    double x;
    if (v == le)
        return fail(c, a, "%s wants a number", key);
    if (parse_number(v, ve, &x) != 0 || !(x > 0))
        return fail(c, v, "%s wants a decimal number > 0 (got \"%.*s\"; leave a class out when the device does not do it)",
                    key, (int)(ve - v > 24 ? 24 : ve - v), v);
    const char *t = tp_skip_blanks(ve, le), *te = tp_word_end(t, le);
    if (t == le) {
        if (s->nsources != 1)
            return fail(c, ve, "%s wants its source's tag (the entry has %zu sources)", key, s->nsources);
    } else {
        bool found = false;
        for (size_t i = 0; i < s->nsources; i++)
            found |= word_is(t, te, s->sources[i].tag);
        if (!found)
            return fail(c, t, "no source %.*s above in this entry", (int)(te - t > 32 ? 32 : te - t), t);
        if (tp_skip_blanks(te, le) != le)
            return fail(c, te, "want %s VALUE [TAG]", key);
    }
    s->seen[cls] = true;
    s->has_figure = true;
    if (cls < TP_PEAK_CLASSES)
        s->e->tflops[cls] = x;
    else
        s->e->mem_tbps = x;
    return 0;
}

/* Parse text[0..len) alone (no built-in entries): 0, or -1 with err. */
static int parse_table(tp_device_table *dt, const char *text, size_t len, char *err, size_t errn)
{
    pctx c = {text, 0, err, errn};
    entry_state s = {0};
    const char *p = text, *end = text + len;
    while (p < end) {
        c.line++;
        const char *ls = p, *le = memchr(p, '\n', (size_t)(end - p));
        le = le ? le : end;
        p = le < end ? le + 1 : end;
        if (le - ls > MAX_LINE)
            return fail(&c, ls, "a line longer than %d bytes", MAX_LINE);
        for (const char *q = ls; q < le; q++)
            if (((unsigned char)*q < 0x20 && *q != '\t' && !(*q == '\r' && q + 1 == le)) || *q == 0x7f)
                return fail(&c, q, "a control character (byte 0x%02x): not a device table", (unsigned char)*q);
        /* a comment: '#' at the start or after a space */
        for (const char *q = ls; q < le; q++)
            if (*q == '#' && (q == ls || q[-1] == ' ' || q[-1] == '\t')) {
                le = q;
                break;
            }
        while (le > ls && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
            le--;
        const char *a = tp_skip_blanks(ls, le);
        if (a == le)
            continue;
        if (parse_line(&c, dt, &s, a, le) != 0)
            return -1;
    }
    return entry_finish(&c, &s);
}

void tp_device_table_free(tp_device_table *dt)
{
    for (size_t i = 0; i < dt->n; i++)
        entry_free(&dt->e[i]);
    free(dt->e);
    memset(dt, 0, sizeof *dt);
}

/* The built-in entries after dt's own, but for those whose id dt has. */
static void add_builtin(tp_device_table *dt)
{
    tp_device_table b = {0};
    char ierr[256];
    if (parse_table(&b, tp_devices_builtin, strlen(tp_devices_builtin), ierr, sizeof ierr) != 0) {
        fprintf(stderr, "tracepress: built-in device table: %s\n", ierr); /* a build error, caught by the tests */
        abort();
    }
    size_t nuser = dt->n;
    dt->e = tp_xrealloc(dt->e, (nuser + b.n + 1) * sizeof *dt->e);
    for (size_t i = 0; i < b.n; i++) {
        bool replaced = false;
        for (size_t j = 0; j < nuser; j++)
            replaced |= strcmp(dt->e[j].id, b.e[i].id) == 0;
        if (replaced)
            entry_free(&b.e[i]);
        else
            dt->e[dt->n++] = b.e[i];
    }
    free(b.e);
}

int tp_device_table_load(tp_device_table *dt, const char *user_file, char *err, size_t errn)
{
    memset(dt, 0, sizeof *dt);
    if (user_file) {
        tp_buf b = {0};
        int rc = tp_read_small_file(user_file, 16u << 20, "a device table", &b, err, errn);
        if (rc == 0)
            rc = parse_table(dt, b.data ? b.data : "", b.len, err, errn);
        tp_buf_free(&b);
        if (rc) {
            tp_device_table_free(dt);
            return -1;
        }
        for (size_t i = 0; i < dt->n; i++)
            dt->e[i].user = true;
    }
    add_builtin(dt);
    return 0;
}

int tp_device_table_for_command(const char *file, tp_device_table *dt)
{
    tp_err e = {0};
    if (tp_device_table_load(dt, file, e.msg, sizeof e.msg) == 0)
        return 0;
    tp_report_error(file, &e);
    return TP_EXIT_INPUT;
}

static bool rule_matches(const tp_device_match *m, const char *name, const tp_device_info *d)
{
    if (fnmatch(m->glob, name, FNM_CASEFOLD) != 0)
        return false;
    if (m->mem_hi > 0) {
        double gib = (double)d->memory_bytes / (1024.0 * 1024.0 * 1024.0);
        if (d->memory_bytes <= 0 || gib < m->mem_lo || gib > m->mem_hi)
            return false;
    }
    if (m->cores_hi > 0 && (d->cores <= 0 || d->cores < m->cores_lo || d->cores > m->cores_hi))
        return false;
    return true;
}

/* The first entry of dt with a rule matching this device, or NULL. */
static const tp_device_entry *lookup_entry(const tp_device_table *dt, const tp_trace *t, const tp_device_info *d)
{
    const char *name = d->name && t ? tp_str_get(t, d->name) : NULL;
    if (!name || !*name)
        return NULL;
    for (size_t i = 0; i < dt->n; i++)
        for (size_t k = 0; k < dt->e[i].nmatch; k++)
            if (rule_matches(&dt->e[i].match[k], name, d))
                return &dt->e[i];
    return NULL;
}

/* The built-in table, parsed once for callers that pass NULL (threads of a
 * batch may resolve at once). */
static tp_device_table builtin_table;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static void builtin_init(void) { add_builtin(&builtin_table); }

void tp_device_resolve(const tp_device_table *dt, const tp_trace *t, const tp_device_info *d, tp_device_peaks *out)
{
    memset(out, 0, sizeof *out);
    if (!dt) {
        pthread_once(&builtin_once, builtin_init);
        dt = &builtin_table;
    }
    const char *name = d->name && t ? tp_str_get(t, d->name) : "";
    snprintf(out->trace_name, sizeof out->trace_name, "%s", name ? name : "");
    const tp_device_entry *e = lookup_entry(dt, t, d);
    if (e) {
        out->known = true;
        snprintf(out->label, sizeof out->label, "%s", e->label);
        snprintf(out->id, sizeof out->id, "%s", e->id);
        snprintf(out->source, sizeof out->source, "%s", e->source ? e->source : "");
        memcpy(out->tflops, e->tflops, sizeof out->tflops);
        out->mem_tbps = e->mem_tbps;
        return;
    }
    snprintf(out->label, sizeof out->label, "%s", out->trace_name);
    if (d->peak_tflops > 0 || d->peak_mem_gbps > 0) {
        out->known = true;
        snprintf(out->source, sizeof out->source,
                 "the trace's own device plane (its peak TFLOPS taken as matrix_bf16)");
        out->tflops[TP_PEAK_MATRIX_BF16] = d->peak_tflops > 0 ? d->peak_tflops : 0;
        out->mem_tbps = d->peak_mem_gbps > 0 ? d->peak_mem_gbps / 1000.0 : 0;
    }
}

const char *tp_device_unknown_hint(void)
{
    return "the device is not in the table of device peaks: add it with --device-spec FILE, a file of entries "
           "(device ID / match \"NAME GLOB\" / source TAG URL DOCUMENT / matrix_bf16 TFLOPS / memory_tbps TB/s ...; "
           "docs/REPORT.md \"Device peaks\")";
}
