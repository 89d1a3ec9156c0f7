/* test_core.c: model, strings, args, number formatting, escaping, pbwire. */
#include "tests/lib/harness.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/model/model.h"
#include "convert/codec/pbwire.h"

#include <stdlib.h>

TEST(intern_returns_same_id_for_same_string)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_str a = tp_intern_cstr(&t, "aten::mm");
    tp_str b = tp_intern_cstr(&t, "aten::addmm");
    CHECK(a != b);
    CHECK_EQ_INT(tp_intern(&t, "aten::mm", 8), a);
    CHECK_EQ_INT(tp_intern(&t, "", 0), 0);
    CHECK_STR(tp_str_get(&t, b), "aten::addmm");
    for (int i = 0; i < 5000; i++) { /* force rehashes */
        char name[32];
        snprintf(name, sizeof name, "k%d", i);
        tp_intern_cstr(&t, name);
    }
    CHECK_EQ_INT(tp_intern_cstr(&t, "aten::mm"), a);
    CHECK_STR(tp_str_get(&t, tp_intern_cstr(&t, "k4999")), "k4999");
    tp_trace_free(&t);
}

TEST(event_is_64_bytes) { CHECK(sizeof(tp_event) <= 64); }

TEST(format_fixed_is_exact)
{
    char b[48];
    tp_format_fixed(b, 1500, 3);
    CHECK_STR(b, "1.500");
    tp_format_fixed(b, 5, 3);
    CHECK_STR(b, "0.005");
    tp_format_fixed(b, -5, 3);
    CHECK_STR(b, "-0.005");
    tp_format_fixed(b, 0, 0);
    CHECK_STR(b, "0");
    tp_format_fixed(b, 1712195495519689047LL, 3);
    CHECK_STR(b, "1712195495519689.047");
    tp_format_fixed(b, INT64_MIN, 3);
    CHECK_STR(b, "-9223372036854775.808");
}

/* tp_format_fixed (two digits per step) against printf on the integer and
 * fractional parts, for every number of decimals and values of every size */
