/* canvas_pdf.c: the PDF backend on libharu.  Vector pages, DejaVu fonts
 * embedded (same files font.c measures), UTF-8 text, one bookmark per
 * titled page (level 1 under the last level-0 one), Info title, subject,
 * creator and producer.
 *
 * Fonts are trimmed to the characters used before saving (pdf_fonts.c).
 *
 * Determinism: no /ID is written (libharu only adds one when encrypting),
 * the creation date comes from SOURCE_DATE_EPOCH and is left out when that
 * is unset, streams are deflated by zlib (deterministic), and the bytes are
 * saved to memory and committed through tp_out. */
#include "render/canvas.h"
#include "convert/io/output.h"
#include "render/backends/pdf_fonts.h"

#include <hpdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TP_VERSION
#define TP_VERSION "dev"
#endif

typedef struct {
    HPDF_Doc pdf;
    HPDF_Page page;
    HPDF_Font font[TP_FONT_COUNT];
    char *path;
    double h;
    int pages;
    HPDF_Outline top; /* the last level-0 bookmark: parent of level-1 ones */
    /* libharu only accepts colour changes outside a path, but the canvas
     * gives the colour at fill time: keep the path here and replay it. */
    struct seg {
        char op; /* 'm' move, 'l' line, 'c' close, 'r' rect */
        double a, b, c, d;
    } * path_segs;
    size_t nseg, capseg;
    /* links to pages by title, made when the document is complete */
    struct titled {
        HPDF_Page page;
        char *title;
    } * titled;
    size_t ntitled, captitled;
    struct golink {
        HPDF_Page from;
        HPDF_Rect rect;
        char *title;
    } * golinks;
    size_t ngolinks, capgolinks;
    HPDF_STATUS hpdf_error; /* first libharu error */
    HPDF_STATUS hpdf_detail;
} pdf_impl;

static void on_error(HPDF_STATUS code, HPDF_STATUS detail, void *user)
{
    pdf_impl *p = user;
    if (getenv("TP_DEBUG_PDF"))
        fprintf(stderr, "libharu error 0x%04X detail %u\n", (unsigned)code, (unsigned)detail);
    if (!p->hpdf_error) {
        p->hpdf_error = code;
        p->hpdf_detail = detail;
    }
}

/* libharu's UTF-8 encoder writes its *encoding* CMap (begincidrange, code
 * to CID) as the font's /ToUnicode, which poppler rejects on every page
 * ("Invalid 'begincidrange' operator in ToUnicode CMap") and text
 * extraction cannot use.  Our text is shown as 2-byte codes equal to the
 * Unicode code points (Identity-H; the descendant font's CIDToGIDMap takes
 * them to glyphs), so the right map is the identity: a ToUnicode CMap of
 * bfranges <XX00> <XXFF> <XX00> (a range may not cross its first byte; at
 * most 100 to a block), put in the font's dictionary in place of libharu's
 * (which stays in the file, unreferenced: 300 bytes). */
