/* textfit.c: ellipsizing and wrapping by measured width. */
#include "render/text/textfit.h"

#include "convert/base/common.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xE2\x80\xA6"

/* Byte offsets of code point starts (n+1 entries, last = len) and
 * cumulative widths at each start. */
typedef struct {
    size_t n;
    size_t *off;
    double *cum;
} cps;

static cps split(tp_font f, double size, const char *s)
{
    size_t len = strlen(s);
    cps c = {0, tp_xmalloc((len + 1) * sizeof(size_t)), tp_xmalloc((len + 1) * sizeof(double))};
    size_t i = 0;
    double w = 0;
    while (i < len) {
        c.off[c.n] = i;
        c.cum[c.n] = w;
        size_t st = i;
        tp_utf8_next(s, len, &i);
        w += tp_text_width_n(f, size, s + st, i - st);
        c.n++;
    }
    c.off[c.n] = len;
    c.cum[c.n] = w;
    return c;
}

static void cps_free(cps *c)
{
    free(c->off);
    free(c->cum);
}

/* What both fits start with: s itself when it fits, "" when not even the
 * ellipsis does (a NULL s is ""); NULL when s must be cut, with *ew the
 * ellipsis' width. */
static char *fit_uncut(tp_font f, double size, const char **s, double max_w, double *ew)
{
    if (!*s)
        *s = "";
    if (tp_text_width(f, size, *s) <= max_w)
        return tp_xstrdup(*s);
    *ew = tp_text_width(f, size, ELLIPSIS);
    return *ew > max_w ? tp_xstrdup("") : NULL;
}

char *tp_fit_end(tp_font f, double size, const char *s, double max_w)
{
    double ew;
    char *whole = fit_uncut(f, size, &s, max_w, &ew);
    if (whole)
        return whole;
    cps c = split(f, size, s);
    size_t k = 0;
    while (k < c.n && c.cum[k + 1] + ew <= max_w)
        k++;
    tp_buf b = {0};
    tp_buf_put(&b, s, c.off[k]);
    tp_buf_puts(&b, ELLIPSIS);
    cps_free(&c);
    return b.data;
}

char *tp_fit_middle(tp_font f, double size, const char *s, double max_w)
{
    double ew;
    char *whole = fit_uncut(f, size, &s, max_w, &ew);
    if (whole)
        return whole;
    cps c = split(f, size, s);
    /* grow head and tail alternately while they fit */
    size_t head = 0, tail = 0;
    double total = c.cum[c.n];
    for (;;) {
        int grew = 0;
        for (int side = 0; side < 2; side++) {
            size_t h = head + (side == 0), t = tail + (side == 1);
            if (h + t > c.n)
                continue;
            double w = c.cum[h] + (total - c.cum[c.n - t]) + ew;
            if (w <= max_w) {
                head = h, tail = t;
                grew = 1;
            }
        }
        if (!grew)
            break;
    }
    tp_buf b = {0};
    tp_buf_put(&b, s, c.off[head]);
    tp_buf_puts(&b, ELLIPSIS);
    tp_buf_puts(&b, s + c.off[c.n - tail]);
    cps_free(&c);
    return b.data;
}

char *tp_fit_name(tp_font f, double size, const char *s, double max_w)
{
    double ew;
    char *whole = fit_uncut(f, size, &s, max_w, &ew);
    if (whole)
        return whole;
    const char *last = NULL;
    for (const char *p = strstr(s, ELLIPSIS); p; p = strstr(p + 1, ELLIPSIS))
        last = p;
    double tw = last ? tp_text_width(f, size, last) : 0;
    if (!last || last == s || tw > max_w)
        return tp_fit_middle(f, size, s, max_w);
    /* shrink what comes before the last "…"; keep it and what follows */
    cps c = split(f, size, s);
    size_t k = 0, end = (size_t)(last - s);
    while (k < c.n && c.off[k + 1] <= end && c.cum[k + 1] + tw <= max_w)
        k++;
    size_t cut = c.off[k];
    while (cut >= 3 && memcmp(s + cut - 3, ELLIPSIS, 3) == 0) /* never "……" */
        cut -= 3;
    tp_buf b = {0};
    tp_buf_put(&b, s, cut);
    tp_buf_puts(&b, last);
    cps_free(&c);
    return b.data;
}

static int break_after(char ch) { return ch == ' ' || strchr("_:,/-<(", ch) != NULL; }

