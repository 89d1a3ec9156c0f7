/* test_json_value.c: the shared JSON DOM (convert/codec/json_value.h). */
#include "tests/lib/harness.h"
#include "convert/codec/json_value.h"

#include <stdlib.h>

static const tp_jv *parse(tp_jdoc *d, const char *text, tp_err *err)
{
    const tp_jv *v = NULL;
    memset(err, 0, sizeof *err);
    if (tp_jv_parse_all(d, text, strlen(text), &v, err))
        return NULL;
    return v;
}

TEST(json_value_object_keys_in_input_order_and_exact_numbers)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    tp_err err;
    const tp_jv *v = parse(&d, " {\"z\": 1, \"a\": [true, false, null, \"x\\ty\"], \"n\": 315018683983278,"
                               " \"f\": 1.25e2, \"s\": \"17\", \"z\": 2 } ", &err);
    CHECK(v != NULL);
    CHECK_EQ_INT(v->type, TP_JV_OBJECT);
    CHECK_EQ_INT(v->n, 6);
    CHECK(v->key_lens[0] == 1 && v->keys[0][0] == 'z');
    CHECK(v->key_lens[1] == 1 && v->keys[1][0] == 'a');
    int64_t i = 0;
    CHECK(tp_jv_int(tp_jv_get(v, "z"), &i) == 0);
    CHECK_EQ_INT(i, 1); /* first of duplicate keys */
    CHECK(tp_jv_int(tp_jv_get(v, "n"), &i) == 0);
    CHECK_EQ_INT(i, 315018683983278LL);
    CHECK(tp_jv_int(tp_jv_get(v, "f"), &i) == 0);
    CHECK_EQ_INT(i, 125);
    CHECK(tp_jv_fixed(tp_jv_get(v, "f"), 3, &i) == 0);
    CHECK_EQ_INT(i, 125000);
    CHECK(tp_jv_int(tp_jv_get(v, "s"), &i) == 0);
    CHECK_EQ_INT(i, 17);
    const tp_jv *a = tp_jv_get(v, "a");
    CHECK_EQ_INT(a->n, 4);
    CHECK(tp_jv_at(a, 0)->type == TP_JV_BOOL && tp_jv_at(a, 0)->b);
    CHECK(tp_jv_at(a, 1)->type == TP_JV_BOOL && !tp_jv_at(a, 1)->b);
    CHECK_EQ_INT(tp_jv_at(a, 2)->type, TP_JV_NULL);
    CHECK(tp_jv_str_eq(tp_jv_at(a, 3), "x\ty"));
    CHECK(tp_jv_at(a, 4) == NULL);
    CHECK(tp_jv_get(v, "missing") == NULL);
    CHECK(tp_jv_get(a, "z") == NULL);
    CHECK_EQ_INT(tp_jv_get(v, "n")->off, 49);
    tp_buf b = {0};
    tp_jv_write(&b, v);
    tp_buf_putc(&b, 0);
    CHECK_STR(b.data, "{\"z\":1,\"a\":[true,false,null,\"x\\ty\"],\"n\":315018683983278,\"f\":1.25e2,\"s\":\"17\",\"z\":2}");
    tp_buf_free(&b);
    tp_jdoc_free(&d);
}

TEST(json_value_errors_have_offsets)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    tp_err err;
    CHECK(parse(&d, "[1, 2", &err) == NULL);
    CHECK_STR(err.where, "offset 5");
    CHECK(strstr(err.msg, "truncated") != NULL);
    CHECK(parse(&d, "{\"a\" 1}", &err) == NULL);
    CHECK_STR(err.where, "offset 5");
    CHECK(parse(&d, "[1 2]", &err) == NULL);
    CHECK_STR(err.where, "offset 3");
    CHECK(parse(&d, "{1:2}", &err) == NULL);
    CHECK_STR(err.where, "offset 1");
    CHECK(parse(&d, "[tru", &err) == NULL);
    CHECK(strstr(err.msg, "truncated") != NULL);
    CHECK(parse(&d, "[trux]", &err) == NULL);
    CHECK_STR(err.where, "offset 1");
    CHECK(parse(&d, "[\"abc", &err) == NULL);
    CHECK(strstr(err.msg, "truncated") != NULL);
    CHECK(parse(&d, "{} x", &err) == NULL);
    CHECK_STR(err.where, "offset 3");
    CHECK(parse(&d, "", &err) == NULL);
    CHECK(parse(&d, "42", &err) != NULL); /* a number ending at the buffer end is complete */
    tp_jdoc_free(&d);
}

TEST(json_value_depth_limit_is_an_error_not_a_crash)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    tp_err err;
    size_t n = 100000;
    char *s = malloc(2 * n + 1);
    memset(s, '[', n);
    memset(s + n, ']', n);
    s[2 * n] = 0;
    CHECK(parse(&d, s, &err) == NULL);
    CHECK(strstr(err.msg, "deeper") != NULL);
    d.max_depth = 3;
    CHECK(parse(&d, "[[[1]]]", &err) != NULL);
    CHECK(parse(&d, "[[[[1]]]]", &err) == NULL);
    free(s);
    tp_jdoc_free(&d);
}

TEST(json_value_escapes_and_reset_reuse)
{
    tp_jdoc d;
    tp_jdoc_init(&d);
    tp_err err;
    for (int round = 0; round < 3; round++) { /* reset keeps working memory, values stay right */
        tp_jdoc_reset(&d);
        const tp_jv *v = parse(&d, "{\"k\\u00e9y\": \"\\ud83d\\ude00\\q\"}", &err);
        CHECK(v != NULL);
        CHECK_EQ_INT(v->key_lens[0], 4);
        CHECK(memcmp(v->keys[0], "k\xc3\xa9y", 4) == 0);
        CHECK(tp_jv_str_eq(&v->items[0], "\xf0\x9f\x98\x80\xef\xbf\xbd"));
        CHECK_EQ_INT(d.bad_escapes, 1);
    }
    /* many members: the scratch stack and arena grow */
    tp_buf b = {0};
    tp_buf_putc(&b, '[');
    for (int i = 0; i < 20000; i++)
        tp_buf_printf(&b, "%s{\"i\":%d}", i ? "," : "", i);
    tp_buf_putc(&b, ']');
    tp_buf_putc(&b, 0);
    const tp_jv *v = parse(&d, b.data, &err);
    CHECK(v != NULL);
    CHECK_EQ_INT(v->n, 20000);
    int64_t x = 0;
    CHECK(tp_jv_int(tp_jv_get(tp_jv_at(v, 19999), "i"), &x) == 0);
    CHECK_EQ_INT(x, 19999);
    CHECK(tp_jv_int(tp_jv_at(v, 0), &x) == -1); /* an object is not a number */
    tp_buf_free(&b);
    tp_jdoc_free(&d);
}
