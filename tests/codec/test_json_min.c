/* test_json_min.c: the args minifier against the grammar check
 * (tp_json_valid) and a plain whitespace stripper, on random text whose
 * tokens, strings and ends fall at every place of its 16-byte copies; and
 * its repairs (control characters, bad UTF-8). */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_min.h"
#include "convert/base/simd.h"

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

/* with the fast path (json_min_fast.c, where the CPU has AVX2), and without */
TEST(json_min_agrees_with_the_grammar_check_and_a_plain_stripper)
{
    min_against_references();
    tp_simd_allow(false);
    min_against_references();
    tp_simd_allow(true);
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

/* ---- the fast path (json_min_fast.c) ---- */

/* A random value, valid, with random whitespace; depth-limited.  Numbers,
 * strings and brackets of every kind, long enough to span 64-byte blocks. */
static void gen_value(unsigned *seed, tp_buf *b, int depth)
{
    static const char *ws[] = {"", "", "", " ", "\n      ", "      ", "  \n  "};
    static const char *scalars[] = {"0", "12", "-3", "1.325000", "-0.5e+3", "1E9", "true", "false", "null", "\"\"",
                                    "\"aten::conv2d\"", "\"a string that runs past the end of one 64-byte block, or two\"",
                                    "\"x y\"", "536466", "\"{[:,]}\""};
    tp_buf_puts(b, ws[rand_r(seed) % 7]);
    unsigned k = rand_r(seed) % (depth < 6 ? 10 : 4);
    if (k >= 4) {
        bool obj = k >= 7;
        int n = (int)(rand_r(seed) % 7);
        tp_buf_putc(b, obj ? '{' : '[');
        for (int i = 0; i < n; i++) {
            if (i)
                tp_buf_putc(b, ',');
            if (obj) {
                tp_buf_puts(b, ws[rand_r(seed) % 7]);
                tp_buf_printf(b, "\"key %u\"", rand_r(seed) % 100);
                tp_buf_puts(b, ws[rand_r(seed) % 7]);
                tp_buf_putc(b, ':');
            }
            gen_value(seed, b, depth + 1);
        }
        tp_buf_puts(b, ws[rand_r(seed) % 7]);
        tp_buf_putc(b, obj ? '}' : ']');
    } else {
        tp_buf_puts(b, scalars[rand_r(seed) % (sizeof scalars / sizeof scalars[0])]);
    }
    tp_buf_puts(b, ws[rand_r(seed) % 7]);
}

/* A value the fast path must take: no escapes, controls other than '\n'
 * or bytes >= 0x80, an object or array on top, at most 64 deep. */
static bool fast_takes(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\n'))
        i++;
    if (i == n || (s[i] != '{' && s[i] != '['))
        return false;
    int depth = 0, max = 0;
    bool in_str = false;
    for (size_t j = 0; j < n; j++) {
        unsigned char c = (unsigned char)s[j];
        if (c == '\\' || c >= 0x80 || (c < 0x20 && (c != '\n' || in_str)))
            return false;
        if (c == '"')
            in_str = !in_str;
        else if (!in_str && (c == '{' || c == '['))
            max = ++depth > max ? depth : max;
        else if (!in_str && (c == '}' || c == ']'))
            depth--;
    }
    return max <= 64 && tp_json_valid(s, n);
}

TEST(json_min_fast_path_takes_exactly_the_plain_valid_values)
{
    tp_buf probe = {0};
    bool have = tp_json_min_fast(&probe, "{}", 2);
    tp_buf_free(&probe);
    if (!have) {
        fprintf(stderr, "  (no AVX2 here, or TP_SIMD=0: no fast path to test)\n");
        return;
    }
    unsigned seed = 77;
    static const char edits[] = "{}[]:,\" 0a.-x#\\\n\x01\x80"; /* x, #: bytes no token holds */
    int taken = 0, refused = 0;
    for (int round = 0; round < 30000; round++) {
        tp_buf v = {0};
        gen_value(&seed, &v, 0);
        /* most rounds: one or two edits, mostly making it invalid */
        for (int e = (int)(rand_r(&seed) % 3); e > 0 && v.len; e--) {
            size_t at = (size_t)rand_r(&seed) % v.len;
            char c = edits[rand_r(&seed) % (sizeof edits - 1)];
            switch (rand_r(&seed) % 3) {
            case 0:
                v.data[at] = c;
                break;
            case 1:
                memmove(v.data + at, v.data + at + 1, v.len - at - 1);
                v.len--;
                break;
            default:
                tp_buf_putc(&v, 0);
                memmove(v.data + at + 1, v.data + at, v.len - at - 1);
                v.data[at] = c;
            }
        }
        char *exact = malloc(v.len ? v.len : 1); /* no slack after it: ASan sees any read past the end */
        memcpy(exact, v.data, v.len);
        tp_buf fast = {0}, slow = {0};
        tp_buf_puts(&fast, "pre");
        tp_buf_puts(&slow, "pre");
        bool ok = tp_json_min_fast(&fast, exact, v.len);
        uint64_t bad = 0;
        bool want = fast_takes(exact, v.len), slow_ok = tp_json_min(&slow, exact, v.len, TP_MIN_VALUE, &bad);
        CHECK_EQ_INT(ok, want);
        if (ok) {
            taken++;
            CHECK(slow_ok && fast.len == slow.len && memcmp(fast.data, slow.data, fast.len) == 0);
        } else {
            refused++;
            CHECK_EQ_INT(fast.len, 3);
        }
        if (ok != want || (ok && (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len) != 0))) {
            fprintf(stderr, "  round %d: %.*s\n", round, (int)v.len, exact);
            round = 1 << 30;
        }
        free(exact);
        tp_buf_free(&v);
        tp_buf_free(&fast);
        tp_buf_free(&slow);
    }
    CHECK(taken > 5000);
    CHECK(refused > 5000);
    /* nesting: 64 levels are taken, 65 left to the slow path */
    char deep[2 * 65];
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    tp_buf b = {0};
    CHECK(tp_json_min_fast(&b, deep, 128));
    b.len = 0;
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    CHECK(!tp_json_min_fast(&b, deep, 130));
    CHECK(tp_json_min(&b, deep, 130, TP_MIN_VALUE, NULL) && b.len == 130);
    tp_buf_free(&b);
}
