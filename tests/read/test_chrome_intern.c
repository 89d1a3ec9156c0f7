/* test_chrome_intern.c: the Chrome reader's cache in front of the string
 * table (chrome_events.c intern_text) keeps a text's length and first and
 * last eight bytes, and takes equal ones for an equal text without a
 * compare up to 16 bytes.  Names that differ only where those words do not
 * reach (byte 8 of a 17-byte name) or only in one byte of a 9-16 byte name
 * fall into one slot: each must still be its own kernel. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(chrome_intern_cache_tells_apart_names_that_share_their_end_words)
{
    /* pairs alike but for one byte: the middle of 17 bytes (in neither
     * word), and each place of 9, 12 and 16 bytes (in one word or both) */
    static const char *const names[] = {
        "aaaaaaaaXbbbbbbbb", "aaaaaaaaYbbbbbbbb", "kernel_Ab", "kernel_Bb", "kernXl_Ab",
        "abcdefghijkl",      "abcdefghijkm",      "Abcdefghijkl", "sixteen_bytes_AA", "sixteen_bytes_AB",
        "sixteen_Xytes_AA",  "short",             "shorT",
    };
    size_t nn = sizeof names / sizeof names[0];
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[");
    for (int round = 0; round < 3; round++) /* each name met again after the others */
        for (size_t i = 0; i < nn; i++)
            tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":%zu}",
                          round || i ? "," : "", names[i], (size_t)(round * 1000 + i * 10), i + 1);
    tp_buf_puts(&b, "]}\n");
    const char *in = tp_test_write_text("intern_cache.json", b.data);
    tp_buf_free(&b);
    for (int kernels_only = 0; kernels_only < 2; kernels_only++) {
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' %s 2>/dev/null", tp_test_bin(), in,
                                 kernels_only ? "--kernels-only" : ""),
                     0);
        char want[64];
        snprintf(want, sizeof want, "instances of %zu names", nn);
        CHECK(out && strstr(out, want));
        for (size_t i = 0; i < nn; i++)
            CHECK(out && strstr(out, names[i]));
        free(out);
    }
}
