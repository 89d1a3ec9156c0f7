/* json_value.c: recursive-descent JSON DOM over json_lex, arena-owned. */
#include "convert/codec/json_value.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"

#include <stdlib.h>
#include <string.h>

struct tp_jarena_block {
    tp_jarena_block *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void tp_jdoc_init(tp_jdoc *d) { memset(d, 0, sizeof *d); }

void tp_jdoc_reset(tp_jdoc *d)
{
    /* keep the newest block (the biggest working set of a record usually fits) */
    if (!d->blocks)
        return;
    tp_jarena_block *b = d->blocks->next;
    while (b) {
        tp_jarena_block *n = b->next;
        free(b);
        b = n;
    }
    d->blocks->next = NULL;
    d->blocks->used = 0;
    d->stack_len = 0;
    d->bad_escapes = 0;
}

void tp_jdoc_free(tp_jdoc *d)
{
    tp_jdoc_reset(d);
    free(d->blocks);
    free(d->stack);
    free(d->stack_keys);
    free(d->stack_key_lens);
    memset(d, 0, sizeof *d);
}

static void *arena_alloc(tp_jdoc *d, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    tp_jarena_block *b = d->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = tp_xmalloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        b->next = d->blocks;
        d->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

typedef struct parser {
    tp_jdoc *d;
    const char *origin, *end;
    tp_err *err;
    int max_depth;
} parser;

static int fail_at(parser *ps, const char *p, const char *what)
{
    return tp_fail(ps->err, (uint64_t)(p - ps->origin), "%s", what);
}

static int truncated(parser *ps)
{
    return tp_fail(ps->err, (uint64_t)(ps->end - ps->origin), "JSON ends inside a value (truncated file?)");
}

static void push(parser *ps, const tp_jv *v, const char *key, size_t klen)
{
    tp_jdoc *d = ps->d;
    if (d->stack_len == d->stack_cap) {
        size_t cap = d->stack_cap ? d->stack_cap * 2 : 64;
        d->stack = tp_xrealloc(d->stack, cap * sizeof *d->stack);
        d->stack_keys = tp_xrealloc(d->stack_keys, cap * sizeof *d->stack_keys);
        d->stack_key_lens = tp_xrealloc(d->stack_key_lens, cap * sizeof *d->stack_key_lens);
        d->stack_cap = cap;
    }
    d->stack[d->stack_len] = *v;
    d->stack_keys[d->stack_len] = key;
    d->stack_key_lens[d->stack_len] = klen;
    d->stack_len++;
}

/* Move the members pushed since `base` into the arena. */
static void pop_into(parser *ps, tp_jv *v, size_t base, bool with_keys)
{
    tp_jdoc *d = ps->d;
    size_t n = d->stack_len - base;
    v->n = (uint32_t)n;
    if (n) {
        v->items = arena_alloc(d, n * sizeof *v->items);
        memcpy(v->items, d->stack + base, n * sizeof *v->items);
        if (with_keys) {
            v->keys = arena_alloc(d, n * sizeof *v->keys);
            memcpy(v->keys, d->stack_keys + base, n * sizeof *v->keys);
            v->key_lens = arena_alloc(d, n * sizeof *v->key_lens);
            memcpy(v->key_lens, d->stack_key_lens + base, n * sizeof *v->key_lens);
        }
    }
    d->stack_len = base;
}

/* A string at p (the quote): unescaped text in *s, length *len. */
static int parse_string(parser *ps, const char *p, const char **s, size_t *len, const char **next)
{
    const char *raw, *why = "bad string";
    size_t rlen;
    bool esc;
    int r = tp_json_string(p, ps->end, &raw, &rlen, &esc, next, &why);
    if (r == TP_JL_MORE)
        return truncated(ps);
    if (r)
        return fail_at(ps, p, why);
    if (!esc) {
        *s = raw;
        *len = rlen;
        return 0;
    }
    tp_buf b = {0};
    tp_json_unescape(&b, raw, rlen, &ps->d->bad_escapes);
    char *c = arena_alloc(ps->d, b.len + 1);
    if (b.len)
        memcpy(c, b.data, b.len);
    c[b.len] = 0;
    *s = c;
    *len = b.len;
    tp_buf_free(&b);
    return 0;
}

static int parse_value(parser *ps, const char *p, tp_jv *v, const char **next, int depth);

static int parse_container(parser *ps, const char *p, tp_jv *v, const char **next, int depth)
{
    bool obj = *p == '{';
    char close = obj ? '}' : ']';
    if (depth >= ps->max_depth)
        return tp_fail(ps->err, (uint64_t)(p - ps->origin), "JSON nested deeper than %d levels", ps->max_depth);
    v->type = obj ? TP_JV_OBJECT : TP_JV_ARRAY;
    size_t base = ps->d->stack_len;
    p = tp_json_ws(p + 1, ps->end);
    if (p >= ps->end)
        return truncated(ps);
    if (*p == close) {
        pop_into(ps, v, base, obj);
        *next = p + 1;
        return 0;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        if (obj) {
            if (*p != '"')
                return fail_at(ps, p, "expected a string key in object");
            if (parse_string(ps, p, &key, &klen, &p))
                return -1;
            p = tp_json_ws(p, ps->end);
            if (p >= ps->end)
                return truncated(ps);
            if (*p != ':')
                return fail_at(ps, p, "expected ':' after object key");
            p = tp_json_ws(p + 1, ps->end);
        }
        tp_jv child;
        if (parse_value(ps, p, &child, &p, depth + 1))
            return -1;
        push(ps, &child, key, klen);
        p = tp_json_ws(p, ps->end);
        if (p >= ps->end)
            return truncated(ps);
        if (*p == ',') {
            p = tp_json_ws(p + 1, ps->end);
            if (p >= ps->end)
                return truncated(ps);
            continue;
        }
        if (*p == close)
            break;
        return fail_at(ps, p, obj ? "expected ',' or '}' in object" : "expected ',' or ']' in array");
    }
    pop_into(ps, v, base, obj);
    *next = p + 1;
    return 0;
}

static int parse_value(parser *ps, const char *p, tp_jv *v, const char **next, int depth)
{
    memset(v, 0, sizeof *v);
    p = tp_json_ws(p, ps->end);
    if (p >= ps->end)
        return truncated(ps);
    v->off = (uint64_t)(p - ps->origin);
    char c = *p;
    if (c == '{' || c == '[')
        return parse_container(ps, p, v, next, depth);
    if (c == '"') {
        v->type = TP_JV_STRING;
        return parse_string(ps, p, &v->s, &v->len, next);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *why = "bad number";
        size_t len;
        int r = tp_json_number(p, ps->end, &len, &why);
        if (r == TP_JL_MORE) { /* a number running to the end of the range is complete */
            len = (size_t)(ps->end - p);
            r = TP_JL_OK;
        }
        if (r)
            return fail_at(ps, p, why);
        v->type = TP_JV_NUMBER;
        v->s = p;
        v->len = len;
        *next = p + len;
        return 0;
    }
    static const struct {
        const char *lit;
        uint8_t type;
        bool b;
    } lits[] = {{"true", TP_JV_BOOL, true}, {"false", TP_JV_BOOL, false}, {"null", TP_JV_NULL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(lits[i].lit);
        if (c != lits[i].lit[0])
            continue;
        size_t have = (size_t)(ps->end - p);
        if (have < n && memcmp(p, lits[i].lit, have) == 0)
            return truncated(ps);
        if (have < n || memcmp(p, lits[i].lit, n) != 0)
            break;
        v->type = lits[i].type;
        v->b = lits[i].b;
        *next = p + n;
        return 0;
    }
    return fail_at(ps, p, "unexpected character where a JSON value should be");
}

int tp_jv_parse(tp_jdoc *d, const char *origin, const char *p, const char *end, const tp_jv **out,
                const char **next, tp_err *err)
{
    parser ps = {d, origin, end, err, d->max_depth > 0 ? d->max_depth : TP_JSON_MAX_DEPTH};
    tp_jv *v = arena_alloc(d, sizeof *v);
    d->stack_len = 0;
    const char *q;
    if (parse_value(&ps, p, v, &q, 0)) {
        d->stack_len = 0;
        return -1;
    }
    *out = v;
    *next = tp_json_ws(q, end);
    return 0;
}

int tp_jv_parse_all(tp_jdoc *d, const char *buf, size_t len, const tp_jv **out, tp_err *err)
{
    const char *next;
    if (tp_jv_parse(d, buf, buf, buf + len, out, &next, err))
        return -1;
    if (next != buf + len)
        return tp_fail(err, (uint64_t)(next - buf), "unexpected text after the JSON value");
    return 0;
}

const tp_jv *tp_jv_get(const tp_jv *obj, const char *key)
{
    if (!obj || obj->type != TP_JV_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < obj->n; i++)
        if (obj->key_lens[i] == kl && memcmp(obj->keys[i], key, kl) == 0)
            return &obj->items[i];
    return NULL;
}

const tp_jv *tp_jv_at(const tp_jv *arr, size_t i)
{
    if (!arr || (arr->type != TP_JV_ARRAY && arr->type != TP_JV_OBJECT) || i >= arr->n)
        return NULL;
    return &arr->items[i];
}

int tp_jv_fixed(const tp_jv *v, int decimals, int64_t *out)
{
    const char *why;
    if (!v || (v->type != TP_JV_NUMBER && v->type != TP_JV_STRING) || v->len == 0)
        return -1;
    return tp_parse_fixed(v->s, v->len, decimals, out, &why);
}

int tp_jv_int(const tp_jv *v, int64_t *out)
{
    if (!v || (v->type != TP_JV_NUMBER && v->type != TP_JV_STRING))
        return -1;
    if (tp_parse_int(v->s, v->len, out) == 0)
        return 0;
    /* "3e2" or "17.0": accept when the value is integral */
    int64_t scaled, whole;
    if (tp_jv_fixed(v, 6, &scaled) || tp_jv_fixed(v, 0, &whole))
        return -1;
    if (whole > INT64_MAX / 1000000 || whole < INT64_MIN / 1000000 || scaled != whole * 1000000)
        return -1;
    *out = whole;
    return 0;
}

const char *tp_jv_str(const tp_jv *v, size_t *len)
{
    if (!v || v->type != TP_JV_STRING)
        return NULL;
    if (len)
        *len = v->len;
    return v->s;
}

bool tp_jv_str_eq(const tp_jv *v, const char *s)
{
    size_t n = strlen(s);
    return v && v->type == TP_JV_STRING && v->len == n && memcmp(v->s, s, n) == 0;
}

void tp_jv_write(tp_buf *b, const tp_jv *v)
{
    if (!v) {
        tp_buf_puts(b, "null");
        return;
    }
    switch (v->type) {
    case TP_JV_NULL: tp_buf_puts(b, "null"); break;
    case TP_JV_BOOL: tp_buf_puts(b, v->b ? "true" : "false"); break;
    case TP_JV_NUMBER: tp_buf_put(b, v->s, v->len); break;
    case TP_JV_STRING: tp_json_put_string(b, v->s, v->len, NULL); break;
    case TP_JV_ARRAY:
    case TP_JV_OBJECT: {
        bool obj = v->type == TP_JV_OBJECT;
        tp_buf_putc(b, obj ? '{' : '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                tp_buf_putc(b, ',');
            if (obj) {
                tp_json_put_string(b, v->keys[i], v->key_lens[i], NULL);
                tp_buf_putc(b, ':');
            }
            tp_jv_write(b, &v->items[i]);
        }
        tp_buf_putc(b, obj ? '}' : ']');
        break;
    }
    }
}

const tp_jv *tp_jv_parse_members(tp_jdoc *d, const char *members, size_t len, tp_buf *scratch)
{
    scratch->len = 0;
    tp_buf_putc(scratch, '{');
    tp_buf_put(scratch, members, len);
    tp_buf_putc(scratch, '}');
    const tp_jv *root;
    tp_err err = {0};
    if (tp_jv_parse_all(d, scratch->data, scratch->len, &root, &err) != 0 || root->type != TP_JV_OBJECT)
        return NULL;
    return root;
}
