/* dvdt_read.c: the dv/dt prof reader (spec: shared/specs/DVDT.md).
 * Finds the call records in any of the four input forms and hands them to
 * dvdt_calls.c one at a time:
 *   cjson array      [ {call}, ... ]            (tmp-dvdt-prof.json)
 *   framed stdout    ... [dv/dt] <<\n[...]\n[dv/dt] >> ...
 *   text (ostream)   [dv/dt] <call> <key> <values> lines (dvdt_text.c)
 *   CK point         {"characteristics_list": [{"run": {"dvdt_prof": [...]}}]}
 * The file is read whole (records are small; the array is parsed one record
 * at a time into a reused arena, so memory stays ~ the file size).  A plain
 * regular file is mapped instead of copied: at 100 MB the copy and the page
 * clearing of a fresh buffer were ~15 % of the reading time. */
#include "convert/read/dvdt/dvdt.h"
#include "convert/codec/json_lex.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DVDT_MAX_BYTES ((uint64_t)16 << 30)

static const char *skip_bom_ws(const char *p, const char *end)
{
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    return tp_json_ws(p, end);
}

static bool has(const unsigned char *h, size_t n, const char *s)
{
    return memmem(h, n, s, strlen(s)) != NULL;
}

static int dvdt_probe(const unsigned char *head, size_t n, const char *path)
{
    const char *p = skip_bom_ws((const char *)head, (const char *)head + n);
    size_t left = n - (size_t)((const unsigned char *)p - head);
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path ? path : "";
    if (left >= 8 && memcmp(p, "[dv/dt] ", 8) == 0)
        return 95; /* framed output or text mode */
    if (left && *p == '{' && has(head, n, "\"characteristics_list\""))
        return 90;
    if (left && *p == '{' && strncmp(base, "ckp-", 4) == 0 && strstr(base, ".json"))
        return 60;
    if (left && *p == '[') {
        /* a call record opens with one of its keys; Chrome events never have these */
        if (has(head, n, "\"call\"") || has(head, n, "\"timestamp\": {") || has(head, n, "\"timestamp\":{") ||
            has(head, n, "\"errcode"))
            return 85;
        if (strstr(base, "dvdt"))
            return 40;
        return 0;
    }
    if (has(head, n, "[dv/dt]"))
        return 80; /* program output with the framing after other lines */
    if (strstr(base, "dvdt"))
        return 30;
    return 0;
}

/* A JSON array of call records starting at p ('['), all into run r. */
static int read_array(dv_run *r, tp_trace *t, bool strict, const char *origin, const char *p, const char *end,
                      const char **after, tp_err *err)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    int rc = -1;
    if (p >= end || *p != '[') {
        tp_fail(err, (uint64_t)(p - origin), "expected '[' (a JSON array of dv/dt call records)");
        goto out;
    }
    p = tp_json_ws(p + 1, end);
    if (p < end && *p == ']') {
        *after = p + 1;
        tp_warn(t, "dvdt: empty call list", 1);
        rc = 0;
        goto out;
    }
    for (;;) {
        const tp_jv *rec;
        if (p >= end) {
            tp_fail(err, (uint64_t)(p - origin), "call list ends without ']' (truncated file?)");
            goto out;
        }
        if (tp_jv_parse(&d, origin, p, end, &rec, &p, err))
            goto out;
        if (d.bad_escapes)
            tp_warn(t, "invalid JSON escapes replaced by U+FFFD", d.bad_escapes);
        if (dv_run_call(r, rec, rec->off, err))
            goto out;
        tp_jdoc_reset(&d);
        if (p >= end) {
            tp_fail(err, (uint64_t)(p - origin), "call list ends without ']' (truncated file?)");
            goto out;
        }
        if (*p == ']') {
            *after = p + 1;
            break;
        }
        if (*p != ',') {
            tp_fail(err, (uint64_t)(p - origin), "expected ',' or ']' after a call record");
            goto out;
        }
        p = tp_json_ws(p + 1, end);
        if (p < end && *p == ']') {
            if (strict) {
                tp_fail(err, (uint64_t)(p - origin), "trailing comma in the call list");
                goto out;
            }
            tp_warn(t, "trailing commas", 1);
            *after = p + 1;
            break;
        }
    }
    rc = 0;
out:
    tp_jdoc_free(&d);
    return rc;
}

static int read_cjson(tp_trace *t, const tp_read_opts *o, const char *buf, size_t len, const char *p,
                      tp_err *err)
{
    dv_run *r = dv_run_begin(t, o, -1);
    const char *after;
    if (read_array(r, t, o->strict, buf, p, buf + len, &after, err)) {
        dv_run_abort(r);
        return -1;
    }
    after = skip_bom_ws(after, buf + len);
    if (after != buf + len) {
        dv_run_abort(r);
        return tp_fail(err, (uint64_t)(after - buf), "unexpected text after the call list");
    }
    return dv_run_end(r, err);
}

/* Line starting exactly with `marker` followed by end of line. */
static const char *find_marker_line(const char *p, const char *end, const char *marker)
{
    size_t ml = strlen(marker);
    while (p < end) {
        const char *m = memmem(p, (size_t)(end - p), marker, ml);
        if (!m)
            return NULL;
        const char *q = m + ml;
        while (q < end && *q == '\r')
            q++;
        bool bol = m == p || m[-1] == '\n';
        if (bol && (q == end || *q == '\n'))
            return m;
        p = m + 1;
    }
    return NULL;
}

