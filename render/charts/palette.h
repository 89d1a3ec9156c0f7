/* palette.h: colours readers with colour-vision deficiencies can tell
 * apart, and a stable key -> colour mapping.
 *
 * Slots 0-6 are the Okabe-Ito colours (black left out: text and axes are
 * black), ordered so the first ones differ most; slots 7-13 are the same
 * hues 40% darker, slots 14-20 the same hues 50% lighter.  Lightness steps
 * keep hue differences that deuteranopes/protanopes see, and bars carry
 * labels and legends, so colour is never the only cue.
 *
 * tp_palette_key() gives every kernel family (kernel_family.h) a fixed
 * slot, so "gemm" is the same blue in every chart of every report; other
 * slot (and the event kinds kernel/host_op/runtime/sync/annotation get
 * slots of families that do not share a chart with them); other
 * keys get a slot from a hash of their text (stable across runs and
 * charts, but two unknown keys may share a slot). */
#ifndef TP_PALETTE_H
#define TP_PALETTE_H

#include "render/canvas.h"

#define TP_PALETTE_SIZE 21

enum {
    TP_COLOR_TEXT = 0x000000,
    TP_COLOR_MUTED = 0x555555, /* secondary text: units, notes */
    TP_COLOR_AXIS = 0x333333,
    TP_COLOR_GRID = 0xDDDDDD,
    TP_COLOR_ZEBRA = 0xF2F2F2,
    TP_COLOR_HEADER = 0xE0E0E0,
    TP_COLOR_OTHER = 0x999999, /* "other" / unclassified */
    TP_COLOR_LINK = 0x0060A0,  /* link text (Okabe-Ito blue, darkened for text) */
};

tp_color tp_palette(size_t i); /* slot i modulo TP_PALETTE_SIZE */
tp_color tp_palette_key(const char *key);
/* Black or white, whichever reads better on `bg`. */
tp_color tp_text_color_on(tp_color bg);

#endif
