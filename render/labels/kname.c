/* kname.c: one name's display text: demangling, base name, cut (rules
 * 0-3 and 5 in kname.h; the set-level rules are kname_set.c). */
#include "render/labels/kname.h"
#include "render/labels/demangle.h"
#include "render/labels/kname_parts.h"

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

/* Text of s[0..n) with all top-level bracketed groups removed; map[k] is
 * the offset in s of output byte k.  Unbalanced brackets (truncated names)
 * just end the group at the end of the text. */
static char *strip_groups(const char *s, size_t n, size_t **map)
{
    char *out = tp_xmalloc(n + 1);
    size_t *m = map ? tp_xmalloc((n + 1) * sizeof *m) : NULL;
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
        if (depth == 0) {
            if (m)
                m[o] = i;
            out[o++] = c;
        }
    }
    out[o] = 0;
    if (map)
        *map = m;
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

/* Is t[b..e) empty or just "operator" / "const" left over from a lambda
 * ("f(...)::{lambda()#1}::operator()() const")? */
static int filler(const char *t, size_t b, size_t e)
{
    while (b < e && isspace((unsigned char)t[b]))
        b++;
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    size_t n = e - b;
    return n == 0 || (n == 8 && memcmp(t + b, "operator", 8) == 0) ||
           (n == 14 && memcmp(t + b, "operator const", 14) == 0) || (n == 5 && memcmp(t + b, "const", 5) == 0);
}

/* The last word of t[b..e): trimmed, a trailing " const" dropped, then
 * after the last space ("void foo" -> "foo", not "char *"). */
static void last_word(const char *t, size_t *b, size_t *e)
{
    while (*b < *e && isspace((unsigned char)t[*b]))
        (*b)++;
    while (*e > *b && isspace((unsigned char)t[*e - 1]))
        (*e)--;
    if (*e - *b > 6 && memcmp(t + *e - 6, " const", 6) == 0)
        *e -= 6;
    for (size_t q = *b; q + 1 < *e; q++)
        if (t[q] == ' ' && t[q + 1] != '*' && t[q + 1] != '&')
            *b = q + 1;
}

/* In t (groups stripped): the last "::" component that is not filler, as
 * its last word [*b, *e), and the component before it [*pb, *pe) (empty
 * when none). */
static void ident_span(const char *t, size_t *b, size_t *e, size_t *pb, size_t *pe)
{
    size_t end = strlen(t), start = 0;
    *pb = *pe = 0;
    for (;;) {
        size_t sep = SIZE_MAX;
        for (size_t p = 0; p + 1 < end; p++)
            if (t[p] == ':' && t[p + 1] == ':')
                sep = p;
        size_t comp = sep == SIZE_MAX ? 0 : sep + 2;
        if (!filler(t, comp, end) || sep == SIZE_MAX) {
            start = comp;
            if (sep != SIZE_MAX) {
                size_t ps = SIZE_MAX;
                for (size_t p = 0; p + 1 < sep; p++)
                    if (t[p] == ':' && t[p + 1] == ':')
                        ps = p;
                *pb = ps == SIZE_MAX ? 0 : ps + 2;
                *pe = sep;
                last_word(t, pb, pe);
            }
            break;
        }
        end = sep;
    }
    *b = start;
    *e = end;
    last_word(t, b, e);
}

static int looks_cpp(const char *s) { return strstr(s, "::") || strchr(s, '<'); }

/* "torch/nn/functional.py(1234): linear", "<string>(1): <module>". */
static int python_frame(const char *s)
{
    size_t n = strlen(s);
    if (n > 1 && s[0] == '<' && s[n - 1] == '>' && !strstr(s, "::"))
        return 1; /* a Python repr: "<built-in method cat of type object at 0x7d...>" */
    for (const char *p = strchr(s, '('); p; p = strchr(p + 1, '(')) {
        const char *q = p + 1;
        while (isdigit((unsigned char)*q))
            q++;
        if (q > p + 1 && q[0] == ')' && q[1] == ':' && q[2] == ' ')
            return 1;
    }
    return 0;
}

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