static void identity_to_unicode(HPDF_Doc pdf, HPDF_Font font)
{
    HPDF_Dict cmap = HPDF_DictStream_New(pdf->mmgr, pdf->xref);
    if (!cmap)
        return; /* the error is recorded; the font keeps libharu's map */
    cmap->filter = HPDF_STREAM_FILTER_FLATE_DECODE;
    HPDF_Stream st = cmap->stream;
    HPDF_Stream_WriteStr(st, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
                             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
                             "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
                             "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n");
    char line[64];
    for (int hi = 0; hi < 256; hi += 100) {
        int n = 256 - hi < 100 ? 256 - hi : 100;
        snprintf(line, sizeof line, "%d beginbfrange\n", n);
        HPDF_Stream_WriteStr(st, line);
        for (int k = hi; k < hi + n; k++) {
            snprintf(line, sizeof line, "<%02X00> <%02XFF> <%02X00>\n", k, k, k);
            HPDF_Stream_WriteStr(st, line);
        }
        HPDF_Stream_WriteStr(st, "endbfrange\n");
    }
    HPDF_Stream_WriteStr(st, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    HPDF_Dict_Add(font, "ToUnicode", cmap);
}

static HPDF_Font get_font(pdf_impl *p, tp_font f)
{
    if (f >= TP_FONT_COUNT)
        f = TP_FONT_REGULAR;
    if (!p->font[f]) {
        const char *name = HPDF_LoadTTFontFromFile(p->pdf, tp_font_path(f), HPDF_TRUE);
        if (name)
            p->font[f] = HPDF_GetFont(p->pdf, name, "UTF-8");
        if (p->font[f])
            identity_to_unicode(p->pdf, p->font[f]);
    }
    return p->font[f];
}

static void p_begin_page(void *v, double w, double h, const char *title, int level)
{
    pdf_impl *p = v;
    p->page = HPDF_AddPage(p->pdf);
    p->pages++;
    p->h = h;
    if (!p->page)
        return; /* error recorded by on_error; later calls are no-ops */
    HPDF_Page_SetWidth(p->page, (HPDF_REAL)w);
    HPDF_Page_SetHeight(p->page, (HPDF_REAL)h);
    if (title && *title) {
        TP_GROW(p->titled, p->captitled, p->ntitled + 1);
        p->titled[p->ntitled++] = (struct titled){p->page, tp_xstrdup(title)};
        HPDF_Outline parent = level > 0 ? p->top : NULL;
        HPDF_Outline o = HPDF_CreateOutline(p->pdf, parent, title, HPDF_GetEncoder(p->pdf, "UTF-8"));
        if (!parent)
            p->top = o;
        HPDF_Destination d = HPDF_Page_CreateDestination(p->page);
        if (o && d) {
            HPDF_Destination_SetFit(d);
            HPDF_Outline_SetDestination(o, d);
        }
    }
    /* flip to the canvas convention: origin top-left, y down */
    HPDF_Page_Concat(p->page, 1, 0, 0, -1, 0, (HPDF_REAL)h);
}

/* After a libharu error the page may be NULL: every call becomes a no-op
 * and close reports the error. */
static HPDF_Page pg(void *v) { return ((pdf_impl *)v)->page; }
static HPDF_REAL R(double x) { return (HPDF_REAL)x; }
static HPDF_REAL ch(tp_color c, int shift) { return (HPDF_REAL)((c >> shift & 255) / 255.0); }

static void p_end_page(void *v)
{
    ((pdf_impl *)v)->page = NULL;
    ((pdf_impl *)v)->nseg = 0;
}
static void add_seg(void *v, char op, double a, double b, double c, double d)
{
    pdf_impl *p = v;
    TP_GROW(p->path_segs, p->capseg, p->nseg + 1);
    p->path_segs[p->nseg++] = (struct seg){op, a, b, c, d};
}
static void p_move_to(void *v, double x, double y) { add_seg(v, 'm', x, y, 0, 0); }
static void p_line_to(void *v, double x, double y) { add_seg(v, 'l', x, y, 0, 0); }
static void p_close_path(void *v) { add_seg(v, 'c', 0, 0, 0, 0); }
static void p_rect(void *v, double x, double y, double w, double h) { add_seg(v, 'r', x, y, w, h); }

/* Emit the kept path; returns 0 when there is nothing to paint. */
static int replay(pdf_impl *p)
{
    size_t n = p->nseg;
    p->nseg = 0;
    if (!p->page || n == 0)
        return 0;
    int open = 0; /* a line_to needs a current point */
    for (size_t i = 0; i < n; i++) {
        const struct seg *s = &p->path_segs[i];
        if (s->op == 'm') {
            HPDF_Page_MoveTo(p->page, R(s->a), R(s->b));
            open = 1;
        } else if (s->op == 'l') {
            if (open)
                HPDF_Page_LineTo(p->page, R(s->a), R(s->b));
            else
                HPDF_Page_MoveTo(p->page, R(s->a), R(s->b));
            open = 1;
        } else if (s->op == 'c') {
            if (open)
                HPDF_Page_ClosePath(p->page);
        } else {
            HPDF_Page_Rectangle(p->page, R(s->a), R(s->b), R(s->c), R(s->d));
            open = 0;
        }
    }
    return 1;
}
static void p_fill(void *v, tp_color c)
{
    pdf_impl *p = v;
    if (!p->page) {
        p->nseg = 0;
        return;
    }
    HPDF_Page_SetRGBFill(p->page, ch(c, 16), ch(c, 8), ch(c, 0));
    if (replay(p))
        HPDF_Page_Fill(p->page);
}
static void p_stroke(void *v, tp_color c, double w)
{
    pdf_impl *p = v;
    if (!p->page) {
        p->nseg = 0;
        return;
    }
    HPDF_Page_SetRGBStroke(p->page, ch(c, 16), ch(c, 8), ch(c, 0));
    HPDF_Page_SetLineWidth(p->page, R(w));
    if (replay(p))
        HPDF_Page_Stroke(p->page);
}
static void p_text(void *v, double x, double y, tp_font f, double size, double angle, tp_color c, const char *s)
{
    pdf_impl *p = v;
    p->nseg = 0; /* text between path and fill: the canvas does not do that */
    HPDF_Font font = p->page ? get_font(p, f) : NULL;
    if (!font)
        return;
    double r = angle * M_PI / 180.0, co = cos(r), si = sin(r);
    HPDF_Page_SetRGBFill(p->page, ch(c, 16), ch(c, 8), ch(c, 0));
    HPDF_Page_BeginText(p->page);
    HPDF_Page_SetFontAndSize(p->page, font, R(size));
    /* glyph space is y-up; the page CTM is y-down: flip c and d */
    HPDF_Page_SetTextMatrix(p->page, R(co), R(si), R(si), R(-co), R(x), R(y));
    HPDF_Page_ShowText(p->page, s);
    HPDF_Page_EndText(p->page);
}
static void p_clip(void *v, double x, double y, double w, double h)
{
    pdf_impl *p = v;
    p->nseg = 0; /* the canvas clips to a rectangle, never to a pending path */
    if (!p->page)
        return;
    HPDF_Page_Rectangle(p->page, R(x), R(y), R(w), R(h));
    HPDF_Page_Clip(p->page);
    HPDF_Page_EndPath(p->page);
}
static void p_save(void *v)
{
    if (pg(v))
        HPDF_Page_GSave(pg(v));
}
static void p_restore(void *v)
{
    if (pg(v))
        HPDF_Page_GRestore(pg(v));
}
static void p_translate(void *v, double dx, double dy)
{
    if (pg(v))
        HPDF_Page_Concat(pg(v), 1, 0, 0, 1, R(dx), R(dy));
}
static void p_scale(void *v, double sx, double sy)
{
    if (pg(v))
        HPDF_Page_Concat(pg(v), R(sx), 0, 0, R(sy), 0, 0);
}

/* The annotation's /Rect is in default user space (y up, no transform):
 * map the rectangle's corners through the current matrix, which includes
 * the y flip of begin_page and any translate/scale. */
static HPDF_Rect page_rect(HPDF_Page page, double x, double y, double w, double h)
{
    HPDF_TransMatrix m = HPDF_Page_GetTransMatrix(page);
    double xs[2] = {x, x + w}, ys[2] = {y, y + h}, lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double px = m.a * xs[i] + m.c * ys[j] + m.x, py = m.b * xs[i] + m.d * ys[j] + m.y;
            lo_x = fmin(lo_x, px), hi_x = fmax(hi_x, px), lo_y = fmin(lo_y, py), hi_y = fmax(hi_y, py);
        }
    return (HPDF_Rect){R(lo_x), R(lo_y), R(hi_x), R(hi_y)};
}
static void p_link(void *v, double x, double y, double w, double h, const char *uri)
{
    pdf_impl *p = v;
    if (!p->page)
        return;
    HPDF_Annotation a = HPDF_Page_CreateURILinkAnnot(p->page, page_rect(p->page, x, y, w, h), uri);
    if (a)
        HPDF_LinkAnnot_SetBorderStyle(a, 0, 0, 0); /* no box around the text */
}
static void p_link_page(void *v, double x, double y, double w, double h, const char *title)
{
    pdf_impl *p = v;
    if (!p->page)
        return;
    TP_GROW(p->golinks, p->capgolinks, p->ngolinks + 1);
    p->golinks[p->ngolinks++] = (struct golink){p->page, page_rect(p->page, x, y, w, h), tp_xstrdup(title)};
}
/* Each link to the first page with its title; returns the links whose
 * title no page has. */
