/* test_json_digits.c: tp_json_digits_end (16 bytes at a time) against the
 * byte loop, for every byte value at every place of a look and of the
 * input's end, in buffers of exactly their size (so that ASan sees a read
 * past the end); and tp_json_number_end against the digit loops it had
 * before, on random number-like text. */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ref_digits_end(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* tp_json_number_end as it was, a byte loop per digit run */
static const char *ref_number_end(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return NULL;
    if (*p == '0')
        p++;
    else
        p = ref_digits_end(p, end);
    if (p < end && *p == '.') {
        const char *d = ++p;
        p = ref_digits_end(p, end);
        if (p == d)
            return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *d = p;
        p = ref_digits_end(p, end);
        if (p == d)
            return NULL;
    }
    return p;
}

TEST(json_digits_end_equals_the_byte_loop_for_every_byte_and_place)
{
    size_t bad = 0;
    for (size_t len = 0; len <= 40; len++)
        for (size_t at = 0; at < len || (len == 0 && at == 0); at++)
            for (int byte = 0; byte < 256; byte++) {
                char *buf = malloc(len ? len : 1); /* exactly len bytes */
                for (size_t i = 0; i < len; i++)
                    buf[i] = (char)('0' + i % 10);
                if (len)
                    buf[at] = (char)byte;
                for (size_t from = 0; from <= len && from < 3; from++)
                    bad += tp_json_digits_end(buf + from, buf + len) != ref_digits_end(buf + from, buf + len);
                free(buf);
                if (len == 0)
                    break;
            }
    CHECK(bad == 0);
}

TEST(json_number_end_equals_its_byte_loop_version)
{
    static const char alphabet[] = "0000123456789999-+.eE,] x";
    unsigned seed = 11;
    size_t bad = 0;
    for (int round = 0; round < 200000; round++) {
        char buf[48];
        size_t n = 1 + (size_t)rand_r(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)];
        char *exact = malloc(n);
        memcpy(exact, buf, n);
        const char *a = tp_json_number_end(exact, exact + n), *b = ref_number_end(exact, exact + n);
        if (a != b && bad++ == 0)
            fprintf(stderr, "  differs on '%.*s'\n", (int)n, buf);
        free(exact);
    }
    CHECK(bad == 0);
}
