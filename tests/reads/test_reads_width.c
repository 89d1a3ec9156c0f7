/* test_reads_width.c: summary.md fits a GitHub comment column inside its <details> too (issue 36 item 9): every
 * table of cmark-gfm's HTML (GitHub's renderer) within about 700 px at GitHub's font (md_width.h's estimate:
 * 7.2 px a character, 27 px a column), for a job and each format's own sections. */
#include "render/text/md_width.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The widest table of cmark-gfm's HTML in px: a cell's text is what lies outside tags, an entity one character,
 * a <br> a new line of the cell. */
static double widest_html_table(const char *h, const char *skip_head, char *which, size_t wn)
{
    double widest = 0;
    for (const char *t = strstr(h, "<table>"); t; t = strstr(t + 1, "<table>")) {
        const char *end = strstr(t, "</table>");
        if (!end)
            break;
        const char *th = strstr(t, "<th");
        while (th && th[3] != '>' && th[3] != ' ') /* a header cell, not <thead> */
            th = strstr(th + 1, "<th");
        if (skip_head && th && th < end && !strncmp(strchr(th, '>') + 1, skip_head, strlen(skip_head)))
            continue;
        double col[64] = {0};
        size_t c = 0;
        for (const char *p = t; p < end; p++) {
            if (!strncmp(p, "<tr>", 4))
                c = 0;
            if (strncmp(p, "<td", 3) && strncmp(p, "<th", 3))
                continue;
            if (p[3] != '>' && p[3] != ' ')
                continue;
            p = strchr(p, '>') + 1;
            double best = 0, w = 0;
            while (p < end && strncmp(p, "</td>", 5) && strncmp(p, "</th>", 5)) {
                if (!strncmp(p, "<br", 3)) {
                    best = w > best ? w : best;
                    w = 0;
                }
                if (*p == '<') {
                    p = strchr(p, '>') + 1;
                    continue;
                }
                if (*p == '&' && strchr(p, ';') && strchr(p, ';') - p < 10)
                    p = strchr(p, ';');
                if ((*p & 0xC0) != 0x80)
                    w += TP_MD_CHAR_PX;
                p++;
            }
            best = w > best ? w : best;
            if (c < 64 && best + TP_MD_CELL_PAD_PX > col[c])
                col[c] = best + TP_MD_CELL_PAD_PX;
            c++;
        }
        double total = 1;
        for (size_t k = 0; k < 64; k++)
            total += col[k];
        if (total > widest) {
            widest = total;
            snprintf(which, wn, "%.80s", th ? th : t);
        }
    }
    return widest;
}

static void check_width(const char *args, const char *name)
{
    if (!tp_test_have("cmark-gfm"))
        return;
    const char *dir = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q %s -o '%s'", tp_test_bin(), args, dir), 0);
    char *html = NULL;
    CHECK_EQ_INT(tp_test_run(&html, "cmark-gfm -e table --unsafe '%s/summary.md'", dir), 0);
    CHECK(html && strstr(html, "<table>"));
    char which[96] = "";
    double w = html ? widest_html_table(html, NULL, which, sizeof which) : 0;
    if (w > TP_MD_COMMENT_PX)
        fprintf(stderr, "  %s: a table of %.0f px: %s\n", name, w, which);
    CHECK(w <= TP_MD_COMMENT_PX);
    free(html);
}

