/* test_limits.c: hostile inputs meet a work budget (docs/ERRORS.md
 * "Limits"): small files must not demand unbounded memory or time. */
#include "tests/lib/harness.h"

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
