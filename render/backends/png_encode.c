/* png_encode.c: PNG encoder for RGB24 pixels (png_encode.h): the rows
 * deflated by zlib, the chunks' CRC-32 by zlib.
 *
 * A PNG is the signature, then chunks (length, type, data, CRC-32 of type
 * and data): IHDR (size, 8-bit RGB), IDAT (one zlib stream of the rows,
 * each row a filter byte then the filtered bytes) and IEND. */
#include "render/backends/png_encode.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* Deflate one filtered row (n bytes), last: and end the stream; idat grows
 * until zlib has taken it all (and ended the stream), so it is never cut.
 * 0, or -1 on an error or no progress. */
static int deflate_row(z_stream *z, const unsigned char *in, size_t n, bool last, tp_buf *idat)
{
    z->next_in = (Bytef *)in;
    z->avail_in = (uInt)n;
    for (;;) {
        TP_GROW(idat->data, idat->cap, idat->len + n + n / 8 + 65536);
        size_t room = idat->cap - idat->len > UINT32_MAX ? UINT32_MAX : idat->cap - idat->len;
        uInt in_before = z->avail_in;
        z->next_out = (Bytef *)idat->data + idat->len;
        z->avail_out = (uInt)room;
        int ret = deflate(z, last ? Z_FINISH : Z_NO_FLUSH);
        idat->len += room - z->avail_out;
        if (ret == Z_STREAM_END || (!last && z->avail_in == 0 && (ret == Z_OK || ret == Z_BUF_ERROR)))
            return 0;
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return -1;
        if (z->avail_in == in_before && z->avail_out == room)
            return -1; /* no progress: cannot happen, but never loop for ever */
    }
}

int tp_png_encode_rgb24(const unsigned char *px, int w, int h, int stride, tp_buf *out)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (w < 0 || (size_t)w * 3 + 1 > UINT32_MAX)
        return -1; /* zlib takes a row in one call: never cut one (cairo's images are far narrower) */
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

    /* zlib level 3, default strategy, a row at a time.  ISA-L's igzip level
     * 1 (85d656f to 802cceb) spent less than half the instructions, but its
     * bytes were not a function of the rows alone: with address
     * randomisation on, about one run in a hundred of the example report
     * wrote a PNG with one match at another distance (same pixels, same
     * length; none in 400 runs under `setarch -R`), which broke the
     * byte-identical report CI checks (convert/io/output.c,
     * tp_out_gzip_init, has the measurements).  Level 4 and up cost a
     * quarter more time for an eighth less size; Z_RLE makes the charts
     * half as large again (1.11 MB against 0.75 MB for the example's eight:
     * anti-aliased text).  The IDAT grows as zlib writes it: deflateBound's
     * buffer for the whole image (before 85d656f) was the image's size. */
    size_t rowb = (size_t)w * 3;
    unsigned char *cur = tp_xmalloc(rowb), *prev = tp_xcalloc(1, rowb);
    unsigned char *sub = tp_xmalloc(rowb + 1), *up = tp_xmalloc(rowb + 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    tp_buf idat = {0};
    int rc = deflateInit2(&z, 3, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
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
            for (size_t i = 0; i < rowb; i++) {
                unsigned char a = (unsigned char)(cur[i] - (i >= 3 ? cur[i - 3] : 0));
                unsigned char u = (unsigned char)(cur[i] - prev[i]);
                sub[i + 1] = a;
                up[i + 1] = u;
                ss += a < 128 ? a : 256u - a;
                su += u < 128 ? u : 256u - u;
            }
            f = su <= ss ? up : sub;
        }
        rc = deflate_row(&z, f, rowb + 1, y + 1 == h, &idat);
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    if (rc == 0 && h <= 0)
        rc = deflate_row(&z, up, 0, true, &idat); /* no row: still a whole (empty) stream */
    size_t n = idat.len;
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

void tp_png_content_box(const unsigned char *px, int w, int h, int stride, uint32_t bg, int margin, int *x, int *y,
                        int *cw, int *ch)
{
    int x0 = w, x1 = -1, y0 = h, y1 = -1;
    for (int r = 0; r < h; r++) {
        const uint32_t *row = (const uint32_t *)(const void *)(px + (size_t)r * (size_t)stride);
        int a = 0, b = w - 1;
        while (a < w && (row[a] & 0xFFFFFFu) == bg)
            a++;
        if (a == w)
            continue;
        while ((row[b] & 0xFFFFFFu) == bg)
            b--;
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
