/* text.c: report numbers and owned cells (text.h). */
#include "report/out/text.h"
#include "convert/codec/json_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_fmt_us(char *buf, size_t n, int64_t ns)
{
    char f[48];
    tp_format_fixed(f, ns, 3);
    snprintf(buf, n, "%s us", f);
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

void tp_md_cell(tp_buf *b, const char *s, size_t max)
{
    size_t n = 0;
    for (const char *c = s; *c && n < max; c++, n++) {
        if (*c == '|')
            tp_buf_puts(b, "\\|");
        else if (*c == '`' || *c == '\n' || *c == '\r')
            tp_buf_putc(b, ' ');
        else
            tp_buf_putc(b, *c);
    }
    if (strlen(s) > max)
        tp_buf_puts(b, "...");
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

void tp_strs_free(tp_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}
