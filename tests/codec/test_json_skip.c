/* test_json_skip.c: tp_json_skip's 64-byte block paths against a plain
 * byte-by-byte reference, on values whose strings, escapes and brackets
 * fall at every position of a block. */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"
#include "convert/base/simd.h"

#include <stdlib.h>
#include <string.h>

/* The reference: what tp_json_skip must answer for a compound value at p
 * (OK with the end, MORE, or BAD), written the obvious way. */
static int ref_skip(const char *p, const char *end, const char **next)
{
    char stack[TP_JSON_MAX_DEPTH];
    int depth = 0;
    bool in_str = false;
    for (; p < end; p++) {
        if (in_str) {
            if (*p == '\\') {
                if (++p >= end)
                    return TP_JL_MORE;
            } else if (*p == '"')
                in_str = false;
            continue;
        }
        if (*p == '"')
            in_str = true;
        else if (*p == '{' || *p == '[') {
            if (depth >= TP_JSON_MAX_DEPTH)
                return TP_JL_BAD;
            stack[depth++] = *p == '{' ? '}' : ']';
        } else if (*p == '}' || *p == ']') {
            if (depth == 0 || stack[depth - 1] != *p)
                return TP_JL_BAD;
            if (--depth == 0) {
                *next = p + 1;
                return TP_JL_OK;
            }
        }
    }
    return TP_JL_MORE;
}

/* A random compound value: brackets close what is open, except that
 * `breakage` in 1000 close with the wrong one. */
static void gen_value(unsigned *seed, char *out, size_t cap, size_t *len, int breakage)
{
    static const char *pieces[] = {"{", "}", "[", "]", "\"k\":", "\"a{b\"", "\"x]y\"", "\"\\\"\"", "\"\\\\\"",
                                   "\"q\\\\\\\"[\"", "12", ",", " ", "\n", "\"\\u00e9}\"", "\"long string with no "
                                   "structure at all, long enough to fill a block\"", "null", "\"\""};
    char stack[64];
    size_t n = 0;
    int depth = 0;
    out[n++] = '{';
    stack[depth++] = '}';
    while (depth > 0 && n + 160 < cap) { /* room for a piece and every closer */
        const char *pc = pieces[rand_r(seed) % (sizeof pieces / sizeof pieces[0])];
        if (pc[0] == '{' || pc[0] == '[') {
            if (depth == 64)
                continue;
            stack[depth++] = pc[0] == '{' ? '}' : ']';
        } else if (pc[0] == '}' || pc[0] == ']') {
            if (depth == 1 && n < 200)
                continue; /* not yet: values longer than a block */
            char c = stack[--depth];
            if ((int)(rand_r(seed) % 1000) < breakage)
                c = c == '}' ? ']' : '}';
            out[n++] = c;
            continue;
        }
        size_t l = strlen(pc);
        memcpy(out + n, pc, l);
        n += l;
    }
    while (depth > 0)
        out[n++] = stack[--depth];
    *len = n;
}

static void skip_against_reference(void)
{
    unsigned seed = 12345;
    char val[4096], buf[4096 + 128];
    for (int round = 0; round < 3000; round++) {
        size_t n;
        gen_value(&seed, val, sizeof val, &n, round % 3 == 0 ? 20 : 0);
        size_t pad = (size_t)round % 70; /* the value starts at every offset of a block */
        memset(buf, ' ', pad);
        memcpy(buf + pad, val, n);
        memcpy(buf + pad + n, " ,{\"tail\":1}", 12);
        size_t total = pad + n + 12;
        /* whole, and cut at a few places (some inside strings and escapes) */
        for (int cut = 0; cut < 6; cut++) {
            size_t lim = cut == 0 ? total : pad + 1 + (size_t)rand_r(&seed) % (n + 11);
            const char *e_ref = NULL, *e_new = NULL, *why = NULL;
            int r_ref = ref_skip(buf + pad, buf + lim, &e_ref);
            int r_new = tp_json_skip(buf, buf + lim, &e_new, &why);
            if (r_new == TP_JL_OK) /* tp_json_skip also passes the whitespace after it */
                while (e_new > buf && e_new[-1] == ' ')
                    e_new--;
            CHECK_EQ_INT(r_new, r_ref);
            if (r_new == TP_JL_OK && r_ref == TP_JL_OK)
                CHECK_EQ_INT(e_new - buf, e_ref - buf);
            if (r_new != r_ref) {
                fprintf(stderr, "  round %d pad %zu lim %zu: %.*s\n", round, pad, lim, (int)(lim - pad), buf + pad);
                return;
            }
        }
    }
}

/* both block paths: AVX2 where the CPU has it (simd.h), and SSE2 */
TEST(json_skip_blocks_agree_with_a_byte_by_byte_reference)
{
    skip_against_reference();
    tp_simd_allow(false);
    skip_against_reference();
    tp_simd_allow(true);
}

static void deep_and_escaped(void)
{
    /* a backslash as the last byte of a block escapes the first of the next */
    char buf[256];
    for (size_t at = 50; at < 80; at++) {
        memset(buf, 'x', sizeof buf);
        buf[0] = '[';
        buf[1] = '"';
        buf[at] = '\\';
        buf[at + 1] = '"';
        buf[at + 2] = ']'; /* inside the string: not the end */
        buf[at + 3] = '"';
        buf[at + 4] = ']';
        const char *next, *why;
        CHECK_EQ_INT(tp_json_skip(buf, buf + sizeof buf, &next, &why), TP_JL_OK);
        CHECK_EQ_INT(next - buf, (long)at + 5);
    }
    /* nesting at the limit, then one more */
    char deep[2 * TP_JSON_MAX_DEPTH + 2];
    memset(deep, '[', TP_JSON_MAX_DEPTH);
    memset(deep + TP_JSON_MAX_DEPTH, ']', TP_JSON_MAX_DEPTH);
    const char *next, *why = NULL;
    CHECK_EQ_INT(tp_json_skip(deep, deep + 2 * TP_JSON_MAX_DEPTH, &next, &why), TP_JL_OK);
    memset(deep, '[', TP_JSON_MAX_DEPTH + 1);
    memset(deep + TP_JSON_MAX_DEPTH + 1, ']', TP_JSON_MAX_DEPTH + 1);
    CHECK_EQ_INT(tp_json_skip(deep, deep + 2 * TP_JSON_MAX_DEPTH + 2, &next, &why), TP_JL_BAD);
    CHECK_STR(why, "nesting deeper than 512 levels");
    const char *mism = "{\"a\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25}]";
    why = NULL;
    CHECK_EQ_INT(tp_json_skip(mism, mism + strlen(mism), &next, &why), TP_JL_BAD);
    CHECK_STR(why, "mismatched bracket");
}

TEST(json_skip_deep_and_escaped_across_blocks)
{
    deep_and_escaped();
    tp_simd_allow(false);
    deep_and_escaped();
    tp_simd_allow(true);
}
