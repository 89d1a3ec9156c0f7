/* gen_realshaped.c: a large trace made of a real one, for benchmarks that
 * look like users' files.
 *
 *   gen_realshaped [--size SIZE | --copies N] [--sample FILE] [--gap-us N]
 *                  [--gzip] [--summary FILE] [-q] OUT
 *
 * Reads a real Kineto / PyTorch-profiler Chrome trace (plain or gzip; default
 * the H100 Qwen trace in ../shared/external/tracelens/) and writes its events
 * again and again, each copy shifted in time to start after the previous
 * one's end, until the output reaches SIZE bytes of uncompressed JSON (K, M,
 * G suffixes: powers of 1000; Ki, Mi, Gi: 1024) or N copies.  Copy 0 is the
 * sample's text as it is; in copy k:
 *  - "ts" at the top of each event grows by k * period (the sample's span
 *    plus --gap-us, default 100 us; the integer part is added to, the
 *    fraction's text kept, so 3-decimal ns stay exact);
 *  - every "ProfilerStep#N" in a string becomes #(N + k * steps), steps
 *    being the sample's range of step numbers, so iterations continue;
 *  - the ids that link events (an event's own "id", as flows s/t/f and
 *    async events have, "bind_id", "correlation", "External id", "Python
 *    id", "Python parent id", "Record function id", "Ev Idx", "Sequence
 *    number"; non-negative integers) grow by k * (the largest such id + 1):
 *    one stride for all, so a flow's id stays equal to its correlation and
 *    every copy links to itself only.
 * Metadata events ("ph": "M") are written once (copy 0), and so is all text
 * around the event array (deviceProperties, distributedInfo, ...).  Each
 * event's text is otherwise copied byte for byte: the work is done once on
 * the sample (a scanner that respects JSON strings finds the spans to
 * change), then each copy is memcpy plus a few printed integers.
 * The same arguments give the same bytes (gzip header without a time). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DEFAULT_SAMPLE "../shared/external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_realshaped: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* ------------------------------------------------------------ the sample */

static char *read_all(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb"); /* plain files read through as they are */
    if (!f)
        die("cannot open '%s': %s", path, strerror(errno));
    gzbuffer(f, 1 << 20);
    size_t cap = 1 << 24, n = 0;
    char *d = xrealloc(NULL, cap);
    for (;;) {
        if (cap - n < (1 << 20))
            d = xrealloc(d, cap *= 2);
        int r = gzread(f, d + n, (unsigned)(cap - n - 1));
        if (r < 0)
            die("cannot read '%s'", path);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    gzclose(f);
    d[n] = 0;
    *len = n;
    return d;
}

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p at '"': just after the closing quote. */
static const char *str_end(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    die("unterminated string");
    return e;
}

/* The end of the value at p (objects and arrays by bracket depth, strings
 * skipped whole so brackets inside them do not count). */
static const char *value_end(const char *p, const char *e)
{
    if (*p == '"')
        return str_end(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; p < e; p++) {
            if (*p == '"')
                p = str_end(p, e) - 1;
            else if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
        }
        die("unterminated object or array");
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
        p++;
    return p;
}

enum { P_TS, P_TS_D, P_ID, P_STEP };

typedef struct {
    size_t off; /* into the sample text */
    uint32_t len;
    uint8_t kind;
    unsigned long long v; /* P_TS: integer part; P_ID, P_STEP: the value */
    double d;             /* P_TS_D: the whole ts */
    uint32_t int_len;     /* P_TS: digits of the integer part (the rest is kept) */
} patch;

typedef struct {
    size_t start, end;
    size_t p0, p1; /* its patches */
    bool meta;
} event;

static patch *patches;
static size_t npatches, cap_patches;
static event *events;
static size_t nevents, cap_events;
static unsigned long long max_id, min_step = ~0ULL, max_step;
static bool have_step;
static double min_ts = INFINITY, max_end = -INFINITY;

static patch *add_patch(void)
{
    if (npatches == cap_patches)
        patches = xrealloc(patches, (cap_patches = cap_patches ? cap_patches * 2 : 4096) * sizeof *patches);
    patch *p = &patches[npatches++];
    memset(p, 0, sizeof *p);
    return p;
}

static bool key_is(const char *k, size_t n, const char *name)
{
    return strlen(name) == n && !memcmp(k, name, n);
}

static bool is_id_key(const char *k, size_t n, int depth)
{
    static const char *const keys[] = {"bind_id",        "correlation", "External id", "Python id", "Python parent id",
                                       "Record function id", "Ev Idx", "Sequence number"};
    if (depth == 1 && key_is(k, n, "id"))
        return true;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (key_is(k, n, keys[i]))
            return true;
    return false;
}

/* A non-negative integer of at most 18 digits. */
static bool plain_uint(const char *p, size_t n, unsigned long long *v)
{
    if (n == 0 || n > 18)
        return false;
    unsigned long long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        x = x * 10 + (unsigned)(p[i] - '0');
    }
    *v = x;
    return true;
}

