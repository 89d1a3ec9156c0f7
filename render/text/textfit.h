/* textfit.h: making text fit a width, measured with font.h.  Results are
 * malloc'ed and never cut inside a UTF-8 sequence; "…" (U+2026) marks what
 * was left out. */
#ifndef TP_TEXTFIT_H
#define TP_TEXTFIT_H

#include "render/text/font.h"

/* `s` if it fits in max_w, else its start + "…" (or just "…"/"" if even
 * that does not fit). */
char *tp_fit_end(tp_font f, double size, const char *s, double max_w);
/* Same, keeping the start and the end: "at::native::vec…_kernel<4>". */
char *tp_fit_middle(tp_font f, double size, const char *s, double max_w);
/* A short kernel name (render/labels/kname.h): a name with a "…" keeps
 * that "…" and what follows it (the part that tells it from other names:
 * its distinguishing middle, or its " #k") and loses the end of what comes
 * before; a name without one is fitted as tp_fit_middle. */
char *tp_fit_name(tp_font f, double size, const char *s, double max_w);
/* n labels fitted each to its max_w[i] by FIT (tp_fit_end, tp_fit_name,
 * tp_fit_middle), kept apart: labels that fitting made equal although they
 * differ keep a short head, "…" and the part from just before where they
 * differ; those still equal end in " #k" (k numbering them in byte order).
 * A chart's labels (tens): pairs compared, O(n^2).  Free with tp_fit_apart_free. */
typedef char *(*tp_fit_fn)(tp_font f, double size, const char *s, double max_w);
char **tp_fit_apart(tp_font f, double size, const char *const *labels, size_t n, const double *max_w,
                    tp_fit_fn fit);
void tp_fit_apart_free(char **fits, size_t n);
/* Greedy wrap into at most max_lines lines (the last one ellipsized at
 * the end when text remains).  Breaks after spaces and after _ : , / - < (
 * so C++ names wrap at their joints; a piece wider than the line is cut.
 * Returns the line count; *lines is a malloc'ed array of malloc'ed strings
 * (free with tp_wrap_free). */
size_t tp_wrap(tp_font f, double size, const char *s, double max_w, size_t max_lines, char ***lines);
void tp_wrap_free(char **lines, size_t n);

#endif
