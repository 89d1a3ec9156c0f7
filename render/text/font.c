/* font.c: TTF advance widths for measurement (see font.h for why). */
#include "render/text/font.h"

#include "convert/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int loaded;             /* 0 not tried, 1 ok, -1 failed */
    double upem;            /* units per em */
    double ascent, descent; /* hhea, in font units, descent positive */
    uint16_t *adv;          /* advance per BMP code point, font units */
    uint16_t adv_missing;
} font_metrics;

static font_metrics fonts[TP_FONT_COUNT];
static char font_err[256];

static const char *const file_names[TP_FONT_COUNT] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"};

const char *tp_font_path(tp_font f)
{
    static char paths[TP_FONT_COUNT][512];
    if (f >= TP_FONT_COUNT)
        f = TP_FONT_REGULAR;
    if (!paths[f][0]) {
        const char *dir = getenv("TP_FONT_DIR");
        snprintf(paths[f], sizeof paths[f], "%s/%s", dir && *dir ? dir : "/usr/share/fonts/truetype/dejavu",
                 file_names[f]);
    }
    return paths[f];
}

const char *tp_font_name(tp_font f) { return f == TP_FONT_BOLD ? "bold" : f == TP_FONT_MONO ? "mono" : "regular"; }

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Find a table; 0 and *len when it lies inside the file, else -1. */
static int find_table(const unsigned char *d, size_t n, const char *tag, size_t *off, size_t *len)
{
    if (n < 12)
        return -1;
    unsigned nt = be16(d + 4);
    for (unsigned i = 0; i < nt; i++) {
        size_t e = 12 + 16 * (size_t)i;
        if (e + 16 > n)
            return -1;
        if (memcmp(d + e, tag, 4) == 0) {
            *off = be32(d + e + 8);
            *len = be32(d + e + 12);
            return (*off <= n && *len <= n - *off) ? 0 : -1;
        }
    }
    return -1;
}

static int parse_font(font_metrics *fm, const unsigned char *d, size_t n)
{
    size_t ho, hl, hho, hhl, mo, ml, co, cl;
    if (find_table(d, n, "head", &ho, &hl) || hl < 54 || find_table(d, n, "hhea", &hho, &hhl) || hhl < 36 ||
        find_table(d, n, "hmtx", &mo, &ml) || find_table(d, n, "cmap", &co, &cl) || cl < 4)
        return -1;
    fm->upem = be16(d + ho + 18);
    if (fm->upem <= 0)
        return -1;
    fm->ascent = (int16_t)be16(d + hho + 4);
    fm->descent = -(double)(int16_t)be16(d + hho + 6);
    unsigned nhm = be16(d + hho + 34);
    if (nhm == 0 || (size_t)nhm * 4 > ml)
        return -1;
        /* glyph advance: glyphs past numberOfHMetrics repeat the last advance */
#define GLYPH_ADV(g) be16(d + mo + 4 * (size_t)((g) < nhm ? (g) : nhm - 1))
    /* cmap: the Windows Unicode BMP subtable (3,1), format 4 */
    unsigned nsub = be16(d + co + 2);
    size_t sub = 0;
    for (unsigned i = 0; i < nsub; i++) {
        size_t e = co + 4 + 8 * (size_t)i;
        if (e + 8 > co + cl)
            return -1;
        if (be16(d + e) == 3 && be16(d + e + 2) == 1) {
            sub = co + be32(d + e + 4);
            break;
        }
    }
    if (!sub || sub + 14 > co + cl || be16(d + sub) != 4)
        return -1;
    size_t slen = be16(d + sub + 2);
    if (sub + slen > co + cl)
        return -1;
    unsigned segx2 = be16(d + sub + 6);
    size_t ends = sub + 14, starts = ends + segx2 + 2, deltas = starts + segx2, ranges = deltas + segx2;
    if (ranges + segx2 > sub + slen)
        return -1;
    fm->adv_missing = GLYPH_ADV(0);
    fm->adv = tp_xmalloc(65536 * sizeof *fm->adv);
    for (size_t c = 0; c < 65536; c++)
        fm->adv[c] = fm->adv_missing;
    for (unsigned s = 0; s < segx2 / 2; s++) {
        unsigned end = be16(d + ends + 2 * s), start = be16(d + starts + 2 * s);
        unsigned delta = be16(d + deltas + 2 * s), roff = be16(d + ranges + 2 * s);
        for (unsigned c = start; c <= end && c < 0xFFFF; c++) {
            unsigned g;
            if (roff == 0) {
                g = (c + delta) & 0xFFFF;
            } else {
                size_t ga = ranges + 2 * s + roff + 2 * (size_t)(c - start);
                if (ga + 2 > sub + slen)
                    continue;
                g = be16(d + ga);
                if (g)
                    g = (g + delta) & 0xFFFF;
            }
            fm->adv[c] = (uint16_t)GLYPH_ADV(g);
        }
    }
#undef GLYPH_ADV
    return 0;
}