static char *shared_arg(const char *rel)
{
    static char b[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(b[k], sizeof b[k], "'%s'", tp_test_shared(rel));
    return b[k];
}

/* the job's per-rank table was ~1,550 px, its stragglers ~940, its collectives ~1,030 */
TEST(summary_md_width_job)
{
    char args[2100];
    snprintf(args, sizeof args, "%s %s", shared_arg("external/hta/trace_filter_sampled_rank-0.json.gz"),
             shared_arg("external/hta/trace_filter_sampled_rank-1.json.gz"));
    check_width(args, "width.job");
}
/* the formats' own sections: dvdt's kernel table ~1,030 px, plaidml's ~890, ExecuTorch's ~870, XPlane's HLO ops ~760 */
TEST(summary_md_width_dvdt) { check_width(shared_arg("external/dvdt/dvdt_prof_armcl_tmp-dvdt-prof.json"), "width.dvdt"); }
TEST(summary_md_width_plaidml) { check_width(shared_arg("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), "width.plaidml"); }
TEST(summary_md_width_etdump) { check_width(shared_arg("external/etdump/executorch_tutorial_etdump.etdp"), "width.etdump"); }
TEST(summary_md_width_xplane)
{
    check_width(shared_arg("external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"), "width.xplane");
}

/* the narrowing itself: parts of the key column and the next columns that fit, evenly spread; the rest untouched */
TEST(md_narrow_splits_by_key)
{
    tp_buf md = {0};
    tp_buf_puts(&md, "Intro line.\n\n| name | a long column head one | a long column head two | a long column head three | "
                     "a long column head four |\n|---|---:|---:|---:|---:|\n| x | 1 | 2 | 3 | 4 |\n| y | 5 | 6 | 7 | 8 |\n"
                     "\n| small | table |\n|---|---|\n| 1 | 2 |\n\nEnd.");
    tp_md_narrow(&md, 500);
    tp_buf_putc(&md, 0);
    CHECK(strstr(md.data, "Intro line.\n\n| name | a long column head one | a long column head two |\n|---|---:|---:|\n"
                          "| x | 1 | 2 |\n| y | 5 | 6 |\n\n| name | a long column head three | a long column head four |\n"
                          "|---|---:|---:|\n| x | 3 | 4 |\n| y | 7 | 8 |\n") != NULL);
    CHECK(strstr(md.data, "\n\n| small | table |\n|---|---|\n| 1 | 2 |\n\nEnd.") != NULL);
    CHECK(md.data[md.len - 2] == '.'); /* no newline added at the end */
    tp_buf_free(&md);
    /* a repeated first column: the key takes the second too */
    tp_buf_puts(&md, "| k | by | a long column head one | a long column head two | a long column head three |\n"
                     "|---|---|---:|---:|---:|\n| x | mean | 1 | 2 | 3 |\n| x | total | 4 | 5 | 6 |\n");
    tp_md_narrow(&md, 450);
    tp_buf_putc(&md, 0);
    CHECK(strstr(md.data, "| x | total | 6 |") != NULL || strstr(md.data, "| x | total | 5 | 6 |") != NULL);
    tp_buf_free(&md);
}

/* diff.md is a comment too: its category, op, shape and kernel tables (H100 bert -> MI250: 751-1,118 px, names cut
 * at 64 characters, a renamed pair on one line) fit; so does the overview: its first row gives the formats, not the
 * two file names (1,000-1,200 px before), and the step IQR and its quartiles are rows of their own (764 px here when
 * a cell held all three) */
TEST(diff_md_width)
{
    if (!tp_test_have("cmark-gfm"))
        return;
    const char *dir = tp_test_tmp("width.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(),
                             tp_test_shared("external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz"),
                             tp_test_shared("external/kineto/hta_amd_mi250_rocm6_2.json.gz"), dir),
                 0);
    char *html = NULL;
    CHECK_EQ_INT(tp_test_run(&html, "cmark-gfm -e table --unsafe '%s/diff.md'", dir), 0);
    char which[96] = "";
    double w = html ? widest_html_table(html, "figure", which, sizeof which) : 0;
    if (w > TP_MD_COMMENT_PX)
        fprintf(stderr, "  diff.md: a table of %.0f px: %s\n", w, which);
    CHECK(html && w > 0 && w <= TP_MD_COMMENT_PX);
    double all = html ? widest_html_table(html, NULL, which, sizeof which) : 0;
    if (all > TP_MD_COMMENT_PX)
        fprintf(stderr, "  diff.md: the overview of %.0f px: %s\n", all, which);
    CHECK(all > 0 && all <= TP_MD_COMMENT_PX);
    free(html);
}

/* Runs of one step each (an H100 and another GPU's run of one model, as TraceLens records them): the overview holds
 * no min - max or quartile rows, which only repeated the median (the verdict says there is no spread); they made it
 * about 770 px on the Qwen H100 -> MI300X diff */
TEST(diff_md_single_steps_no_spread_rows)
{
    const char *dir = tp_test_tmp("width.diff1");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(),
                             tp_test_shared("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
                             tp_test_shared("external/tracelens/h100_Falconsai_nsfw_image_detection__1016002.json.gz"),
                             dir),
                 0);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "| steps | 1 | 1 | |") && strstr(md, "| median step |"));
    CHECK(md && !strstr(md, "min – max step") && !strstr(md, "step IQR") && !strstr(md, "Q1 – Q3"));
    free(md);
}
