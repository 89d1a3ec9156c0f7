/* test_pf_counter_series.c: the .pftrace writer's counters
 * (convert/write/pftrace_encode.c) keep the last 8 series met instead of
 * naming and looking each value's series up anew, and read an integer of at
 * most 15 digits without strtod.  With 3 processes x 5 keys taking turns
 * (past the 8 kept) every value still lands on its own series, and the
 * values strtod reads differently from the integer path (-0, 19 digits,
 * fractions) stay strtod's. */
#include "convert/base/common.h"
#include "tests/lib/harness.h"
#include "tests/lib/pftrace_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

TEST(pf_counter_series_past_the_memo_and_values_as_strtod)
{
    tp_buf in = {0};
    tp_buf_puts(&in, "{\"traceEvents\":[\n");
    for (int r = 0; r < 3; r++)
        for (int p = 1; p <= 3; p++) {
            char ev[400];
            snprintf(ev, sizeof ev,
                     "%s{\"ph\":\"C\",\"name\":\"ctr\",\"pid\":%d,\"tid\":1,\"ts\":%d,"
                     "\"args\":{\"k1\":%d,\"k2\":-%d,\"k3\":-0,\"k4\":1234567890123456789,\"k5\":%d.25}}",
                     r + p > 1 ? ",\n" : "", p, 10 * r + p, 1000 * p + r, 1000 * p + r, p);
            tp_buf_puts(&in, ev);
        }
    tp_buf_puts(&in, "\n]}\n");
    const char *path = tp_test_write_text("pfctr.json", in.data), *out = tp_test_tmp("pfctr.pftrace");
    tp_buf_free(&in);
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert -q %s -o %s", tp_test_bin(), path, out), 0);
    free(msg);
    size_t len;
    char *data = tp_test_read_file(out, &len);
    tp_buf txt = {0};
    tp_err err = {0};
    CHECK(data && tp_pftrace_dump(data, len, &txt, &err) == 0);
    /* every value by its series (uuid): k1 = 1000 p + r, k2 its negative, k3 -0, k4 19 digits, k5 p.25 */
    long uuid_of[6][4] = {{0}}; /* [key][process] */
    size_t nk3 = 0, nk4 = 0, values = 0;
    long k3[3] = {0}, k4[3] = {0};
    for (const char *p = txt.data; p && (p = strstr(p, "track_uuid: ")); p++) {
        long uuid = strtol(p + 12, NULL, 10);
        const char *v = strstr(p, "double_counter_value: "), *next = strstr(p + 1, "track_uuid: ");
        if (!v || (next && v > next))
            continue;
        v += strlen("double_counter_value: ");
        values++;
        int key = 0, proc = 0;
        if (!strncmp(v, "-0\n", 3)) {
            key = 3;
            if (nk3 < 3 && (nk3 == 0 || k3[nk3 - 1] != uuid))
                k3[nk3++] = uuid;
            continue;
        }
        if (!strncmp(v, "1.2345678901234568e+18\n", 23)) {
            key = 4;
            if (nk4 < 3 && (nk4 == 0 || k4[nk4 - 1] != uuid))
                k4[nk4++] = uuid;
            continue;
        }
        double x = strtod(v, NULL);
        if (x >= 1000) {
            key = 1;
            proc = (int)(x / 1000);
        } else if (x <= -1000) {
            key = 2;
            proc = (int)(-x / 1000);
        } else {
            key = 5;
            proc = (int)x;
        }
        if (proc < 1 || proc > 3) {
            tp_test_fail(__FILE__, __LINE__, "value %g on no series", x);
            continue;
        }
        if (uuid_of[key][proc] && uuid_of[key][proc] != uuid)
            tp_test_fail(__FILE__, __LINE__, "key %d of process %d on two series (%ld, %ld)", key, proc,
                         uuid_of[key][proc], uuid);
        uuid_of[key][proc] = uuid;
    }
    CHECK_EQ_INT(values, 3 * 3 * 5);
    CHECK_EQ_INT(count(txt.data, "double_counter_value: -0\n"), 9); /* strtod's -0.0, not 0 */
    /* 15 series, all different */
    long all[15];
    size_t n = 0;
    for (int key = 1; key <= 5; key++)
        for (int proc = 1; proc <= 3; proc++)
            all[n++] = key == 3 ? k3[proc - 1] : key == 4 ? k4[proc - 1] : uuid_of[key][proc];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!all[i] || all[i] == all[j])
                tp_test_fail(__FILE__, __LINE__, "series %zu and %zu: uuid %ld / %ld", i, j, all[i], all[j]);
    tp_buf_free(&txt);
    free(data);
}
