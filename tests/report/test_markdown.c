/* test_markdown.c: names from traces cannot inject anything into the
 * Markdown that report and diff write for pull-request comments (issue 18,
 * item 6), and report and diff write their files all or nothing (item 4).
 *
 * The oracle is a real GitHub-flavoured renderer, cmark-gfm with GitHub's
 * extensions (table, autolink, strikethrough, tagfilter) and raw HTML kept
 * (--unsafe: GitHub keeps much of it, so must the test): the HTML holds no
 * element, link, image or mention a name introduced, every table keeps its
 * header's width, and the text a reader sees is the name.  The text-level
 * rules of tests/fuzz/md_oracle.h (the fuzzers' oracle) are checked too. */
#include "convert/codec/json_write.h"
#include "render/text/report_text.h"
#include "tests/fuzz/md_oracle.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hostile[] = {
    "<img src=https://x.example/t.png>", "[x](https://x.example)", "![i](https://x.example/i.png)", "@someone",
    "a`b", "```x```", "a|b", "a\nb", "# heading", "<script>alert(1)</script>", "https://evil.example", "&lt;",
    "*bold*", "~~x~~", "<!-- x", "]:", "www.evil.example", "x@evil.example", "- item", "1. item", "a\\|b",
    "a\\\\|b", "$x$", "> quote", "_em_", "` leading", "trailing `", "a | b | c |", "\\", "<https://auto.example>",
    "[ref]: https://x.example", "  # indented", "= setext", "**", "a\tb\rc", "``", " ", "", "x_y__z", "<b>bold</b>",
    "&#64;someone", "@@x", "Ünïcödé ✓ @ü", "ftp://x.example", "mailto:a@b.example", "<a href=x>y</a>",
};
#define NHOSTILE (sizeof hostile / sizeof *hostile)

static const char *render_cmd(void)
{
    return "cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter"; /* raw HTML kept, as GitHub keeps it */
}

static bool have_renderer(const char *test)
{
    if (tp_test_have("cmark-gfm"))
        return true;
    fprintf(stderr, "  %s: SKIPPED: cmark-gfm is not installed (Debian package cmark-gfm; scripts/setup installs it)\n",
            test);
    return false;
}

static char *render(const char *md, size_t len)
{
    const char *p = tp_test_write("render.md", md, len);
    char *html = NULL;
    if (tp_test_run(&html, "%s '%s'", render_cmd(), p) != 0) {
        free(html);
        return NULL;
    }
    return html;
}

/* Decoded text of html[a, e): tags dropped, the entities cmark writes
 * decoded, U+200B dropped. */
static char *html_text(const char *a, const char *e)
{
    char *out = malloc((size_t)(e - a) + 1), *o = out;
    while (a < e) {
        if (*a == '<') {
            const char *c = memchr(a, '>', (size_t)(e - a));
            a = c ? c + 1 : e;
        } else if (*a == '&') {
            static const char *const ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}};
            size_t k = 0;
            while (k < 4 && strncmp(a, ent[k][0], strlen(ent[k][0])) != 0)
                k++;
            if (k < 4) {
                *o++ = ent[k][1][0];
                a += strlen(ent[k][0]);
            } else
                *o++ = *a++;
        } else if (e - a >= 3 && memcmp(a, "\xE2\x80\x8B", 3) == 0)
            a += 3;
        else
            *o++ = *a++;
    }
    *o = 0;
    return out;
}

/* The first problem in rendered HTML: a tag outside `allowed`, an <a> or
 * <img> whose target does not start with png/, a mention or e-mail a
 * reader's GitHub would link (an @ followed by a word character outside
 * <code>), or a table row of another width than its header.  NULL: none. */
