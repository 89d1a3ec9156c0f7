/* Canvas front end and backends: recording output, measurement, PDF/PNG
 * files that exist, are deterministic and carry their text. */
#include "render/canvas.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void draw_sample(tp_canvas *cv)
{
    tp_cv_begin_page(cv, 300, 200, "Sample page — µs");
    tp_cv_fill_rect(cv, 10, 10, 100, 50, 0x0072B2);
    tp_cv_stroke_rect(cv, 10, 10, 100, 50, 0x000000, 1);
    tp_cv_move_to(cv, 150, 20);
    tp_cv_line_to(cv, 200, 60);
    tp_cv_line_to(cv, 150, 60);
    tp_cv_close_path(cv);
    tp_cv_fill(cv, 0xE69F00);
    tp_cv_text(cv, 20, 100, TP_FONT_REGULAR, 12, 0x000000, TP_ALIGN_LEFT, 0, "Hello tracepress");
    tp_cv_text(cv, 150, 130, TP_FONT_BOLD, 10, 0x000000, TP_ALIGN_CENTER, 0, "centred bold");
    tp_cv_text(cv, 40, 190, TP_FONT_MONO, 9, 0xD55E00, TP_ALIGN_LEFT, -90, "rotated mono");
    tp_cv_save(cv);
    tp_cv_clip_rect(cv, 200, 100, 40, 40);
    tp_cv_translate(cv, 200, 100);
    tp_cv_scale(cv, 2, 2);
    tp_cv_fill_rect(cv, 0, 0, 30, 30, 0x009E73);
    tp_cv_restore(cv);
    tp_cv_text(cv, 290, 180, TP_FONT_REGULAR, 8, 0x555555, TP_ALIGN_RIGHT, 0, "µs — ünïcode");
    tp_cv_end_page(cv);
    tp_cv_begin_page(cv, 200, 100, "Second page");
    tp_cv_line(cv, 0, 50, 200, 50, 0xCC79A7, 2);
    tp_cv_text(cv, 10, 40, TP_FONT_REGULAR, 10, 0, TP_ALIGN_LEFT, 0, "page two");
    tp_cv_end_page(cv);
}

TEST(render_canvas_recording_golden)
{
    tp_buf b = {0};
    tp_canvas *cv = tp_canvas_rec(&b);
    draw_sample(cv);
    tp_err err = {0};
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    CHECK(b.data && strstr(b.data, "text regular 12.00 20.00 100.00 0.00 #000000 \"Hello tracepress\""));
    CHECK_GOLDEN("render/render_canvas.rec", b.data, b.len);
    tp_buf_free(&b);
}

TEST(render_canvas_measure)
{
    char why[300];
    CHECK_EQ_INT(tp_font_check(why, sizeof why), 0);
    /* DejaVu Sans: 'M' advance 1767 of 2048 units; mono: 1233 for every glyph */
    CHECK(fabs(tp_text_width(TP_FONT_REGULAR, 2048, "M") - 1767) < 1e-9);
    CHECK(fabs(tp_text_width(TP_FONT_MONO, 2048, "abc") - 3 * 1233) < 1e-9);
    CHECK(tp_text_width(TP_FONT_BOLD, 10, "Wide") > tp_text_width(TP_FONT_REGULAR, 10, "Wide"));
    CHECK(tp_text_width(TP_FONT_REGULAR, 10, "") == 0);
    /* invalid UTF-8 measures (as replacement glyphs) instead of crashing */
    CHECK(tp_text_width(TP_FONT_REGULAR, 10, "\xff\xfe") > 0);
    CHECK(tp_font_ascent(TP_FONT_REGULAR, 10) > 7 && tp_font_ascent(TP_FONT_REGULAR, 10) < 10);
    CHECK(tp_font_descent(TP_FONT_REGULAR, 10) > 1 && tp_font_descent(TP_FONT_REGULAR, 10) < 3.5);
}

TEST(render_canvas_page_path)
{
    char b[256];
    tp_canvas_page_path("/tmp/x/chart.png", 1, b, sizeof b);
    CHECK_STR(b, "/tmp/x/chart.png");
    tp_canvas_page_path("/tmp/x/chart.png", 3, b, sizeof b);
    CHECK_STR(b, "/tmp/x/chart-3.png");
    tp_canvas_page_path("/tmp/x.d/chart", 2, b, sizeof b);
    CHECK_STR(b, "/tmp/x.d/chart-2");
}

