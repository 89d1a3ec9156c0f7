/* dvdt_text.c: dv/dt v0.1 "ostream" text mode.  Each call is a block of
 *   [dv/dt] <call>                      (block header)
 *   [dv/dt] <call> <key> <values...>    (one line per field)
 * We rebuild the cjson record of each block (the same keys and types) and
 * hand it to dv_run_call, so both modes share one mapping.  Lines without
 * the prefix are the program's own output and are skipped, except inside
 * "sources[k] <<" ... "sources[k] >>" brackets (program text). */
#include "convert/read/dvdt/dvdt.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <string.h>

typedef struct block {
    tp_buf json;       /* "{\"call\":...,..." while open */
    char call[64];
    size_t call_len;
    uint64_t off;      /* byte offset of the block's first line */
    const char *t0, *t1;
    size_t t0_len, t1_len;
    bool open;
    int nsources;
    tp_buf sources;    /* "\"0\":\"...\"" members */
} block;

static bool in_list(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return true;
    return false;
}

static const char *const ptr_keys[] = {"context", "device", "queue", "kernel", "program", "buffer", "event",
                                       "errcode_ret", "host_ptr", "ptr", "strings", "lengths", "pfn_notify",
                                       "user_data", "arg_value_ptr", "binaries", "binary_status", "kernels",
                                       "num_kernels_ret_ptr", NULL};
static const char *const text_keys[] = {"name", "options", "arg_value", NULL};
static const char *const size_lists[] = {"gws", "lws", "gwo", NULL};
static const char *const ptr_lists[] = {"event_wait_list", "device_list", NULL};

