/* test_numbers_md.c: numbers read right and summary.md is a pull-request
 * comment (issue 22, items 2 and 4).  The units rule (render/text/units.h)
 * on exact values; on real samples of four formats, pdftotext finds no
 * number or numeric header cut by the table ("…" beside digits) and prints
 * no warning; summary.md and diff.md rendered by cmark-gfm have no empty
 * header row and no relative image, and summary.md's first line gives the
 * median step. */
#include "render/text/units.h"
#include "render/text/report_text.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* characters (UTF-8 code points) of s[0..n) */
static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

TEST(units_durations_and_counts)
{
    char b[64];
    static const struct {
        int64_t ns;
        const char *s;
    } d[] = {{0, "0 ns"},           {999, "999 ns"},           {1000, "1.000 us"},
             {1234567, "1.235 ms"}, {12345678, "12.346 ms"},   {999999499, "999.999 ms"},
             {999999500, "1.000 s"}, {999999, "999.999 us"},   {43458523000LL, "43.459 s"},
             {1234567890123LL, "1,234.568 s"}, {-1500, "-1.500 us"}, {98153057682LL, "98.153 s"}};
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        tp_fmt_dur(b, sizeof b, d[i].ns);
        CHECK_STR(b, d[i].s);
    }
    tp_fmt_dur_in(b, sizeof b, 43458523000LL, 2); /* a column in ms */
    CHECK_STR(b, "43,458.523");
    tp_fmt_dur_in(b, sizeof b, 2400, 2);
    CHECK_STR(b, "0.002");
    tp_fmt_dur_delta(b, sizeof b, -755000, " ");
    CHECK_STR(b, "-755.000 us");
    tp_fmt_dur_delta(b, sizeof b, 0, " ");
    CHECK_STR(b, "0 ns");
    tp_fmt_count(b, sizeof b, 0);
    CHECK_STR(b, "0");
    tp_fmt_count(b, sizeof b, 999);
    CHECK_STR(b, "999");
    tp_fmt_count(b, sizeof b, 1234567);
    CHECK_STR(b, "1,234,567");
    tp_fmt_dur(b, 6, 1234567); /* cut like snprintf */
    CHECK_STR(b, "1.235");
    tp_md_dur(b, sizeof b, 1500);
    CHECK_STR(b, "1.500" TP_NBSP "us");
    const char *why;
    CHECK(tp_md_url_check("https://ci.example/a/b-1_2&y=%20", &why) == 0);
    CHECK(tp_md_url_check("http://h", &why) == 0);
    /* a query or fragment would swallow the "/png/NAME.png" appended to it */
    static const char *const bad[] = {"ftp://x", "https://", "https:///x", "https://x/a b", "https://x/(a)",
                                      "javascript:alert(1)", "https://x/\"", "https://x/<", "https://x/é", "png/",
                                      "https://x/a?x=1", "https://x/a#f"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(tp_md_url_check(bad[i], &why) < 0);
}

/* A cut number: "…" with only number characters (and at least one digit)
 * on one side of it within its word, or a header cut right after "(". */
static const char *cut_number(const char *txt)
{
    static const char ell[] = "\xE2\x80\xA6";
    for (const char *p = txt; (p = strstr(p, ell)); p += 3) {
        const char *a = p, *e = p + 3;
        while (a > txt && a[-1] != ' ' && a[-1] != '\n')
            a--;
        while (*e && *e != ' ' && *e != '\n')
            e++;
        if (p - a == 1 && *a == '(' && e == p + 3)
            return a;
        for (int side = 0; side < 2; side++) {
            const char *s = side ? p + 3 : a, *z = side ? e : p;
            bool digit = false, only = s < z;
            for (const char *q = s; q < z; q++) {
                digit |= *q >= '0' && *q <= '9';
                only &= strchr("0123456789.,+-()%", *q) != NULL;
            }
            if (digit && only)
                return a;
        }
    }
    return NULL;
}

/* dir/report.pdf: poppler extracts (and with `draw`, draws) it without a
 * word on stderr, and its text has no cut number. */
