/* pdf_fonts.h: trim an embedded libharu font to the characters a PDF uses.
 *
 * libharu 2.3 has no subsetting call.  It embeds the TTF with only the used
 * glyphs' outlines, but keeps every other table whole (loca, hmtx, post with
 * all glyph names, name, cmap: ~150 KB of each file's 6,000 glyphs) and
 * writes a /W entry and a CIDToGIDMap entry for every code point of the
 * font (~30 KB of uncompressed widths per font).  tp_pdf_font_trim, called
 * once per font before the document is saved, replaces them:
 *   - FontFile2: HarfBuzz's subset of the TTF file (a subset plan) to the
 *     glyphs libharu marked used, renumbered 1..n in their old order; only
 *     the tables a CIDFontType2 program needs (PDF 32000-1 9.9) plus small
 *     cmap/OS/2/name/post;
 *   - CIDToGIDMap: code -> new glyph, up to the largest used code, 0
 *     (.notdef) elsewhere;
 *   - /W: widths of the used codes only;
 *   - ToUnicode: the used codes only (each code is its own code point).
 * A code (= CID, Identity-H; our codes are Unicode code points) is used
 * when libharu's own CIDToGIDMap takes it to a glyph libharu marked used
 * (it marks each glyph it measures for ShowText), so the three agree with
 * what the pages show whatever the text was. */
#ifndef TP_PDF_FONTS_H
#define TP_PDF_FONTS_H

#include <hpdf.h>

/* 0, or -1 when HarfBuzz could not subset the file (the font then stays as
 * libharu wrote it: valid, only larger). */
int tp_pdf_font_trim(HPDF_Font font, const char *ttf_path);

#endif