static size_t make_page_links(pdf_impl *p)
{
    size_t dead = 0;
    for (size_t i = 0; i < p->ngolinks; i++) {
        const struct golink *g = &p->golinks[i];
        size_t k = 0;
        while (k < p->ntitled && strcmp(p->titled[k].title, g->title) != 0)
            k++;
        if (k == p->ntitled) {
            dead++;
            continue;
        }
        HPDF_Destination d = HPDF_Page_CreateDestination(p->titled[k].page);
        if (d)
            HPDF_Destination_SetFit(d);
        HPDF_Annotation a = d ? HPDF_Page_CreateLinkAnnot(g->from, g->rect, d) : NULL;
        if (a)
            HPDF_LinkAnnot_SetBorderStyle(a, 0, 0, 0);
    }
    return dead;
}

static void p_free(pdf_impl *p)
{
    if (p->pdf)
        HPDF_Free(p->pdf);
    free(p->path_segs);
    for (size_t i = 0; i < p->ntitled; i++)
        free(p->titled[i].title);
    for (size_t i = 0; i < p->ngolinks; i++)
        free(p->golinks[i].title);
    free(p->titled);
    free(p->golinks);
    free(p->path);
    free(p);
}

static int p_close(void *v, tp_err *err)
{
    pdf_impl *p = v;
    int rc = 0;
    if (p->pages == 0)
        rc = tp_fail_at(err, "", "%s: nothing was drawn (no pages)", p->path);
    size_t dead = rc == 0 && !p->hpdf_error ? make_page_links(p) : 0;
    if (dead) /* a page author's mistake, not the input's: say so, the report stays usable */
        fprintf(stderr, "tracepress: %s: warning: links to pages the PDF does not have: %zu\n", p->path, dead);
    if (rc == 0 && !p->hpdf_error && !getenv("TP_PDF_FULL_FONTS")) /* tests compare with the untrimmed form */
        for (int f = 0; f < TP_FONT_COUNT; f++)
            if (p->font[f])
                tp_pdf_font_trim(p->font[f], tp_font_path(f)); /* on failure the whole font stays: valid */
    if (rc == 0 && !p->hpdf_error && HPDF_SaveToStream(p->pdf) == HPDF_OK && !p->hpdf_error) {
        HPDF_ResetStream(p->pdf);
        tp_out *o = tp_out_open(p->path, NULL, err);
        if (!o) {
            rc = -1;
        } else {
            unsigned char chunk[65536];
            for (;;) {
                HPDF_UINT32 n = sizeof chunk;
                HPDF_STATUS st = HPDF_ReadFromStream(p->pdf, chunk, &n);
                if (n > 0)
                    tp_out_write(o, chunk, n);
                if (st != HPDF_OK)
                    break; /* HPDF_STREAM_EOF at the end */
            }
            rc = tp_out_commit(o, err);
        }
    }
    if (rc == 0 && p->hpdf_error && p->hpdf_error != HPDF_STREAM_EOF)
        rc = tp_fail_at(err, "", "%s: libharu error 0x%04X (detail %u)", p->path, (unsigned)p->hpdf_error,
                        (unsigned)p->hpdf_detail);
    p_free(p);
    return rc;
}
static void p_abort(void *v) { p_free(v); }

