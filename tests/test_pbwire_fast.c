/* test_pbwire_fast.c: the inline fast path of the protobuf wire decoder. */
#include "harness.h"
#include "pbwire.h"

/* tp_pb_next_fast decodes what tp_pb_next decodes, and fails where it fails. */
TEST(pbwire_fast_path_matches_slow_path)
{
    static const unsigned char msgs[][16] = {
        {0x08, 0x96, 0x01},                                                  /* 150 */
        {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x10, 0x01}, /* 2^64-1 */
        {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x10, 0x01}, /* > 64 bits */
        {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},     /* 11 bytes */
        {0x12, 0x03, 'a', 'b', 'c', 0x18, 0x05},
        {0x12, 0x09, 'a'},                                                    /* runs past the end */
    };
    static const size_t lens[] = {3, 13, 13, 12, 7, 3};
    for (size_t m = 0; m < sizeof lens / sizeof lens[0]; m++) {
        tp_pb a = tp_pb_init(msgs[m], lens[m]), b = tp_pb_init(msgs[m], lens[m]);
        tp_err ea = {0}, eb = {0};
        for (;;) {
            tp_pb_field fa, fb;
            int ra = tp_pb_next(&a, &fa, &ea), rb = tp_pb_next_fast(&b, &fb, &eb);
            CHECK_EQ_INT(ra, rb);
            if (ra != 1 || rb != 1)
                break;
            CHECK_EQ_INT(fa.num, fb.num);
            CHECK_EQ_INT(fa.wt, fb.wt);
            CHECK(fa.v == fb.v);
            CHECK_EQ_INT(fa.len, fb.len);
            CHECK(a.p == b.p);
        }
    }
}
