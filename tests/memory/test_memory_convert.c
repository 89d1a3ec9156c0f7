/* test_memory_convert.c: `convert` writes the allocator's levels as counter
 * tracks (convert/model/mem_counters.h) in JSON and .pftrace; a trace without
 * memory events converts as before, a converted trace gains no second set. */
#include "tests/lib/harness.h"
#include "tests/lib/mem_gen.h"
#include "tests/lib/pftrace_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(memory_convert_counter_tracks)
{
    mg_opts o = {3, (int64_t)1 << 30, 8 << 20, 0, 0, -1, false};
    const char *in = mg_write("conv.json", &o), *out = tp_test_tmp("conv_out.json"), *again = tp_test_tmp("again.json");
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert %s -o %s", tp_test_bin(), in, out), 0);
    free(msg);
    char *js = tp_test_read_file(out, NULL);
    mg_check_counters(js, &o);
    free(js);
    msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert %s -o %s", tp_test_bin(), out, again), 0);
    free(msg);
    js = tp_test_read_file(again, NULL);
    CHECK_EQ_INT(tp_test_count(js, "\"ph\":\"C\""), 3 * 3 + 1 + 2);
    free(js);
    /* .pftrace: two counter series (allocated, reserved) a device, a value each at every event */
    const char *pf = tp_test_tmp("conv.pftrace");
    msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert %s -o %s", tp_test_bin(), in, pf), 0);
    free(msg);
    size_t len;
    char *data = tp_test_read_file(pf, &len);
    tp_buf txt = {0};
    tp_err err = {0};
    CHECK(data && tp_pftrace_dump(data, len, &txt, &err) == 0);
    CHECK(txt.data && strstr(txt.data, "\"Memory cuda:0 allocated\"") && strstr(txt.data, "\"Memory cuda:0 reserved\""));
    CHECK_EQ_INT(tp_test_count(txt.data, "TYPE_COUNTER"), 2 * (3 * 3 + 1 + 2));
    tp_buf_free(&txt);
    free(data);
}

TEST(memory_convert_without_memory_events_unchanged)
{
    /* the example has no memory events: the same bytes as without the counters (its golden) */
    char *msg = NULL;
    const char *out = tp_test_tmp("ex.json");
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert golden/example.pt.trace.json -o %s", tp_test_bin(), out), 0);
    free(msg);
    char *js = tp_test_read_file(out, NULL);
    CHECK(js && !strstr(js, "\"ph\":\"C\",\"name\":\"Memory "));
    free(js);
}