static const tp_canvas_ops pdf_ops = {p_begin_page, p_end_page, p_move_to, p_line_to, p_close_path, p_rect,
                                      p_fill,       p_stroke,   p_text,    p_clip,    p_save,       p_restore,
                                      p_translate,  p_scale,    p_close,   p_abort,      p_link,
                                      p_link_page};

tp_canvas *tp_canvas_pdf(const char *path, const tp_pdf_meta *meta, tp_err *err)
{
    if (!path || !*path) {
        tp_fail_at(err, "", "no output file name");
        return NULL;
    }
    pdf_impl *p = tp_xcalloc(1, sizeof *p);
    p->path = tp_xstrdup(path);
    p->pdf = HPDF_New(on_error, p);
    if (!p->pdf) {
        tp_fail_at(err, "", "%s: libharu could not start a document", path);
        p_free(p);
        return NULL;
    }
    HPDF_SetCompressionMode(p->pdf, HPDF_COMP_ALL);
    HPDF_UseUTFEncodings(p->pdf);
    HPDF_SetCurrentEncoder(p->pdf, "UTF-8");
    HPDF_SetPageMode(p->pdf, HPDF_PAGE_MODE_USE_OUTLINE);
    if (meta && meta->title)
        HPDF_SetInfoAttr(p->pdf, HPDF_INFO_TITLE, meta->title);
    if (meta && meta->subject)
        HPDF_SetInfoAttr(p->pdf, HPDF_INFO_SUBJECT, meta->subject);
    HPDF_SetInfoAttr(p->pdf, HPDF_INFO_CREATOR, meta && meta->creator ? meta->creator : "tracepress " TP_VERSION);
    HPDF_SetInfoAttr(p->pdf, HPDF_INFO_PRODUCER, "tracepress " TP_VERSION " (libharu " HPDF_VERSION_TEXT ")");
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        char *end;
        long long t = strtoll(sde, &end, 10);
        time_t tt = (time_t)t;
        struct tm tm;
        if (*end == 0 && t >= 0 && gmtime_r(&tt, &tm)) {
            HPDF_Date d = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, 'Z', 0, 0};
            HPDF_SetInfoDateAttr(p->pdf, HPDF_INFO_CREATION_DATE, d);
        }
    }
    return tp_canvas_new(&pdf_ops, p);
}
