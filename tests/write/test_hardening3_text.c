/* test_hardening3_text.c: hardening round 3 (issue 29; docs/ERRORS.md
 * "Round 3: names, nesting, CSV"): category rules cost about a name's length
 * and keep first-match order, text outputs are valid UTF-8 and error lines
 * one escaped line, nesting holds past any number of overlap rows, CSV cells
 * never run as formulas. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"
#include "convert/base/globset.h"

#include <fnmatch.h>
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

TEST(globset_first_equals_fnmatch_in_order_on_random_sets)
{
    /* glob characters, brackets with ! ^ - ], escapes, case, bytes of UTF-8 */
    static const char pat_alpha[] = "aAbB***??[]]!^-\\x\xc3\xa9.:";
    static const char name_alpha[] = "aAbBx-]![\\.*?\xc3\xa9:";
    unsigned seed = 29;
    size_t checked = 0, matched = 0;
    for (int set = 0; set < 3000; set++) {
        bool casefold = set & 1;
        size_t n = 1 + (size_t)rand_r(&seed) % 24;
        char *pats[24];
        tp_globset *g = tp_globset_new(casefold);
        for (size_t i = 0; i < n; i++) {
            char buf[16];
            do
                random_text(buf, 8, pat_alpha, &seed);
            while (!buf[0]);
            pats[i] = tp_xstrdup(buf);
        }
        for (size_t i = n; i-- > 0;) /* any add order: the id decides */
            tp_globset_add(g, pats[i], (uint32_t)i);
        tp_globset_seal(g);
        for (int q = 0; q < 24; q++) {
            char name[16];
            if (q < (int)n) { /* a pattern as a name, which often matches itself or its neighbours */
                snprintf(name, sizeof name, "%s", pats[q]);
                for (char *c = name; *c; c++)
                    if (*c == '*' || *c == '?')
                        *c = 'a';
            } else
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
        default: snprintf(p, sizeof p, "*op_*#%u?z", i); break;
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
    CHECK_EQ_INT(tp_globset_first(g, "my_op_x#24999yz", &calls), 24999);
    CHECK_EQ_INT(hits, 1);
    CHECK(calls < 2500u * 10); /* a few per name at most, against 25,000 */
    tp_globset_free(g);
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