static font_metrics *get(tp_font f)
{
    if (f >= TP_FONT_COUNT)
        f = TP_FONT_REGULAR;
    font_metrics *fm = &fonts[f];
    if (fm->loaded)
        return fm;
    fm->loaded = -1;
    FILE *fp = fopen(tp_font_path(f), "rb");
    if (!fp) {
        snprintf(font_err, sizeof font_err, "cannot open %s", tp_font_path(f));
        return fm;
    }
    unsigned char *d = NULL;
    size_t n = 0, cap = 0, r;
    do {
        TP_GROW(d, cap, n + 65536);
        r = fread(d + n, 1, cap - n, fp);
        n += r;
    } while (r > 0);
    fclose(fp);
    if (parse_font(fm, d, n) == 0)
        fm->loaded = 1;
    else
        snprintf(font_err, sizeof font_err, "%s: not a TrueType font with a Unicode cmap", tp_font_path(f));
    free(d);
    return fm;
}

int tp_font_check(char *why, size_t whylen)
{
    for (int f = 0; f < TP_FONT_COUNT; f++)
        if (get((tp_font)f)->loaded != 1) {
            if (why)
                snprintf(why, whylen, "%s", font_err);
            return -1;
        }
    return 0;
}

uint32_t tp_utf8_next(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = n - *i;
    uint32_t c = p[0];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || (size_t)len > left) {
        *i += 1;
        return c < 0x80 ? c : 0xFFFD;
    }
    if (len == 1) {
        *i += 1;
        return c;
    }
    c &= 0x3Fu >> (len - 1);
    for (int k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            *i += 1;
            return 0xFFFD;
        }
        c = c << 6 | (p[k] & 0x3F);
    }
    *i += (size_t)len;
    return c;
}

double tp_text_width_n(tp_font f, double size, const char *s, size_t n)
{
    font_metrics *fm = get(f);
    double units = 0;
    size_t i = 0;
    if (fm->loaded != 1) { /* fallback so layout stays defined without fonts */
        while (i < n) {
            tp_utf8_next(s, n, &i);
            units += 600;
        }
        return units * size / 1000.0;
    }
    while (i < n) {
        uint32_t c = tp_utf8_next(s, n, &i);
        units += c < 0x10000 ? fm->adv[c] : fm->adv_missing;
    }
    return units * size / fm->upem;
}

double tp_text_width(tp_font f, double size, const char *s) { return s ? tp_text_width_n(f, size, s, strlen(s)) : 0; }

double tp_font_ascent(tp_font f, double size)
{
    font_metrics *fm = get(f);
    return fm->loaded == 1 ? fm->ascent * size / fm->upem : 0.76 * size;
}

double tp_font_descent(tp_font f, double size)
{
    font_metrics *fm = get(f);
    return fm->loaded == 1 ? fm->descent * size / fm->upem : 0.24 * size;
}
