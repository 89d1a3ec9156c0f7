/* test_png_paths.c: the PNG encoder's row filters give the rows a plain
 * one-byte-at-a-time reference gives (Sub or Up by the smaller sum of
 * |residual|, Up for a row like the one above), read back from its IDAT
 * through zlib's inflate (which checks the stream's Adler-32), and the
 * crop box gives what a pixel walk gives, over widths 1-40.  (An SSE2
 * path of both was dropped at the merge: 3% of a real-shaped report, under
 * the 5% rule; this test stays as the encoder's check against its format.) */
#include "tests/lib/harness.h"
#include "render/backends/png_encode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The filtered rows the encoder must deflate, one byte at a time (the loop before the SSE2 one). */
static size_t reference_rows(const unsigned char *px, int w, int h, int stride, unsigned char *out)
{
    size_t rowb = (size_t)w * 3, o = 0;
    unsigned char *cur = calloc(rowb + 1, 1), *prev = calloc(rowb + 1, 1);
    for (int y = 0; y < h; y++) {
        const uint32_t *p = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++) {
            cur[3 * x] = (unsigned char)(p[x] >> 16);
            cur[3 * x + 1] = (unsigned char)(p[x] >> 8);
            cur[3 * x + 2] = (unsigned char)p[x];
        }
        unsigned long ss = 0, su = 0;
        for (size_t i = 0; i < rowb; i++) {
            unsigned char a = (unsigned char)(cur[i] - (i >= 3 ? cur[i - 3] : 0));
            unsigned char u = (unsigned char)(cur[i] - prev[i]);
            ss += a < 128 ? a : 256u - a;
            su += u < 128 ? u : 256u - u;
        }
        bool up = (y > 0 && memcmp(cur, prev, rowb) == 0) || su <= ss;
        out[o++] = up ? 2 : 1;
        for (size_t i = 0; i < rowb; i++)
            out[o++] = up ? (unsigned char)(cur[i] - prev[i]) : (unsigned char)(cur[i] - (i >= 3 ? cur[i - 3] : 0));
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    free(cur);
    free(prev);
    return o;
}

/* The encoder's IDAT data (the third chunk, after the signature and IHDR: 8 + 25 bytes), inflated by zlib
 * (which checks its Adler-32), against the reference rows; then IEND, the file's last 12 bytes. */
static void same_as_reference(const unsigned char *px, int w, int h, int stride)
{
    tp_buf b = {0};
    CHECK_EQ_INT(tp_png_encode_rgb24(px, w, h, stride, &b), 0);
    size_t cap = (size_t)(w * 3 + 1) * (size_t)h;
    unsigned char *ref = malloc(cap), *got = malloc(cap + 1);
    size_t n = reference_rows(px, w, h, stride, ref);
    CHECK(b.len > 33 + 8);
    const unsigned char *ch = (const unsigned char *)b.data + 33;
    size_t len = (size_t)ch[0] << 24 | (size_t)ch[1] << 16 | (size_t)ch[2] << 8 | ch[3];
    CHECK(memcmp(ch + 4, "IDAT", 4) == 0);
    CHECK_EQ_INT(33 + 12 + len + 12, b.len);
    uLongf got_n = (uLongf)cap + 1;
    CHECK_EQ_INT(uncompress(got, &got_n, ch + 8, (uLong)len), Z_OK);
    CHECK_EQ_INT(got_n, n);
    CHECK(got_n == n && memcmp(got, ref, n) == 0);
    CHECK(memcmp(b.data + b.len - 8, "IEND", 4) == 0);
    free(ref);
    free(got);
    tp_buf_free(&b);
}

