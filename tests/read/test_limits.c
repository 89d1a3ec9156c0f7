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

/* A phase that is not one ASCII character is an unknown phase, written as
 * '?': the output stays valid UTF-8 (it once copied the first byte of "é"). */
TEST(limits_phase_that_is_not_ascii_keeps_the_output_utf8)
{
    const char *in = tp_test_write_text("ph.json", "{\"traceEvents\":[{\"ph\":\"\xc3\xa9\",\"name\":\"a\",\"pid\":1,"
                                                    "\"tid\":1,\"ts\":1},{\"ph\":\"\x01\",\"name\":\"b\",\"pid\":1,"
                                                    "\"tid\":1,\"ts\":2}]}");
    const char *out = tp_test_tmp("ph_out.json");
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, out), 0);
    CHECK(msg && strstr(msg, "unknown phases (kept): 2"));
    free(msg);
    size_t n = 0;
    char *b = tp_test_read_file(out, &n);
    CHECK(b && strstr(b, "\"ph\":\"?\"") && !strchr(b, '\x01'));
    for (size_t i = 0; b && i < n; i++)
        CHECK((unsigned char)b[i] < 0x80); /* nothing but ASCII was written here */
    free(b);
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' convert --strict '%s' -o '%s'", tp_test_bin(), in, out), 2);
    free(msg);
}

/* One event of more than 128 MB is refused in a plain (mapped) file as in a
 * gzip stream: a 300 MB string was accepted there.  Release build only: the
 * file is 129 MB. */
TEST(limits_one_huge_event_in_a_plain_file)
{
    if (strstr(tp_test_bin(), "asan"))
        return;
    const char *path = tp_test_tmp("huge.json");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"", f);
    static char chunk[1 << 20];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 129; i++)
        fwrite(chunk, 1, sizeof chunk, f);
    fputs("\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}", f);
    fclose(f);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), path), 2);
    CHECK(out && strstr(out, "larger than 128 MB"));
    free(out);
    remove(path);
}
