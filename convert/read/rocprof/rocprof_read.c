/* rocprof_read.c: the rocprofv3 JSON reader (`rocprofv3 --output-format
 * json`, the "rocprofiler-sdk-tool" document).  The document is
 * {"rocprofiler-sdk-tool": [entry, ...]}, one entry per profiled process:
 * metadata, agents, strings (operation names per record kind), kernel
 * symbols, and buffer_records {kind: [record, ...]}.  The entry's tables
 * are parsed whole (small); records one at a time into a reused arena, so
 * memory stays about the file's size plus the model. */
#include "convert/read/rocprof/rocprof.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

static int rocprof_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    return memmem(head, n, "\"rocprofiler-sdk-tool\"", 22) ? 95 : 0;
}

static int bad(rp_ctx *c, const char *p, const char *what)
{
    return tp_fail(c->err, (uint64_t)(p - c->origin), "%s", what);
}

/* A key at p ('"'): its raw text; *p past the ':' and whitespace. */
static int read_key(rp_ctx *c, const char **p, const char *end, const char **k, size_t *klen)
{
    bool esc;
    const char *why = NULL, *next;
    if (*p >= end || **p != '"' || tp_json_string(*p, end, k, klen, &esc, &next, &why) != TP_JL_OK)
        return bad(c, *p, "expected an object key");
    next = tp_json_ws(next, end);
    if (next >= end || *next != ':')
        return bad(c, next, "expected ':' after an object key");
    *p = tp_json_ws(next + 1, end);
    return 0;
}

static bool key_is(const char *k, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(k, s, n) == 0;
}

/* After a member's value: ',' (1, more) or '}' / ']' (0, done). */
static int after_member(rp_ctx *c, const char **p, const char *end, char close)
{
    *p = tp_json_ws(*p, end);
    if (*p < end && **p == ',') {
        *p = tp_json_ws(*p + 1, end);
        return 1;
    }
    if (*p < end && **p == close) {
        *p = tp_json_ws(*p + 1, end);
        return 0;
    }
    return bad(c, *p, *p >= end ? "the document ends early (truncated file?)" : "expected ',' or the container's end");
}

static int skip_value(rp_ctx *c, const char **p, const char *end)
{
    const char *why = NULL, *next;
    int r = tp_json_skip(*p, end, &next, &why);
    if (r != TP_JL_OK)
        return bad(c, *p, r == TP_JL_MORE ? "the document ends early (truncated file?)" : why ? why : "bad JSON value");
    *p = next;
    return 0;
}

/* buffer_records: {kind: [record, ...], ...} */
static int read_buffer_records(rp_ctx *c, const char *p, const char *end)
{
    if (p >= end || *p != '{')
        return bad(c, p, "buffer_records is not an object");
    p = tp_json_ws(p + 1, end);
    if (p < end && *p == '}')
        return 0;
    tp_jdoc d;
    tp_jdoc_init(&d);
    int rc = 0;
    for (;;) {
        const char *k;
        size_t kl;
        if ((rc = read_key(c, &p, end, &k, &kl)) < 0)
            break;
        if (p >= end || *p != '[') {
            if ((rc = skip_value(c, &p, end)) < 0)
                break;
        } else {
            p = tp_json_ws(p + 1, end);
            if (p < end && *p == ']')
                p++;
            else
                for (;;) {
                    const tp_jv *rec;
                    if ((rc = tp_jv_parse(&d, c->origin, p, end, &rec, &p, c->err)) < 0)
                        goto out;
                    if (d.bad_escapes)
                        tp_warn(c->t, "invalid JSON escapes replaced by U+FFFD", d.bad_escapes);
                    if ((rc = rp_record(c, k, kl, rec)) < 0)
                        goto out;
                    tp_jdoc_reset(&d);
                    if ((rc = after_member(c, &p, end, ']')) < 0)
                        goto out;
                    if (rc == 0)
                        break;
                }
        }
        if ((rc = after_member(c, &p, end, '}')) <= 0)
            break;
    }
out:
    tp_jdoc_free(&d);
    return rc < 0 ? -1 : 0;
}

