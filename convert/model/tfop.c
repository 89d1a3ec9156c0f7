/* tfop.c: TensorFlow / JAX op full names (XPLANE.md §4): category, op name,
 * op type, name scopes.  "scope/dense/MatMul:MatMul" is a TensorFlow op of
 * type MatMul in scopes scope, dense; "jit(f)/dot_general:" a JAX op. */
#include "convert/model/derive.h"

#include <ctype.h>
#include <string.h>

static bool is_alnum(char c) { return isalnum((unsigned char)c) != 0; }

/* [A-Za-z0-9.][A-Za-z0-9_.\/>-]* */
static bool op_name_ok(const char *s, size_t n)
{
    if (n == 0 || !(is_alnum(s[0]) || s[0] == '.'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(is_alnum(s[i]) || strchr("_./>-", s[i])))
            return false;
    return true;
}

/* [A-Z_][a-zA-Z0-9_]* */
static bool tf_type_ok(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(is_alnum(s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* [a-z_][a-z0-9_]*(\[.*\])? ; *type_len gets the part before '[' */
static bool jax_type_ok(const char *s, size_t n, size_t *type_len)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    size_t i = 1;
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
        i++;
    *type_len = i;
    if (i == n)
        return true;
    return s[i] == '[' && s[n - 1] == ']';
}

static bool starts_icase(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[i]) != tolower((unsigned char)p[i]))
            return false;
    return true;
}

/* The op type implied by a name without one: the last '/' component without
 * a trailing "_<digits>" ("scope/OpName_1" -> "OpName"). */
static void derive_type(const char *s, size_t n, const char **t, size_t *tn)
{
    const char *slash = memrchr(s, '/', n);
    const char *c = slash ? slash + 1 : s;
    size_t cn = (size_t)(s + n - c);
    size_t i = cn;
    while (i > 0 && c[i - 1] >= '0' && c[i - 1] <= '9')
        i--;
    if (i < cn && i > 0 && c[i - 1] == '_')
        cn = i - 1;
    *t = c;
    *tn = cn;
}

static void set_scopes(tp_trace *t, const char *name, size_t n, tp_annot *a)
{
    const char *slash = memrchr(name, '/', n);
    if (!slash)
        return;
    tp_buf b = {0};
    const char *p = name, *end = slash;
    while (p < end) {
        const char *q = memchr(p, '/', (size_t)(end - p));
        if (!q)
            q = end;
        if (q > p) { /* empty pieces are not scopes */
            if (b.len)
                tp_buf_putc(&b, TP_DERIVE_SEP);
            tp_buf_put(&b, p, (size_t)(q - p));
        }
        p = q + 1;
    }
    if (b.len)
        a->scopes = tp_intern(t, b.data, b.len);
    tp_buf_free(&b);
}

int tp_tfop_parse(tp_trace *t, const char *s, size_t n, tp_annot *a)
{
    a->op = tp_intern(t, s, n);
    a->scopes = 0;
    const char *colon = memchr(s, ':', n);
    if (!colon) {
        static const char *const memcpys[] = {"MemcpyHToD", "MemcpyDToH", "MemcpyDToD", "MemcpyHToH"};
        for (size_t i = 0; i < 4; i++)
            if (starts_icase(s, n, memcpys[i])) {
                a->op_display = tp_intern_cstr(t, memcpys[i]);
                return TP_TFOP_MEMCPY;
            }
        goto unknown;
    }
    const char *left = s, *right = colon + 1;
    size_t ln = (size_t)(colon - s), rn = n - ln - 1;
    if (ln == 8 && memcmp(left, "Iterator", 8) == 0) {
        /* shown as "Iterator::" + the last "::" component */
        const char *last = s;
        for (size_t i = 0; i + 1 < n; i++)
            if (s[i] == ':' && s[i + 1] == ':')
                last = s + i + 2;
        tp_buf b = {0};
        tp_buf_puts(&b, "Iterator::");
        tp_buf_put(&b, last, (size_t)(s + n - last));
        a->op_display = tp_intern(t, b.data, b.len);
        tp_buf_free(&b);
        return TP_TFOP_TFDATA;
    }
    if (op_name_ok(left, ln) && tf_type_ok(right, rn)) {
        a->op_display = tp_intern(t, right, rn);
        set_scopes(t, left, ln, a);
        return TP_TFOP_TF;
    }
    const char *ty;
    size_t tn, jn;
    if (rn) {
        ty = right;
        tn = rn;
    } else {
        derive_type(left, ln, &ty, &tn);
    }
    if (jax_type_ok(ty, tn, &jn)) {
        a->op_display = tp_intern(t, ty, jn);
        set_scopes(t, left, ln, a);
        return TP_TFOP_JAX;
    }
    if (rn == 0 && tn > 0) {
        a->op_display = tp_intern(t, ty, tn);
        set_scopes(t, left, ln, a);
        return TP_TFOP_TF;
    }
unknown:
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    a->op_display = tp_intern(t, s, n);
    return TP_TFOP_UNKNOWN;
}
