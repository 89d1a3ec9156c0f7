/* test_json_min.c: the args minifier against the grammar check
 * (tp_json_valid) and a plain whitespace stripper, on random text whose
 * tokens, strings and ends fall at every place of its 16-byte copies; and
 * its repairs (control characters, bad UTF-8). */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_min.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s without the whitespace outside strings, controls in strings escaped (s is ASCII) */
static size_t ref_strip(const char *s, size_t n, char *out)
{
    size_t k = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if ((unsigned char)c < 0x20) { /* a raw control character: escaped */
                k += (size_t)sprintf(out + k, "\\u%04x", (unsigned)c);
                continue;
            }
            out[k++] = c;
            if (c == '\\' && i + 1 < n)
                out[k++] = s[++i];
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '"')
            in_str = true;
        out[k++] = c;
    }
    return k;
}

/* Random text from pieces of JSON, good and bad; `valid_bias` of 100
 * are from a small grammar so that many are whole values. */
static size_t gen(unsigned *seed, char *out, size_t cap)
{
    static const char *pieces[] = {"{", "}", "[", "]", ",", ":", " ", "\n  ", "\t", "\"k\"", "\"\"", "12", "-0.5e+3",
                                   "01", "1.", "-", "1e", "tru", "true", "truex", "null", "false", "0", "-12.25",
                                   "\"a long string that fills more than one sixteen-byte copy\"", "\"\\\"q\\\\\"",
                                   "\"\\u00e9\"", "\"\\x\"", "\"\\u12\"", "\"abc", "x", "1 2",
                                   /* runs longer than the 16 bytes the minifier skips at once */
                                   "  \n \t\r      \n          \t", "\n                                  "};
    size_t n = 0;
    int len = (int)(rand_r(seed) % 24);
    if (rand_r(seed) % 2) { /* mostly whole objects */
        const char *obj[] = {"{\"a\": 1, \"bb\": [1, 2, [3]], \"c\": {\"d\": \"e\"}}",
                             "{\n      \"External id\": 205269,\"Sequence number\": 47780, \"Input Dims\": [[64, 32], [], [1]]\n    }",
                             "[]", "{}", "\"s\"", "12", "[\"x\", null, true, false, -1.5e-7]"};
        const char *o = obj[rand_r(seed) % 7];
        size_t l = strlen(o);
        memcpy(out, o, l);
        n = l;
        /* one random edit sometimes */
        if (rand_r(seed) % 3 == 0 && n) {
            const char *pc = pieces[rand_r(seed) % (sizeof pieces / sizeof pieces[0])];
            size_t at = (size_t)rand_r(seed) % n, pl = strlen(pc);
            memmove(out + at + pl, out + at, n - at);
            memcpy(out + at, pc, pl);
            n += pl;
        }
        return n;
    }
    for (int i = 0; i < len; i++) {
        const char *pc = pieces[rand_r(seed) % (sizeof pieces / sizeof pieces[0])];
        size_t l = strlen(pc);
        if (n + l >= cap)
            break;
        memcpy(out + n, pc, l);
        n += l;
    }
    return n;
}