/* callback_records {kind: [record, ...]}: the same calls the buffer records
 * hold, seen from the callbacks; not read, their records counted. */
static int count_callback_records(rp_ctx *c, const char *p, const char *end)
{
    if (p >= end || *p != '{')
        return skip_value(c, &p, end);
    p = tp_json_ws(p + 1, end);
    uint64_t n = 0;
    while (p < end && *p != '}') {
        const char *k;
        size_t kl;
        if (read_key(c, &p, end, &k, &kl) < 0)
            return -1;
        if (p < end && *p == '[') {
            p = tp_json_ws(p + 1, end);
            while (p < end && *p != ']') {
                if (skip_value(c, &p, end) < 0)
                    return -1;
                n++;
                p = tp_json_ws(p, end);
                if (p < end && *p == ',')
                    p = tp_json_ws(p + 1, end);
            }
            p++;
        } else if (skip_value(c, &p, end) < 0)
            return -1;
        p = tp_json_ws(p, end);
        if (p < end && *p == ',')
            p = tp_json_ws(p + 1, end);
    }
    if (n)
        tp_warn(c->t, "rocprof: callback records not read (buffer records hold the same activity)", n);
    return 0;
}

/* One process entry: its tables first (they name what the records hold),
 * wherever they are in the entry, then its records. */
static int read_entry(rp_ctx *c, const char **pp, const char *end)
{
    const char *p = *pp;
    if (p >= end || *p != '{')
        return bad(c, p, "a rocprofiler-sdk-tool entry is not an object");
    const char *at[5] = {0}; /* metadata, agents, strings, kernel_symbols, buffer_records */
    static const char *const keys[5] = {"metadata", "agents", "strings", "kernel_symbols", "buffer_records"};
    p = tp_json_ws(p + 1, end);
    if (p < end && *p == '}')
        p = tp_json_ws(p + 1, end);
    else
        for (;;) {
            const char *k;
            size_t kl;
            if (read_key(c, &p, end, &k, &kl) < 0)
                return -1;
            for (int i = 0; i < 5; i++)
                if (key_is(k, kl, keys[i]) && !at[i])
                    at[i] = p;
            if (key_is(k, kl, "callback_records") && count_callback_records(c, p, end) < 0)
                return -1;
            if (skip_value(c, &p, end) < 0)
                return -1;
            int r = after_member(c, &p, end, '}');
            if (r < 0)
                return -1;
            if (r == 0)
                break;
        }
    *pp = p;
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *v[4] = {0};
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++)
        if (at[i]) {
            const char *next;
            rc = tp_jv_parse(&d, c->origin, at[i], end, &v[i], &next, c->err);
        }
    int64_t pid = 0;
    if (rc == 0 && !(v[0] && tp_jv_int(tp_jv_get(v[0], "pid"), &pid) == 0)) {
        tp_warn(c->t, "rocprof: entries without metadata.pid (pid 0)", 1);
        pid = 0;
    }
    c->pid = pid;
    c->strings = v[2];
    if (rc == 0) {
        /* the process's name: its command line's first two words */
        uint32_t pr = tp_process_get(c->t, pid);
        const tp_jv *cmd = v[0] ? tp_jv_get(v[0], "command") : NULL;
        if (cmd && cmd->type == TP_JV_ARRAY && cmd->n && !c->t->processes[pr].name) {
            tp_buf b = {0};
            for (uint32_t i = 0; i < cmd->n && i < 3; i++) {
                size_t l;
                const char *s = tp_jv_str(&cmd->items[i], &l);
                if (!s)
                    continue;
                const char *base = i == 0 ? memrchr(s, '/', l) : NULL;
                if (base) {
                    l -= (size_t)(base + 1 - s);
                    s = base + 1;
                }
                if (b.len)
                    tp_buf_putc(&b, ' ');
                tp_buf_put(&b, s, l < 200 ? l : 200);
            }
            c->t->processes[pr].name = tp_intern(c->t, b.data ? b.data : "", b.len);
            tp_buf_free(&b);
        }
        rc = rp_entry_tables(c, v[1], v[3]);
    }
    if (rc == 0 && at[4])
        rc = read_buffer_records(c, at[4], end);
    if (rc == 0)
        rp_entry_done(c);
    tp_jdoc_free(&d);
    return rc;
}

