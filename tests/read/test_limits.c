/* test_limits.c: hostile inputs meet a work budget (docs/ERRORS.md
 * "Limits"): small files must not demand unbounded memory or time. */
#include "tests/lib/harness.h"
#include "tests/lib/etdump_build.h"

#include <stdlib.h>
#include <zlib.h>

/* A gzip file of `copies` identical events: it compresses about 300-fold. */
static const char *write_bomb(const char *name, size_t copies)
{
    const char *path = tp_test_tmp(name);
    gzFile g = gzopen(path, "wb9");
    CHECK(g != NULL);
    if (!g)
        return path;
    gzputs(g, "{\"traceEvents\":[");
    static const char ev[] = "{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},";
    char block[sizeof ev * 1024];
    for (size_t i = 0; i < 1024; i++)
        memcpy(block + i * (sizeof ev - 1), ev, sizeof ev - 1);
    for (size_t i = 0; i < copies / 1024; i++)
        gzwrite(g, block, (unsigned)(1024 * (sizeof ev - 1)));
    gzputs(g, "{}]}");
    gzclose(g);
    return path;
}

TEST(limits_gzip_bomb_is_refused_with_the_ratio)
{
    const char *bomb = write_bomb("bomb.json.gz", 1500 * 1024); /* 80 MB of JSON in ~300 KB */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), bomb), 2);
    CHECK(out && strstr(out, "expands more than 100-fold") && strstr(out, "--max-inflate"));
    CHECK(out && strchr(out, '\n') == out + strlen(out) - 1); /* one line */
    free(out);
    /* the user who needs more says so */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --max-inflate 0 '%s'", tp_test_bin(), bomb), 0);
    CHECK(out && strstr(out, "1536000 events"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --max-inflate x '%s'", tp_test_bin(), bomb), 1);
    free(out);
}

/* Runs that all point at one event vector: 8 KB would give millions of
 * events (and 80 KB ask for gigabytes).  Each event is a 4-byte vector
 * entry of its own in a real file, which bounds the events by the size. */
TEST(limits_etdump_runs_sharing_one_event_vector)
{
    xev ev[200];
    for (int i = 0; i < 200; i++)
        ev[i] = XPROF(.name = "op", .chain = 0, .start = (uint64_t)i * 10, .end = (uint64_t)i * 10 + 5);
    xrun r = {.name = "run", .bundled = -1, .nev = 200, .ev = ev};
    size_t len = 0;
    uint8_t *buf = etdump_build_shared(&r, 2000, &len);
    CHECK(len < 40000);
    const char *path = tp_test_write("shared.etdp", buf, len);
    free(buf);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), path), 2);
    CHECK(out && strstr(out, "runs share their event vectors"));
    free(out);
    /* the same run once is fine */
    buf = etdump_build_shared(&r, 1, &len);
    path = tp_test_write("one.etdp", buf, len);
    free(buf);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), path), 0);
    free(out);
}
