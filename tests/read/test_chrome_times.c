/* test_chrome_times.c: the Chrome reader's two ways to a ts or dur in ns
 * (chrome_events.c: time_fast, a word at a time for plain [-]digits[.digits],
 * and tp_parse_fixed for everything else) give the same trace.  The same
 * times are written plain, then with "e0" after each, which only the
 * general way takes; both conversions must be byte-identical. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_number(tp_buf *b, unsigned *seed, bool dur, const char *suffix)
{
    char digits[40];
    /* 1-19 integer digits: runs shorter than, as long as and longer than the
     * 16 bytes chrome_parse.h's digits_end looks at once (past 10^18 ns both
     * ways drop the event); 4-5 decimals: rounded */
    size_t ni = 1 + (size_t)rand_r(seed) % 19, nf = (size_t)rand_r(seed) % 6;
    size_t n = 0;
    if (!dur && rand_r(seed) % 5 == 0)
        digits[n++] = '-';
    digits[n++] = (char)('1' + rand_r(seed) % 9);
    for (size_t i = 1; i < ni; i++)
        digits[n++] = (char)('0' + rand_r(seed) % 10);
    if (nf) {
        digits[n++] = '.';
        for (size_t i = 0; i < nf; i++)
            digits[n++] = (char)('0' + rand_r(seed) % 10);
    }
    tp_buf_put(b, digits, n);
    tp_buf_put(b, suffix, strlen(suffix));
}

static const char *write_trace(const char *name, unsigned seed, const char *suffix)
{
    tp_buf b = {0};
    /* the first event's ts starts within 8 bytes of the file: no word before it */
    tp_buf_put(&b, "[{\"ts\":1", 8);
    tp_buf_put(&b, suffix, strlen(suffix));
    static const char rest[] = ",\"ph\":\"X\",\"dur\":2,\"name\":\"first\",\"pid\":1,\"tid\":1}";
    tp_buf_put(&b, rest, sizeof rest - 1);
    for (int i = 0; i < 400; i++) {
        char head[96];
        int k = snprintf(head, sizeof head, ",\n{\"ph\":\"X\",\"name\":\"e%d\",\"pid\":1,\"tid\":%d,\"ts\":", i, i % 3);
        tp_buf_put(&b, head, (size_t)k);
        put_number(&b, &seed, false, suffix);
        tp_buf_put(&b, ",\"dur\":", 7);
        put_number(&b, &seed, true, suffix);
        tp_buf_putc(&b, '}');
    }
    tp_buf_put(&b, "]\n", 2);
    tp_buf_putc(&b, 0);
    const char *path = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return path;
}

TEST(chrome_times_word_path_agrees_with_the_general_one)
{
    for (unsigned seed = 1; seed <= 3; seed++) {
        char plain_name[32], exp_name[32], out_a[32], out_b[32];
        snprintf(plain_name, sizeof plain_name, "times_plain%u.json", seed);
        snprintf(exp_name, sizeof exp_name, "times_exp%u.json", seed);
        snprintf(out_a, sizeof out_a, "times_a%u.json", seed);
        snprintf(out_b, sizeof out_b, "times_b%u.json", seed);
        const char *plain = write_trace(plain_name, seed, ""), *exp = write_trace(exp_name, seed, "e0");
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "%s convert %s -o %s", tp_test_bin(), plain, tp_test_tmp(out_a)), 0);
        free(out);
        CHECK_EQ_INT(tp_test_run(&out, "%s convert %s -o %s", tp_test_bin(), exp, tp_test_tmp(out_b)), 0);
        free(out);
        size_t na = 0, nb = 0;
        char *a = tp_test_read_file(tp_test_tmp(out_a), &na), *b = tp_test_read_file(tp_test_tmp(out_b), &nb);
        CHECK(a && b && na > 1000);
        CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
        free(a);
        free(b);
    }
}
