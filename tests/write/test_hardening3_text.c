/* test_hardening3_text.c: hardening round 3 (issue 29; docs/ERRORS.md
 * "Round 3: names, nesting, CSV"): category rules cost about a name's length
 * and keep first-match order, text outputs are valid UTF-8 and error lines
 * one escaped line, nesting holds past any number of overlap rows, CSV cells
 * never run as formulas. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"
#include "convert/base/globset.h"
#include "convert/model/tracks.h"
#include "tests/lib/load_trace.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- item 6: --categories */

static uint32_t naive_first(char **pats, size_t n, const char *s, bool casefold)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(pats[i], s, casefold ? FNM_CASEFOLD : 0) == 0)
            return (uint32_t)i;
    return UINT32_MAX;
}

static void random_text(char *out, size_t maxlen, const char *alphabet, unsigned *seed)
{
    size_t n = (size_t)rand_r(seed) % (maxlen + 1), na = strlen(alphabet);
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[(size_t)rand_r(seed) % na];
    out[n] = 0;
}

/* Text made from a pattern: stars and '?' as letters, a bracket as its first
 * member, an escaped character as itself. */
static void instantiate(const char *p, char *out, size_t cap, unsigned *seed)
{
    size_t o = 0;
    for (size_t i = 0; p[i] && o + 2 < cap; i++) {
        if (p[i] == '*') {
            for (int k = rand_r(seed) % 3; k > 0 && o + 2 < cap; k--)
                out[o++] = "aAb"[rand_r(seed) % 3];
        } else if (p[i] == '?')
            out[o++] = 'x';
        else if (p[i] == '\\' && p[i + 1])
            out[o++] = p[++i];
        else if (p[i] == '[' && p[i + 1] && rand_r(seed) % 2) {
            const char *e = strchr(p + i + 2, ']');
            if (!e)
                out[o++] = p[i];
            else {
                out[o++] = p[i + 1] == '!' || p[i + 1] == '^' ? 'z' : p[i + 1];
                i = (size_t)(e - p);
            }
        } else
            out[o++] = p[i];
    }
    out[o] = 0;
}

TEST(globset_first_equals_fnmatch_in_order_on_random_sets)
{
    /* glob characters, brackets with ! ^ - ], escapes, case, bytes of UTF-8 */
    static const char pat_alpha[] = "aAbB***??[[]]]!^-\\x\xc3\xa9.:=";
    static const char name_alpha[] = "aAbBx-]![\\.*?\xc3\xa9:";
    unsigned seed = 29;
    size_t checked = 0, matched = 0;
    for (int set = 0; set < 5000; set++) {
        bool casefold = set & 1;
        size_t n = 1 + (size_t)rand_r(&seed) % 24;
        char *pats[24];
        tp_globset *g = tp_globset_new(casefold);
        for (size_t i = 0; i < n; i++) {
            char buf[16];
            random_text(buf, 8, pat_alpha, &seed); /* sometimes empty: matches the empty name only */
            pats[i] = tp_xstrdup(buf);
        }
        for (size_t i = n; i-- > 0;) /* any add order: the id decides */
            tp_globset_add(g, pats[i], (uint32_t)i);
        tp_globset_seal(g);
        for (int q = 0; q < 24; q++) {
            char name[16];
            if (q < (int)n) /* a name the pattern may well match: its neighbours are tried on it */
                instantiate(pats[q], name, sizeof name, &seed);
            else
                random_text(name, 10, name_alpha, &seed);
            uint32_t want = naive_first(pats, n, name, casefold), got = tp_globset_first(g, name, NULL);
            if (want != got) {
                fprintf(stderr, "  name \"%s\" casefold %d: want %u got %u; patterns:", name, casefold, want, got);
                for (size_t i = 0; i < n; i++)
                    fprintf(stderr, " [%s]", pats[i]);
                fputc('\n', stderr);
            }
            CHECK_EQ_INT(got, want);
            checked++;
            matched += want != UINT32_MAX;
        }
        for (size_t i = 0; i < n; i++)
            free(pats[i]);
        tp_globset_free(g);
    }
    CHECK(matched > checked / 10); /* the sets do match often enough to test the order */
}