size_t tp_wrap(tp_font f, double size, const char *s, double max_w, size_t max_lines, char ***lines)
{
    if (!s)
        s = "";
    if (max_lines == 0)
        max_lines = 1;
    cps c = split(f, size, s);
    char **out = NULL;
    size_t nout = 0, cap = 0;
    size_t start = 0; /* code point index where the current line starts */
    while (start < c.n && nout < max_lines) {
        while (start < c.n && s[c.off[start]] == ' ') /* no leading blanks */
            start++;
        if (start >= c.n)
            break;
        size_t end = start, last_break = 0;
        while (end < c.n && c.cum[end + 1] - c.cum[start] <= max_w) {
            if (break_after(s[c.off[end]]))
                last_break = end + 1;
            end++;
        }
        if (end == start)
            end = start + 1; /* a glyph wider than the line: take it anyway */
        else if (end < c.n && last_break > start)
            end = last_break;
        TP_GROW(out, cap, nout + 1);
        if (nout + 1 == max_lines && end < c.n) {
            char *rest = tp_xstrdup(s + c.off[start]);
            out[nout++] = tp_fit_end(f, size, rest, max_w);
            free(rest);
            break;
        }
        size_t e = c.off[end];
        while (e > c.off[start] && s[e - 1] == ' ')
            e--;
        out[nout++] = tp_xstrndup(s + c.off[start], e - c.off[start]);
        start = end;
    }
    cps_free(&c);
    *lines = out;
    return nout;
}

void tp_wrap_free(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* Labels s and t share their first `n` bytes. */
static size_t common_prefix(const char *s, const char *t)
{
    size_t n = 0;
    while (s[n] && s[n] == t[n])
        n++;
    return n;
}

/* One colliding label refitted: a short head, "…", then the text from a
 * break a little before where it differs from the labels it collided with
 * (at byte d), cut at its end if need be. */
static char *fit_from(tp_font f, double size, const char *s, size_t d, double max_w)
{
    size_t from = d > 6 ? d - 6 : 0;
    while (from > 0 && !break_after(s[from - 1]) && d - from < 24)
        from--;
    while (from > 0 && (s[from] & 0xC0) == 0x80) /* never inside a UTF-8 sequence */
        from--;
    if (from == 0)
        return tp_fit_end(f, size, s, max_w);
    double ew = tp_text_width(f, size, ELLIPSIS);
    char *tail = tp_fit_end(f, size, s + from, max_w * 0.7 - ew);
    char *head = tp_fit_end(f, size, s, fmax(0, max_w - tp_text_width(f, size, tail) - ew));
    size_t hl = strlen(head);
    while (hl >= 3 && memcmp(head + hl - 3, ELLIPSIS, 3) == 0) /* never "……" */
        head[hl -= 3] = 0;
    tp_buf b = {0};
    tp_buf_puts(&b, head);
    tp_buf_puts(&b, ELLIPSIS);
    tp_buf_puts(&b, tail);
    free(head);
    free(tail);
    return b.data;
}

char **tp_fit_apart(tp_font f, double size, const char *const *labels, size_t n, const double *max_w,
                    tp_fit_fn fit)
{
    char **out = tp_xcalloc(n + 1, sizeof *out);
    const char **lab = tp_xcalloc(n + 1, sizeof *lab); /* NULL is "" */
    for (size_t i = 0; i < n; i++) {
        lab[i] = labels[i] ? labels[i] : "";
        out[i] = fit(f, size, lab[i], fmax(0, max_w[i]));
    }
    labels = lab;
    /* different labels that fitting made equal: refit from where they differ (a chart has tens of labels:
     * the pairs are compared, not hashed) */
    bool *clash = tp_xcalloc(n + 1, sizeof *clash);
    size_t *d = tp_xcalloc(n + 1, sizeof *d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const char *a = labels[i], *b = labels[j];
            if (strcmp(out[i], out[j]) != 0 || strcmp(a, b) == 0)
                continue;
            size_t p = common_prefix(a, b);
            clash[i] = clash[j] = true;
            d[i] = d[i] > p ? d[i] : p;
            d[j] = d[j] > p ? d[j] : p;
        }
    for (size_t i = 0; i < n; i++)
        if (clash[i]) {
            free(out[i]);
            out[i] = fit_from(f, size, labels[i], d[i], fmax(0, max_w[i]));
        }
    /* still equal: " #k", k numbering the distinct labels of the group in order */
    for (size_t i = 0; i < n; i++) {
        if (!clash[i])
            continue;
        size_t k = 0, same = 0;
        for (size_t j = 0; j < n; j++)
            if (clash[j] && strcmp(out[j], out[i]) == 0 && strcmp(labels[j], labels[i]) != 0) {
                same++;
                k += strcmp(labels[j], labels[i]) < 0;
            }
        if (!same)
            continue;
        char tag[32];
        snprintf(tag, sizeof tag, " #%zu", k + 1);
        char *cut = tp_fit_end(f, size, labels[i], fmax(0, max_w[i] - tp_text_width(f, size, tag)));
        tp_buf b = {0};
        tp_buf_puts(&b, cut);
        tp_buf_puts(&b, tag);
        free(cut);
        free(out[i]);
        out[i] = b.data;
    }
    free(clash);
    free(d);
    free(lab);
    return out;
}

void tp_fit_apart_free(char **fits, size_t n)
{
    for (size_t i = 0; fits && i < n; i++)
        free(fits[i]);
    free(fits);
}