TEST(render_canvas_text_cleaned)
{
    tp_buf b = {0};
    tp_canvas *cv = tp_canvas_rec(&b);
    tp_cv_text(cv, 0, 0, TP_FONT_REGULAR, 10, 0, TP_ALIGN_LEFT, 0, "outside a page is ignored");
    tp_cv_begin_page(cv, 100, 100, NULL);
    tp_cv_text(cv, 0, 10, TP_FONT_REGULAR, 10, 0, TP_ALIGN_LEFT, 0,
               "a\tb\xc0\x80"
               "c\xff");
    tp_cv_save(cv); /* unbalanced: end_page restores */
    tp_canvas_close(cv, NULL);
    CHECK(strstr(b.data, "\"a b c\xEF\xBF\xBD\"") != NULL);
    CHECK(strstr(b.data, "outside") == NULL);
    CHECK(strstr(b.data, "restore\nendpage\n") != NULL);
    tp_buf_free(&b);
}

static void render_files(const char *pdf, const char *png)
{
    tp_err err = {0};
    tp_canvas *cv = tp_canvas_pdf(pdf, &(tp_pdf_meta){.title = "Canvas test — µs", .subject = "Shapes and text"}, &err);
    CHECK(cv != NULL);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    cv = tp_canvas_png(png, 2, &err);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
}

TEST(render_canvas_files_deterministic)
{
    render_files(tp_test_tmp("c1.pdf"), tp_test_tmp("c1.png"));
    render_files(tp_test_tmp("c2.pdf"), tp_test_tmp("c2.png"));
    size_t n1, n2;
    char *a = tp_test_read_file(tp_test_tmp("c1.pdf"), &n1), *b = tp_test_read_file(tp_test_tmp("c2.pdf"), &n2);
    CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    CHECK(a && memcmp(a, "%PDF-", 5) == 0);
    free(a), free(b);
    a = tp_test_read_file(tp_test_tmp("c1-2.png"), &n1), b = tp_test_read_file(tp_test_tmp("c2-2.png"), &n2);
    CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    CHECK(a && memcmp(a, "\x89PNG", 4) == 0);
    free(a), free(b);
    CHECK(tp_test_file_exists(tp_test_tmp("c1.png")));
    if (!tp_test_have("pdftotext") || !tp_test_have("qpdf")) {
        fprintf(stderr, "  (skipping pdftotext/qpdf checks: tools not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s' -", tp_test_tmp("c1.pdf")), 0);
    CHECK(out && strstr(out, "Hello tracepress") && strstr(out, "page two") && strstr(out, "µs — ünïcode"));
    free(out);
    /* poppler prints no warning (libharu's own ToUnicode map drew one per page: canvas_pdf.c replaces it) */
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext '%s' /dev/null 2>&1", tp_test_tmp("c1.pdf")), 0);
    CHECK(out && out[0] == 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s'", tp_test_tmp("c1.pdf")), 0);
    free(out);
    /* UTF-8 metadata and one bookmark per titled page */
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --json --json-key=outlines '%s'", tp_test_tmp("c1.pdf")), 0);
    CHECK(out && strstr(out, "\"Sample page — µs\"") && strstr(out, "\"Second page\""));
    free(out);
    if (tp_test_have("pdfinfo")) {
        CHECK_EQ_INT(tp_test_run(&out, "pdfinfo '%s' 2>/dev/null", tp_test_tmp("c1.pdf")), 0);
        CHECK(out && strstr(out, "Canvas test — µs") && strstr(out, "Pages:           2"));
        CHECK(out && strstr(out, "Subject:         Shapes and text\n") &&
              strstr(out, "Producer:        tracepress ") && strstr(out, " (libharu 2.3"));
        /* the creation date is SOURCE_DATE_EPOCH's, or none */
        const char *sde = getenv("SOURCE_DATE_EPOCH");
        CHECK(out && (sde && *sde ? strstr(out, "CreationDate:") != NULL : strstr(out, "CreationDate:") == NULL));
        free(out);
    }
}

TEST(render_canvas_svg)
{
    tp_err err = {0};
    tp_canvas *cv = tp_canvas_svg(tp_test_tmp("c.svg"), &err);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    cv = tp_canvas_svg(tp_test_tmp("d.svg"), &err);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    size_t n1, n2;
    char *s = tp_test_read_file(tp_test_tmp("c-2.svg"), &n1), *t = tp_test_read_file(tp_test_tmp("d-2.svg"), &n2);
    CHECK(s && strstr(s, "<svg"));
    CHECK(s && t && n1 == n2 && memcmp(s, t, n1) == 0); /* same drawing, same bytes */
    free(s);
    free(t);
}

TEST(render_canvas_bad_path_fails_cleanly)
{
    tp_err err = {0};
    tp_canvas *cv = tp_canvas_png("/nonexistent-dir/x.png", 1, &err);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), -1);
    CHECK(err.set);
    err = (tp_err){0};
    cv = tp_canvas_pdf("/nonexistent-dir/x.pdf", NULL, &err);
    draw_sample(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), -1);
    CHECK(err.set);
}