TEST(globset_does_not_try_every_rule_on_every_name)
{
    /* 25k rules of every kind against 2,500 names: the naive matcher makes
     * 62.5M fnmatch calls; here only patterns whose literal piece occurs */
    tp_globset *g = tp_globset_new(true);
    char p[64];
    for (uint32_t i = 0; i < 25000; i++) {
        switch (i % 5) {
        case 0: snprintf(p, sizeof p, "zz%u*", i); break;
        case 1: snprintf(p, sizeof p, "*yy%u", i); break;
        case 2: snprintf(p, sizeof p, "*q%uq*", i); break;
        case 3: snprintf(p, sizeof p, "exact_%u", i); break;
        default: snprintf(p, sizeof p, "*[Oo]p_#%u?[z]", i); break; /* a piece between brackets */
        }
        tp_globset_add(g, p, i);
    }
    tp_globset_add(g, "*kern_01234_x*", 25000);
    tp_globset_seal(g);
    uint64_t calls = 0;
    size_t hits = 0;
    for (int k = 0; k < 2500; k++) {
        char name[64];
        snprintf(name, sizeof name, "KERN_%05d_x", k);
        uint32_t got = tp_globset_first(g, name, &calls);
        hits += got != UINT32_MAX;
        if (k == 1234)
            CHECK_EQ_INT(got, 25000);
    }
    snprintf(p, sizeof p, "EXACT_%u", 24998);
    CHECK_EQ_INT(tp_globset_first(g, p, &calls), 24998);
    CHECK_EQ_INT(tp_globset_first(g, "my_op_#24999yz", &calls), 24999);
    CHECK_EQ_INT(hits, 1);
    CHECK(calls < 2500u * 10); /* a few per name at most, against 25,000 */
    tp_globset_free(g);
}

static const char *kernels_trace(const char *name, int n);

TEST(globset_tries_a_repeated_pattern_without_literal_once)
{
    /* 60k copies of a pattern with no literal text: first match never reaches
     * a later copy, so it is one entry, tried once per name (was 60k) */
    tp_globset *g = tp_globset_new(true);
    for (uint32_t i = 60000; i-- > 0;)
        tp_globset_add(g, "[0-9]*", i);
    tp_globset_add(g, "[0-9]?", 60000);
    tp_globset_seal(g);
    CHECK_EQ_INT(tp_globset_pieceless(g), 2);
    uint64_t calls = 0;
    CHECK_EQ_INT(tp_globset_first(g, "7kernel", &calls), 0);
    CHECK_EQ_INT(tp_globset_first(g, "kernel", &calls), UINT32_MAX);
    CHECK(calls <= 4);
    tp_globset_free(g);
}

TEST(categories_file_bounds_patterns_without_literal_text)
{
    /* 1,025 distinct bracket-only patterns: each would be tried on every name
     * (60k of them x 5,000 names took 31 s): one line, exit 2 */
    const char *trace = kernels_trace("k10.json", 10);
    tp_buf b = {0};
    for (int i = 0; i < 1025; i++) {
        tp_buf_printf(&b, "c%d kernel ", i);
        for (int d = i; d >= 0; d /= 3) { /* a distinct string of [0-9], ? and [a-z] per rule */
            tp_buf_puts(&b, d % 3 == 0 ? "[0-9]" : d % 3 == 1 ? "?" : "[a-z]");
            if (d < 3)
                break;
        }
        tp_buf_puts(&b, "*\n");
    }
    const char *rules = tp_test_write_text("nolit.rules", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' stats '%s' --categories '%s'", tp_test_bin(), trace, rules), 2);
    CHECK(out && strstr(out, "without a literal character") && strstr(out, "at most 1024"));
    free(out);
}

/* A trace of n kernels with distinct names (one launch each). */
static const char *kernels_trace(const char *name, int n)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < n; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kern_%05d_x\",\"pid\":0,\"tid\":7,\"ts\":%d,"
                      "\"dur\":1,\"args\":{\"stream\":7,\"device\":0}}\n",
                      i ? "," : "", i, i * 2);
    tp_buf_puts(&b, "]}\n");
    const char *path = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return path;
}