static int rocprof_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    t->format = "rocprof";
    t->strict = o->strict;
    t->keep_args = o->keep_args;
    size_t len = 0;
    char *buf = tp_input_slurp(in, &len, RP_MAX_BYTES, err);
    if (!buf)
        return -1;
    rp_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.o = o;
    c.err = err;
    c.origin = buf;
    c.cat_kernel = tp_intern_cstr(t, "kernel");
    c.cat_memcpy = tp_intern_cstr(t, "gpu_memcpy");
    c.cat_runtime = tp_intern_cstr(t, "cuda_runtime");
    c.cat_driver = tp_intern_cstr(t, "cuda_driver");
    c.cat_marker = tp_intern_cstr(t, "user_annotation");
    const char *p = buf, *end = buf + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    p = tp_json_ws(p, end);
    int rc = 0, found = 0;
    if (p >= end || *p != '{')
        rc = bad(&c, p, "expected a JSON object (a rocprofv3 JSON document)");
    else
        p = tp_json_ws(p + 1, end);
    while (rc == 0 && p < end && *p != '}') {
        const char *k;
        size_t kl;
        if ((rc = read_key(&c, &p, end, &k, &kl)) < 0)
            break;
        if (key_is(k, kl, "rocprofiler-sdk-tool") && p < end && *p == '[') {
            found++;
            /* count the entries first: with more than one, device tids carry the pid */
            const char *q = tp_json_ws(p + 1, end);
            size_t n = 0;
            while (q < end && *q == '{') {
                const char *why, *next;
                if (tp_json_skip(q, end, &next, &why) != TP_JL_OK)
                    break;
                n++;
                q = tp_json_ws(next, end);
                if (q < end && *q == ',')
                    q = tp_json_ws(q + 1, end);
            }
            c.many_processes = n > 1;
            p = tp_json_ws(p + 1, end);
            if (p < end && *p == ']') {
                p = tp_json_ws(p + 1, end);
            } else
                for (;;) {
                    if ((rc = read_entry(&c, &p, end)) < 0)
                        break;
                    int r = after_member(&c, &p, end, ']');
                    if (r <= 0) {
                        rc = r < 0 ? -1 : 0;
                        break;
                    }
                }
        } else if ((rc = skip_value(&c, &p, end)) < 0)
            break;
        if (rc == 0) {
            p = tp_json_ws(p, end);
            if (p < end && *p == ',')
                p = tp_json_ws(p + 1, end);
            else if (p < end && *p != '}')
                rc = bad(&c, p, "expected ',' or '}' after a top-level member");
        }
    }
    if (rc == 0 && p >= end)
        rc = bad(&c, p, "the document ends early (truncated file?)");
    if (rc == 0 && !found)
        rc = bad(&c, buf, "no \"rocprofiler-sdk-tool\" list: not a rocprofv3 JSON document");
    if (rc == 0 && tp_json_ws(p + 1, end) != end)
        rc = bad(&c, p + 1, "data after the document's end");
    t->events_in += t->nevents;
    tp_i64map_free(&c.kernel_names);
    tp_i64map_free(&c.agents);
    tp_i64map_free(&c.op_names);
    tp_i64map_free(&c.marker_names);
    tp_i64map_free(&c.launches);
    free(c.pending);
    free(c.pending_corr);
    free(c.kind_ops);
    tp_argb_free(&c.ab);
    free(buf);
    return rc < 0 ? -1 : 0;
}

const tp_format tp_format_rocprof = {
    .name = "rocprof",
    .description = "rocprofv3 JSON (rocprofiler-sdk-tool): kernel dispatches, memory copies, HIP/HSA/RCCL calls, ROCTx",
    .extensions = "*_results.json",
    .probe = rocprof_probe,
    .read = rocprof_read,
    .caps = 0,
    .options = NULL,
};