static bool is_int_token(const char *s, size_t n)
{
    size_t i = (n && s[0] == '-') ? 1 : 0;
    if (i == n || n - i > 19)
        return false;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static void put_token(tp_buf *b, const char *s, size_t n, bool numeric_ok)
{
    if (numeric_ok && is_int_token(s, n))
        tp_buf_put(b, s, n);
    else
        tp_json_put_string(b, s, n, NULL);
}

/* Space-separated tokens of v[0..n) as a JSON array. */
static void put_list(tp_buf *b, const char *v, size_t n, bool numbers)
{
    tp_buf_putc(b, '[');
    size_t i = 0;
    int k = 0;
    while (i < n) {
        while (i < n && v[i] == ' ')
            i++;
        size_t s = i;
        while (i < n && v[i] != ' ')
            i++;
        if (i > s) {
            if (k++)
                tp_buf_putc(b, ',');
            put_token(b, v + s, i - s, numbers);
        }
    }
    tp_buf_putc(b, ']');
}

static void put_key(block *bk, const char *k, size_t n)
{
    tp_buf_putc(&bk->json, ',');
    tp_json_put_string(&bk->json, k, n, NULL);
    tp_buf_putc(&bk->json, ':');
}

static int flush(dv_run *r, block *bk, tp_jdoc *d, tp_err *err)
{
    if (!bk->open)
        return 0;
    bk->open = false;
    if (bk->t0 || bk->t1) {
        put_key(bk, "timestamp", 9);
        tp_buf_puts(&bk->json, "{\"start\":");
        if (bk->t0)
            tp_json_put_string(&bk->json, bk->t0, bk->t0_len, NULL);
        else
            tp_buf_puts(&bk->json, "null");
        tp_buf_puts(&bk->json, ",\"end\":");
        if (bk->t1)
            tp_json_put_string(&bk->json, bk->t1, bk->t1_len, NULL);
        else
            tp_buf_puts(&bk->json, "null");
        tp_buf_putc(&bk->json, '}');
    }
    if (bk->nsources) {
        put_key(bk, "source", 6);
        tp_buf_putc(&bk->json, '{');
        tp_buf_put(&bk->json, bk->sources.data, bk->sources.len);
        tp_buf_putc(&bk->json, '}');
    }
    tp_buf_putc(&bk->json, '}');
    const tp_jv *rec;
    tp_jdoc_reset(d);
    tp_err e2 = {0};
    if (tp_jv_parse_all(d, bk->json.data, bk->json.len, &rec, &e2))
        return tp_fail(err, bk->off, "cannot rebuild the record of this text block: %s", e2.msg);
    return dv_run_call(r, rec, bk->off, err);
}

static void start(block *bk, const char *call, size_t n, uint64_t off)
{
    bk->open = true;
    bk->off = off;
    bk->t0 = bk->t1 = NULL;
    bk->nsources = 0;
    bk->sources.len = 0;
    bk->call_len = n < sizeof bk->call ? n : sizeof bk->call - 1;
    memcpy(bk->call, call, bk->call_len);
    bk->json.len = 0;
    tp_buf_puts(&bk->json, "{\"call\":");
    tp_json_put_string(&bk->json, call, n, NULL);
}

int dv_text_read(dv_run *r, const char *buf, size_t len, tp_err *err)
{
    const char *end = buf + len, *p = buf;
    block bk = {0};
    tp_jdoc d;
    tp_jdoc_init(&d);
    int rc = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *next = nl ? nl + 1 : end;
        const char *line = p;
        size_t ll = (size_t)(le - line);
        if (ll && line[ll - 1] == '\r')
            ll--;
        p = next;
        if (ll < 9 || memcmp(line, "[dv/dt] ", 8) != 0)
            continue; /* the program's own output */
        const char *rest = line + 8, *lend = line + ll;
        const char *sp = memchr(rest, ' ', (size_t)(lend - rest));
        const char *call = rest;
        size_t cl = (size_t)((sp ? sp : lend) - rest);
        if (!sp) { /* block header */
            if (flush(r, &bk, &d, err))
                goto out;
            start(&bk, call, cl, (uint64_t)(line - buf));
            continue;
        }
        if (!bk.open || bk.call_len != cl || memcmp(bk.call, call, cl) != 0) {
            /* a field line without its header: start the block here */
            if (flush(r, &bk, &d, err))
                goto out;
            start(&bk, call, cl, (uint64_t)(line - buf));
        }
        const char *key = sp + 1;
        const char *ksp = memchr(key, ' ', (size_t)(lend - key));
        size_t kl = (size_t)((ksp ? ksp : lend) - key);
        const char *val = ksp ? ksp + 1 : lend;
        size_t vl = (size_t)(lend - val);
        if (kl > 8 && memcmp(key, "sources[", 8) == 0 && vl == 2 && memcmp(val, "<<", 2) == 0) {
            /* raw program text up to the matching ">>" line */
            char closing[160];
            int cn = snprintf(closing, sizeof closing, "\n[dv/dt] %.*s %.*s >>", (int)(cl > 64 ? 64 : cl), call,
                              (int)(kl > 64 ? 64 : kl), key);
            const char *text = p;
            const char *c = memmem(text > buf ? text - 1 : text, (size_t)(end - (text > buf ? text - 1 : text)),
                                   closing, (size_t)cn);
            if (!c) {
                tp_fail(err, (uint64_t)(line - buf), "program source block has no closing '%.*s %.*s >>' line",
                        (int)cl, call, (int)kl, key);
                goto out;
            }
            /* c is the newline std::endl wrote after the text: not part of it */
            const char *tend = c < text ? text : c;
            if (bk.nsources++)
                tp_buf_putc(&bk.sources, ',');
            tp_json_put_string(&bk.sources, key + 8, kl - 9, NULL); /* "k" of sources[k] */
            tp_buf_putc(&bk.sources, ':');
            tp_json_put_string(&bk.sources, text, (size_t)(tend - text), NULL);
            const char *cl_end = memchr(c + 1, '\n', (size_t)(end - (c + 1)));
            p = cl_end ? cl_end + 1 : end;
            continue;
        }
        if (kl == 6 && memcmp(key, "output", 6) == 0 && vl > 22 && memcmp(val, "profiling info error:", 21) == 0) {
            const char *num = val + 21;
            while (num < lend && *num == ' ')
                num++;
            put_key(&bk, "output profiling_error", 22);
            put_token(&bk.json, num, (size_t)(lend - num), true);
            continue;
        }
        if (kl == 5 && memcmp(key, "start", 5) == 0) {
            bk.t0 = val;
            bk.t0_len = vl;
            continue;
        }
        if (kl == 3 && memcmp(key, "end", 3) == 0) {
            bk.t1 = val;
            bk.t1_len = vl;
            continue;
        }
        put_key(&bk, key, kl);
        if (kl == 9 && memcmp(key, "profiling", 9) == 0) {
            static const char *const names[4] = {"queued", "submit", "start", "end"};
            tp_buf_putc(&bk.json, '{');
            size_t i = 0;
            for (int k = 0; k < 4; k++) {
                while (i < vl && val[i] == ' ')
                    i++;
                size_t s = i;
                while (i < vl && val[i] != ' ')
                    i++;
                tp_buf_printf(&bk.json, "%s\"%s\":", k ? "," : "", names[k]);
                if (i > s)
                    put_token(&bk.json, val + s, i - s, true);
                else
                    tp_buf_puts(&bk.json, "null");
            }
            tp_buf_putc(&bk.json, '}');
        } else if (in_list(key, kl, size_lists))
            put_list(&bk.json, val, vl, true);
        else if (in_list(key, kl, ptr_lists))
            put_list(&bk.json, val, vl, false);
        else if (in_list(key, kl, ptr_keys) || in_list(key, kl, text_keys))
            tp_json_put_string(&bk.json, val, vl, NULL);
        else
            put_token(&bk.json, val, vl, true);
    }
    if (flush(r, &bk, &d, err))
        goto out;
    rc = 0;
out:
    tp_buf_free(&bk.json);
    tp_buf_free(&bk.sources);
    tp_jdoc_free(&d);
    return rc;
}