TEST(categories_file_of_70k_category_names_is_read_in_seconds)
{
    const char *trace = kernels_trace("k100.json", 100);
    tp_buf b = {0};
    for (int i = 0; i < 70000; i++)
        tp_buf_printf(&b, "cat%d kernel nomatch%d\n", i, i);
    tp_buf_puts(&b, "mine kernel KERN_0004?_*\n");
    const char *rules = tp_test_write_text("70k.rules", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    /* 16.5 s before category names were hashed; well under a second now */
    CHECK_EQ_INT(tp_test_run(&out, "timeout 10 '%s' stats '%s' --categories '%s'", tp_test_bin(), trace, rules), 0);
    CHECK(out && strstr(out, " mine ") && strstr(out, " other "));
    free(out);
}

TEST(categories_25k_op_rules_on_2500_ops_in_seconds)
{
    /* 2,500 ops each launching a kernel, 25k op rules of many stars that match
     * none of them: 10.6 s when every rule was tried on every op, 0.03 s now */
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < 2500; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"myop::op_%05d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10},"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                      "\"dur\":5,\"args\":{\"correlation\":%d}},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kern_%05d_x\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":4,"
                      "\"args\":{\"correlation\":%d,\"stream\":7,\"device\":0}}\n",
                      i ? "," : "", i, i * 20, i * 20 + 1, i + 1, i, i * 20 + 3, i + 1);
    tp_buf_puts(&b, "]}\n");
    char trace[512];
    snprintf(trace, sizeof trace, "%s", tp_test_write_text("ops2500.json", b.data));
    b.len = 0;
    for (int i = 0; i < 25000; i++)
        tp_buf_printf(&b, "c%d op *m*y*o*p*:*:*o*p*_*0*%d*z\n", i % 50, i);
    tp_buf_puts(&b, "mine op myop::op_0001?\n");
    const char *rules = tp_test_write_text("25k.rules", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 5 '%s' stats '%s' --categories '%s'", tp_test_bin(), trace, rules), 0);
    CHECK(out && strstr(out, " mine ") && strstr(out, " other "));
    free(out);
}

/* ---- item 11: nesting past any number of overlap rows */

/* n staircase slices on one thread: each starts before the previous ends
 * and ends after it, so each needs a row of its own. */
static const char *staircase(const char *name, int n)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < n; i++)
        tp_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"s%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1000}\n",
                      i ? "," : "", i, i * 2);
    tp_buf_puts(&b, "]}\n");
    const char *path = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return path;
}

/* The slices of every track of the trace at path properly nested; their count. */
static size_t nested_slices(const char *path, size_t *ntracks_used)
{
    tp_trace t;
    size_t n = 0, bad = 0;
    *ntracks_used = 0;
    if (tp_test_load(path, &t) != 0) {
        tp_trace_free(&t);
        return SIZE_MAX;
    }
    tp_track_index ix;
    tp_track_index_build(&t, &ix);
    uint32_t *stack = tp_xmalloc((t.nevents + 1) * sizeof *stack);
    for (size_t k = 0; k < ix.ntracks; k++) {
        size_t depth = 0, here = 0;
        for (size_t j = ix.start[k]; j < ix.start[k + 1]; j++) {
            const tp_event *e = &t.events[ix.ev[j]];
            if (e->ph != 'X')
                continue;
            here++;
            while (depth && t.events[stack[depth - 1]].ts + t.events[stack[depth - 1]].dur <= e->ts)
                depth--;
            if (depth && e->ts + e->dur > t.events[stack[depth - 1]].ts + t.events[stack[depth - 1]].dur)
                bad++;
            stack[depth++] = ix.ev[j];
        }
        n += here;
        *ntracks_used += here > 0;
    }
    free(stack);
    tp_track_index_free(&ix);
    tp_trace_free(&t);
    return bad ? SIZE_MAX : n;
}