static void min_against_references(void)
{
    unsigned seed = 4242;
    char val[2048], want[8192];
    int accepted = 0;
    for (int round = 0; round < 40000; round++) {
        size_t n = gen(&seed, val, sizeof val);
        char *exact = malloc(n ? n : 1); /* no slack after it: ASan sees any read past the end */
        memcpy(exact, val, n);
        tp_buf b = {0};
        tp_buf_puts(&b, "pre");
        uint64_t bad = 0;
        bool ok = tp_json_min(&b, exact, n, TP_MIN_VALUE, &bad);
        bool valid = tp_json_valid(exact, n);
        CHECK_EQ_INT(ok, valid);
        if (ok) {
            accepted++;
            size_t k = ref_strip(exact, n, want);
            CHECK_EQ_INT(b.len, k + 3);
            CHECK(b.len == k + 3 && memcmp(b.data + 3, want, k) == 0);
            if (b.len != k + 3 || memcmp(b.data + 3, want, k) != 0) {
                fprintf(stderr, "  round %d: %.*s -> %.*s\n", round, (int)n, exact, (int)b.len, b.data);
                free(exact);
                tp_buf_free(&b);
                return;
            }
        } else {
            CHECK_EQ_INT(b.len, 3); /* left as it was */
        }
        CHECK_EQ_INT(bad, 0);
        if (ok != valid) {
            fprintf(stderr, "  round %d: %.*s\n", round, (int)n, exact);
            free(exact);
            tp_buf_free(&b);
            return;
        }
        free(exact);
        tp_buf_free(&b);
    }
    CHECK(accepted > 5000);
}

TEST(json_min_agrees_with_the_grammar_check_and_a_plain_stripper)
{
    min_against_references();
}

static void check_min(const char *in, int mode, const char *want, uint64_t want_bad)
{
    size_t n = strlen(in);
    char *exact = malloc(n ? n : 1);
    memcpy(exact, in, n);
    tp_buf b = {0};
    uint64_t bad = 0;
    bool ok = tp_json_min(&b, exact, n, mode, &bad);
    CHECK_STR(ok ? (b.len ? b.data : "") : "(refused)", want);
    CHECK_EQ_INT(bad, want_bad);
    free(exact);
    tp_buf_free(&b);
}

TEST(json_min_repairs_strings_and_copies_members)
{
    check_min("{ \"a\" : \"x\ty\" }", TP_MIN_VALUE, "{\"a\":\"x\\u0009y\"}", 0);
    check_min("[\"\xff\", \"\xc3\xa9\"]", TP_MIN_VALUE, "[\"\xEF\xBF\xBD\",\"\xc3\xa9\"]", 1);
    /* long strings with a repair past the first 16 bytes */
    check_min("\"0123456789abcdefghij\x01klmnopqrstuvwxyz\"", TP_MIN_VALUE,
              "\"0123456789abcdefghij\\u0001klmnopqrstuvwxyz\"", 0);
    check_min(", \"k\": 1, \"l\": [2]", TP_MIN_MEMBERS_AFTER_COMMA, ",\"k\":1,\"l\":[2]", 0);
    check_min("\"k\": 1", TP_MIN_MEMBERS, "\"k\":1", 0);
    check_min("", TP_MIN_MEMBERS, "", 0);
    check_min("\"k\": 1}", TP_MIN_MEMBERS, "(refused)", 0);
    check_min("{\"a\":1} x", TP_MIN_VALUE, "(refused)", 0);
    check_min("[1,]", TP_MIN_VALUE, "(refused)", 0);
    check_min("{\"a\":01}", TP_MIN_VALUE, "(refused)", 0);
    check_min("[truex]", TP_MIN_VALUE, "(refused)", 0);
    check_min("[true,false,null,-0,0.5e-3]", TP_MIN_VALUE, "[true,false,null,-0,0.5e-3]", 0);
    /* nesting at the limit, then one more */
    char deep[2 * TP_JSON_MAX_DEPTH + 3];
    memset(deep, '[', TP_JSON_MAX_DEPTH);
    memset(deep + TP_JSON_MAX_DEPTH, ']', TP_JSON_MAX_DEPTH);
    deep[2 * TP_JSON_MAX_DEPTH] = 0;
    check_min(deep, TP_MIN_VALUE, deep, 0);
    memset(deep, '[', TP_JSON_MAX_DEPTH + 1);
    memset(deep + TP_JSON_MAX_DEPTH + 1, ']', TP_JSON_MAX_DEPTH + 1);
    deep[2 * TP_JSON_MAX_DEPTH + 2] = 0;
    check_min(deep, TP_MIN_VALUE, "(refused)", 0);
}

