/* report_text.c: report numbers and owned cells (report_text.h). */
#include "render/text/report_text.h"
#include "convert/codec/json_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void tp_fmt_us(char *buf, size_t n, int64_t ns)
{
    char f[48];
    tp_format_fixed(f, ns, 3);
    snprintf(buf, n, "%s us", f);
}

void tp_md_dur(char *buf, size_t n, int64_t ns) { tp_fmt_dur_sep(buf, n, ns, TP_NBSP); }

void tp_str_nbsp(char *buf, size_t n)
{
    char t[256];
    size_t o = 0;
    for (const char *p = buf; *p && o + 3 < sizeof t; p++) {
        if (*p == ' ') {
            memcpy(t + o, TP_NBSP, 2);
            o += 2;
        } else
            t[o++] = *p;
    }
    t[o] = 0;
    snprintf(buf, n, "%s", t);
}

int tp_md_url_check(const char *url, const char **why)
{
    size_t l = strlen(url), scheme = strncmp(url, "https://", 8) == 0 ? 8 : strncmp(url, "http://", 7) == 0 ? 7 : 0;
    if (!scheme)
        return *why = "it must start with http:// or https://", -1;
    if (l > 1000)
        return *why = "it is longer than 1000 bytes", -1;
    if (!url[scheme] || url[scheme] == '/')
        return *why = "it names no host", -1;
    for (size_t i = 0; i < l; i++) {
        unsigned char c = (unsigned char)url[i];
        if (c <= 0x20 || c >= 0x7F || strchr("\"'`\\<>()[]|{}^", c))
            return *why = "it holds a space, a quote, a bracket, a backslash or a character outside printable ASCII "
                          "(percent-encode it)",
                   -1;
        if (c == '?' || c == '#') /* "/png/NAME.png" is appended: it would land in the query or fragment */
            return *why = "it has a query or a fragment ('?' or '#'): give the folder's URL", -1;
    }
    return 0;
}

void tp_fmt_pct(char *buf, size_t n, int64_t part, int64_t whole)
{
    if (whole <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    __int128 permille = ((__int128)part * 2000 + whole) / (2 * (__int128)whole);
    snprintf(buf, n, "%lld.%lld%%", (long long)(permille / 10), (long long)(permille % 10));
}

/* Bytes of s to write: at most max, not ending inside a UTF-8 sequence. */
static size_t md_len(const char *s, size_t max, bool *cut)
{
    size_t n = strnlen(s, max);
    *cut = s[n] != 0;
    if (*cut)
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    return n;
}

static bool md_ctl(unsigned char c) { return c < 0x20 || c == 0x7F; }

/* What s[i] starts that Markdown must not carry as is: a control, a
 * bidirectional control or line separator (tp_is_hidden_control: it would
 * reorder or split what a reader sees) become a space, bytes that are not
 * UTF-8 U+FFFD (summary.md is valid UTF-8 whatever the trace or a rules file
 * held).  The bytes it takes and *rep, or 0 for a plain character (*len:
 * its bytes, copied whole). */
static size_t md_special(const char *s, size_t n, size_t i, const char **rep, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s + i;
    size_t l = tp_utf8_len(u, n - i);
    *len = l ? l : 1;
    if (!l) {
        *rep = "\xEF\xBF\xBD";
        return 1;
    }
    if (md_ctl(u[0]) || (l > 1 && tp_is_hidden_control(tp_utf8_cp(u, l)))) {
        *rep = " ";
        return l;
    }
    return 0;
}

static bool alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

/* The run of '_' around s[i] has an ASCII letter or digit on both sides. */
static bool intraword(const char *s, size_t n, size_t i)
{
    size_t a = i, e = i;
    while (a > 0 && s[a - 1] == '_')
        a--;
    while (e < n && s[e] == '_')
        e++;
    return a > 0 && e < n && alnum(s[a - 1]) && alnum(s[e]);
}

void tp_md_text(tp_buf *b, const char *s, size_t max)
{
    bool cut;
    size_t n = md_len(s, max, &cut), lead = 0; /* where a block would start: after leading blanks */
    while (lead < n && (s[lead] == ' ' || md_ctl((unsigned char)s[lead])))
        lead++;
    size_t digits = lead;
    while (digits < n && s[digits] >= '0' && s[digits] <= '9')
        digits++;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *rep;
        size_t len, sp = md_special(s, n, i, &rep, &len);
        if (sp || len > 1) {
            if (sp)
                tp_buf_puts(b, rep);
            else
                tp_buf_put(b, s + i, len);
            i += (sp ? sp : len) - 1;
            continue;
        }
        bool esc = strchr("\\`*_[]<>|!~&$", c) != NULL;
        if (i == lead && strchr("#-+=", c))
            esc = true; /* a heading, a list item or a setext underline when the text starts a block */
        if (digits > lead && i == digits && (c == '.' || c == ')'))
            esc = true; /* an ordered list item */
        if (c == '_' && intraword(s, n, i))
            esc = false; /* a_b, a__b: never emphasis (CommonMark's flanking rules), and file names are full of them */
        if (c == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/')
            esc = true; /* scheme:// */
        if (c == '.' && i >= 3 && strncasecmp(s + i - 3, "www", 3) == 0)
            esc = true; /* www. */
        if (esc)
            tp_buf_putc(b, '\\');
        tp_buf_putc(b, (char)c);
        if (c == '@')
            tp_buf_puts(b, "&#8203;");
    }
    if (cut) /* after a cut "www" the ellipsis's first dot would make "www." an autolink */
        tp_buf_puts(b, n >= 3 && strncasecmp(s + n - 3, "www", 3) == 0 ? "\\..." : "...");
}

void tp_md_code(tp_buf *b, const char *s, size_t max)
{
    bool cut;
    size_t n = md_len(s, max, &cut), run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    /* what the span holds, "..." included, decides the padding */
    char first = n ? s[0] : (cut ? '.' : 0), last = cut ? '.' : (n ? s[n - 1] : 0);
    bool spaces = true;
    for (size_t i = 0; i < n && spaces; i++)
        spaces = s[i] == ' ' || md_ctl((unsigned char)s[i]);
    if (md_ctl((unsigned char)first))
        first = ' ';
    if (md_ctl((unsigned char)last))
        last = ' ';
    bool pad = first == '`' || last == '`' || (first == ' ' && last == ' ' && !(spaces && !cut));
    if (!n && !cut) {
        tp_buf_puts(b, "` `"); /* an empty span is no span */
        return;
    }
    for (size_t k = 0; k <= longest; k++)
        tp_buf_putc(b, '`');
    if (pad)
        tp_buf_putc(b, ' ');
    size_t bs = 0; /* backslashes just before */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *rep;
        size_t len, sp = md_special(s, n, i, &rep, &len);
        if (sp || len > 1) {
            if (sp)
                tp_buf_puts(b, rep);
            else
                tp_buf_put(b, s + i, len);
            i += (sp ? sp : len) - 1;
            bs = 0;
            continue;
        }
        if (c == '|') {
            if (bs % 2)
                tp_buf_puts(b, "\xE2\x80\x8B"); /* U+200B: the backslash before may not pair with ours */
            tp_buf_puts(b, "\\|");
        } else
            tp_buf_putc(b, md_ctl(c) ? ' ' : (char)c);
        bs = c == '\\' ? bs + 1 : 0;
    }
    if (cut)
        tp_buf_puts(b, "...");
    if (pad)
        tp_buf_putc(b, ' ');
    for (size_t k = 0; k <= longest; k++)
        tp_buf_putc(b, '`');
}