/* Steps named in a string value: the digits after each "ProfilerStep#". */
static void scan_string(const char *T, const char *s, const char *e)
{
    static const char tag[] = "ProfilerStep#";
    for (const char *p = s; (p = memmem(p, (size_t)(e - p), tag, sizeof tag - 1)); ) {
        p += sizeof tag - 1;
        const char *d = p;
        while (d < e && isdigit((unsigned char)*d))
            d++;
        unsigned long long v;
        if (plain_uint(p, (size_t)(d - p), &v)) {
            patch *pt = add_patch();
            pt->off = (size_t)(p - T);
            pt->len = (uint32_t)(d - p);
            pt->kind = P_STEP;
            pt->v = v;
            have_step = true;
            if (v < min_step)
                min_step = v;
            if (v > max_step)
                max_step = v;
        }
        p = d;
    }
}

typedef struct {
    bool meta, has_ts;
    double ts, dur;
} ev_info;

/* Walks the object at p ('{') and records what copies change. */
static const char *scan_object(const char *T, const char *p, const char *e, int depth, ev_info *ei)
{
    p = ws(p + 1, e);
    while (p < e && *p != '}') {
        if (*p != '"')
            die("expected a key at byte %zu", (size_t)(p - T));
        const char *k = p + 1, *ke = str_end(p, e);
        size_t kn = (size_t)(ke - 1 - k);
        p = ws(ke, e);
        if (p >= e || *p != ':')
            die("expected ':' at byte %zu", (size_t)(p - T));
        p = ws(p + 1, e);
        const char *v = p, *ve;
        if (*v == '{') {
            ve = scan_object(T, v, e, depth + 1, ei);
        } else if (*v == '[') {
            ve = value_end(v, e);
            scan_string(T, v, ve); /* step names in arrays of strings too */
        } else if (*v == '"') {
            ve = str_end(v, e);
            if (depth == 1 && key_is(k, kn, "ph") && ve - v >= 3 && v[1] == 'M' && v[2] == '"')
                ei->meta = true;
            scan_string(T, v + 1, ve - 1);
        } else {
            ve = value_end(v, e);
            size_t n = (size_t)(ve - v);
            unsigned long long x;
            if (depth == 1 && key_is(k, kn, "ts")) {
                const char *dot = memchr(v, '.', n);
                size_t il = dot ? (size_t)(dot - v) : n;
                bool frac_ok = true;
                for (size_t i = il + 1; dot && i < n; i++)
                    frac_ok &= isdigit((unsigned char)v[i]) != 0;
                patch *pt = add_patch();
                pt->off = (size_t)(v - T);
                pt->len = (uint32_t)n;
                ei->ts = strtod(v, NULL);
                ei->has_ts = true;
                if (frac_ok && plain_uint(v, il, &x)) {
                    pt->kind = P_TS;
                    pt->v = x;
                    pt->int_len = (uint32_t)il;
                } else {
                    pt->kind = P_TS_D;
                    pt->d = ei->ts;
                }
            } else if (depth == 1 && key_is(k, kn, "dur")) {
                ei->dur = strtod(v, NULL);
            } else if (is_id_key(k, kn, depth) && plain_uint(v, n, &x)) {
                patch *pt = add_patch();
                pt->off = (size_t)(v - T);
                pt->len = (uint32_t)n;
                pt->kind = P_ID;
                pt->v = x;
                if (x > max_id)
                    max_id = x;
            }
        }
        p = ws(ve, e);
        if (p < e && *p == ',')
            p = ws(p + 1, e);
    }
    if (p >= e)
        die("unterminated object");
    return p + 1;
}

/* ------------------------------------------------------------ output */

static gzFile gz;
static FILE *plain;
static char *obuf;
static size_t olen, ocap = 8u << 20;
static unsigned long long out_bytes;