TEST(convert_keeps_staircase_slices_nested_past_16_rows)
{
    const char *in = staircase("stair20.json", 20), *out = tp_test_tmp("stair20.out.json");
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, out), 0);
    /* each of the 19 moved slices counted once (184 moves were counted before) */
    CHECK(msg && strstr(msg, " 19 repaired (moved to overlap tracks), 0 dropped"));
    free(msg);
    size_t tracks = 0;
    CHECK_EQ_INT(nested_slices(out, &tracks), 20); /* 4 overlapping slices shared a track before */
    CHECK_EQ_INT(tracks, 20);
    /* past the bound of overlap rows (docs/ERRORS.md): still nested, the rest dropped and counted */
    in = staircase("stair300.json", 300);
    out = tp_test_tmp("stair300.out.json");
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, out), 0);
    CHECK(msg && strstr(msg, " 256 repaired (moved to overlap tracks), 43 dropped (slices past 256 overlap rows: 43)"));
    free(msg);
    CHECK_EQ_INT(nested_slices(out, &tracks), 257);
    CHECK_EQ_INT(tracks, 257);
    /* --strict: slices dropped to keep nesting are an error, one line, no output */
    const char *strict_out = tp_test_tmp("stair300.strict.json");
    CHECK_EQ_INT(tp_test_run(&msg, "'%s' convert '%s' -o '%s' --strict", tp_test_bin(), in, strict_out), 2);
    CHECK(msg && strstr(msg, "slices past 256 overlap rows (dropped): 43, rejected by --strict") &&
          !strchr(msg, '\n')[1]);
    CHECK(!tp_test_file_exists(strict_out));
    free(msg);
}

/* ---- item 14: CSV cells a spreadsheet would run */

TEST(stats_csv_neutralises_formula_cells_and_keeps_numbers)
{
    static const char *const names[] = {"=HYPERLINK(\\\"http://x.example\\\")", "+1", "-2", "@SUM(A1)", "\\tx", "\\rcmd",
                                        "plain", "a=b"};
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < 8; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,"
                      "\"args\":{\"stream\":7,\"device\":0}}\n",
                      i ? "," : "", names[i], i * 10, 5 + i);
    tp_buf_puts(&b, "]}\n");
    const char *trace = tp_test_write_text("csv.json", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --csv '%s'", tp_test_bin(), trace), 0);
    CHECK(out && strstr(out, "\n\"'=HYPERLINK(\"\"http://x.example\"\")\",kernel,1,5000,"));
    CHECK(out && strstr(out, "\n\"'+1\",kernel,") && strstr(out, "\n\"'-2\",kernel,") && strstr(out, "\n\"'@SUM(A1)\","));
    CHECK(out && strstr(out, "\n\"'\tx\",") && strstr(out, "\n\"'\rcmd\","));
    CHECK(out && strstr(out, "\n\"plain\",kernel,1,11000,") && strstr(out, "\n\"a=b\",kernel,"));
    free(out);
    /* a job's rank files: the file cell is text, the numbers (an offset may be negative) stay numbers */
    const char *dir = tp_test_tmp("csvjob");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s/=r0.json' && cp '%s' '%s/+r1.json'", dir, trace, dir,
                             trace, dir), 0);
    char bin[PATH_MAX];
    CHECK(realpath(tp_test_bin(), bin) != NULL);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' stats --csv =r0.json +r1.json", dir, bin), 0);
    CHECK(out && strstr(out, "\n0,\"'+r1.json\",0,reference,") && strstr(out, "\n1,\"'=r0.json\",0,"));
    free(out);
}

/* ---- item 10: valid UTF-8 and one escaped line */

static bool valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t l = tp_utf8_len((const unsigned char *)s + i, n - i);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

/* One line of valid UTF-8 without ESC, CR or a bidirectional override (U+202E). */
static bool one_clean_line(const char *out)
{
    if (!out || !*out)
        return false;
    size_t n = strlen(out);
    return strchr(out, '\n') == out + n - 1 && !strchr(out, 0x1b) && !strchr(out, '\r') &&
           !strstr(out, "\xE2\x80\xAE") && valid_utf8(out, n);
}

