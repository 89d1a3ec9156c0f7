/* palette.h: colours readers with colour-vision deficiencies can tell
 * apart, and a stable key -> colour mapping.
 *
 * 24 slots: 0-6 the Okabe-Ito colours (black left out: text and axes are
 * black), 7-23 picked so that the colours that meet in one chart stay
 * apart also under simulated deuteranopia, protanopia and tritanopia
 * (docs/RENDER.md "Palette"; tests/render/test_render_palette.c measures
 * it).  Bars carry labels and legends, so colour is never the only cue.
 *
 * tp_palette_key() gives every built-in op category (the one
 * classification, report/analysis/classify.h) a fixed slot, so "GEMM" is the
 * same blue in every chart of every report; the event kinds a timeline
 * colours host rows by (cpu_op/host_op, runtime/cuda_runtime, annotation,
 * sync) have fixed colours; other keys get a slot from a hash of their text
 * (stable across runs and charts, but two unknown keys may share a colour).
 * A user's own categories take tp_palette_user(k) in the order of their
 * rule file (report/pages/page_common.c tp_category_colors). */
#ifndef TP_PALETTE_H
#define TP_PALETTE_H

#include "render/canvas.h"

#define TP_PALETTE_SIZE 24

enum {
    TP_COLOR_TEXT = 0x000000,
    TP_COLOR_MUTED = 0x555555, /* secondary text: units, notes */
    TP_COLOR_AXIS = 0x333333,
    TP_COLOR_GRID = 0xDDDDDD,
    TP_COLOR_ZEBRA = 0xF2F2F2,
    TP_COLOR_HEADER = 0xE0E0E0,
    TP_COLOR_OTHER = 0xBBBBBB, /* "other" / unclassified (lighter than 0x999999: apart from slot 5 for deuteranopes) */
    /* event kinds on a timeline */
    TP_COLOR_HOST_OP = 0xC8FCBC,    /* pale green: the most bars, kept light; searched apart from every category (test_render_palette.c) */
    TP_COLOR_RUNTIME = 0x442C00,    /* dark brown: searched apart from every category (test_render_palette.c) */
    TP_COLOR_ANNOTATION = 0xE28E4D, /* amber */
    TP_COLOR_SYNC = 0x007756,       /* dark green */
    TP_COLOR_LINK = 0x0060A0,  /* link text (Okabe-Ito blue, darkened for text) */
};

tp_color tp_palette(size_t i); /* slot i modulo TP_PALETTE_SIZE */
tp_color tp_palette_key(const char *key);
/* Whether key has a fixed colour (a built-in category or an event kind). */
bool tp_palette_has_key(const char *key);
/* Display order of keys in stacked bars and legends: the built-in
 * categories in their order (GEMM first), unknown keys after, "other" last. */
int tp_palette_rank(const char *key);
/* The colour of a user's k-th own category (k from 0); 0 when k is past
 * the free slots (then the caller hashes: tp_palette_key). */
tp_color tp_palette_user(size_t k);
/* Black or white, whichever reads better on `bg`. */
tp_color tp_text_color_on(tp_color bg);

#endif