static void flush_out(void)
{
    if (!olen)
        return;
    if (gz ? gzwrite(gz, obuf, (unsigned)olen) != (int)olen : fwrite(obuf, 1, olen, plain) != olen)
        die("write failed");
    out_bytes += olen;
    olen = 0;
}

static void put(const char *s, size_t n)
{
    if (ocap - olen < n) {
        flush_out();
        if (n >= ocap) {
            if (gz ? gzwrite(gz, s, (unsigned)n) != (int)n : fwrite(s, 1, n, plain) != n)
                die("write failed");
            out_bytes += n;
            return;
        }
    }
    memcpy(obuf + olen, s, n);
    olen += n;
}

static void put_u(unsigned long long v)
{
    char t[24];
    int i = 24;
    do
        t[--i] = (char)('0' + v % 10);
    while (v /= 10);
    put(t + i, (size_t)(24 - i));
}

static unsigned long long parse_size(const char *s)
{
    char *end;
    double n = strtod(s, &end);
    double m = 1;
    if (!strncmp(end, "Ki", 2) || !strncmp(end, "ki", 2))
        m = 1024;
    else if (*end == 'K' || *end == 'k')
        m = 1e3;
    else if (!strncmp(end, "Mi", 2))
        m = 1048576;
    else if (*end == 'M' || *end == 'm')
        m = 1e6;
    else if (!strncmp(end, "Gi", 2))
        m = 1073741824.0;
    else if (*end == 'G' || *end == 'g')
        m = 1e9;
    else if (*end)
        die("bad size '%s'", s);
    if (n <= 0)
        die("bad size '%s'", s);
    return (unsigned long long)(n * m);
}