/* A link on a page 200 pt high: at (20,30) 60x10, then the same rectangle
 * after translate(100,50) and scale(2,2); and a path to escape. */
static void draw_links(tp_canvas *cv)
{
    tp_cv_link(cv, 0, 0, 10, 10, "outside a page is ignored");
    tp_cv_begin_page(cv, 300, 200, NULL);
    tp_cv_text(cv, 20, 38, TP_FONT_REGULAR, 10, 0x0055AA, TP_ALIGN_LEFT, 0, "report");
    tp_cv_link(cv, 20, 30, 60, 10, "a/report/report.pdf");
    tp_cv_save(cv);
    tp_cv_translate(cv, 100, 50);
    tp_cv_scale(cv, 2, 2);
    tp_cv_link(cv, 20, 30, 60, 10, "https://example.com/x?y=1#z");
    tp_cv_restore(cv);
    tp_cv_link(cv, 0, 0, 5, 5, "my dir/ü\"%zz%41");
    tp_cv_link(cv, 0, 0, 0, 5, "empty rectangle: ignored");
    tp_cv_link(cv, 0, 0, 5, 5, "");
    tp_cv_end_page(cv);
}

TEST(render_canvas_link)
{
    tp_buf b = {0};
    tp_canvas *cv = tp_canvas_rec(&b);
    draw_links(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, NULL), 0);
    CHECK(b.data && strstr(b.data, "link 20.00 30.00 60.00 10.00 \"a/report/report.pdf\"\n"));
    CHECK(b.data && strstr(b.data, "scale 2.0000 2.0000\nlink 20.00 30.00 60.00 10.00 \"https://example.com/x?y=1#z\"\n"));
    CHECK(b.data && strstr(b.data, "link 0.00 0.00 5.00 5.00 \"my%20dir/%C3%BC%22%25zz%41\"\n"));
    CHECK(b.data && !strstr(b.data, "ignored") && !strstr(b.data, "5.00 \"\"\n"));
    tp_buf_free(&b);

    /* PDF: /Link annotations with /URI actions, rectangles in page space (y up) */
    const char *pdf = tp_test_tmp("link.pdf"), *pdf2 = tp_test_tmp("link2.pdf");
    for (int i = 0; i < 2; i++) {
        tp_err err = {0};
        cv = tp_canvas_pdf(i ? pdf2 : pdf, NULL, &err);
        draw_links(cv);
        CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    }
    size_t n1, n2;
    char *x = tp_test_read_file(pdf, &n1), *y = tp_test_read_file(pdf2, &n2);
    CHECK(x && y && n1 == n2 && memcmp(x, y, n1) == 0);
    free(x), free(y);
    /* PNG: nothing to click; the same pixels as without links */
    tp_err err = {0};
    cv = tp_canvas_png(tp_test_tmp("link.png"), 1, &err);
    draw_links(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    CHECK(tp_test_file_exists(tp_test_tmp("link.png")));
    if (!tp_test_have("qpdf")) {
        fprintf(stderr, "  (skipping qpdf checks: not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s'", pdf), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --qdf --object-streams=disable '%s' - | tr -s ' \\n' ' '", pdf), 0);
    CHECK(out && strstr(out, "/Subtype /Link"));
    CHECK(out && strstr(out, "/Rect [ 20 160 80 170 ]") && strstr(out, "/URI (a/report/report.pdf)"));
    /* translate(100,50) scale 2: x 140..260, y 110..130 from the top = 70..90 from the bottom */
    CHECK(out && strstr(out, "/Rect [ 140 70 260 90 ]") && strstr(out, "/URI (https://example.com/x?y=1#z)"));
    CHECK(out && strstr(out, "/URI (my%20dir/%C3%BC%22%25zz%41)"));
    size_t nuri = 0;
    for (const char *p = out; p && (p = strstr(p, "/URI (")); p++)
        nuri++;
    CHECK_EQ_INT(nuri, 3);
    free(out);
}

/* Text in the three fonts, with characters from beyond Latin-1 (and one
 * beyond the BMP), to check the fonts trimmed to the characters used. */
static void draw_glyphs(tp_canvas *cv)
{
    tp_cv_begin_page(cv, 400, 160, "Glyphs");
    tp_cv_text(cv, 10, 30, TP_FONT_REGULAR, 16, 0, TP_ALIGN_LEFT, 0, "Kernels µs ±5% → ×2 … ü Ω");
    tp_cv_text(cv, 10, 60, TP_FONT_BOLD, 16, 0x0072B2, TP_ALIGN_LEFT, 0, "Bold ≥ 1 — naïve");
    tp_cv_text(cv, 10, 90, TP_FONT_MONO, 14, 0, TP_ALIGN_LEFT, 0, "mono {x: 0x1F} ≠ ∑");
    /* libharu shows a character beyond the BMP as a space */
    tp_cv_text(cv, 250, 150, TP_FONT_REGULAR, 12, 0, TP_ALIGN_LEFT, -30, "rotated ∞ \xF0\x9D\x9B\xBC");
    tp_cv_end_page(cv);
}

static long file_size(const char *path)
{
    size_t n = 0;
    char *d = tp_test_read_file(path, &n);
    free(d);
    return d ? (long)n : -1;
}

TEST(render_canvas_pdf_fonts_trimmed)
{
    const char *trim = tp_test_tmp("glyphs.pdf"), *full = tp_test_tmp("glyphs_full.pdf");
    for (int i = 0; i < 2; i++) {
        if (i)
            setenv("TP_PDF_FULL_FONTS", "1", 1);
        tp_err err = {0};
        tp_canvas *cv = tp_canvas_pdf(i ? full : trim, NULL, &err);
        draw_glyphs(cv);
        CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
        unsetenv("TP_PDF_FULL_FONTS");
    }
    /* libharu alone: ~390 KB (whole loca/hmtx/post/cmap of 3 fonts, /W and
     * CIDToGIDMap of every code point); trimmed: ~12 KB */
    long nt = file_size(trim), nf = file_size(full);
    CHECK(nt > 0 && nf > 0 && nt * 10 < nf && nt < 20000);
    if (!tp_test_have("pdftoppm") || !tp_test_have("pdftotext") || !tp_test_have("qpdf")) {
        fprintf(stderr, "  (skipping poppler/qpdf checks: tools not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s'", trim), 0);
    free(out);
    /* every glyph still draws as itself: the same pixels as the whole fonts, and no warning */
    const char *dir = tp_test_tmpdir();
    CHECK_EQ_INT(tp_test_run(&out, "pdftoppm -r 100 -gray '%s' '%s/gt' 2>&1 && pdftoppm -r 100 -gray '%s' '%s/gf' 2>&1 && "
                                   "cmp '%s/gt-1.pgm' '%s/gf-1.pgm'",
                             trim, dir, full, dir, dir, dir),
                 0);
    CHECK(out && out[0] == 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -raw '%s' - 2>&1", trim), 0); /* -raw: the rotated line in one piece */
    CHECK(out && strstr(out, "Kernels µs ±5% → ×2 … ü Ω") && strstr(out, "Bold ≥ 1 — naïve") &&
          strstr(out, "mono {x: 0x1F} ≠ ∑") && strstr(out, "rotated ∞"));
    CHECK(out && !strstr(out, "Syntax"));
    free(out);
    /* the three fonts embedded as subsets, each with a ToUnicode map */
    if (tp_test_have("pdffonts")) {
        CHECK_EQ_INT(tp_test_run(&out, "pdffonts '%s' 2>&1 | grep -c 'CID TrueType *Identity-H *yes yes yes'", trim), 0);
        CHECK(out && atoi(out) == 3);
        free(out);
    }
}

/* Links inside the document by bookmark title: to a later page, to an
 * earlier one, to a section's second page, and to a title no page has. */
static void draw_page_links(tp_canvas *cv)
{
    tp_cv_begin_page(cv, 300, 200, "Overview");
    tp_cv_text(cv, 20, 38, TP_FONT_REGULAR, 10, 0x0055AA, TP_ALIGN_LEFT, 0, "Timeline");
    tp_cv_link_page(cv, 20, 30, 60, 10, "Timeline");
    tp_cv_link_page(cv, 20, 50, 60, 10, "Names (2/2)");
    tp_cv_link_page(cv, 20, 70, 60, 10, "No such page");
    tp_cv_link_page(cv, 20, 90, 0, 10, "Timeline"); /* empty rectangle: ignored */
    tp_cv_end_page(cv);
    for (size_t k = 0; k < 2; k++) {
        tp_cv_begin_section_page(cv, 300, 200, "Names", k, 2);
        tp_cv_end_page(cv);
    }
    tp_cv_begin_page(cv, 300, 200, "Timeline");
    tp_cv_link_page(cv, 0, 0, 300, 20, "Overview");
    tp_cv_end_page(cv);
}

TEST(render_canvas_link_page)
{
    tp_buf b = {0};
    tp_canvas *cv = tp_canvas_rec(&b);
    draw_page_links(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, NULL), 0);
    CHECK(b.data && strstr(b.data, "linkpage 20.00 30.00 60.00 10.00 \"Timeline\"\n") &&
          strstr(b.data, "linkpage 20.00 50.00 60.00 10.00 \"Names (2/2)\"\n") && !strstr(b.data, "90.00"));
    tp_buf_free(&b);

    const char *pdf = tp_test_tmp("golink.pdf"), *log = tp_test_tmp("golink.err");
    /* the dead link's warning goes to stderr: catch it in a file */
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(log, "w");
    CHECK(f && saved >= 0);
    if (!f || saved < 0)
        return;
    dup2(fileno(f), 2);
    tp_err err = {0};
    cv = tp_canvas_pdf(pdf, NULL, &err);
    draw_page_links(cv);
    int rc = tp_canvas_close(cv, &err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    CHECK_EQ_INT(rc, 0);
    size_t n = 0;
    char *msg = tp_test_read_file(log, &n);
    CHECK(msg && strstr(msg, "golink.pdf: warning: links to pages the PDF does not have: 1\n"));
    free(msg);
    /* PNG: nothing to click, nothing to say */
    cv = tp_canvas_png(tp_test_tmp("golink.png"), 1, &err);
    draw_page_links(cv);
    CHECK_EQ_INT(tp_canvas_close(cv, &err), 0);
    if (!tp_test_have("qpdf") || !tp_test_have("python3")) {
        fprintf(stderr, "  (skipping qpdf checks: not installed)\n");
        return;
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s'", pdf), 0);
    free(out);
    /* each link's page (1-based) -> its destination's page and fit */
    CHECK_EQ_INT(tp_test_run(&out,
                             "qpdf --json=1 '%s' | python3 -c '"
                             "import json,sys\n"
                             "d=json.load(sys.stdin)\n"
                             "o=d[\"objects\"]\n"
                             "ids=[p[\"object\"] for p in d[\"pages\"]]\n"
                             "for i,p in enumerate(d[\"pages\"]):\n"
                             "  for a in o[p[\"object\"]].get(\"/Annots\",[]):\n"
                             "    a=o[a] if isinstance(a,str) else a\n"
                             "    dest=a[\"/Dest\"]\n"
                             "    dest=o[dest] if isinstance(dest,str) else dest\n"
                             "    print(i+1, a[\"/Subtype\"], a[\"/Rect\"], ids.index(dest[0])+1, dest[1])'",
                             pdf),
                 0);
    /* Overview (page 1, 200 pt high): rect y 30..40 from the top = 160..170 from the bottom */
    CHECK(out && strstr(out, "1 /Link [20, 160, 80, 170] 4 /Fit\n") && strstr(out, "1 /Link [20, 140, 80, 150] 3 /Fit\n") &&
          strstr(out, "4 /Link [0, 180, 300, 200] 1 /Fit\n"));
    size_t nlinks = 0;
    for (const char *p = out; p && (p = strstr(p, "/Link")); p++)
        nlinks++;
    CHECK_EQ_INT(nlinks, 3);
    free(out);
}