const char *tp_strs_add(tp_strs *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    if (vasprintf(&p, fmt, ap) < 0)
        p = tp_xstrdup("");
    va_end(ap);
    TP_GROW(s->v, s->cap, s->n + 1);
    s->v[s->n++] = p;
    return p;
}

const char *tp_strs_us(tp_strs *s, int64_t ns)
{
    char b[48];
    tp_format_fixed(b, ns, 3);
    return tp_strs_add(s, "%s", b);
}

const char *tp_strs_dur(tp_strs *s, int64_t ns)
{
    char b[48];
    tp_fmt_dur(b, sizeof b, ns);
    return tp_strs_add(s, "%s", b);
}

const char *tp_strs_count(tp_strs *s, uint64_t v)
{
    char b[32];
    tp_fmt_count(b, sizeof b, v);
    return tp_strs_add(s, "%s", b);
}

void tp_strs_free(tp_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void tp_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (!bytes) {
        snprintf(buf, n, "?");
        return;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, n, v >= 99.95 ? "%.0f %s" : "%.1f %s", v, unit[u]); /* 3 significant digits at most */
}

void tp_csv_text(tp_buf *b, const char *s, size_t n, bool controls_as_spaces)
{
    tp_buf u = {0};
    tp_buf_put_utf8(&u, s, n, NULL);
    tp_buf_putc(b, '"');
    if (u.len && strchr("=+-@\t\r", u.data[0]))
        tp_buf_putc(b, '\'');
    for (size_t i = 0; i < u.len; i++) {
        char c = u.data[i];
        size_t l = (unsigned char)c >= 0x80 ? tp_utf8_seq_len((const unsigned char *)u.data + i, u.len - i) : 1;
        l = l ? l : 1;
        if (controls_as_spaces && l > 1 && tp_is_hidden_control(tp_utf8_cp((const unsigned char *)u.data + i, l))) {
            tp_buf_putc(b, ' '); /* a bidi override would reorder the row's text in a viewer */
            i += l - 1;
            continue;
        }
        if (c == '"')
            tp_buf_putc(b, '"');
        tp_buf_putc(b, controls_as_spaces && ((unsigned char)c < 0x20 || c == 0x7F) ? ' ' : c);
    }
    tp_buf_putc(b, '"');
    tp_buf_free(&u);
}