static void usage(void)
{
    fputs("usage: gen_realshaped [--size SIZE | --copies N] [--sample FILE] [--gap-us N] [--gzip]\n"
          "                      [--summary FILE] [-q] OUT\n"
          "  default sample: " DEFAULT_SAMPLE "\n",
          stderr);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *sample = DEFAULT_SAMPLE, *out = NULL, *summary = NULL;
    unsigned long long size = 0, copies = 0, gap_us = 100;
    bool gzip = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG() (i + 1 < argc ? argv[++i] : (usage(), ""))
        if (!strcmp(a, "--size"))
            size = parse_size(ARG());
        else if (!strcmp(a, "--copies"))
            copies = strtoull(ARG(), NULL, 10);
        else if (!strcmp(a, "--sample"))
            sample = ARG();
        else if (!strcmp(a, "--gap-us"))
            gap_us = strtoull(ARG(), NULL, 10);
        else if (!strcmp(a, "--gzip"))
            gzip = true;
        else if (!strcmp(a, "--summary"))
            summary = ARG();
        else if (!strcmp(a, "-q"))
            quiet = true;
        else if (a[0] == '-' && a[1])
            usage();
        else if (!out)
            out = a;
        else
            usage();
#undef ARG
    }
    if (!out || (size && copies) || (!size && !copies))
        usage();

    size_t N;
    char *T = read_all(sample, &N);
    const char *e = T + N, *p = ws(T, e), *arr = NULL;
    if (p < e && *p == '[') {
        arr = p;
    } else if (p < e && *p == '{') {
        for (p = ws(p + 1, e); p < e && *p != '}';) {
            const char *k = p + 1, *ke = str_end(p, e);
            p = ws(ke, e);
            if (*p != ':')
                die("expected ':' at byte %zu", (size_t)(p - T));
            p = ws(p + 1, e);
            if (key_is(k, (size_t)(ke - 1 - k), "traceEvents") && *p == '[') {
                arr = p;
                break;
            }
            p = ws(value_end(p, e), e);
            if (*p == ',')
                p = ws(p + 1, e);
        }
    }
    if (!arr)
        die("'%s': no traceEvents array", sample);

    /* the events: their spans, what each copy changes, the sample's span */
    for (p = ws(arr + 1, e); p < e && *p != ']';) {
        if (nevents == cap_events)
            events = xrealloc(events, (cap_events = cap_events ? cap_events * 2 : 4096) * sizeof *events);
        event *ev = &events[nevents++];
        ev->start = (size_t)(p - T);
        ev->p0 = npatches;
        ev_info ei = {0};
        const char *q = *p == '{' ? scan_object(T, p, e, 1, &ei) : value_end(p, e);
        ev->end = (size_t)(q - T);
        ev->p1 = npatches;
        ev->meta = ei.meta;
        if (!ei.meta && ei.has_ts) {
            if (ei.ts < min_ts)
                min_ts = ei.ts;
            double end = ei.ts + (ei.dur > 0 ? ei.dur : 0);
            if (end > max_end)
                max_end = end;
        }
        p = ws(q, e);
        if (p < e && *p == ',')
            p = ws(p + 1, e);
    }
    if (p >= e || nevents == 0)
        die("'%s': empty or unterminated traceEvents", sample);
    size_t last_end = events[nevents - 1].end;
    const char *sep = ",\n";
    size_t sep_len = 2;
    if (nevents > 1) {
        sep = T + events[0].end;
        sep_len = events[1].start - events[0].end;
    }
    unsigned long long period = (min_ts <= max_end ? (unsigned long long)ceil(max_end - min_ts) : 0) + gap_us;
    if (period == 0)
        period = 1;
    unsigned long long id_stride = max_id + 1, step_stride = have_step ? max_step - min_step + 1 : 0;

    size_t nmeta = 0;
    for (size_t i = 0; i < nevents; i++)
        nmeta += events[i].meta;
    if (nmeta == nevents)
        die("'%s': only metadata events", sample);

    obuf = xrealloc(NULL, ocap);
    if (gzip) {
        gz = !strcmp(out, "-") ? gzdopen(1, "wb6") : gzopen(out, "wb6");
        if (!gz)
            die("cannot write '%s'", out);
        gzbuffer(gz, 1 << 20);
    } else {
        plain = !strcmp(out, "-") ? stdout : fopen(out, "wb");
        if (!plain)
            die("cannot write '%s': %s", out, strerror(errno));
    }

    put(T, events[0].start);
    unsigned long long written = 0;
    unsigned long long k = 0, copy_start = 0, last_copy = 0;
    for (; copies ? k < copies : true; k++) {
        /* --size: stop where the next copy would end further past SIZE than
         * stopping falls short of it (ids grow digits, so copies grow) */
        unsigned long long now = out_bytes + olen;
        if (k) {
            last_copy = now - copy_start;
            if (!copies && now + (N - last_end) + last_copy / 2 >= size)
                break;
        }
        copy_start = now;
        for (size_t i = 0; i < nevents; i++) {
            const event *ev = &events[i];
            if (k && ev->meta)
                continue;
            if (written++)
                put(sep, sep_len);
            if (!k) {
                put(T + ev->start, ev->end - ev->start);
                continue;
            }
            size_t at = ev->start;
            for (size_t j = ev->p0; j < ev->p1; j++) {
                const patch *pt = &patches[j];
                put(T + at, pt->off - at);
                at = pt->off + pt->len;
                switch (pt->kind) {
                case P_TS:
                    put_u(pt->v + k * period);
                    put(T + pt->off + pt->int_len, pt->len - pt->int_len);
                    break;
                case P_TS_D: {
                    char t[64];
                    int n = snprintf(t, sizeof t, "%.3f", pt->d + (double)(k * period));
                    put(t, (size_t)n);
                    break;
                }
                case P_ID:
                    put_u(pt->v + k * id_stride);
                    break;
                case P_STEP:
                    put_u(pt->v + k * step_stride);
                    break;
                }
            }
            put(T + at, ev->end - at);
        }
    }
    put(T + last_end, N - last_end);
    flush_out();
    if (gz ? gzclose(gz) != Z_OK : (plain != stdout ? fclose(plain) : fflush(plain)) != 0)
        die("cannot finish '%s'", out);

    if (summary) {
        FILE *f = fopen(summary, "w");
        if (!f)
            die("cannot write '%s'", summary);
        fprintf(f,
                "{\"bytes\": %llu, \"trace_events\": %llu, \"copies\": %llu, \"sample_events\": %zu, "
                "\"metadata_events\": %zu, \"period_us\": %llu, \"id_stride\": %llu, \"step_stride\": %llu}\n",
                out_bytes, written, k, nevents, nmeta, period, id_stride, step_stride);
        fclose(f);
    }
    if (!quiet)
        fprintf(stderr, "gen_realshaped: %s: %llu copies of %s, %llu events, %.1f MB\n", out, k, sample,
                written, (double)out_bytes / 1e6);
    free(obuf);
    free(T);
    free(events);
    free(patches);
    return 0;
}