static void check_pdf(const char *in, const char *dir, bool draw)
{
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "pdftotext -layout '%s/report.pdf' '%s/report.txt' 2>&1%s%s%s%s%s", dir, dir,
                             draw ? " && pdftoppm -r 20 -png '" : "", draw ? dir : "", draw ? "/report.pdf' '" : "",
                             draw ? dir : "", draw ? "/page' 2>&1" : ""), 0);
    if (msg && *msg)
        tp_test_fail(__FILE__, __LINE__, "%s: poppler says: %.200s", in, msg);
    free(msg);
    char *txt = tp_test_read_in(dir, "report.txt");
    CHECK(txt != NULL);
    const char *cut = txt ? cut_number(txt) : NULL;
    if (cut)
        tp_test_fail(__FILE__, __LINE__, "%s: a cut number: %.40s", in, cut);
    free(txt);
}

/* summary.md or diff.md through cmark-gfm: no header row of empty cells,
 * images only from base (or none without it). */
static void check_gfm(const char *dir, const char *name, const char *base)
{
    char *html = NULL;
    int rc = tp_test_run(&html, "cmark-gfm -e table -e autolink '%s/%s'", dir, name);
    CHECK_EQ_INT(rc, 0);
    for (const char *p = html; p && (p = strstr(p, "<thead>")); p++) {
        const char *end = strstr(p, "</thead>");
        bool text = false;
        for (const char *q = p; end && q < end; q++)
            if (*q == '>' && q[1] != '<' && q[1] != '\n' && q + 1 < end)
                text = true;
        if (!text)
            tp_test_fail(__FILE__, __LINE__, "%s/%s: a header row of empty cells: %.80s", dir, name, p);
        /* nor one empty header cell: a column a reader cannot name */
        for (const char *q = p; end && (q = strstr(q, "<th")) && q < end; q++) {
            const char *gt = strchr(q, '>');
            if (gt && !strncmp(gt + 1, "</th>", 5))
                tp_test_fail(__FILE__, __LINE__, "%s/%s: an empty header cell: %.80s", dir, name, p);
        }
    }
    int imgs = 0;
    for (const char *p = html; p && (p = strstr(p, "<img src=\"")); p++, imgs++)
        if (!base || strncmp(p + 10, base, strlen(base)) != 0)
            tp_test_fail(__FILE__, __LINE__, "%s/%s: an image not from --image-base-url: %.80s", dir, name, p);
    if (base)
        CHECK(imgs > 0);
    free(html);
}

