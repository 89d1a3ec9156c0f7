/* test_mem_counters_paths.c: the memory counters (convert/model/mem_counters.c)
 * intern each counter name once per run of one device's events: every
 * event's counter must name its own device when the devices alternate, and
 * the bytes must be those of TP_THREADS=1 (convert's threads: the read, the
 * link, the write). */
#include "tests/lib/harness.h"
#include "tests/lib/mem_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(mem_counters_threads_same_bytes)
{
    enum { STEPS = 1600 }; /* 3 memory events a step */
    mg_opts o = {STEPS, (int64_t)1 << 30, 8 << 20, 0, 0, -1, false};
    const char *in = mg_write("mcp.json", &o);
    const char *one = tp_test_tmp("mcp_one.json"), *two = tp_test_tmp("mcp_two.json");
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "TP_THREADS=1 %s convert %s -o %s", tp_test_bin(), in, one), 0);
    free(msg);
    msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "TP_THREADS= %s convert %s -o %s", tp_test_bin(), in, two), 0);
    free(msg);
    msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "cmp %s %s", one, two), 0);
    free(msg);
    char *js = tp_test_read_file(two, NULL);
    mg_check_counters(js, &o);
    free(js);
}
