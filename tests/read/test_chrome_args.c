/* test_chrome_args.c: a plain Chrome input keeps its args in the file
 * (convert/read/chrome/chrome_args.c) instead of copying them into the arena.  The output
 * must be byte for byte the one the arena gives (the same trace through a
 * pipe, which cannot be mapped): JSON and .pftrace, one reader and two
 * halves, clean and broken args, args too long for a handle. */
#include "convert/read/chrome/chrome_args.h"
#include "convert/base/common.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* convert IN (a plain file) to OUT_EXT twice: from the file and through a
 * pipe; same exit code, same summary numbers, same bytes.  ENV is put before
 * the file run (e.g. to force two halves). */
static void same_from_file_and_pipe(const char *in, const char *ext, const char *env)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "args.file.%s", ext);
    snprintf(b, sizeof b, "args.pipe.%s", ext);
    const char *fa = tp_test_tmp(a), *fb = tp_test_tmp(b);
    remove(fa);
    remove(fb);
    char *oa = NULL, *ob = NULL;
    int ra = tp_test_run(&oa, "%s %s convert %s -o %s 2>&1", env, tp_test_bin(), in, fa);
    int rb = tp_test_run(&ob, "cat %s | %s convert - -o %s 2>&1", in, tp_test_bin(), fb);
    CHECK_EQ_INT(ra, rb);
    /* the summary lines differ in the file name and the time: compare the counts */
    const char *ca = oa ? strstr(oa, "events in") : NULL, *cb = ob ? strstr(ob, "events in") : NULL;
    CHECK(ca && cb);
    if (ca && cb) {
        const char *ea = strstr(ca, " MB,"), *eb = strstr(cb, " MB,");
        CHECK(ea && eb && ea - ca == eb - cb && memcmp(ca, cb, (size_t)(ea - ca)) == 0);
    }
    if (ra == 0)
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", fa, fb), 0);
    free(oa);
    free(ob);
}

static void same_all_ways(const char *in)
{
    same_from_file_and_pipe(in, "json", "");
    same_from_file_and_pipe(in, "json", "TP_READ_SPLIT_MIN=0");
    same_from_file_and_pipe(in, "pftrace", "");
}

TEST(file_args_real_samples_convert_as_from_a_pipe)
{
    static const char *samples[] = {
        "external/kineto/hta_critical_path_alexnet_2023.json.gz",
        "external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
        "external/kineto/hta_ns_resolution_rank0_v100_2024.pt.trace.json.gz",
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const char *plain = tp_test_tmp("args.sample.json");
        CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc %s > %s", tp_test_shared(samples[i]), plain), 0);
        same_all_ways(plain);
    }
}

TEST(file_args_generated_and_broken_args_convert_as_from_a_pipe)
{
    /* --quirks: invalid UTF-8 and bad escapes in args, B/E pairs, trailing commas */
    const char *gen[] = {"--events 30000 --seed 7", "--events 30000 --seed 8 --quirks", "--events 20000 --old"};
    for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++) {
        const char *path = tp_test_tmp("args.gen.json");
        CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_kineto -q %s %s", gen[i], path), 0);
        same_all_ways(path);
    }
    /* args a writer must repair or reject, B/E args merged, extras kept */
    const char *path = tp_test_tmp("args.bad.json");
    FILE *f = fopen(path, "wb");
    CHECK(f);
    if (!f)
        return;
    fputs("{\"traceEvents\":[\n"
          "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,\"args\":{ \"s\" : \"\xff\xfe\" , \"n\":1 }},\n"
          "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,\"args\":{\"e\":\"\\q\"}},\n"
          "{\"ph\":\"B\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":3,\"args\":{\"x\":1}},\n"
          "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":9,\"args\":{\"y\":[1, 2]}},\n"
          "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":3,\"ts\":4,\"dur\":1,\"tts\":7,\"args\":{\"z\":{}}},\n"
          "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":3,\"ts\":5,\"s\":\"t\",\"args\":{}}\n"
          "]}\n",
          f);
    fclose(f);
    same_all_ways(path);
}

TEST(file_args_too_long_for_a_handle_are_copied)
{
    /* one args object of 5 MB: beyond the handle's 22 length bits */
    const char *path = tp_test_tmp("args.long.json");
    FILE *f = fopen(path, "wb");
    CHECK(f);
    if (!f)
        return;
    fputs("[{\"ph\":\"X\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{\"s\":\"", f);
    for (int i = 0; i < 5 << 20; i++)
        fputc('a' + i % 26, f);
    fputs("\"}},\n{\"ph\":\"X\",\"name\":\"short\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,\"args\":{\"k\":2}}]\n", f);
    fclose(f);
    same_from_file_and_pipe(path, "json", "");
    size_t n = 0;
    char *out = tp_test_read_file(tp_test_tmp("args.file.json"), &n);
    CHECK(out && n > (5u << 20) && strstr(out, "\"args\":{\"k\":2}"));
    free(out);
}

