/* test_pftrace_minify.c: tp_pf_minify (the .pftrace writer's legacy_json
 * values, 16 bytes at a time) against the byte-by-byte walk it replaced, on
 * Kineto-shaped values and on random bytes whose whitespace, quotes,
 * backslashes, control and non-ASCII bytes fall at every place of a 16-byte
 * look and of the input's end (the scalar tail). */
#include "tests/lib/harness.h"
#include "convert/write/pftrace_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The walk as it was: a string from a quote to the next quote not after a
 * backslash (which takes the byte after it along), whitespace outside
 * strings dropped, every other byte kept. */
static void ref_minify(tp_buf *out, const char *s, const char *end)
{
    bool in_str = false;
    for (const char *p = s; p < end; p++) {
        char c = *p;
        if (in_str) {
            tp_buf_putc(out, c);
            if (c == '\\' && p + 1 < end)
                tp_buf_putc(out, *++p);
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
            tp_buf_putc(out, c);
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            tp_buf_putc(out, c);
    }
}

/* Both ways, appended after `prefix`: the same bytes and length. */
static bool same_both_ways(const char *s, size_t n, const char *prefix)
{
    tp_buf a = {0}, b = {0};
    tp_buf_puts(&a, prefix);
    tp_buf_puts(&b, prefix);
    tp_pf_minify(&a, s, s + n);
    ref_minify(&b, s, s + n);
    bool same = a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0) && a.data[a.len] == 0;
    if (!same)
        fprintf(stderr, "  minify differs on %zu input bytes: %zu against %zu output bytes\n", n, a.len, b.len);
    tp_buf_free(&a);
    tp_buf_free(&b);
    return same;
}

TEST(pftrace_minify_equals_the_byte_walk_on_kineto_values)
{
    static const char *const values[] = {
        "[\n          [\n            151936,\n            1024\n          ],\n          [\n            16,\n            559\n"
        "          ],\n          [],\n          []\n        ]",
        "[\n          \"c10::BFloat16\",\n          \"long int\",\n          \"Scalar\"\n        ]",
        "[\"\", \"\", \"-1\", \"False\", \"False\"]",
        "{ \"a\" : [ 1 , 2 ] , \"b\\\" c\" : \"x  y\\\\\" }",
        "null",
        "[ \"tab\\there\", \"new\\nline\", \"\\u00e9t\\u00e9 \\\" \" ]",
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        CHECK(same_both_ways(values[i], strlen(values[i]), ""));
        CHECK(same_both_ways(values[i], strlen(values[i]), "{\"before\":1}"));
    }
}

TEST(pftrace_minify_equals_the_byte_walk_on_random_bytes)
{
    /* weighted towards the bytes that change state, so that strings open
     * and close and escapes fall on both sides of every 16-byte boundary */
    static const char alphabet[] = "   \n\n\r\t\"\"\"\\\\[]{},:0123456789abcXYZ-.e\x01\x1f\x7f\x80\xc3\xa9\xff";
    unsigned seed = 37;
    char buf[200];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)rand_r(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)];
        if (!same_both_ways(buf, n, round % 3 ? "" : "x")) {
            CHECK(!"tp_pf_minify differs from the byte walk");
            return;
        }
    }
    /* runs of whitespace and of other bytes longer than one look, ending at the input's last byte */
    for (size_t k = 0; k < 40; k++) {
        memset(buf, k % 2 ? ' ' : '7', k);
        buf[k] = k % 3 ? '"' : '\\';
        CHECK(same_both_ways(buf, k + 1, ""));
    }
}