TEST(format_fixed_matches_printf_on_random_values)
{
    uint64_t x = 88172645463325252ull;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (x % 64));
        if (x & 1)
            v = -v;
        int d = (int)((x >> 3) % 19);
        if (i < 19 * 4) { /* the edges first */
            static const int64_t edge[4] = {0, 99, INT64_MAX, INT64_MIN};
            v = edge[i / 19];
            d = i % 19;
        }
        uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, p = 1;
        for (int k = 0; k < d; k++)
            p *= 10;
        char want[64], got[64];
        if (d)
            snprintf(want, sizeof want, "%s%llu.%0*llu", v < 0 ? "-" : "", (unsigned long long)(u / p), d,
                     (unsigned long long)(u % p));
        else
            snprintf(want, sizeof want, "%s%llu", v < 0 ? "-" : "", (unsigned long long)u);
        size_t n = tp_format_fixed(got, v, d);
        bad += strcmp(got, want) != 0 || n != strlen(want);
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(parse_fixed_reads_microseconds_to_ns_exactly)
{
    int64_t v;
    const char *why;
    CHECK(tp_parse_fixed("1712195495519689.047", 20, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 1712195495519689047LL);
    CHECK(tp_parse_fixed("12", 2, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 12000);
    CHECK(tp_parse_fixed("0.0005", 6, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 1); /* half away from zero */
    CHECK(tp_parse_fixed("-2.5", 4, 0, &v, &why) == 0);
    CHECK_EQ_INT(v, -3);
    CHECK(tp_parse_fixed("1.5e3", 5, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 1500000);
    CHECK(tp_parse_fixed("15e-1", 5, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 1500);
    CHECK(tp_parse_fixed("0", 1, 3, &v, &why) == 0);
    CHECK_EQ_INT(v, 0);
    CHECK(tp_parse_fixed("99999999999999999999", 20, 3, &v, &why) == -1);
    CHECK(tp_parse_fixed("abc", 3, 3, &v, &why) == -1);
    CHECK(tp_parse_fixed("1.2.3", 5, 3, &v, &why) == -1);
    CHECK(tp_parse_fixed("", 0, 3, &v, &why) == -1);
}

TEST(json_string_escaping_and_utf8_repair)
{
    tp_buf b = {0};
    uint64_t bad = 0;
    tp_json_put_string(&b, "a\"b\\c\n\x01", 7, &bad);
    CHECK_STR(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
    b.len = 0;
    tp_json_put_string(&b, "ok\xff\xc3\xa9", 5, &bad);
    CHECK_STR(b.data, "\"ok\xEF\xBF\xBD\xc3\xa9\"");
    CHECK_EQ_INT(bad, 1);
    b.len = 0;
    tp_json_unescape(&b, "x\\u00e9\\ud83d\\ude00\\n", 21, &bad);
    CHECK_STR(b.data, "x\xc3\xa9\xf0\x9f\x98\x80\n");
    tp_buf_free(&b);
}

TEST(json_skip_handles_nesting_and_reports_depth)
{
    const char *s = "{\"a\":[1,2,{\"b\":\"}\"}],\"c\":null} tail";
    const char *next, *why;
    CHECK_EQ_INT(tp_json_skip(s, s + strlen(s), &next, &why), TP_JL_OK);
    CHECK_STR(next, "tail");
    const char *part = "{\"a\":[1,2";
    CHECK_EQ_INT(tp_json_skip(part, part + strlen(part), &next, &why), TP_JL_MORE);
    char deep[2000];
    memset(deep, '[', sizeof deep);
    CHECK_EQ_INT(tp_json_skip(deep, deep + sizeof deep, &next, &why), TP_JL_BAD);
    const char *mism = "[1,{\"a\":2]]";
    CHECK_EQ_INT(tp_json_skip(mism, mism + strlen(mism), &next, &why), TP_JL_BAD);
    CHECK(tp_json_token_ok("-0.5e+3", 7));
    CHECK(tp_json_token_ok("null", 4));
    CHECK(!tp_json_token_ok("tru", 3));
    CHECK(!tp_json_token_ok("01", 2));
    CHECK(!tp_json_token_ok("1.", 2));
    CHECK(!tp_json_token_ok("--1", 3));
    const char *lit = "tru ]";
    CHECK_EQ_INT(tp_json_skip(lit, lit + 5, &next, &why), TP_JL_BAD);
}

TEST(args_builder_makes_valid_json)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_argb b = {0};
    tp_argb_cstr(&b, "name", "a\"b");
    tp_argb_int(&b, "n", -3);
    tp_argb_fixed(&b, "ms", 1031719, 6);
    uint64_t h = tp_argb_commit(&t, &b);
    size_t len;
    const char *s = tp_args_get(&t, h, &len);
    CHECK_STR(s, "{\"name\":\"a\\\"b\",\"n\":-3,\"ms\":1.031719}");
    CHECK_EQ_INT(tp_argb_commit(&t, &b), 0);
    tp_argb_free(&b);
    tp_trace_free(&t);
}

TEST(pbwire_decodes_and_bounds_checks)
{
    /* field 1 varint 150, field 2 "hi", field 3 fixed64 */
    const uint8_t msg[] = {0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i', 0x19, 1, 0, 0, 0, 0, 0, 0, 0};
    tp_pb r = tp_pb_init(msg, sizeof msg);
    tp_pb_field f;
    tp_err err = {0};
    CHECK_EQ_INT(tp_pb_next(&r, &f, &err), 1);
    CHECK_EQ_INT(f.num, 1);
    CHECK_EQ_INT(f.v, 150);
    CHECK_EQ_INT(tp_pb_next(&r, &f, &err), 1);
    CHECK_EQ_INT(f.len, 2);
    CHECK(memcmp(f.data, "hi", 2) == 0);
    CHECK_EQ_INT(tp_pb_next(&r, &f, &err), 1);
    CHECK_EQ_INT(f.v, 1);
    CHECK_EQ_INT(tp_pb_next(&r, &f, &err), 0);
    const uint8_t bad[] = {0x12, 0x05, 'h'};
    r = tp_pb_init(bad, sizeof bad);
    CHECK_EQ_INT(tp_pb_next(&r, &f, &err), -1);
    CHECK(err.set);
    CHECK(strstr(err.msg, "runs past the end") != NULL);
    CHECK_EQ_INT(tp_pb_zigzag(3), -2);
}
