/* test_json_digits.c: tp_json_digits_end (16 bytes at a time) against the
 * byte loop, for every byte value at every place of a look and of the
 * input's end, in buffers of exactly their size (so that ASan sees a read
 * past the end).  tp_json_number_end and the reader's numbers are its runs
 * put together as before; their callers' tests (test_chrome_times,
 * test_json_min) cover the grammar around them. */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

static const char *ref_digits_end(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
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