size_t tp_kname_targs(const char *s, char ***out)
{
    size_t b = 0, e = 0, n = 0, cap = 0;
    char **v = NULL;
    *out = NULL;
    if (!s || template_args(s, &b, &e) != 0)
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

void tp_kname_free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static char *base_of(const char *piece)
{
    char *g = strip_groups(piece, strlen(piece), NULL);
    size_t b, e, pb, pe;
    ident_span(g, &b, &e, &pb, &pe);
    char *id = tp_xstrndup(g + b, e - b);
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
                                    "long long", "c10::Half", "c10::BFloat16", "at::Half",     "at::BFloat16",
                                    "void"};
    if (isdigit((unsigned char)a[0]) || a[0] == '(' || a[0] == '-' || a[0] == '!')
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

static char *informative(const char *arg, int depth)
{
    char *b = base_of(arg);
    if (depth < 4 && wrapper_arg(b)) {
        char **v;
        size_t n = tp_kname_targs(arg, &v);
        for (size_t i = 0; i < n; i++)
            if (!plain_arg(v[i])) {
                char *inner = informative(v[i], depth + 1);
                tp_kname_free_list(v, n);
                free(b);
                return inner;
            }
        tp_kname_free_list(v, n);
    }
    return b;
}

char *tp_kname_informative(const char *arg) { return informative(arg, 0); }

static int generic_wrapper(const char *b)
{
    static const char *const w[] = {"Kernel", "Kernel2", "device_kernel", "kernel", "Kernel3"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(b, w[i]) == 0)
            return 1;
    return 0;
}

static int has_letter(const char *s)
{
    for (; *s; s++)
        if (isalpha((unsigned char)*s))
            return 1;
    return 0;
}

/* Rule 3: the longest run of [A-Za-z0-9_] with a letter (the first of
 * equal length), else the trimmed name. */
static char *lettered_part(const char *s)
{
    size_t best = 0, bestn = 0;
    for (size_t i = 0; s[i];) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
            i++;
            continue;
        }
        size_t j = i;
        int letter = 0;
        while (s[j] && (isalnum((unsigned char)s[j]) || s[j] == '_'))
            letter |= isalpha((unsigned char)s[j++]);
        if (letter && j - i > bestn)
            best = i, bestn = j - i;
        i = j;
    }
    return bestn ? tp_xstrndup(s + best, bestn) : trim_dup(s, strlen(s));
}

/* Plain names: drop one trailing "(...)" ("Memcpy HtoD (Pageable -> Device)"). */
static char *plain_base(const char *name)
{
    size_t n = strlen(name), e = n;
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

/* Rules 1-2 on a demangled name: the base, and where its own template
 * argument list starts in name (*targs, SIZE_MAX: none). */
static char *cpp_base(const char *name, size_t depth, char **targs)
{
    size_t n = strlen(name), *map = NULL, b, e, pb, pe;
    char *g = strip_groups(name, n, &map);
    ident_span(g, &b, &e, &pb, &pe);
    char *id = tp_xstrndup(g + b, e - b);
    const char *own = NULL; /* the '<' right after the identifier in name */
    if (e > b) {
        size_t at = map[e - 1] + 1;
        while (name[at] == ' ')
            at++;
        if (name[at] == '<')
            own = name + at;
    }
    *targs = own ? tp_xstrdup(own) : NULL;
    if (generic_wrapper(id)) {
        char **v;
        size_t na = tp_kname_targs(own, &v);
        if (na && !plain_arg(v[0]) && depth < 4) {
            char *inner_targs;
            char *a = cpp_base(v[0], depth + 1, &inner_targs);
            if (*a && has_letter(a)) {
                free(id);
                free(*targs);
                id = a;
                *targs = inner_targs;
            } else {
                free(a);
                free(inner_targs);
            }
        } else if (pe > pb) {
            tp_buf q = {0};
            tp_buf_put(&q, g + pb, pe - pb);
            tp_buf_puts(&q, "::");
            tp_buf_puts(&q, id);
            free(id);
            id = q.data;
        }
        tp_kname_free_list(v, na);
    }
    free(map);
    free(g);
    return id;
}

/* A mangled nested name the demangler refuses (some nvcc names are not
 * valid Itanium names): its last identifier before the template arguments
 * ("_ZN19cutlass_cudnn_train6KernelI..." -> "Kernel"), for a generic
 * wrapper the one of its first template argument; NULL when none. */
static char *mangled_ident(const char *m, int depth)
{
    const char *p = m, *id = NULL;
    size_t idn = 0;
    if (*p == 'N')
        p++;
    while (*p == 'r' || *p == 'V' || *p == 'K')
        p++;
    for (;;) {
        if (p[0] == 'S' && p[1] && strchr("tabsiod", p[1])) { /* std::, std::allocator, ... */
            p += 2;
            continue;
        }
        if (p[0] == 'S' && (p[1] == '_' || isdigit((unsigned char)p[1]) || isupper((unsigned char)p[1]))) {
            p = strchr(p, '_'); /* a substitution S<seq>_ */
            if (!p)
                break;
            p++;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            break;
        size_t len = 0;
        while (isdigit((unsigned char)*p) && len < 100000)
            len = len * 10 + (size_t)(*p++ - '0');
        if (strnlen(p, len) < len)
            break;
        id = p, idn = len;
        p += len;
    }
    if (!id)
        return NULL;
    char *r = tp_xstrndup(id, idn);
    if (*p == 'I' && depth < 4 && generic_wrapper(r)) {
        char *a = mangled_ident(p + 1, depth + 1);
        if (a) {
            free(r);
            return a;
        }
    }
    return r;
}

tp_kname_info tp_kname_info_of(const char *name)
{
    tp_kname_info k = {NULL, NULL, NULL};
    char *dm = tp_demangle(name);
    k.full = dm ? dm : tp_xstrdup(name ? name : "");
    const char *z = k.full[0] == '_' && k.full[1] == '_' ? k.full + 1 : k.full;
    if (!dm && z[0] == '_' && z[1] == 'Z' && (k.base = mangled_ident(z + 2, 0)) != NULL)
        return k;
    char *src = k.full, *clone = dm ? strstr(dm, " [clone ") : NULL;
    if (clone) /* "foo(int) [clone .kd]": the demangler's note on a suffix says nothing */
        src = tp_xstrndup(dm, (size_t)(clone - dm));
    if (python_frame(src) || !looks_cpp(src))
        k.base = python_frame(src) ? trim_dup(src, strlen(src)) : plain_base(src);
    else
        k.base = cpp_base(src, 0, &k.targs);
    if (src != k.full)
        free(src);
    if (!*k.base && !*k.full)
        return k;
    if (!*k.base || !has_letter(k.base)) { /* rule 3 (nothing left at all: the name) */
        free(k.targs);
        k.targs = NULL;
        char *b = *k.base ? lettered_part(k.full) : trim_dup(k.full, strlen(k.full));
        free(k.base);
        k.base = b;
    }
    return k;
}

void tp_kname_info_free(tp_kname_info *k)
{
    free(k->full);
    free(k->base);
    free(k->targs);
}

char *tp_kname_base(const char *name)
{
    tp_kname_info k = tp_kname_info_of(name);
    char *b = k.base;
    k.base = NULL;
    tp_kname_info_free(&k);
    return b;
}

char *tp_kname_full(const char *name)
{
    char *dm = tp_demangle(name);
    return dm ? dm : tp_xstrdup(name ? name : "");
}

/* ---- cutting (rule 5) ---- */

static int cont_byte(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

size_t tp_kname_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += !cont_byte(*s);
    return n;
}

/* Byte offset of character k of s (or its length). */
static size_t byte_at(const char *s, size_t k)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (!cont_byte(s[i]) && k-- == 0)
            break;
    return i;
}

/* A break is just after one of these, or before a capital after a small letter. */
static int break_after(const char *s, size_t i)
{
    char c = s[i - 1];
    if (strchr("_,:<>() /.-#", c))
        return 1;
    return islower((unsigned char)c) && isupper((unsigned char)s[i]);
}

/* Characters to keep before a cut of s to at most `room` characters: the
 * last break in the second half of the room, else the room. */
static size_t cut_point(const char *s, size_t room)
{
    for (size_t k = room; k > room / 2 && k > 1; k--) {
        size_t i = byte_at(s, k);
        if (break_after(s, i))
            return k;
    }
    return room;
}

static void put_trimmed(tp_buf *b, const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == ':' || s[n - 1] == ','))
        n--;
    tp_buf_put(b, s, n);
}

