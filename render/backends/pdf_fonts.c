/* pdf_fonts.c: see pdf_fonts.h.  Reaches into libharu's font objects
 * (hpdf_font.h, hpdf_fontdef.h: installed, stable in Debian's 2.3.0):
 * the Type0 font's attr holds the descendant CIDFont, its CIDToGIDMap
 * stream and the TrueType definition with the used-glyph flags. */
#include "render/backends/pdf_fonts.h"

#include <hb-subset.h>
#include <hpdf_font.h>
#include <hpdf_fontdef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables a CIDFontType2 program needs (PDF 32000-1 9.9: glyf, head,
 * hhea, hmtx, loca, maxp, cvt, fpgm, prep) and four small ones a font
 * tool expects (cmap, OS/2, name, post without glyph names); everything
 * else (GSUB, GPOS, GDEF, kern, ...) is for shaping, which PDF text does
 * not do. */
static int keep_table(hb_tag_t t)
{
    static const char *keep[] = {"glyf", "head", "hhea", "hmtx", "loca", "maxp", "cvt ",
                                 "fpgm", "prep", "cmap", "OS/2", "name", "post"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        if (t == hb_tag_from_string(keep[i], 4))
            return 1;
    return 0;
}

/* The subset font file, or NULL.  Glyphs are renumbered in their old
 * order (0 stays .notdef); gid[c] becomes the new glyph of code c. */
static hb_blob_t *subset_file(const char *path, const HPDF_BYTE *flgs, unsigned nglyphs, uint16_t *gid,
                              const uint8_t *used, size_t ncid)
{
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (!blob)
        return NULL;
    hb_face_t *face = hb_face_create(blob, 0);
    hb_blob_destroy(blob);
    hb_subset_input_t *in = hb_subset_input_create_or_fail();
    hb_subset_plan_t *plan = NULL;
    hb_blob_t *out = NULL;
    if (in) {
        hb_set_t *glyphs = hb_subset_input_glyph_set(in), *unicodes = hb_subset_input_unicode_set(in);
        hb_set_add(glyphs, 0);
        for (unsigned g = 0; g < nglyphs; g++)
            if (flgs[g])
                hb_set_add(glyphs, g);
        for (size_t c = 0; c < ncid; c++)
            if (used[c])
                hb_set_add(unicodes, (hb_codepoint_t)c), hb_set_add(glyphs, gid[c]);
        hb_set_t *drop = hb_subset_input_set(in, HB_SUBSET_SETS_DROP_TABLE_TAG);
        hb_tag_t tags[64];
        unsigned start = 0, n;
        do {
            n = 64;
            hb_face_get_table_tags(face, start, &n, tags);
            for (unsigned i = 0; i < n; i++)
                if (!keep_table(tags[i]))
                    hb_set_add(drop, tags[i]);
            start += n;
        } while (n == 64);
        /* no hinting: the instructions and cvt/fpgm/prep were 55% of the
         * subset; viewers scale PDF text freely, and poppler renders the
         * pages to the same pixels without them */
        hb_subset_input_set_flags(in, HB_SUBSET_FLAGS_NO_HINTING);
        plan = hb_subset_plan_create_or_fail(face, in);
        hb_subset_input_destroy(in);
    }
    hb_face_t *sub = plan ? hb_subset_plan_execute_or_fail(plan) : NULL;
    if (sub) {
        out = hb_face_reference_blob(sub);
        hb_face_destroy(sub);
        const hb_map_t *to_new = hb_subset_plan_old_to_new_glyph_mapping(plan);
        int ok = hb_blob_get_length(out) > 0;
        for (size_t c = 0; c < ncid; c++)
            ok &= !used[c] || hb_map_has(to_new, gid[c]); /* asked for, so always there */
        if (ok) {
            for (size_t c = 0; c < ncid; c++)
                gid[c] = used[c] ? (uint16_t)hb_map_get(to_new, gid[c]) : 0;
        } else {
            hb_blob_destroy(out);
            out = NULL;
        }
    }
    hb_subset_plan_destroy(plan);
    hb_face_destroy(face);
    return out;
}

/* libharu's CIDToGIDMap (big-endian gids, index = code) as an array. */
static uint16_t *read_map(HPDF_Stream st, size_t *n)
{
    size_t size = st->size, at = 0;
    uint16_t *gid = calloc(size / 2 + 1, sizeof *gid);
    unsigned char *bytes = malloc(size + 1);
    if (!gid || !bytes) {
        free(gid), free(bytes);
        return NULL;
    }
    HPDF_UINT nbuf = HPDF_MemStream_GetBufCount(st);
    for (HPDF_UINT i = 0; i < nbuf && at < size; i++) {
        HPDF_UINT len = 0;
        HPDF_BYTE *p = HPDF_MemStream_GetBufPtr(st, i, &len);
        if (!p)
            break;
        if (len > size - at)
            len = (HPDF_UINT)(size - at);
        memcpy(bytes + at, p, len);
        at += len;
    }
    *n = at / 2;
    for (size_t c = 0; c < *n; c++)
        gid[c] = (uint16_t)(bytes[2 * c] << 8 | bytes[2 * c + 1]);
    free(bytes);
    return gid;
}

/* /W with the used codes only: runs "c [w w ...]" of consecutive codes
 * whose width differs from /DW (as libharu writes it). */
static void write_widths(HPDF_Font cidfont, HPDF_FontDef def, const uint16_t *gid, const uint8_t *used, size_t n)
{
    HPDF_Array w = HPDF_Array_New(cidfont->mmgr), run = NULL;
    if (!w)
        return;
    size_t prev = 0;
    for (size_t c = 0; c < n; c++) {
        if (!used[c])
            continue;
        HPDF_INT16 width = HPDF_TTFontDef_GetGidWidth(def, gid[c]);
        if (width == def->missing_width) {
            run = NULL;
            continue;
        }
        if (!run || c != prev + 1) {
            run = HPDF_Array_New(cidfont->mmgr);
            if (!run || HPDF_Array_AddNumber(w, (HPDF_INT32)c) != HPDF_OK || HPDF_Array_Add(w, run) != HPDF_OK)
                return;
        }
        HPDF_Array_AddNumber(run, width);
        prev = c;
    }
    HPDF_Dict_Add(cidfont, "W", w);
}

/* The font's ToUnicode (canvas_pdf.c puts an identity map of every code
 * there when it loads the font) rewritten for the used codes: bfranges of
 * consecutive codes, none crossing a first byte, at most 100 to a block.
 * libharu's own encoding CMap, unreferenced since, is emptied. */
static void write_to_unicode(HPDF_Font font, HPDF_FontAttr attr, const uint8_t *used, size_t n)
{
    if (attr->cmap_stream)
        HPDF_MemStream_FreeData(attr->cmap_stream->stream);
    HPDF_Dict tu = HPDF_Dict_GetItem(font, "ToUnicode", HPDF_OCLASS_DICT);
    if (!tu || tu == attr->cmap_stream)
        return;
    size_t nr = 0, cap = 64;
    uint16_t(*r)[2] = malloc(cap * sizeof *r);
    for (size_t c = 0; c < n && r; c++) {
        if (!used[c])
            continue;
        if (nr && r[nr - 1][1] + 1u == c && (c & 0xFF) != 0) {
            r[nr - 1][1] = (uint16_t)c;
            continue;
        }
        if (nr == cap) {
            void *m = realloc(r, (cap *= 2) * sizeof *r);
            if (!m)
                break;
            r = m;
        }
        r[nr][0] = r[nr][1] = (uint16_t)c, nr++;
    }
    if (!r)
        return;
    HPDF_Stream st = tu->stream;
    HPDF_MemStream_FreeData(st);
    HPDF_Stream_WriteStr(st, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
                             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
                             "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
                             "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n");
    char line[64];
    for (size_t i = 0; i < nr; i += 100) {
        size_t k = nr - i < 100 ? nr - i : 100;
        snprintf(line, sizeof line, "%zu beginbfrange\n", k);
        HPDF_Stream_WriteStr(st, line);
        for (size_t j = i; j < i + k; j++) {
            snprintf(line, sizeof line, "<%04X> <%04X> <%04X>\n", r[j][0], r[j][1], r[j][0]);
            HPDF_Stream_WriteStr(st, line);
        }
        HPDF_Stream_WriteStr(st, "endbfrange\n");
    }
    HPDF_Stream_WriteStr(st, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    free(r);
}

int tp_pdf_font_trim(HPDF_Font font, const char *ttf_path)
{
    HPDF_FontAttr attr = font ? font->attr : NULL;
    if (!attr || attr->type != HPDF_FONT_TYPE0_TT || !attr->map_stream || !attr->descendant_font)
        return -1;
    HPDF_FontDef def = attr->fontdef;
    HPDF_TTFontDefAttr tt = def->attr;
    size_t n = 0;
    uint16_t *gid = read_map(attr->map_stream->stream, &n);
    uint8_t *used = calloc(n + 1, 1);
    if (!gid || !used) {
        free(gid), free(used);
        return -1;
    }
    size_t end = 0; /* one past the last used code */
    for (size_t c = 0; c < n; c++)
        if (gid[c] && gid[c] < tt->num_glyphs && tt->glyph_tbl.flgs[gid[c]])
            used[c] = 1, end = c + 1;

    write_widths(attr->descendant_font, def, gid, used, n);
    write_to_unicode(font, attr, used, n);

    /* libharu writes the font file in the Type0 font's before-write step
     * (once: it keeps the descriptor); run it now and replace the data. */
    int rc = -1;
    if (font->before_write_fn && font->before_write_fn(font) == HPDF_OK && def->descriptor) {
        HPDF_Dict file = HPDF_Dict_GetItem(def->descriptor, "FontFile2", HPDF_OCLASS_DICT);
        hb_blob_t *sub = file ? subset_file(ttf_path, tt->glyph_tbl.flgs, tt->num_glyphs, gid, used, n) : NULL;
        if (sub) {
            unsigned len = 0;
            const char *data = hb_blob_get_data(sub, &len);
            HPDF_MemStream_FreeData(file->stream);
            if (HPDF_Stream_Write(file->stream, (const HPDF_BYTE *)data, len) == HPDF_OK &&
                HPDF_Dict_AddNumber(file, "Length1", len) == HPDF_OK)
                rc = 0;
            hb_blob_destroy(sub);
        }
    }
    /* the map of the used codes, to the subset's glyphs (or libharu's) */
    unsigned char *map = calloc(end ? end * 2 : 2, 1);
    if (map) {
        for (size_t c = 0; c < end; c++)
            if (used[c])
                map[2 * c] = (unsigned char)(gid[c] >> 8), map[2 * c + 1] = (unsigned char)gid[c];
        HPDF_MemStream_FreeData(attr->map_stream->stream);
        HPDF_Stream_Write(attr->map_stream->stream, map, (HPDF_UINT)(end ? end * 2 : 2));
        free(map);
    }
    free(gid);
    free(used);
    return rc;
}
