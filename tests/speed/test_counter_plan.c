/* test_counter_plan.c: the .pftrace writer parses each counter event's args
 * once, in its survey (which numbers the counter series in output order),
 * and writes the values it kept there (pftrace_encode.c pf_counter_plan,
 * pf_counter_write).  The values must come out as parsing them again at the
 * write did: in output order (processes by pid, not in event order), each
 * event's values in its args' order, the values of args that stop parsing
 * half-way kept up to there and the event counted as invalid args, events
 * without args writing nothing, and instants between them in place. */
#include "tests/lib/harness.h"
#include "tests/lib/pftrace_dump.h"
#include "convert/write/pftrace_write.h"

#include <stdlib.h>
#include <string.h>

static void add(tp_trace *t, int pid, char ph, int64_t ts, const char *name, const char *args)
{
    tp_event e;
    tp_event_init(&e);
    e.track = tp_track_get(t, tp_process_get(t, pid), 1);
    e.ph = ph;
    e.ts = ts;
    e.name = tp_intern_cstr(t, name);
    if (args)
        e.args = tp_args_add(t, args, strlen(args));
    if (ph == 'i')
        e.flags |= TP_EV_INSTANT_PROCESS;
    tp_event_add(t, &e);
}

TEST(pftrace_counter_values_planned_once_written_in_order)
{
    tp_trace t;
    tp_trace_init(&t);
    add(&t, 2, 'C', 5, "mem", "{\"used\":7}");                 /* pid 2: written after pid 1's */
    add(&t, 1, 'C', 10, "mem", "{\"used\":5,\"free\":1.5}");
    add(&t, 1, 'i', 12, "mark", NULL);
    add(&t, 1, 'C', 20, "mem", "{\"used\":9,\"x\":nope}");     /* stops after used */
    add(&t, 1, 'C', 25, "mem", NULL);                          /* no args: no value */
    add(&t, 1, 'C', 30, "mem", "{\"free\":2.5,\"used\":6}");
    add(&t, 2, 'C', 8, "mem", "{\"used\":8}");
    tp_err err = {0};
    const char *path = tp_test_tmp("counter_plan.pftrace");
    tp_out *o = tp_out_open(path, NULL, &err);
    CHECK(o != NULL);
    if (!o) {
        tp_trace_free(&t);
        return;
    }
    tp_pftrace_stats st;
    tp_write_pftrace(&t, o, &st);
    CHECK_EQ_INT(tp_out_commit(o, &err), 0);
    CHECK_EQ_INT(st.counter_values, 7);
    CHECK_EQ_INT(st.invalid_args, 1);
    CHECK_EQ_INT(st.instants, 1);
    size_t len;
    char *data = tp_test_read_file(path, &len);
    tp_buf txt = {0};
    CHECK_EQ_INT(tp_pftrace_dump(data, len, &txt, &err), 0);
    /* the values in the file's order */
    const char *want[] = {"5", "1.5", "9", "2.5", "6", "7", "8"};
    const char *p = txt.data ? txt.data : "";
    size_t got = 0;
    while ((p = strstr(p, "double_counter_value: ")) != NULL) {
        p += strlen("double_counter_value: ");
        size_t n = strcspn(p, "\n");
        if (got < 7)
            CHECK(strlen(want[got]) == n && memcmp(p, want[got], n) == 0);
        got++;
    }
    CHECK_EQ_INT(got, 7);
    /* the instant between pid 1's counters, after its first event's values */
    const char *mark = txt.data ? strstr(txt.data, "type: TYPE_INSTANT") : NULL;
    const char *v9 = txt.data ? strstr(txt.data, "double_counter_value: 9") : NULL;
    const char *v15 = txt.data ? strstr(txt.data, "double_counter_value: 1.5") : NULL;
    CHECK(mark && v9 && v15 && v15 < mark && mark < v9);
    tp_buf_free(&txt);
    free(data);
    tp_trace_free(&t);
}
