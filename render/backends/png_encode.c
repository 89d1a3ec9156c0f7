/* png_encode.c: PNG encoder for RGB24 pixels (png_encode.h), on zlib.
 *
 * A PNG is the signature, then chunks (length, type, data, CRC-32 of type
 * and data): IHDR (size, 8-bit RGB), IDAT (one zlib stream of the rows,
 * each row a filter byte then the filtered bytes) and IEND. */
#include "render/backends/png_encode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static void put_u32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_chunk(tp_buf *out, const char type[4], const unsigned char *data, size_t n)
{
    unsigned char head[8];
    put_u32be(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    tp_buf_put(out, head, 8);
    if (n)
        tp_buf_put(out, data, n);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (n) /* crc32 of a NULL buffer is not a no-op: it returns the initial value */
        crc = crc32_z(crc, data, n);
    unsigned char tail[4];
    put_u32be(tail, (uint32_t)crc);
    tp_buf_put(out, tail, 4);
}

/* Row r as RGB bytes into rgb (3*w). */
static void unpack_row(const unsigned char *row, int w, unsigned char *rgb)
{
    const uint32_t *p = (const uint32_t *)(const void *)row;
    for (int x = 0; x < w; x++) {
        uint32_t v = p[x];
        rgb[3 * x] = (unsigned char)(v >> 16);
        rgb[3 * x + 1] = (unsigned char)(v >> 8);
        rgb[3 * x + 2] = (unsigned char)v;
    }
}

/* |byte as signed|, the PNG filter heuristic's measure of a residual. */
static inline unsigned residual(unsigned char a) { return a < 128 ? a : 256u - a; }

/* The Sub and Up filters of one row of n bytes (3 per pixel) and the sums
 * of their residuals, 16 bytes at a time where SSE2 is (every x86-64): the
 * same bytes and sums as the plain loop, which was 16% of a report's
 * instructions on a small trace. */
static void filter_row(const unsigned char *cur, const unsigned char *prev, size_t n, unsigned char *sub,
                       unsigned char *up, unsigned long *ss_out, unsigned long *su_out)
{
    unsigned long ss = 0, su = 0;
    size_t i = 0;
    for (; i < n && i < 3; i++) { /* the first pixel has no left neighbour */
        sub[i] = cur[i];
        up[i] = (unsigned char)(cur[i] - prev[i]);
        ss += residual(sub[i]);
        su += residual(up[i]);
    }
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    __m128i vs = zero, vu = zero;
    for (; i + 16 <= n; i += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(cur + i));
        __m128i a = _mm_sub_epi8(c, _mm_loadu_si128((const __m128i *)(const void *)(cur + i - 3)));
        __m128i u = _mm_sub_epi8(c, _mm_loadu_si128((const __m128i *)(const void *)(prev + i)));
        _mm_storeu_si128((__m128i *)(void *)(sub + i), a);
        _mm_storeu_si128((__m128i *)(void *)(up + i), u);
        /* min(x, 256 - x) is |x as signed| (128 stays 128); the byte sums in two 64-bit lanes */
        vs = _mm_add_epi64(vs, _mm_sad_epu8(_mm_min_epu8(a, _mm_sub_epi8(zero, a)), zero));
        vu = _mm_add_epi64(vu, _mm_sad_epu8(_mm_min_epu8(u, _mm_sub_epi8(zero, u)), zero));
    }
    ss += (unsigned long)_mm_cvtsi128_si64(vs) + (unsigned long)_mm_cvtsi128_si64(_mm_unpackhi_epi64(vs, vs));
    su += (unsigned long)_mm_cvtsi128_si64(vu) + (unsigned long)_mm_cvtsi128_si64(_mm_unpackhi_epi64(vu, vu));
#endif
    for (; i < n; i++) {
        sub[i] = (unsigned char)(cur[i] - cur[i - 3]);
        up[i] = (unsigned char)(cur[i] - prev[i]);
        ss += residual(sub[i]);
        su += residual(up[i]);
    }
    *ss_out = ss;
    *su_out = su;
}