TEST(non_utf8_category_and_device_names_come_out_valid_utf8)
{
    const char *trace = tp_test_write_text(
        "baddev.json", "{\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\xff\xe2\x80\xae\x1bX\",\"totalGlobalMem\":1000}],"
                       "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kern_a\",\"pid\":0,\"tid\":7,\"ts\":0,"
                       "\"dur\":5,\"args\":{\"stream\":7,\"device\":0}}]}\n");
    const char *rules = tp_test_write_text("badcat.rules", "bad\xff\xfe" "Cat kernel kern*\n");
    const char *dir = tp_test_tmp("badcat_report");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --categories '%s' -o '%s'", tp_test_bin(), trace, rules, dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && valid_utf8(md, strlen(md)));
    CHECK(md && strstr(md, "bad\xEF\xBF\xBD\xEF\xBF\xBD" "Cat")); /* U+FFFD for each byte that is not UTF-8 */
    CHECK(md && !strstr(md, "\xE2\x80\xAE"));
    free(md);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' --categories '%s'", tp_test_bin(), trace, rules), 0);
    CHECK(out && valid_utf8(out, strlen(out)) && strstr(out, "bad\\xff\\xfeCat"));
    free(out);
}

TEST(hostile_names_in_error_and_summary_lines_are_one_escaped_line)
{
    char trace[512]; /* tp_test_tmp's buffers rotate */
    snprintf(trace, sizeof trace, "%s", kernels_trace("k3.json", 3));
    char *out = NULL;
    /* --image-base-url, in report and diff */
    const char *url = "http://x.example/\x1b[2J\xE2\x80\xAE\xc2\x85";
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --image-base-url '%s'", tp_test_bin(), trace,
                             tp_test_tmp("iu"), url), 2);
    CHECK(one_clean_line(out) && strstr(out, "--image-base-url: http://x.example/\\x1b[2J\\u202e\\u0085: "));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff '%s' '%s' -o '%s' --image-base-url '%s'", tp_test_bin(), trace, trace,
                             tp_test_tmp("iud"), url), 2);
    CHECK(one_clean_line(out));
    free(out);
    /* a folder without a trace */
    const char *folder = tp_test_tmp("f\x1b[31m\xE2\x80\xAE" "x"), *other = tp_test_tmp("g\xE2\x80\xAE");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' '%s' && echo hi > '%s/readme.txt'", folder, other, folder), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff '%s' '%s' -o '%s'", tp_test_bin(), folder, other, tp_test_tmp("fd")), 2);
    CHECK(one_clean_line(out) && strstr(out, "\\x1b[31m\\u202ex: no trace among the inputs"));
    free(out);
    /* a failing job convert: the truncated rank's line */
    char bad[512];
    snprintf(bad, sizeof bad, "%s", tp_test_write_text("bad\xE2\x80\xAE\x1b.json", "{\"traceEvents\":[{\"ph\":\"X\""));
    CHECK(tp_test_run(&out, "'%s' convert '%s' '%s' -o '%s'", tp_test_bin(), trace, bad, tp_test_tmp("jc.json")) != 0);
    CHECK(one_clean_line(out) && strstr(out, "bad\\u202e\\x1b.json: "));
    free(out);
    /* diff's gate line names a kernel: escaped, one line per reason */
    const char *kern = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u202eevil\\u001b[2J\","
                       "\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":%d,\"args\":{\"stream\":7,\"device\":0}}]}\n";
    char g1[512], g2[512], text[512];
    snprintf(text, sizeof text, kern, 5);
    snprintf(g1, sizeof g1, "%s", tp_test_write_text("g1.json", text));
    snprintf(text, sizeof text, kern, 50);
    snprintf(g2, sizeof g2, "%s", tp_test_write_text("g2.json", text));
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --fail-if-kernel-slower 0", tp_test_bin(), g1, g2,
                             tp_test_tmp("gd")), 3);
    CHECK(one_clean_line(out) && strstr(out, ": gate: kernel k\\u202eevil\\x1b[2J +900.0%"));
    free(out);
    /* batch's per-trace lines name the file escaped, ok or failed */
    const char *bdir = tp_test_tmp("bat_in");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s/ok\xE2\x80\xAE\x1b.json' && cp '%s' '%s/bad\x1b.json'", bdir,
                             trace, bdir, bad, bdir), 0);
    CHECK(tp_test_run(&out, "'%s' batch '%s' -o '%s'", tp_test_bin(), bdir, tp_test_tmp("bat_out")) != 0);
    CHECK(out && !strchr(out, 0x1b) && !strstr(out, "\xE2\x80\xAE") && valid_utf8(out, strlen(out)));
    CHECK(out && strstr(out, "] ok ") && strstr(out, "] error: ") && strstr(out, "bad\\x1b.json: offset "));
    free(out);
    /* convert's summary line names the output escaped */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s'", tp_test_bin(), trace,
                             tp_test_tmp("o\xE2\x80\xAE\x1b\xff.json")), 0);
    CHECK(one_clean_line(out) && strstr(out, "o\\u202e\\x1b\\xff.json: 3 events in"));
    free(out);
}