char *tp_kname_cut(const char *s, size_t max_chars)
{
    if (!max_chars || tp_kname_chars(s) <= max_chars)
        return tp_xstrdup(s);
    size_t keep = cut_point(s, max_chars > 1 ? max_chars - 1 : 1);
    tp_buf b = {0};
    put_trimmed(&b, s, byte_at(s, keep));
    tp_buf_puts(&b, "\xE2\x80\xA6");
    return b.data;
}

char *tp_kname_head_mid(const char *s, size_t diff, size_t max_chars)
{
    size_t n = tp_kname_chars(s);
    if (max_chars < 12 || n <= max_chars || diff + 8 < max_chars)
        return tp_kname_cut(s, max_chars);
    size_t head = cut_point(s, max_chars / 3), from = diff > head ? diff : head, room = max_chars - head - 1;
    for (size_t k = from; k > head && k + 12 > from; k--) /* start at a break just before the difference */
        if (break_after(s, byte_at(s, k))) {
            from = k;
            break;
        }
    if (n - from < room) { /* the rest fits: show more of what comes before the difference */
        size_t k = n - room > head ? n - room : head;
        for (from = k; k < n && k < from + 8; k++)
            if (break_after(s, byte_at(s, k))) {
                from = k;
                break;
            }
    }
    tp_buf b = {0};
    put_trimmed(&b, s, byte_at(s, head));
    tp_buf_puts(&b, "\xE2\x80\xA6");
    char *seg = tp_kname_cut(s + byte_at(s, from), room);
    tp_buf_puts(&b, seg);
    free(seg);
    return b.data;
}

char *tp_display_name(const char *full, size_t max_chars)
{
    char *b = tp_kname_base(full);
    char *c = tp_kname_cut(b, max_chars);
    free(b);
    return c;
}
