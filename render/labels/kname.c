/* kname.c: kernel name shortening (rules in kname.h). */
#include "render/labels/kname.h"

#include "convert/base/common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int opener(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
static int closer(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

/* Is the '<' at s[i] an operator (operator<, operator<<, "->")?  Then it is
 * not a template bracket. */
static int not_bracket(const char *s, size_t i)
{
    if (s[i] == '>' && i > 0 && s[i - 1] == '-')
        return 1;
    if (s[i] != '<' && s[i] != '>')
        return 0;
    if (i >= 9 && s[i - 1] == s[i]) /* operator<< / operator>> */
        i--;
    return i >= 8 && memcmp(s + i - 8, "operator", 8) == 0;
}

/* Text of s[0..n) with all top-level bracketed groups removed.  Unbalanced
 * brackets (truncated names) just end the group at the end of the text. */
static char *strip_groups(const char *s, size_t n)
{
    char *out = tp_xmalloc(n + 1);
    size_t o = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!not_bracket(s, i) && opener(c)) {
            depth++;
            continue;
        }
        if (!not_bracket(s, i) && closer(c) && depth > 0) {
            depth--;
            continue;
        }
        if (depth == 0)
            out[o++] = c;
    }
    out[o] = 0;
    return out;
}

static char *trim_dup(const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return tp_xstrndup(s, n);
}

/* Is a "::" component empty or just "operator" / "const" left over from a
 * lambda ("f(...)::{lambda()#1}::operator()() const")? */
static int filler(const char *b, const char *e)
{
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - b);
    return n == 0 || (n == 8 && memcmp(b, "operator", 8) == 0) || (n == 14 && memcmp(b, "operator const", 14) == 0) ||
           (n == 5 && memcmp(b, "const", 5) == 0);
}

/* Last "::" component that is not filler, then its last word. */
static char *last_ident(const char *t)
{
    const char *end = t + strlen(t), *start = t;
    for (;;) {
        const char *sep = NULL;
        for (const char *p = t; p + 1 < end; p++)
            if (p[0] == ':' && p[1] == ':')
                sep = p;
        const char *comp = sep ? sep + 2 : t;
        if (!filler(comp, end) || !sep) {
            start = comp;
            break;
        }
        end = sep;
    }
    char *c = trim_dup(start, (size_t)(end - start));
    /* drop a trailing " const", then keep the last word ("void foo" -> "foo") */
    size_t l = strlen(c);
    if (l > 6 && strcmp(c + l - 6, " const") == 0)
        c[l - 6] = 0;
    char *w = c;
    for (char *q = c; *q; q++)
        if (*q == ' ' && q[1] && q[1] != '*' && q[1] != '&')
            w = q + 1;
    char *r = tp_xstrdup(w);
    free(c);
    return r;
}

static int looks_cpp(const char *s) { return strstr(s, "::") || strchr(s, '<'); }

/* First top-level template argument list "<...>" of s: its start (after
 * '<') and end (at the matching '>'), or -1. */
static int template_args(const char *s, size_t *b, size_t *e)
{
    int depth = 0, pdepth = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (not_bracket(s, i))
            continue;
        if (c == '(' || c == '{' || c == '[')
            pdepth++;
        else if ((c == ')' || c == '}' || c == ']') && pdepth > 0)
            pdepth--;
        else if (pdepth == 0 && c == '<') {
            if (depth++ == 0)
                *b = i + 1;
        } else if (pdepth == 0 && c == '>' && depth > 0) {
            if (--depth == 0) {
                *e = i;
                return 0;
            }
        }
    }
    return -1;
}