int tp_png_encode_rgb24(const unsigned char *px, int w, int h, int stride, tp_buf *out)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    tp_buf_put(out, sig, 8);
    unsigned char ihdr[13];
    put_u32be(ihdr, (uint32_t)w);
    put_u32be(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* not interlaced */
    put_chunk(out, "IHDR", ihdr, sizeof ihdr);

    size_t rowb = (size_t)w * 3;
    unsigned char *cur = tp_xmalloc(rowb), *prev = tp_xcalloc(1, rowb);
    unsigned char *sub = tp_xmalloc(rowb + 1), *up = tp_xmalloc(rowb + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    /* zlib level 3, default strategy: on the report's chart pages (30 MB
     * trace, six 1600x960 pages) 643 KB in all against cairo/libpng's 572 KB,
     * for a fifth of the instructions; level 4 and up cost 25% more time
     * for 13% less size, and Z_RLE doubles the size (anti-aliased text). */
    int rc = deflateInit2(&z, 3, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
    tp_buf idat = {0};
    TP_GROW(idat.data, idat.cap, deflateBound(&z, (uLong)(rowb + 1) * (uLong)h) + 64);
    z.next_out = (Bytef *)idat.data;
    z.avail_out = (uInt)idat.cap;
    for (int y = 0; rc == 0 && y < h; y++) {
        unpack_row(px + (size_t)y * (size_t)stride, w, cur);
        const unsigned char *f;
        if (y > 0 && memcmp(cur, prev, rowb) == 0) {
            /* a row like the one above (margins, bar interiors): Up is all zeros */
            memset(up, 0, rowb + 1);
            up[0] = 2;
            f = up;
        } else {
            /* both filters and their residual sums (|byte as signed|: PNG's usual heuristic for which
             * filter deflates best) in one pass over the row (four passes were a third of the encoder's
             * instructions beside deflate) */
            sub[0] = 1;
            up[0] = 2;
            unsigned long ss = 0, su = 0;
            filter_row(cur, prev, rowb, sub + 1, up + 1, &ss, &su);
            f = su <= ss ? up : sub;
        }
        z.next_in = (Bytef *)f;
        z.avail_in = (uInt)(rowb + 1);
        if (deflate(&z, y + 1 == h ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR || z.avail_in)
            rc = -1;
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    if (rc == 0 && z.avail_out == 0)
        rc = -1; /* deflateBound was exceeded: cannot happen, but never write a cut stream */
    size_t n = idat.cap - z.avail_out;
    deflateEnd(&z);
    if (rc == 0) {
        put_chunk(out, "IDAT", (const unsigned char *)idat.data, n);
        put_chunk(out, "IEND", NULL, 0);
    }
    free(idat.data);
    free(cur);
    free(prev);
    free(sub);
    free(up);
    return rc;
}

/* The first pixel of a row that is not the background (w: none), four at a time where SSE2 is (most rows of a
 * chart page are margin). */
static int first_ink(const uint32_t *row, int w, uint32_t bg)
{
    int a = 0;
#ifdef __SSE2__
    const __m128i mask = _mm_set1_epi32(0xFFFFFF), bgv = _mm_set1_epi32((int)bg);
    for (; a + 4 <= w; a += 4) {
        __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(row + a)), mask);
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(v, bgv)) != 0xFFFF)
            break;
    }
#endif
    while (a < w && (row[a] & 0xFFFFFFu) == bg)
        a++;
    return a;
}

/* The last such pixel of a row that has one. */
static int last_ink(const uint32_t *row, int w, uint32_t bg)
{
    int b = w - 1;
#ifdef __SSE2__
    const __m128i mask = _mm_set1_epi32(0xFFFFFF), bgv = _mm_set1_epi32((int)bg);
    for (; b >= 3; b -= 4) {
        __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(row + b - 3)), mask);
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(v, bgv)) != 0xFFFF)
            break;
    }
#endif
    while ((row[b] & 0xFFFFFFu) == bg)
        b--;
    return b;
}

void tp_png_content_box(const unsigned char *px, int w, int h, int stride, uint32_t bg, int margin, int *x, int *y,
                        int *cw, int *ch)
{
    int x0 = w, x1 = -1, y0 = h, y1 = -1;
    for (int r = 0; r < h; r++) {
        const uint32_t *row = (const uint32_t *)(const void *)(px + (size_t)r * (size_t)stride);
        int a = first_ink(row, w, bg), b;
        if (a == w)
            continue;
        b = last_ink(row, w, bg);
        x0 = a < x0 ? a : x0;
        x1 = b > x1 ? b : x1;
        y0 = r < y0 ? r : y0;
        y1 = r;
    }
    if (x1 < 0) {
        *x = *y = 0, *cw = w, *ch = h;
        return;
    }
    x0 = x0 - margin > 0 ? x0 - margin : 0;
    y0 = y0 - margin > 0 ? y0 - margin : 0;
    x1 = x1 + margin < w - 1 ? x1 + margin : w - 1;
    y1 = y1 + margin < h - 1 ? y1 + margin : h - 1;
    *x = x0, *y = y0, *cw = x1 - x0 + 1, *ch = y1 - y0 + 1;
}