TEST(report_samples_cut_no_number_and_summary_md_reads_in_a_pr)
{
    static const char *const samples[] = {
        "golden/example.pt.trace.json", "external/xplane/tpu_inference_2.xplane.pb",
        "external/kineto/hta_nccl_data_2024.json.gz",
        "external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"};
    bool pdf = tp_test_have("pdftotext"), gfm = tp_test_have("cmark-gfm");
    if (!pdf || !gfm)
        fprintf(stderr, "  SKIPPED in part: pdftotext or cmark-gfm is not installed\n");
    const char *url = "https://ci.example/pr/9/report";
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        char in[4096], out[4096];
        snprintf(in, sizeof in, "%s", i ? tp_test_shared(samples[i]) : samples[i]);
        if (!tp_test_file_exists(in)) {
            fprintf(stderr, "  SKIPPED %s: not found\n", in);
            continue;
        }
        snprintf(out, sizeof out, "%s", tp_test_tmp(i == 0 ? "n0" : i == 1 ? "n1" : i == 2 ? "n2" : "n3"));
        /* the first with a baseline (itself: no change) and the image URL */
        if (i == 0)
            CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' --image-base-url %s --baseline '%s'", tp_test_bin(),
                                     in, out, url, in), 0);
        else
            CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), in, out), 0);
        if (pdf)
            check_pdf(in, out, false);
        char *md = tp_test_read_in(out, "summary.md");
        CHECK(md != NULL);
        if (!md)
            continue;
        /* the first line is the top finding's verdict (or "No finding"), under 200 characters; the figures
         * line follows the findings */
        const char *nl = strchr(md, '\n');
        CHECK(nl && utf8_chars(md, (size_t)(nl - md)) < 200);
        CHECK(strncmp(md, "**", 2) == 0);
        const char *lead = strstr(md, "\n**tracepress report** ");
        CHECK(lead != NULL);
        lead = lead ? lead + 1 : md;
        nl = strchr(lead, '\n');
        size_t l1 = nl ? (size_t)(nl - lead) : strlen(lead);
        char *first = tp_xstrndup(lead, l1);
        if (i == 1) /* the TPU trace has no steps: its span instead */
            CHECK(strstr(first, "no steps, trace span **") != NULL);
        else
            CHECK(strstr(first, "median step **") != NULL && strstr(first, "GPU time: computation ") != NULL &&
                  strstr(first, "biggest category ") != NULL);
        if (i == 0) {
            /* issue 36: three significant digits, the spread in the median's unit */
            CHECK(strstr(first, "median step **680" TP_NBSP "us** ± 0" TP_NBSP "us (half the IQR of 3 steps)"));
            CHECK(strstr(md, "\n\n**Against the baseline** example: no change. Median step time 680.000" TP_NBSP
                             "us → 680.000" TP_NBSP "us (0" TP_NBSP "ns, +0.0%)"));
            /* issue 36 item 9: no median column in a comment's column (report.pdf and summary.json have it) */
            CHECK(strstr(md, "| # | kernel | time % | total (us) | count | mean (us) |\n"));
            CHECK(strstr(md, "| 1 | `ampere_sgemm_128x64_tn` | 59.3% | 811.500 | 6 | 135.250 |\n"));
            CHECK(strstr(md, "| GEMM | 1.172 | 85.6% | `aten::addmm` |\n"));
        } else
            CHECK(strstr(md, "**Charts**: `png/overview.png`, `png/gpu_time.png`, ") != NULL);
        free(first);
        free(md);
        if (gfm)
            check_gfm(out, "summary.md", i == 0 ? url : NULL);
    }
    if (!gfm)
        return;
    /* diff.md: the same checks, without and with the image URL */
    const char *d0 = tp_test_tmp("nd0");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q golden/example.pt.trace.json '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz"), d0), 0);
    check_gfm(d0, "diff.md", NULL);
    const char *d1 = tp_test_tmp("nd1");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q golden/example.pt.trace.json golden/example.pt.trace.json -o '%s' "
                                   "--image-base-url %s", tp_test_bin(), d1, url), 0);
    check_gfm(d1, "diff.md", url);
    /* a bad URL: exit 2, one line, nothing written */
    char *msg = NULL;
    const char *d2 = tp_test_tmp("nd2");
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' report golden/example.pt.trace.json -o '%s' --image-base-url 'https://x/a b'",
                             tp_test_bin(), d2), 2);
    CHECK(msg && strncmp(msg, "tracepress: --image-base-url: https://x/a b: ", 45) == 0 && strchr(msg, '\n') &&
          strchr(msg, '\n')[1] == 0);
    CHECK(!tp_test_exists_in(d2, "summary.md"));
    free(msg);
}

/* The formats the test above does not cover, and the empty and host-only
 * cases: poppler draws and extracts every page without a word on stderr, no
 * number is cut, summary.md has no empty header row and no image link. */
TEST(report_every_format_draws_clean_pages)
{
    static const struct {
        const char *in, *extra;
    } samples[] = {
        {"external/etdump/executorch_tutorial_etdump.etdp", "--etrecord"},
        {"external/plaidml/plaidml_2017_mnist_mlp_log.gz", NULL},
        {"external/plaidml/plaidml_hello_eventlog.gz", NULL},
        {"external/dvdt/dvdt_prof_armcl_tmp-dvdt-prof.json", NULL},
        {"external/hta/mtia_inference_rank_0.json.gz", NULL},
        {"external/hta/cupti_profiler_trace.json.gz", NULL},
        {"external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb", NULL},
        {"external/kineto/hta_amd_mi250_rocm6_2.json.gz", NULL},
    };
    if (!tp_test_have("pdftotext") || !tp_test_have("pdftoppm") || !tp_test_have("cmark-gfm")) {
        fprintf(stderr, "  SKIPPED: poppler-utils or cmark-gfm is not installed\n");
        return;
    }
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        char in[4096], extra[4200] = "", name[32];
        snprintf(in, sizeof in, "%s", tp_test_shared(samples[i].in));
        if (!tp_test_file_exists(in)) {
            fprintf(stderr, "  SKIPPED %s: not found\n", in);
            continue;
        }
        if (samples[i].extra)
            snprintf(extra, sizeof extra, "--etrecord '%s'",
                     tp_test_shared("external/etdump/executorch_sample_etrecord.bin"));
        snprintf(name, sizeof name, "fmt%zu", i);
        const char *dir = tp_test_tmp(name);
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' %s -o '%s' 2>/dev/null", tp_test_bin(), in, extra, dir), 0);
        check_pdf(in, dir, true);
        check_gfm(dir, "summary.md", NULL);
    }
}

