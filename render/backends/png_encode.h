/* png_encode.h: a small PNG encoder for cairo's RGB24 image surfaces.
 *
 * cairo_surface_write_to_png_stream uses libpng's defaults (zlib level 6,
 * every row tried with every filter): about 0.15 s per 1600x960 chart page,
 * which was most of `report`'s time on small and medium traces.  Charts are
 * flat colours and anti-aliased edges; per row the cheaper of the Sub and Up
 * filters and zlib level 1... see png_encode.c for the measured choice. */
#ifndef TP_PNG_ENCODE_H
#define TP_PNG_ENCODE_H

#include "convert/base/common.h"

#include <stdint.h>

/* Append to out a complete PNG file (8-bit RGB, no alpha) of the w x h
 * pixels at px, rows stride bytes apart, each pixel a native-endian
 * uint32 0x00RRGGBB (CAIRO_FORMAT_RGB24).  Deterministic: the same pixels
 * always give the same bytes.  Returns 0, or -1 when zlib fails. */
int tp_png_encode_rgb24(const unsigned char *px, int w, int h, int stride, tp_buf *out);

/* The smallest box holding every pixel that is not `bg` (0x00RRGGBB),
 * grown by `margin` pixels on each side within the image: *x, *y, *cw, *ch.
 * An image of background only gives the whole image.  PNG charts are
 * cropped to it so that no image is mostly empty. */
void tp_png_content_box(const unsigned char *px, int w, int h, int stride, uint32_t bg, int margin, int *x, int *y,
                        int *cw, int *ch);
#endif
