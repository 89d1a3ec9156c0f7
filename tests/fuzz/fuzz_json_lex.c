/* fuzz_json_lex.c: libFuzzer target for the shared JSON scanner
 * (convert/codec/json_lex.h) and the JSON string writer (json_write.h).  The
 * input is used as the exact byte range, so any read past it is an ASan
 * report.  Checks the scanner's promises: OK results stay inside the range
 * and move forward; decimal parsing agrees with integer parsing; text the
 * grammar check (tp_json_valid) accepts is never refused by the skipper;
 * the minifier accepts what the grammar check does. */
#include "convert/codec/json_lex.h"
#include "convert/codec/json_min.h"
#include "convert/codec/json_write.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ASSERT(c) \
    do {          \
        if (!(c)) \
            abort(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a private copy without a terminator: reads past the end are caught */
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    const char *p = buf, *end = buf + size;
    const char *why = NULL;

    /* a sequence of values, as the readers consume them */
    const char *q = p;
    for (int n = 0; n < 1000 && q < end; n++) {
        const char *next = NULL;
        int k = tp_json_skip(q, end, &next, &why);
        if (k != TP_JL_OK)
            break;
        ASSERT(next > q && next <= end);
        q = tp_json_ws(next, end);
        if (q < end && (*q == ',' || *q == ':'))
            q++;
    }

    /* every string in the buffer, then its unescaped form */
    tp_buf b = {0};
    for (const char *s = memchr(p, '"', size); s; s = memchr(s + 1, '"', (size_t)(end - s - 1))) {
        const char *body, *next;
        size_t len;
        bool esc;
        if (tp_json_string(s, end, &body, &len, &esc, &next, &why) == TP_JL_OK) {
            ASSERT(body == s + 1 && body + len < end + 1 && next <= end && next == body + len + 1);
            uint64_t bad = 0;
            b.len = 0;
            tp_json_unescape(&b, body, len, &bad);
            uint64_t bad2 = 0;
            tp_buf w = {0};
            tp_json_put_string(&w, b.data ? b.data : "", b.len, &bad2);
            tp_buf_free(&w);
        }
        if (s + 1 >= end)
            break;
    }
    tp_buf_free(&b);

    /* numbers: the whole input and every prefix up to 64 bytes */
    size_t nlen;
    if (size && tp_json_number(p, end, &nlen, &why) == TP_JL_OK)
        ASSERT(nlen <= size);
    for (size_t n = 0; n <= size && n <= 64; n++) {
        int64_t a, f;
        int ri = tp_parse_int(p, n, &a);
        for (int d = 0; d <= 9; d += 3) {
            int rf = tp_parse_fixed(p, n, d, &f, &why);
            int64_t g;
            int rg = tp_parse_fixed_general(p, n, d, &g, &why);
            ASSERT(rf == rg && (rf != 0 || f == g)); /* the fast path is only faster */
            if (ri == 0 && d == 0)
                ASSERT(rf == 0 && f == a); /* an integer parses the same both ways */
        }
    }
    /* the grammar check agrees with the skipper: valid text is one value to its end */
    bool valid = tp_json_valid(buf, size);
    if (valid) {
        const char *next = NULL;
        ASSERT(tp_json_skip(buf, end, &next, &why) != TP_JL_BAD);
    }
    /* the minifier takes what the grammar check does */
    tp_buf min = {0};
    ASSERT(tp_json_min(&min, buf, size, TP_MIN_VALUE, NULL) == valid);
    tp_buf_free(&min);
    (void)tp_json_valid_members(buf, size);
    tp_buf ws = {0};
    uint64_t bad = 0;
    tp_json_put_string(&ws, buf, size, &bad);
    tp_buf_free(&ws);
    free(buf);
    return 0;
}
