/* test_reads_economy.c: summary.md fits a pull-request comment (issue 36
 * item 9): at most 40 lines before its <details>, every table within about
 * 700 px at GitHub's font (14 px text, code at 85%: about 7.2 px a
 * character, 13 px padding each side of a cell). */
#include "tests/lib/harness.h"
#include "tests/fuzz/md_oracle.h"

#include <stdlib.h>
#include <string.h>

/* The width a cell's text takes: characters (UTF-8 lead bytes) of its longest <br> line, backticks and
 * escapes not shown. */
static double cell_px(const char *c, size_t n)
{
    while (n && c[0] == ' ') /* the cell's own padding is not its text */
        c++, n--;
    while (n && c[n - 1] == ' ')
        n--;
    double best = 0, w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 4 <= n && !memcmp(c + i, "<br>", 4)) {
            best = w > best ? w : best;
            w = 0;
            i += 3;
            continue;
        }
        unsigned char ch = (unsigned char)c[i];
        if (ch == '`' || ch == '\\' || (ch & 0xC0) == 0x80)
            continue;
        w += 7.2;
    }
    return w > best ? w : best;
}

/* The widest table of md in px (columns: the widest cell + 27 px). */
static double widest_table(const char *md, char *which, size_t wn)
{
    double widest = 0, col[32] = {0};
    size_t ncol = 0;
    const char *line = md, *head = NULL;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len && line[0] == '|') {
            if (!head)
                head = line;
            size_t k = 0;
            const char *p = line + 1, *end = line + len;
            while (p < end && k < 32) {
                const char *q = p;
                while (q < end && *q != '|')
                    q += (*q == '\\' && q + 1 < end) ? 2 : 1;
                double w = cell_px(p, (size_t)(q - p));
                if (!(q - p > 2 && p[1] == '-')) /* the delimiter row says nothing of width */
                    col[k] = w > col[k] ? w : col[k];
                k++;
                p = q + 1;
            }
            ncol = k > ncol ? k : ncol;
        } else if (head) {
            double t = 1;
            for (size_t k = 0; k < ncol; k++)
                t += col[k] + 27;
            if (t > widest) {
                widest = t;
                snprintf(which, wn, "%.60s", head);
            }
            memset(col, 0, sizeof col);
            ncol = 0;
            head = NULL;
        }
        line = nl ? nl + 1 : line + len;
    }
    return widest;
}

static void check_economy(const char *trace, const char *name)
{
    const char *dir = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(trace), dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md != NULL);
    if (!md)
        return;
    const char *det = strstr(md, "<details><summary>More");
    CHECK(det != NULL);
    size_t lines = 0;
    for (const char *p = md; det && p < det; p++)
        lines += *p == '\n';
    if (lines > 40)
        fprintf(stderr, "  %s: %zu lines before <details>\n", name, lines);
    CHECK(det && lines <= 40);
    CHECK(strstr(md, "</details>") != NULL);
    char which[64] = "";
    double w = widest_table(md, which, sizeof which);
    if (w > 700)
        fprintf(stderr, "  %s: a table of %.0f px: %s\n", name, w, which);
    CHECK(w <= 700);
    const char *bad = tp_md_oracle(md, strlen(md)); /* the fold and the cells' <br> are the writers' own constructs */
    if (bad)
        fprintf(stderr, "  %s: %s\n", name, bad);
    CHECK(bad == NULL);
    free(md);
}

TEST(summary_md_fits_a_comment_efficiency) { check_economy("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "eco.qwen"); }
TEST(summary_md_fits_a_comment_collectives) { check_economy("external/kineto/hta_nccl_data_2024.json.gz", "eco.nccl"); }
TEST(summary_md_fits_a_comment_inference)
{
    check_economy("external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz", "eco.sglang");
}

/* T4 is the model's constant: a footnote says it once, no table row per launch call (was 3 rows of 4.000 us) */
TEST(overheads_constant_t4_is_a_footnote)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("eco.t4");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(),
                             tp_test_shared("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"), dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "T4 (not in the table): the model's constant 4.000 us for each of the 862 launch calls "
                             "(cudaLaunchKernel 860, cuLaunchKernel 1, cudaMemcpyAsync 1)"));
    CHECK(out && !strstr(out, " T4     cudaLaunchKernel"));
    free(out);
}