TEST(file_args_handles_stay_inside_the_file)
{
    const char *path = tp_test_tmp("args.unit.json");
    FILE *f = fopen(path, "wb");
    CHECK(f);
    if (!f)
        return;
    fputs("xx{\"a\":1}yy", f);
    fclose(f);
    tp_trace t;
    tp_trace_init(&t);
    CHECK_EQ_INT(tp_chrome_args_handle(&t, 2, 7), 0); /* no file attached: the caller copies */
    CHECK(!tp_chrome_args_attach(&t, path, 10));      /* the size must be the file's (11) */
    CHECK(tp_chrome_args_attach(&t, path, 11));
    CHECK_EQ_INT(tp_chrome_args_handle(&t, 2, 0), 0);
    CHECK_EQ_INT(tp_chrome_args_handle(&t, 10, 2), 0); /* runs past the end */
    CHECK_EQ_INT(tp_chrome_args_handle(&t, 12, 1), 0);
    CHECK(tp_chrome_args_handle(&t, 9, 2) != 0);
    uint64_t h = tp_chrome_args_handle(&t, 2, 7);
    CHECK(h != 0 && tp_chrome_args_is_file(&t, h));
    size_t len = 0;
    const char *s = tp_args_get(&t, h, &len);
    CHECK(s && len == 7 && memcmp(s, "{\"a\":1}", 7) == 0);
    CHECK(!tp_args_is_minified(&t, h)); /* the file's own text: writers check it */
    uint64_t arena = tp_args_add(&t, "{\"b\":2}", 7);
    CHECK(!tp_chrome_args_is_file(&t, arena));
    s = tp_args_get(&t, arena, &len);
    CHECK(s && len == 7 && memcmp(s, "{\"b\":2}", 7) == 0);
    /* a writer thread's cursor gives the same text */
    void *c = tp_args_cursor_new(&t);
    const char *r = tp_args_get_r(&t, c, NULL, h, &len);
    CHECK(r && len == 7 && memcmp(r, "{\"a\":1}", 7) == 0);
    tp_args_cursor_free(&t, c);
    tp_trace_free(&t);
}

static long rss_file_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "RssFile:", 8) == 0)
            kb = strtol(line + 8, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* A cursor hands back the pages it has touched (past 8 windows of 2 MB):
 * text read before and after a release, far apart and back again, is the
 * file's. */
TEST(chrome_args_cursor_releases_pages_and_reads_them_again)
{
    const char *path = tp_test_tmp("args_sparse.json");
    enum { N = 600, STRIDE = 100000 }; /* 60 MB, 600 windows: 38 MB if none were handed back */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    static char pad[STRIDE]; /* dense, not sparse: every page cached, so each fault maps 64 KB */
    memset(pad, ' ', sizeof pad);
    for (int i = 0; i < N; i++) {
        int k = fprintf(f, "{\"i\":%05d}", i);
        if (i + 1 < N)
            fwrite(pad, 1, STRIDE - (size_t)k, f);
    }
    fclose(f);
    uint64_t size = (uint64_t)(N - 1) * STRIDE + 11;
    tp_trace t;
    tp_trace_init(&t);
    CHECK(tp_chrome_args_attach(&t, path, size));
    void *c = tp_args_cursor_new(&t);
    long before = rss_file_kb(); /* the program's own file pages (an ASan build's are larger): not the window's */
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < N; k++) {
            int i = pass == 1 ? N - 1 - k : (k * 7) % N; /* forward-ish, backward, strided */
            char want[16];
            snprintf(want, sizeof want, "{\"i\":%05d}", i);
            size_t len = 0;
            const char *r = tp_args_get_r(&t, c, NULL, tp_chrome_args_handle(&t, (uint64_t)i * STRIDE, 11), &len);
            if (!r || len != 11 || memcmp(r, want, 11) != 0) {
                tp_test_fail(__FILE__, __LINE__, "args %d (pass %d) read back wrong", i, pass);
                pass = 3;
                break;
            }
        }
    /* at most 8 windows of 2 MB stay mapped (16 MB, file_window.h); 38 MB if none were handed back */
    long rss = rss_file_kb();
    if (before < 0 || rss < 0 || rss - before > 20 * 1024)
        tp_test_fail(__FILE__, __LINE__, "%ld KB more of the file mapped: pages not handed back", rss - before);
    tp_args_cursor_free(&t, c);
    tp_trace_free(&t);
}
