/* test_json_fast.c: the reader's word-at-a-time scanners (json_lex.h:
 * tp_parse_fixed's 8-digit fast path, tp_json_ws_guess, tp_digits_value) against their
 * byte-by-byte twins, on random text where the
 * interesting bytes fall at every position of a word. */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

TEST(parse_fixed_fast_path_agrees_with_the_general_one)
{
    static const char *const edges[] = {
        "9223372036854775807", "9223372036854775808", "9223372036854775.807", "9223372036854775.808",
        "-9223372036854775808", "-9223372036854775.808", "18446744073709551615", "99999999999999999999",
        "1428625746277.044", "1428625746277.0445", "12345678", "123456789", "00000000.5", ".5", "5.",
        "-", "-0", "0", "", "1.2.3", "12345678901234567890", "1234567890123456.789", "1e3", "+12",
        "0000000000000000001"};
    int64_t a, b;
    const char *wa, *wb;
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (int d = 0; d <= 9; d += 3) {
            size_t n = strlen(edges[e]);
            a = b = 77;
            int ra = tp_parse_fixed(edges[e], n, d, &a, &wa), rb = tp_parse_fixed_general(edges[e], n, d, &b, &wb);
            CHECK_EQ_INT(ra, rb);
            if (ra == 0 && rb == 0)
                CHECK(a == b);
        }
    unsigned seed = 3;
    char buf[32];
    for (int round = 0; round < 200000; round++) {
        size_t n = 0;
        if (rand_r(&seed) % 3 == 0)
            buf[n++] = '-';
        size_t ni = (size_t)rand_r(&seed) % 21, nf = rand_r(&seed) % 2 ? (size_t)rand_r(&seed) % 6 : 0;
        for (size_t i = 0; i < ni; i++)
            buf[n++] = (char)('0' + (rand_r(&seed) % 5 ? rand_r(&seed) % 10 : 9));
        if (nf || rand_r(&seed) % 8 == 0)
            buf[n++] = '.';
        for (size_t i = 0; i < nf; i++)
            buf[n++] = (char)('0' + rand_r(&seed) % 10);
        if (n && rand_r(&seed) % 10 == 0)
            buf[(size_t)rand_r(&seed) % n] = "x/:e+"[rand_r(&seed) % 5];
        int d = rand_r(&seed) % 10;
        int ra = tp_parse_fixed(buf, n, d, &a, &wa), rb = tp_parse_fixed_general(buf, n, d, &b, &wb);
        CHECK_EQ_INT(ra, rb);
        if (ra == 0 && rb == 0 && a != b) {
            CHECK(a == b);
            break;
        }
    }
}

TEST(json_ws_guess_agrees_with_tp_json_ws)
{
    /* indents that repeat, change, and stop short of a token, and bytes
     * below ' ' that are not whitespace */
    static const char *const pieces[] = {"\n      ", "\n    ", "\n      ", " ", "", "\r\n\t", "\n                   ",
                                         "x", "\"k\"", ":", ",", "\x01", "\x1f", "\xff", "  "};
    unsigned seed = 5;
    char buf[160];
    for (int round = 0; round < 3000; round++) {
        size_t n = 0;
        while (n < sizeof buf - 24) {
            const char *pc = pieces[rand_r(&seed) % (sizeof pieces / sizeof pieces[0])];
            memcpy(buf + n, pc, strlen(pc));
            n += strlen(pc);
        }
        tp_ws_guess g = {{0, 0}, {0, 0}, 0};
        size_t lim = n - (size_t)rand_r(&seed) % 20;
        for (int k = 0; k < 40; k++) {
            size_t at = (size_t)rand_r(&seed) % (lim + 1);
            CHECK_EQ_INT(tp_json_ws_guess(&g, buf + at, buf + lim) - buf, tp_json_ws(buf + at, buf + lim) - buf);
            /* the same place again: now a hit, when the run was short enough to learn */
            CHECK_EQ_INT(tp_json_ws_guess(&g, buf + at, buf + lim) - buf, tp_json_ws(buf + at, buf + lim) - buf);
        }
    }
}

TEST(digits_value_agrees_with_a_loop)
{
    unsigned seed = 11;
    char buf[40];
    for (int round = 0; round < 100000; round++) {
        for (size_t i = 0; i < sizeof buf; i++) /* what lies before the digits is masked, whatever it is */
            buf[i] = (char)(rand_r(&seed) % 3 ? '0' + rand_r(&seed) % 10 : rand_r(&seed) % 256);
        size_t n = 1 + (size_t)rand_r(&seed) % 16, at = 8 + (size_t)rand_r(&seed) % 8;
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            buf[at + i] = (char)('0' + rand_r(&seed) % 10);
            want = want * 10 + (uint64_t)(buf[at + i] - '0');
        }
        if (tp_digits_value(buf + at, n) != want) {
            CHECK(tp_digits_value(buf + at, n) == want);
            break;
        }
    }
    CHECK(tp_digits_value("xxxxxxxx9999999999999999" + 8, 16) == 9999999999999999ull);
    CHECK(tp_digits_value("\xff\xff\xff\xff\xff\xff\xff" "7" + 7, 1) == 7);
    CHECK(tp_pow10(19) == 10000000000000000000ull);
}
