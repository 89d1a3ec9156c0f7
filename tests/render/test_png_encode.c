/* test_png_encode.c: the PNG encoder against libpng's decoder (through
 * cairo): every pixel comes back, for images that exercise both row
 * filters, and the output is deterministic. */
#include "tests/lib/harness.h"
#include "render/backends/png_encode.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const tp_buf *b;
    size_t at;
} reader;

static cairo_status_t read_buf(void *closure, unsigned char *data, unsigned int len)
{
    reader *r = closure;
    if (r->at + len > r->b->len)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->b->data + r->at, len);
    r->at += len;
    return CAIRO_STATUS_SUCCESS;
}

/* encode, decode with libpng, compare every pixel's RGB */
static void round_trip(cairo_surface_t *s)
{
    cairo_surface_flush(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    tp_buf a = {0}, b = {0};
    CHECK_EQ_INT(tp_png_encode_rgb24(px, w, h, stride, &a), 0);
    CHECK_EQ_INT(tp_png_encode_rgb24(px, w, h, stride, &b), 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0); /* deterministic */
    reader r = {&a, 0};
    cairo_surface_t *d = cairo_image_surface_create_from_png_stream(read_buf, &r);
    CHECK_EQ_INT(cairo_surface_status(d), CAIRO_STATUS_SUCCESS);
    if (cairo_surface_status(d) != CAIRO_STATUS_SUCCESS) {
        FILE *f = fopen("/tmp/tp-png-bad.png", "wb");
        fwrite(a.data, 1, a.len, f);
        fclose(f);
        return;
    }
    CHECK_EQ_INT(r.at, a.len); /* the whole file was read */
    CHECK_EQ_INT(cairo_image_surface_get_width(d), w);
    CHECK_EQ_INT(cairo_image_surface_get_height(d), h);
    cairo_surface_flush(d);
    const unsigned char *dp = cairo_image_surface_get_data(d);
    int dstride = cairo_image_surface_get_stride(d), bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = ((const uint32_t *)(const void *)(px + (size_t)y * stride))[x] & 0xffffff;
            uint32_t q = ((const uint32_t *)(const void *)(dp + (size_t)y * dstride))[x] & 0xffffff;
            bad += p != q;
        }
    CHECK_EQ_INT(bad, 0);
    cairo_surface_destroy(d);
    tp_buf_free(&a);
    tp_buf_free(&b);
}

TEST(png_encode_round_trips_through_libpng)
{
    /* a chart-like page: flat fills, anti-aliased lines and curves */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 333, 217);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    for (int i = 0; i < 12; i++) {
        cairo_set_source_rgb(cr, (i * 37 % 255) / 255.0, (i * 91 % 255) / 255.0, (i * 53 % 255) / 255.0);
        cairo_rectangle(cr, 10 + i * 25, 200 - i * 15, 20, i * 15);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.1, 0.2, 0.3);
    cairo_set_line_width(cr, 1.3);
    cairo_move_to(cr, 0, 0);
    cairo_line_to(cr, 333, 217);
    cairo_stroke(cr);
    /* anti-aliased curves stand in for text (cairo's toy text API would
     * bring in fontconfig, whose caches LeakSanitizer reports) */
    for (int i = 0; i < 8; i++) {
        cairo_arc(cr, 30 + i * 9.5, 40, 3.7, 0, 6.2832);
        cairo_stroke(cr);
    }
    cairo_destroy(cr);
    round_trip(s);
    cairo_surface_destroy(s);

    /* noise: every byte value in every position (filters wrap modulo 256) */
    s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 64, 50);
    cairo_surface_flush(s);
    unsigned char *px = cairo_image_surface_get_data(s);
    uint32_t x = 12345;
    for (int i = 0; i < cairo_image_surface_get_stride(s) * 50; i++) {
        x = x * 1103515245u + 12345u;
        px[i] = (unsigned char)(x >> 16);
    }
    cairo_surface_mark_dirty(s);
    round_trip(s);
    cairo_surface_destroy(s);

    /* one pixel */
    s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    round_trip(s);
    cairo_surface_destroy(s);
}

/* The crop box: what is not background, grown by the margin within the
 * image; an empty image keeps its size; the alpha byte is ignored. */
TEST(png_content_box)
{
    enum { W = 40, H = 30 };
    uint32_t px[W * H];
    for (int i = 0; i < W * H; i++)
        px[i] = 0xFF000000u | 0xFFFFFFu; /* cairo leaves the top byte undefined for RGB24 */
    int x, y, w, h;
    tp_png_content_box((const unsigned char *)px, W, H, W * 4, 0xFFFFFF, 3, &x, &y, &w, &h);
    CHECK(x == 0 && y == 0 && w == W && h == H);
    px[10 * W + 12] = 0x000000; /* one dark pixel at (12, 10) and one at (20, 14) */
    px[14 * W + 20] = 0x123456;
    tp_png_content_box((const unsigned char *)px, W, H, W * 4, 0xFFFFFF, 3, &x, &y, &w, &h);
    CHECK_EQ_INT(x, 9);
    CHECK_EQ_INT(y, 7);
    CHECK_EQ_INT(w, 20 - 12 + 1 + 6);
    CHECK_EQ_INT(h, 14 - 10 + 1 + 6);
    px[0] = 0x000001; /* near the edges: the margin stops there */
    px[H * W - 1] = 0x000001;
    tp_png_content_box((const unsigned char *)px, W, H, W * 4, 0xFFFFFF, 3, &x, &y, &w, &h);
    CHECK(x == 0 && y == 0 && w == W && h == H);
}