/* Top-level template arguments of s, as malloc'ed strings. */
static size_t template_arg_list(const char *s, char ***out)
{
    size_t b = 0, e = 0, n = 0, cap = 0;
    char **v = NULL;
    *out = NULL;
    if (template_args(s, &b, &e) != 0)
        return 0;
    int depth = 0;
    size_t st = b;
    for (size_t i = b; i <= e; i++) {
        char c = i < e ? s[i] : ',';
        if (i < e && !not_bracket(s, i) && opener(c))
            depth++;
        else if (i < e && !not_bracket(s, i) && closer(c) && depth > 0)
            depth--;
        else if (c == ',' && depth == 0) {
            TP_GROW(v, cap, n + 1);
            v[n++] = trim_dup(s + st, i - st);
            st = i + 1;
        }
    }
    *out = v;
    return n;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static char *base_of(const char *piece)
{
    char *g = strip_groups(piece, strlen(piece));
    char *id = last_ident(g);
    free(g);
    return id;
}

/* Plain types and numbers say nothing about what a kernel does. */
static int plain_arg(const char *a)
{
    static const char *const t[] = {"float",     "double",    "int",           "long",         "short",
                                    "char",      "bool",      "half",          "true",         "false",
                                    "unsigned",  "signed",    "Half",          "BFloat16",     "__half",
                                    "float2",    "int64_t",   "uint32_t",      "unsigned int", "unsigned long",
                                    "long long", "c10::Half", "c10::BFloat16", "at::Half",     "at::BFloat16"};
    if (isdigit((unsigned char)a[0]) || a[0] == '(' || a[0] == '-')
        return 1;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(a, t[i]) == 0)
            return 1;
    return 0;
}

/* Adapters around the real functor: look inside them. */
static int wrapper_arg(const char *b)
{
    static const char *const w[] = {"gpu_kernel_impl", "gpu_kernel_impl_nocast", "ReduceOp",      "func_wrapper_t",
                                    "BinaryFunctor",   "AUnaryFunctor",          "BUnaryFunctor", "UnaryFunctor",
                                    "OpaqueType",      "TensorListMetadata"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(b, w[i]) == 0)
            return 1;
    return 0;
}

/* The name that says what a template argument is: its base name, or for
 * adapters the first non-plain argument inside (recursively). */
static char *informative(const char *arg, int depth)
{
    char *b = base_of(arg);
    if (depth < 4 && wrapper_arg(b)) {
        char **v;
        size_t n = template_arg_list(arg, &v);
        for (size_t i = 0; i < n; i++)
            if (!plain_arg(v[i])) {
                char *inner = informative(v[i], depth + 1);
                free_list(v, n);
                free(b);
                return inner;
            }
        free_list(v, n);
    }
    return b;
}

/* Base name of the first template argument ("" when none). */
static char *first_arg_base(const char *s)
{
    char **v;
    size_t n = template_arg_list(s, &v);
    char *r = n ? base_of(v[0]) : tp_xstrdup("");
    free_list(v, n);
    return r;
}

static int generic_wrapper(const char *b)
{
    static const char *const w[] = {"Kernel", "Kernel2", "device_kernel", "kernel", "Kernel3"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(b, w[i]) == 0)
            return 1;
    return 0;
}

char *tp_kname_base(const char *name)
{
    if (!name)
        return tp_xstrdup("");
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '_' && name[1] == 'Z')
        return tp_xstrdup(name); /* mangled: rule 3 */
    if (!looks_cpp(name)) {
        /* plain names: drop one trailing "(...)" */
        size_t e = n;
        while (e > 0 && isspace((unsigned char)name[e - 1]))
            e--;
        if (e > 0 && name[e - 1] == ')') {
            int depth = 0;
            for (size_t i = e; i-- > 0;) {
                if (name[i] == ')')
                    depth++;
                else if (name[i] == '(' && --depth == 0) {
                    char *t = trim_dup(name, i);
                    if (*t)
                        return t;
                    free(t);
                    break;
                }
            }
        }
        return trim_dup(name, n);
    }
    char *g = strip_groups(name, n);
    char *b = last_ident(g);
    free(g);
    if (generic_wrapper(b)) {
        char *a = first_arg_base(name);
        if (a && *a) {
            free(b);
            return a;
        }
        free(a);
    }
    if (!*b) { /* nothing left (e.g. only brackets): keep the name */
        free(b);
        return trim_dup(name, n);
    }
    return b;
}

typedef struct {
    const char *full;
    char *base;
    char *label; /* rule 4 label, or the base */
    size_t idx;
} kn;

static int cmp3(const char *a1, const char *a2, const char *b1, const char *b2, size_t i1, size_t i2)
{
    int c = strcmp(a1, a2);
    if (c)
        return c;
    c = strcmp(b1, b2);
    return c ? c : (i1 > i2) - (i1 < i2);
}
static int cmp_base(const void *a, const void *b)
{
    const kn *x = a, *y = b;
    return cmp3(x->base, y->base, x->full, y->full, x->idx, y->idx);
}
static int cmp_label(const void *a, const void *b)
{
    const kn *x = a, *y = b;
    return cmp3(x->label, y->label, x->full, y->full, x->idx, y->idx);
}

