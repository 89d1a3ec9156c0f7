/* test_flatbuf.c: the bounds-checked FlatBuffers layer on hand-made buffers:
 * defaults, scalars, strings, vectors, unions and malformed offsets. */
#include "tests/lib/fbb.h"
#include "convert/codec/flatbuf.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

/* root { 0: u32 = 7, 1: string "hi", 2: [long] {3, -4}, 3: union type = 2, 4: union value table { 0: i32 = -5 } } */
static uint8_t *sample(size_t *len)
{
    fbb b;
    fbb_start(&b, "TEST", 0);
    fbf f[5] = {{0, 4, 7}, {1, 0, 0}, {2, 0, 0}, {3, 1, 2}, {4, 0, 0}};
    uint32_t ph[3];
    uint32_t root = fbb_table(&b, f, 5, ph);
    fbb_patch(&b, ph[0], fbb_string(&b, "hi"));
    const int64_t v[2] = {3, -4};
    fbb_patch(&b, ph[1], fbb_longs(&b, v, 2));
    fbf uf[1] = {{0, 4, (uint32_t)-5}};
    fbb_patch(&b, ph[2], fbb_table(&b, uf, 1, NULL));
    return fbb_finish(&b, root, len);
}

TEST(flatbuf_reads_scalars_defaults_strings_vectors_unions)
{
    size_t n;
    uint8_t *buf = sample(&n);
    tp_fb fb = {buf, n, 0};
    tp_err err = {0};
    tp_fb_table root, u;
    CHECK_EQ_INT(tp_fb_root(&fb, "TEST", &root, &err), 0);
    uint32_t x;
    CHECK_EQ_INT(tp_fb_u32(&fb, &root, 0, 0, &x, &err), 1);
    CHECK_EQ_INT(x, 7);
    int32_t y;
    CHECK_EQ_INT(tp_fb_i32(&fb, &root, 9, -1, &y, &err), 0); /* beyond the vtable: the default */
    CHECK_EQ_INT(y, -1);
    uint32_t pos, len;
    CHECK_EQ_INT(tp_fb_string(&fb, &root, 1, &pos, &len, &err), 1);
    CHECK(len == 2 && memcmp(buf + pos, "hi", 2) == 0);
    tp_fb_vec v;
    CHECK_EQ_INT(tp_fb_vector(&fb, &root, 2, 8, &v, &err), 1);
    CHECK_EQ_INT(v.n, 2);
    CHECK_EQ_INT((int64_t)tp_fb_u64_at(&fb, v.pos + 8), -4);
    uint8_t type;
    CHECK_EQ_INT(tp_fb_union(&fb, &root, 4, &type, &u, &err), 1);
    CHECK_EQ_INT(type, 2);
    CHECK_EQ_INT(tp_fb_i32(&fb, &u, 0, 0, &y, &err), 1);
    CHECK_EQ_INT(y, -5);
    CHECK(!err.set);
    CHECK_EQ_INT(tp_fb_root(&fb, "NOPE", &root, &err), -1);
    CHECK(strstr(err.msg, "identifier") != NULL);
    free(buf);
}

TEST(flatbuf_rejects_bad_offsets_and_sizes)
{
    size_t n;
    uint8_t *buf = sample(&n);
    tp_fb fb = {buf, n, 100}; /* base: messages give file offsets */
    tp_err err = {0};
    tp_fb_table root;
    CHECK_EQ_INT(tp_fb_root(&fb, "TEST", &root, &err), 0);
    /* a field wider than the table (reading field 0 as 8 bytes at the table's end) */
    uint32_t pos;
    uint16_t fo;
    memcpy(&fo, buf + root.vt + 4, 2);
    uint16_t big = (uint16_t)(root.tb_len - 2);
    memcpy(buf + root.vt + 4, &big, 2);
    CHECK_EQ_INT(tp_fb_field(&fb, &root, 0, 4, &pos, &err), -1);
    CHECK(strstr(err.msg, "outside its") != NULL);
    memcpy(buf + root.vt + 4, &fo, 2);
    /* a string whose length runs past the end */
    tp_err e2 = {0};
    uint32_t spos, slen, field;
    CHECK_EQ_INT(tp_fb_field(&fb, &root, 1, 4, &field, &e2), 1);
    uint32_t target = field + tp_fb_u32_at(&fb, field);
    uint32_t huge = 0xfffffff0u;
    memcpy(buf + target, &huge, 4);
    CHECK_EQ_INT(tp_fb_string(&fb, &root, 1, &spos, &slen, &e2), -1);
    char where[48];
    snprintf(where, sizeof where, "offset %u", 100 + target);
    CHECK_STR(e2.where, where);
    /* a vector count whose size overflows 32 bits */
    tp_err e3 = {0};
    tp_fb_vec v;
    CHECK_EQ_INT(tp_fb_field(&fb, &root, 2, 4, &field, &e3), 1);
    target = field + tp_fb_u32_at(&fb, field);
    uint32_t count = 0x20000001u; /* x 8 bytes wraps to 8 in 32-bit arithmetic */
    memcpy(buf + target, &count, 4);
    CHECK_EQ_INT(tp_fb_vector(&fb, &root, 2, 8, &v, &e3), -1);
    /* a table whose vtable lies before the buffer */
    tp_err e4 = {0};
    int32_t soff = (int32_t)(root.pos + 1000);
    memcpy(buf + root.pos, &soff, 4);
    tp_fb_table t;
    CHECK_EQ_INT(tp_fb_table_at(&fb, root.pos, &t, &e4), -1);
    CHECK(strstr(e4.msg, "vtable") != NULL);
    /* every truncation of the buffer: clean results */
    uint8_t *fresh = sample(&n);
    for (size_t len = 0; len < n; len++) {
        tp_fb cut = {fresh, len, 0};
        tp_err e = {0};
        tp_fb_table r;
        if (tp_fb_root(&cut, "TEST", &r, &e) == 0) {
            tp_fb_vec vv;
            uint8_t ty;
            tp_fb_table uu;
            int rc = tp_fb_string(&cut, &r, 1, &spos, &slen, &e);
            CHECK(rc >= 0 || e.set);
            rc = tp_fb_vector(&cut, &r, 2, 8, &vv, &e);
            CHECK(rc >= 0 || e.set);
            rc = tp_fb_union(&cut, &r, 4, &ty, &uu, &e);
            CHECK(rc >= 0 || e.set);
        } else {
            CHECK(e.set);
        }
    }
    free(fresh);
    free(buf);
}