/* Counts take thousands separators on the pages as in summary.md; summary.md
 * says where the kernels it leaves out are (summary.json: the PDF shows only
 * its top rows); the baseline line names kernels as diff.md does, uncut. */
TEST(report_counts_separated_and_md_names_as_the_diff)
{
    const char *df = tp_test_shared("external/kineto/hta_df_index_resolver_large.json.gz");
    const char *r0 = tp_test_shared("external/hta/trace_filter_sampled_rank-0.json.gz");
    const char *r1 = tp_test_shared("external/hta/trace_filter_sampled_rank-1.json.gz");
    if (!tp_test_file_exists(df) || !tp_test_file_exists(r0) || !tp_test_file_exists(r1)) {
        fprintf(stderr, "  SKIPPED: samples not found\n");
        return;
    }
    const char *dir = tp_test_tmp("cnt");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' 2>/dev/null", tp_test_bin(), df, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "\n36 more kernels: summary.json `kernels` has every row.\n"));
    CHECK(md && !strstr(md, "in report.pdf"));
    free(md);
    if (tp_test_have("pdftotext")) {
        CHECK_EQ_INT(tp_test_run(NULL, "pdftotext -layout '%s/report.pdf' '%s/report.txt'", dir, dir), 0);
        char *txt = tp_test_read_in(dir, "report.txt");
        static const char *const want[] = {
            "216,092 / 123,379",                      /* summary page: events read / slices */
            "19,370 / 49 / 977.859 ms",               /* kernels: instances / names / time */
            "2,040 / 880",                            /* memcpy / memset instances */
            "6,085 top-level ops, 21,410 launches",   /* CPU overheads title */
            "   5,005  ",                             /* kernel statistics: instances */
            "22,290",                                 /* steps table: device events of the whole trace */
            "not measured",                           /* T4 is the model's constant, and the page says so */
            "(step #2, the median of 5", /* overview: steps #2 to #6; it said "step #2 of 5" */
            NULL};
        for (size_t i = 0; txt && want[i]; i++)
            if (!strstr(txt, want[i]))
                tp_test_fail(__FILE__, __LINE__, "report.txt lacks \"%s\"", want[i]);
        CHECK(txt != NULL);
        free(txt);
    }
    dir = tp_test_tmp("bl");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' --baseline '%s' -o '%s' 2>/dev/null", tp_test_bin(), r1, r0, dir),
                 0);
    md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "most changed kernels: `split_embedding_\xE2\x80\xA6rowwise_adagrad_unweighted_kernel_"
                           "cta_per_row_1` +33.771"));
    free(md);
}

/* A bidirectional control in a name would reorder what the reader sees
 * around it ("Trojan Source"): text and code spans write a space. */
TEST(markdown_bidi_controls_are_spaces)
{
    tp_buf b = {0};
    tp_md_text(&b, "ab\xE2\x80\xAE" "cd\xE2\x81\xA6" "e", SIZE_MAX);
    tp_buf_putc(&b, 0);
    CHECK_STR(b.data, "ab cd e");
    b.len = 0;
    tp_md_code(&b, "k\xE2\x80\x8F<x>", SIZE_MAX);
    tp_buf_putc(&b, 0);
    CHECK_STR(b.data, "`k <x>`");
    tp_buf_free(&b);
}