static const char *html_problem(const char *html, char *why, size_t wn)
{
    static const char *const allowed[] = {"p", "h3", "h4", "table", "thead", "tbody", "tr", "th", "td", "code",
                                          "strong", "ul", "ol", "li", "sub", "a", "img", "br", "details", "summary", NULL};
    int header = -1, cells = 0, code = 0;
    for (const char *p = html; *p; p++) {
        if (*p == '@' && !code && (p[1] == '_' || p[1] == '-' || ((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z'))) {
            snprintf(why, wn, "a mention: %.40s", p);
            return why;
        }
        if (*p != '<')
            continue;
        const char *t = p + 1;
        bool close = *t == '/';
        t += close;
        size_t n = 0;
        while (((t[n] | 0x20) >= 'a' && (t[n] | 0x20) <= 'z') || (t[n] >= '0' && t[n] <= '9'))
            n++;
        size_t k = 0;
        while (allowed[k] && !(strlen(allowed[k]) == n && strncmp(allowed[k], t, n) == 0))
            k++;
        if (!allowed[k] || n == 0) {
            snprintf(why, wn, "a tag no writer writes: %.60s", p);
            return why;
        }
        if (!close && n == 1 && *t == 'a') { /* the writers link nothing */
            snprintf(why, wn, "a link: %.60s", p);
            return why;
        }
        if (!close && n == 3 && strncmp(t, "img src=\"https://ci.example/run/7/png/", strlen("img src=\"https://ci.example/run/7/png/")) != 0) { /* the test's --image-base-url */
            if (strncmp(t, "img", 3) == 0) {
                snprintf(why, wn, "an image: %.60s", p);
                return why;
            }
        }
        if (n == 4 && strncmp(t, "code", 4) == 0)
            code += close ? -1 : 1;
        if (!close && n == 2 && (strncmp(t, "td", 2) == 0 || strncmp(t, "th", 2) == 0))
            cells++;
        if (close && n == 2 && strncmp(t, "tr", 2) == 0) {
            if (header < 0)
                header = cells;
            else if (cells != header) {
                snprintf(why, wn, "a table row of %d cells under a header of %d", cells, header);
                return why;
            }
            cells = 0;
        }
        if (close && n == 5 && strncmp(t, "table", 5) == 0)
            header = -1;
    }
    return NULL;
}

/* What a reader should see for s: control characters as spaces. */
static char *seen(const char *s)
{
    char *c = tp_xstrdup(s);
    for (char *p = c; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F)
            *p = ' ';
    return c;
}

TEST(markdown_escaping_renders_every_hostile_name_as_text)
{
    if (!have_renderer("markdown_escaping_renders_every_hostile_name_as_text"))
        return;
    for (size_t i = 0; i < NHOSTILE; i++) {
        const char *name = hostile[i];
        tp_buf md = {0};
        tp_buf_puts(&md, "### title: ");
        tp_md_text(&md, name, SIZE_MAX);
        tp_buf_puts(&md, "\n\n| text | code | n |\n|---|---|---:|\n| ");
        tp_md_text(&md, name, SIZE_MAX);
        tp_buf_puts(&md, " | ");
        tp_md_code(&md, name, SIZE_MAX);
        tp_buf_puts(&md, " | 1 |\n\n- ");
        tp_md_text(&md, name, SIZE_MAX);
        tp_buf_puts(&md, "\n");
        const char *bad = tp_md_oracle(md.data, md.len);
        if (bad)
            tp_test_fail(__FILE__, __LINE__, "name %zu: the text oracle: %s", i, bad);
        char *html = render(md.data, md.len);
        CHECK(html != NULL);
        if (!html)
            return;
        char why[200];
        bad = html_problem(html, why, sizeof why);
        if (bad)
            tp_test_fail(__FILE__, __LINE__, "name %zu (%s): %s\n%s", i, name, bad, html);
        /* what a reader sees is the name: in the heading, the text cell, the code cell, the list item */
        char *want = seen(name);
        const char *h = strstr(html, "<h3>title:"), *he = h ? strstr(h, "</h3>") : NULL;
        const char *td = strstr(html, "<td>"), *te = td ? strstr(td, "</td>") : NULL;
        const char *cd = te ? strstr(te, "<td>") : NULL, *ce = cd ? strstr(cd, "</td>") : NULL;
        const char *li = strstr(html, "<li>"), *le = li ? strstr(li, "</li>") : NULL;
        CHECK(he && te && ce && le);
        if (he && te && ce && le) {
            char *a = html_text(h + 10, he), *b = html_text(td + 4, te), *c = html_text(cd + 4, ce),
                 *d = html_text(li + 4, le);
            /* a heading and a list item drop leading and trailing blanks, as any Markdown does */
            char *trim = tp_xstrdup(want);
            char *ts = trim;
            while (*ts == ' ')
                ts++;
            size_t tl = strlen(ts);
            while (tl && ts[tl - 1] == ' ')
                ts[--tl] = 0;
            /* the heading: " " + the name, trailing blanks dropped */
            char *hw = malloc(strlen(want) + 2);
            snprintf(hw, strlen(want) + 2, " %s", want);
            for (size_t hl = strlen(hw); hl && hw[hl - 1] == ' ';)
                hw[--hl] = 0;
            if (strcmp(a, hw) || strcmp(b, ts) || strcmp(c, *want ? want : " ") || strcmp(d, ts))
                tp_test_fail(__FILE__, __LINE__, "name %zu [%s]: seen as heading [%s], cell [%s], code [%s], item [%s]",
                             i, want, a, b, c, d);
            free(a);
            free(b);
            free(c);
            free(d);
            free(trim);
            free(hw);
        }
        free(want);
        free(html);
        tp_buf_free(&md);
    }
}

TEST(markdown_code_span_fences_and_cuts)
{
    tp_buf b = {0};
    tp_md_code(&b, "plain", SIZE_MAX);
    CHECK_STR(b.data, "`plain`");
    b.len = 0;
    tp_md_code(&b, "a``b`", SIZE_MAX);
    CHECK_STR(b.data, "``` a``b` ```");
    b.len = 0;
    tp_md_code(&b, "a|b", SIZE_MAX);
    CHECK_STR(b.data, "`a\\|b`");
    b.len = 0;
    tp_md_code(&b, "", SIZE_MAX);
    CHECK_STR(b.data, "` `");
    b.len = 0;
    tp_md_code(&b, "\xC3\xA9\xC3\xA9", 3); /* cut inside the second é: before it */
    CHECK_STR(b.data, "`\xC3\xA9...`");
    b.len = 0;
    tp_md_text(&b, "a_b _c_ x@y https://z www.q 1. -", SIZE_MAX);
    CHECK_STR(b.data, "a_b \\_c\\_ x@&#8203;y https\\://z www\\.q 1. -");
    b.len = 0;
    tp_md_text(&b, "12. x", SIZE_MAX);
    CHECK_STR(b.data, "12\\. x");
    tp_buf_free(&b);
}

/* ---- report and diff with hostile names ---- */

static const char *hostile_trace(const char *file, int scale)
{
    tp_buf j = {0};
    tp_buf_puts(&j, "{\"deviceProperties\":[{\"id\":0,\"name\":");
    static const char dev[] = "<img src=https://x.example/d.png> [x](https://x.example) @someone `a|b` \n# heading";
    tp_json_put_string(&j, dev, sizeof dev - 1, NULL);
    tp_buf_puts(&j, "}],\"traceEvents\":[");
    long long ts = 1000, corr = 1;
    for (int step = 1; step <= 2; step++) {
        long long st = ts;
        for (size_t i = 0; i < NHOSTILE; i++, corr++) {
            long long dur = (long long)(10 + i) * (i % 2 ? scale : 1);
            tp_buf_printf(&j, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":");
            char op[200];
            snprintf(op, sizeof op, "op %s", hostile[i]);
            tp_json_put_string(&j, op, strlen(op), NULL);
            tp_buf_printf(&j, ",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld,\"args\":{\"External id\":%lld}},", ts + 1,
                          dur + 20, corr);
            tp_buf_printf(&j, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                              "\"ts\":%lld,\"dur\":5,\"args\":{\"correlation\":%lld}},",
                          ts + 2, corr);
            tp_buf_puts(&j, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":");
            tp_json_put_string(&j, hostile[i], strlen(hostile[i]), NULL);
            tp_buf_printf(&j, ",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":%lld,\"args\":{\"correlation\":%lld,\"device\":0,"
                              "\"stream\":7}},",
                          ts + 10, dur, corr);
            ts += 40 + dur;
        }
        tp_buf_printf(&j, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%lld,\"dur\":%lld},",
                      step, st, ts - st);
        ts += 10;
    }
    tp_buf_puts(&j, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"<img src=x> @gpu\"}}]}");
    const char *p = tp_test_write(file, j.data, j.len);
    tp_buf_free(&j);
    return p;
}

static void check_md_file(const char *dir, const char *name, int links, int images)
{
    char *md = tp_test_read_in(dir, name);
    CHECK(md != NULL);
    if (!md)
        return;
    const char *bad = tp_md_oracle(md, strlen(md));
    if (bad)
        tp_test_fail(__FILE__, __LINE__, "%s: the text oracle: %s", name, bad);
    char *html = render(md, strlen(md));
    CHECK(html != NULL);
    char why[200];
    if (html && (bad = html_problem(html, why, sizeof why)))
        tp_test_fail(__FILE__, __LINE__, "%s: %s", name, bad);
    /* links and images: only the writers' own chart links */
    int a = 0, img = 0;
    for (const char *p = html; p && (p = strstr(p, "<a ")); p++)
        a++;
    for (const char *p = html; p && (p = strstr(p, "<img")); p++)
        img++;
    CHECK_EQ_INT(a, links);
    CHECK_EQ_INT(img, images);
    /* something hostile did reach the file, escaped */
    CHECK(strstr(md, "\\<img") != NULL);
    CHECK(strstr(md, "@&#8203;") != NULL);
    free(html);
    free(md);
}

TEST(markdown_report_and_diff_of_hostile_names)
{
    if (!have_renderer("markdown_report_and_diff_of_hostile_names"))
        return;
    /* the file name becomes the title */
    static char base[4096], cand[4096]; /* the helpers' paths live in rotating buffers */
    snprintf(base, sizeof base, "%s", hostile_trace("<img src=x> [x](y) @someone `a|b` # h ~~s~~ www.e.example.json", 1));
    snprintf(cand, sizeof cand, "%s", hostile_trace("cand @x [l](u).json", 3));
    const char *out = tp_test_tmp("hostile.report"), *dout = tp_test_tmp("hostile.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), base, out), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-if-slower 0 --fail-if-kernel-slower 0 "
                                   "--kernel-min-share 0",
                             tp_test_bin(), base, cand, dout),
                 3);
    char *md = tp_test_read_in(out, "summary.md");
    const char *lead = md ? strstr(md, "\n**tracepress report** ") : NULL; /* after the findings */
    CHECK(lead && strncmp(lead + 1, "**tracepress report** \\<img src=x\\> \\[x\\](y) @&#8203;someone \\`a\\|b\\` # h "
                            "\\~\\~s\\~\\~ www\\.e.example: median step **", 110) == 0);
    free(md);
    check_md_file(out, "summary.md", 0, 0); /* no chart link without --image-base-url: they are named */
    check_md_file(dout, "diff.md", 0, 0);
    /* with it, the charts are images from there; the baseline line names the base, escaped */
    const char *iout = tp_test_tmp("hostile_img.report"), *idout = tp_test_tmp("hostile_img.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' --image-base-url https://ci.example/run/7/ --baseline '%s'",
                             tp_test_bin(), cand, iout, base), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --image-base-url https://ci.example/run/7",
                             tp_test_bin(), base, cand, idout), 0);
    check_md_file(iout, "summary.md", 0, 7);
    check_md_file(idout, "diff.md", 0, 2);
    md = tp_test_read_in(iout, "summary.md");
    CHECK(md && strstr(md, "](https://ci.example/run/7/png/timeline.png)"));
    CHECK(md && strstr(md, "\n\n**Against the baseline** \\<img src=x\\> \\[x\\](y) @&#8203;someone"));
    free(md);
    /* hostile category names (a --categories file) over hostile op names:
     * the Categories table of summary.md */
    static const char rules[] = "<img/src=https://x.example/c.png>@someone op op <img*\n"
                                "[x](https://x.example) op op ?x](*\n"
                                "`a|b`|c op op *|*\n"
                                "~~x~~&lt;<script> op op ~~x~~\n";
    const char *rf = tp_test_write("hostile.rules", rules, sizeof rules - 1);
    const char *cout = tp_test_tmp("hostile_cat.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s' --categories '%s'", tp_test_bin(), base, cout, rf), 0);
    md = tp_test_read_in(cout, "summary.md");
    CHECK(md && strstr(md, "\n#### Categories\n"));
    /* each category's row: escaped name, its top op in a code span */
    CHECK(md && strstr(md, "| \\<img/src=https\\://x.example/c.png\\>@&#8203;someone | "));
    CHECK(md && strstr(md, "| \\[x\\](https\\://x.example) | "));
    CHECK(md && strstr(md, "| \\`a\\|b\\`\\|c | ") && strstr(md, "| \\~\\~x\\~\\~\\&lt;\\<script\\> | "));
    CHECK(md && strstr(md, " | `op [x](https://x.example)` |\n") && strstr(md, " | `op a \\| b \\| c \\|` |\n"));
    free(md);
    check_md_file(cout, "summary.md", 0, 0);
}