static int read_framed(tp_trace *t, const tp_read_opts *o, const char *buf, size_t len, tp_err *err)
{
    const char *end = buf + len;
    int nblocks = 0;
    for (const char *m = find_marker_line(buf, end, "[dv/dt] <<"); m;
         m = find_marker_line(m + 1, end, "[dv/dt] <<"))
        nblocks++;
    const char *p = buf;
    for (int k = 0; k < nblocks; k++) {
        const char *open = find_marker_line(p, end, "[dv/dt] <<");
        const char *json = memchr(open, '\n', (size_t)(end - open));
        json = json ? json + 1 : end;
        const char *close = find_marker_line(json, end, "[dv/dt] >>");
        if (!close)
            return tp_fail(err, (uint64_t)(end - buf), "dv/dt output has '[dv/dt] <<' but no closing '[dv/dt] >>' line (truncated?)");
        dv_run *r = dv_run_begin(t, o, nblocks > 1 ? k : -1);
        const char *after;
        const char *jp = skip_bom_ws(json, close);
        if (read_array(r, t, o->strict, buf, jp, close, &after, err)) {
            dv_run_abort(r);
            return -1;
        }
        after = tp_json_ws(after, close);
        if (after != close) {
            dv_run_abort(r);
            return tp_fail(err, (uint64_t)(after - buf), "unexpected text between the call list and '[dv/dt] >>'");
        }
        if (dv_run_end(r, err))
            return -1;
        p = close + 1;
    }
    return 0;
}

static int read_ckp(tp_trace *t, const tp_read_opts *o, const char *buf, size_t len, tp_err *err)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *root;
    int rc = -1;
    if (tp_jv_parse_all(&d, buf, len, &root, err))
        goto out;
    if (d.bad_escapes)
        tp_warn(t, "invalid JSON escapes replaced by U+FFFD", d.bad_escapes);
    const tp_jv *cl = tp_jv_get(root, "characteristics_list");
    if (!cl || cl->type != TP_JV_ARRAY) {
        tp_fail(err, root->off, "CK point has no \"characteristics_list\" array");
        goto out;
    }
    for (uint32_t i = 0; i < cl->n; i++) {
        const tp_jv *run = tp_jv_get(&cl->items[i], "run");
        const tp_jv *calls = tp_jv_get(run, "dvdt_prof");
        if (!calls)
            tp_warn(t, "dvdt: CK repetition without dvdt_prof", 1);
        else if (calls->type != TP_JV_ARRAY) {
            tp_fail(err, calls->off, "dvdt_prof of repetition %u is not a list of call records", i);
            goto out;
        }
        dv_run *r = dv_run_begin(t, o, (int)i);
        for (uint32_t k = 0; calls && k < calls->n; k++)
            if (dv_run_call(r, &calls->items[k], calls->items[k].off, err)) {
                dv_run_abort(r);
                goto out;
            }
        if (dv_run_ck(r, run, err) || dv_run_end(r, err))
            goto out;
    }
    rc = 0;
out:
    tp_jdoc_free(&d);
    return rc;
}

/* The whole input: mapped (plain regular file) or read into memory. */
static char *whole_input(tp_input *in, size_t *len, bool *mapped, tp_err *err)
{
    *mapped = false;
    const char *path = tp_input_path(in);
    if (!tp_input_is_gzip(in) && path && strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            (uint64_t)st.st_size <= DVDT_MAX_BYTES) {
            void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            close(fd);
            if (p != MAP_FAILED) {
                madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
                *mapped = true;
                *len = (size_t)st.st_size;
                return p;
            }
        } else if (fd >= 0)
            close(fd);
    }
    return tp_input_slurp(in, len, DVDT_MAX_BYTES, err);
}

static int dvdt_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    size_t len;
    bool mapped;
    char *buf = whole_input(in, &len, &mapped, err);
    if (!buf)
        return -1;
    t->format = "dvdt";
    const char *end = buf + len;
    const char *p = skip_bom_ws(buf, end);
    int rc;
    if (p == end)
        rc = tp_fail(err, 0, "empty file");
    else if (*p == '[' && !(end - p >= 8 && memcmp(p, "[dv/dt] ", 8) == 0))
        rc = read_cjson(t, o, buf, len, p, err);
    else if (*p == '{')
        rc = read_ckp(t, o, buf, len, err);
    else if (find_marker_line(buf, end, "[dv/dt] <<"))
        rc = read_framed(t, o, buf, len, err);
    else if (memmem(buf, len, "[dv/dt] cl", 10)) {
        dv_run *r = dv_run_begin(t, o, -1);
        rc = dv_text_read(r, buf, len, err);
        if (rc)
            dv_run_abort(r);
        else
            rc = dv_run_end(r, err);
    } else
        rc = tp_fail(err, 0, "no dv/dt records: neither a JSON call list, a CK point, nor '[dv/dt]' output lines");
    if (mapped)
        munmap(buf, len);
    else
        free(buf);
    return rc;
}

static tp_dvdt_opts cli_opts; /* the command line's (one set per process) */

static int set_with_source(const void **slot, const char *v, const char **why)
{
    (void)v;
    (void)why;
    cli_opts.with_source = true;
    *slot = &cli_opts;
    return 0;
}

static const tp_format_option dvdt_options[] = {
    {"--with-source", NULL, "PlaidML, dv/dt: keep kernel sources and program text in the args", set_with_source,
     false},
    {NULL, NULL, NULL, NULL, false},
};

const tp_format tp_format_dvdt = {
    "dvdt",
    "dv/dt prof OpenCL traces: cjson list, [dv/dt] program output (cjson or text mode), CK points",
    "tmp-dvdt-prof.json ckp-*.json",
    dvdt_probe,
    dvdt_read,
    0,
    dvdt_options,
};
