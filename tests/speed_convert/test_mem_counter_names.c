/* test_mem_counter_names.c: convert's memory counters (convert/model/mem_counters.c)
 * keep the last 8 devices' counter names instead of formatting and interning
 * one for every event: with 12 devices taking turns (every look-up past the
 * first round replaces one), each counter still carries its own device's
 * name and levels. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(mem_counters_named_by_their_device_past_the_cache)
{
    enum { DEVICES = 12, ROUNDS = 3 };
    tp_buf in = {0};
    tp_buf_puts(&in, "{\"traceEvents\":[\n");
    for (int r = 0; r < ROUNDS; r++)
        for (int d = 0; d < DEVICES; d++) {
            int k = r * DEVICES + d;
            char ev[400];
            snprintf(ev, sizeof ev,
                     "%s{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                     "\"args\":{\"Device Type\":1,\"Device Id\":%d,\"Addr\":%d,\"Bytes\":512,"
                     "\"Total Allocated\":%d,\"Total Reserved\":%d}}",
                     k ? ",\n" : "", 100 + k, d, 4096 * (k + 1), 1000 * d + r, 1000 * d + 500 + r);
            tp_buf_puts(&in, ev);
        }
    tp_buf_puts(&in, "\n]}\n");
    const char *path = tp_test_write_text("memnames.json", in.data), *out = tp_test_tmp("memnames_out.json");
    tp_buf_free(&in);
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert -q %s -o %s", tp_test_bin(), path, out), 0);
    free(msg);
    char *js = tp_test_read_file(out, NULL);
    CHECK(js != NULL);
    int seen = 0;
    for (const char *p = js; p && (p = strstr(p, "\"name\":\"Memory cuda:")); p++) {
        int d = atoi(p + strlen("\"name\":\"Memory cuda:"));
        const char *a = strstr(p, "\"allocated\":"), *rs = strstr(p, "\"reserved\":");
        CHECK(a && rs);
        if (!a || !rs)
            break;
        int alloc = atoi(a + 12), res = atoi(rs + 11);
        if (alloc / 1000 != d || res != alloc + 500)
            tp_test_fail(__FILE__, __LINE__, "Memory cuda:%d carries %d / %d", d, alloc, res);
        seen++;
    }
    CHECK_EQ_INT(seen, DEVICES * ROUNDS);
    free(js);
}