/* ---- all or nothing ---- */

/* Every file under dir with its checksum, sorted: the folder's fingerprint. */
static char *fingerprint(const char *dir)
{
    char *out = NULL;
    tp_test_run(&out, "cd '%s' && find . -type f | sort | xargs md5sum", dir);
    return out;
}

static void check_kept(const char *what, const char *cmd, const char *dir, const char *before)
{
    char *msg = NULL;
    int rc = tp_test_run(&msg, "ulimit -f 100 && %s", cmd);
    CHECK_EQ_INT(rc, 2);
    if (!msg || !strstr(msg, "File too large") || !strstr(msg, dir))
        tp_test_fail(__FILE__, __LINE__, "%s: the error names the output: %s", what, msg ? msg : "(none)");
    char *after = fingerprint(dir);
    if (!after || strcmp(after, before) != 0)
        tp_test_fail(__FILE__, __LINE__, "%s: the previous set changed:\n%s\nnow:\n%s", what, before, after);
    char *tmps = NULL;
    tp_test_run(&tmps, "find '%s' -name '*.tmp.*'", dir);
    CHECK_STR(tmps ? tmps : "", "");
    free(tmps);
    free(after);
    free(msg);
}

TEST(report_and_diff_failure_keeps_the_previous_set)
{
    /* the second run's traces differ from the first's, so every new file differs from the old one;
     * its PNGs (under 100 KB) are written before the PDF passes the 100 KB file-size limit */
    const char *a = hostile_trace("set_a.json", 1), *b = hostile_trace("set_b.json", 5);
    const char *dir = tp_test_tmp("set.report"), *ddir = tp_test_tmp("set.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), a, dir), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s'", tp_test_bin(), a, b, ddir), 0);
    char *before = fingerprint(dir), *dbefore = fingerprint(ddir);
    CHECK(before && strstr(before, "report.pdf") && strstr(before, "png/timeline.png"));
    CHECK(dbefore && strstr(dbefore, "diff.pdf") && strstr(dbefore, "png/changes.png"));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' report '%s' -o '%s'", tp_test_bin(), b, dir);
    check_kept("report", cmd, dir, before);
    snprintf(cmd, sizeof cmd, "'%s' diff -q '%s' '%s' -o '%s'", tp_test_bin(), b, a, ddir);
    check_kept("diff", cmd, ddir, dbefore);
    free(before);
    free(dbefore);
}

/* A cut right after "www": the ellipsis's first dot must not make "www." (an
 * autolink on GitHub); found by fuzz_job in a collective's name. */
TEST(markdown_cut_after_www_is_no_autolink)
{
    tp_buf b = {0};
    tp_md_text(&b, "ab www.x.example", 6);
    CHECK_STR(b.data, "ab www\\...");
    CHECK(tp_md_oracle(b.data, b.len) == NULL);
    b.len = 0;
    tp_md_text(&b, "ab wwwx", 5); /* no "www" at the cut: the plain ellipsis */
    CHECK_STR(b.data, "ab ww...");
    tp_buf_free(&b);
}