TEST(png_filters_wide_and_plain_write_the_same_bytes)
{
    enum { H = 24 };
    uint32_t x = 777;
    for (int w = 1; w <= 40; w++) {
        uint32_t *px = malloc((size_t)w * H * 4);
        /* noise with flat stretches and repeated rows: both filters win somewhere, every residual value occurs */
        for (int i = 0; i < w * H; i++) {
            x = x * 1103515245u + 12345u;
            px[i] = (i / w) % 5 == 3 && i >= w ? px[i - w] : (x >> 20) % 3 == 0 ? 0xFFFFFFu : x >> 8;
        }
        same_as_reference((const unsigned char *)px, w, H, w * 4);
        free(px);
    }
    /* a page-wide row (the report's size) with a gradient: Sub wins */
    enum { W = 1579, H2 = 6 };
    uint32_t *px = malloc((size_t)W * H2 * 4);
    for (int i = 0; i < W * H2; i++)
        px[i] = (uint32_t)((i % W) * 0x010203u + (i / W) * 0x30507u);
    same_as_reference((const unsigned char *)px, W, H2, W * 4);
    free(px);
}

TEST(png_content_box_wide_and_plain_agree)
{
    uint32_t x = 4242;
    for (int w = 1; w <= 23; w++)
        for (int round = 0; round < 40; round++) {
            int h = 1 + round % 7;
            uint32_t *px = malloc((size_t)w * (size_t)h * 4);
            for (int i = 0; i < w * h; i++)
                px[i] = 0xAB000000u | 0xF0F0F0u; /* the top byte ignored */
            int ink = round % 4; /* 0..3 inked pixels anywhere */
            for (int k = 0; k < ink; k++) {
                x = x * 1103515245u + 12345u;
                px[(x >> 8) % (uint32_t)(w * h)] = 0x00F0F0F1u;
            }
            int x0 = w, x1 = -1, y0 = h, y1 = -1;
            for (int r = 0; r < h; r++)
                for (int c = 0; c < w; c++)
                    if ((px[r * w + c] & 0xFFFFFFu) != 0xF0F0F0u) {
                        x0 = c < x0 ? c : x0;
                        x1 = c > x1 ? c : x1;
                        y0 = r < y0 ? r : y0;
                        y1 = r > y1 ? r : y1;
                    }
            int bx, by, bw, bh;
            tp_png_content_box((const unsigned char *)px, w, h, w * 4, 0xF0F0F0, 0, &bx, &by, &bw, &bh);
            if (x1 < 0)
                CHECK(bx == 0 && by == 0 && bw == w && bh == h);
            else
                CHECK(bx == x0 && by == y0 && bw == x1 - x0 + 1 && bh == y1 - y0 + 1);
            free(px);
        }
}

/* A /proc/self/status figure in KB (VmRSS:, VmHWM:), -1 when unreadable. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            v = strtol(line + strlen(key), NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* 85d656f filtered the whole image into one buffer before deflating it (and
 * before it, deflateBound's buffer was the image's size): a 3000x2000 chart
 * took 18 MB more peak memory (315 MB at --scale 8); the rows go to zlib one
 * at a time and the IDAT grows as it is written.  The peak is reset
 * (/proc/self/clear_refs 5) after the pixels are made, so it counts the
 * encoder's memory only; without that file the test checks the round trip. */
TEST(png_encoder_memory_is_a_chunk_not_the_image)
{
    int w = 3000, h = 2000;
    uint32_t *px = malloc((size_t)w * (size_t)h * 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            px[(size_t)y * (size_t)w + (size_t)x] = (uint32_t)((x / 16 + y / 16) % 7) * 0x202020u;
    tp_buf b = {0};
    FILE *f = fopen("/proc/self/clear_refs", "w");
    bool reset = f && fputs("5", f) >= 0;
    if (f)
        reset = fclose(f) == 0 && reset;
    long before = status_kb("VmRSS:");
    CHECK_EQ_INT(tp_png_encode_rgb24((const unsigned char *)px, w, h, w * 4, &b), 0);
    long peak = status_kb("VmHWM:");
    if (reset && before > 0 && peak > 0)
        CHECK(peak - before < 8 * 1024);
    same_as_reference((const unsigned char *)px, 1200, 1000, w * 4); /* 3.6 MB of rows, the stride wider */
    free(b.data);
    free(px);
}