/* A usage error quotes the value given: one escaped line too (--shard and
 * an unknown option were written raw: a newline made two lines, ESC reached
 * the terminal), and so does an unknown command. */
TEST(usage_errors_quote_values_as_one_escaped_line)
{
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report a.json b.json -o '%s' --shard \"$(printf '\\033[2J\\n\\342\\200\\256')\"",
                             tp_test_bin(), tp_test_tmp("ue")), 1);
    CHECK(one_clean_line(out) && strstr(out, "(got '\\x1b[2J\\n\\u202e')"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats \"--x$(printf '\\033]0;t\\007\\377')\"", tp_test_bin()), 1);
    CHECK(one_clean_line(out) && strstr(out, "unknown option --x\\x1b]0;t\\x07\\xff"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' \"$(printf 'c\\033[2J\\nx')\" 2>&1 | head -1", tp_test_bin()), 0);
    CHECK(one_clean_line(out) && strstr(out, "unknown command 'c\\x1b[2J\\nx'"));
    free(out);
}

/* Refusals and job lines that name a path as given: one escaped line (they were written raw). */
TEST(refusals_name_hostile_paths_as_one_escaped_line)
{
    char dir[512], in[600];
    snprintf(dir, sizeof dir, "%s", tp_test_tmp("w\x1b[2J\n\xE2\x80\xAE"));
    snprintf(in, sizeof in, "%s/x.json", dir);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s'", dir, kernels_trace("k4.json", 3), in), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s'", tp_test_bin(), in, in), 2);
    CHECK(one_clean_line(out) && strstr(out, "\\x1b[2J\\n\\u202e/x.json: refusing to overwrite the input file "));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s'", tp_test_bin(), dir, dir), 1);
    CHECK(one_clean_line(out) && strstr(out, "\\u202e: the output folder is the input folder"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report --merge '%s'", tp_test_bin(), dir), 2);
    CHECK(one_clean_line(out) && strstr(out, "\\u202e/ranks: "));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s/nope\x1b.json' -o '%s'", tp_test_bin(), dir, tp_test_tmp("bq")), 2);
    CHECK(one_clean_line(out) && strstr(out, "nope\\x1b.json: "));
    free(out);
}

TEST(stats_csv_writes_a_bidi_override_in_a_rank_file_as_a_space)
{
    const char *dir = tp_test_tmp("csvbidi"), *t = tp_test_tmp("csvbidi_traces");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_job --ranks 2 --steps 2 --out '%s' -q && mkdir -p '%s' && "
                                   "cp '%s/rank-0.json' '%s/rank-0\xE2\x80\xAEx.json' && cp '%s/rank-1.json' '%s/'",
                             t, dir, t, dir, t, dir),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' --csv 2>/dev/null", tp_test_bin(), dir), 0);
    CHECK(out && strstr(out, "rank-0 x.json\"") && !strstr(out, "\xE2\x80\xAE"));
    free(out);
}