#define LABEL_MAX 60

/* Rule 4 for one group of equal base names: base<the informative names of
 * the template arguments that differ inside the group>. */
static void label_group(kn *v, size_t n)
{
    char ***args = tp_xcalloc(n, sizeof *args);
    size_t *na = tp_xcalloc(n, sizeof *na);
    int same_count = 1;
    for (size_t k = 0; k < n; k++) {
        char **raw;
        na[k] = template_arg_list(v[k].full, &raw);
        args[k] = tp_xcalloc(na[k] ? na[k] : 1, sizeof(char *));
        for (size_t i = 0; i < na[k]; i++)
            args[k][i] = informative(raw[i], 0);
        free_list(raw, na[k]);
        if (na[k] != na[0])
            same_count = 0;
    }
    /* a position differs when any member differs from the first: O(n) */
    int *differs = tp_xcalloc(na[0] ? na[0] : 1, sizeof *differs);
    for (size_t i = 0; same_count && i < na[0]; i++)
        for (size_t m = 1; m < n && !differs[i]; m++)
            differs[i] = strcmp(args[m][i], args[0][i]) != 0;
    for (size_t k = 0; k < n; k++) {
        tp_buf b = {0};
        tp_buf_puts(&b, v[k].base);
        size_t shown = 0;
        for (size_t i = 0; i < na[k]; i++) {
            if (same_count && !differs[i])
                continue;
            tp_buf_puts(&b, shown++ ? "," : "<");
            tp_buf_puts(&b, args[k][i]);
        }
        if (shown)
            tp_buf_putc(&b, '>');
        if (b.len > LABEL_MAX || !shown) {
            free(b.data);
            b = (tp_buf){0};
            tp_buf_puts(&b, v[k].base);
        }
        v[k].label = b.data;
    }
    free(differs);
    for (size_t k = 0; k < n; k++)
        free_list(args[k], na[k]);
    free(args);
    free(na);
}

char **tp_kname_shorten(const char *const *names, size_t n)
{
    char **out = tp_xcalloc(n ? n : 1, sizeof *out);
    kn *v = tp_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (kn){names[i] ? names[i] : "", tp_kname_base(names[i]), NULL, i};
    qsort(v, n, sizeof *v, cmp_base);
    size_t i = 0;
    while (i < n) {
        size_t j = i + 1;
        int distinct = 0;
        while (j < n && strcmp(v[j].base, v[i].base) == 0) {
            distinct |= strcmp(v[j].full, v[j - 1].full) != 0;
            j++;
        }
        if (!distinct) {
            for (size_t k = i; k < j; k++)
                out[v[k].idx] = tp_xstrdup(v[k].base);
            i = j;
            continue;
        }
        label_group(v + i, j - i);
        /* rule 5: labels still shared by different full names get #k */
        qsort(v + i, j - i, sizeof *v, cmp_label);
        size_t a = i;
        while (a < j) {
            size_t b = a + 1;
            int clash = 0;
            while (b < j && strcmp(v[b].label, v[a].label) == 0) {
                clash |= strcmp(v[b].full, v[b - 1].full) != 0;
                b++;
            }
            size_t num = 0;
            for (size_t k = a; k < b; k++) {
                if (!clash) {
                    out[v[k].idx] = tp_xstrdup(v[k].label);
                    continue;
                }
                if (k == a || strcmp(v[k].full, v[k - 1].full) != 0)
                    num++;
                tp_buf t = {0};
                tp_buf_printf(&t, "%s #%zu", v[k].label, num);
                out[v[k].idx] = t.data;
            }
            a = b;
        }
        for (size_t k = i; k < j; k++)
            free(v[k].label);
        i = j;
    }
    for (size_t k = 0; k < n; k++)
        free(v[k].base);
    free(v);
    return out;
}

void tp_kname_free(char **shorts, size_t n)
{
    if (!shorts)
        return;
    for (size_t i = 0; i < n; i++)
        free(shorts[i]);
    free(shorts);
}
