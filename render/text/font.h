/* font.h: the three report fonts (DejaVu Sans, Sans Bold, Sans Mono) and
 * text measurement.
 *
 * Measurement reads advance widths straight from the TTF files' hmtx/cmap
 * tables, so layout is a pure function of the font files: every backend
 * (cairo with unhinted metrics, libharu which writes the same hmtx widths
 * into the PDF, the recording backend) agrees to the last digit.  No kerning
 * anywhere (cairo's show_text and libharu's ShowText do not kern either). */
#ifndef TP_FONT_H
#define TP_FONT_H

#include <stddef.h>
#include <stdint.h>

typedef enum tp_font { TP_FONT_REGULAR = 0, TP_FONT_BOLD, TP_FONT_MONO, TP_FONT_COUNT } tp_font;

/* Path of the TTF file for a font: $TP_FONT_DIR (default
 * /usr/share/fonts/truetype/dejavu) + DejaVuSans.ttf / -Bold / Mono. */
const char *tp_font_path(tp_font f);
const char *tp_font_name(tp_font f); /* "regular", "bold", "mono" */

/* Width in points of UTF-8 text `s` (n bytes) at `size` points. */
double tp_text_width_n(tp_font f, double size, const char *s, size_t n);
double tp_text_width(tp_font f, double size, const char *s);
/* Ascent (above baseline, positive) and descent (below, positive) in points. */
double tp_font_ascent(tp_font f, double size);
double tp_font_descent(tp_font f, double size);

/* 0 when the font files load; -1 (and a message in `why`) when they do not.
 * Measurement falls back to a fixed 0.6 em advance so tests still run. */
int tp_font_check(char *why, size_t whylen);

/* Decode one UTF-8 code point at s[*i] (advancing *i); invalid bytes give
 * U+FFFD and advance by one, so any byte string is measurable. */
uint32_t tp_utf8_next(const char *s, size_t n, size_t *i);

#endif
