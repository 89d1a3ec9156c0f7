/* test_mem_layout.c: the allocator args read by a learnt layout
 * (convert/model/mem_event.c): after one args text is read in one pass, the
 * next ones of the same layout are read by comparing their separators and
 * reading only their numbers.  Every answer must be the JSON tree's, for
 * texts of the learnt layout and for near misses of it (a number that is
 * not an integer, too long, with a leading zero, a key changed, a text cut
 * short), and the quick path must be the one taken for the alike texts. */
#include "tests/lib/harness.h"

#include "convert/model/mem_event.h"

#include <string.h>

/* the same answer from the quick reads and from the tree; 1 when it read */
static int same_as_tree(tp_mem_reader *r, const char *text)
{
    tp_mem_event quick, tree;
    int a = tp_mem_args_parse(r, text, strlen(text), false, &quick);
    int b = tp_mem_args_parse(r, text, strlen(text), true, &tree);
    CHECK_EQ_INT(a, b);
    if (a == 0 && b == 0) {
        CHECK(quick.type == tree.type && quick.id == tree.id && quick.bytes == tree.bytes);
        CHECK(quick.addr == tree.addr && quick.allocated == tree.allocated && quick.reserved == tree.reserved);
        CHECK(quick.has_addr == tree.has_addr && quick.has_levels == tree.has_levels);
    }
    return a == 0;
}

/* Kineto's layout (profile_memory=True), numbers filled in */
static const char *kineto(char *buf, size_t n, const char *reserved, const char *allocated, const char *bytes,
                          const char *addr)
{
    snprintf(buf, n,
             "{\n        \"Total Reserved\": %s,\n        \"Total Allocated\": %s,\n        \"Bytes\": %s,\n"
             "        \"Addr\": %s,\n        \"Device Id\": 0,\n        \"Device Type\": 1,\n"
             "        \"Ev Idx\": 4187\n      }",
             reserved, allocated, bytes, addr);
    return buf;
}

TEST(mem_layout_reads_alike_args_by_their_numbers)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_mem_reader *r = tp_mem_reader_new(&t);
    char b[600];
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "18317312", "137877174353920")));
    CHECK(tp_mem_reader_layout_reads(r) == 0); /* the first is learnt */
    /* alike: other numbers, a free, one digit, 18 digits, a number over 8 digits into its third word */
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003064320", "4608", "137880964135936")));
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "-18317312", "137877174353920")));
    CHECK(same_as_tree(r, kineto(b, sizeof b, "0", "0", "1", "0")));
    CHECK(same_as_tree(r, kineto(b, sizeof b, "999999999999999999", "123456789012345678", "-99999999", "1")));
    CHECK(tp_mem_reader_layout_reads(r) == 4);
    /* near misses: each read as the tree reads it (or refused as the tree refuses it) */
    same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "4608.5", "1"));
    same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "46e3", "1"));
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "4608", "1234567890123456789")));
    same_as_tree(r, kineto(b, sizeof b, "2629828608", "1003059712", "4608", "012"));
    same_as_tree(r, kineto(b, sizeof b, "2629828608", "-", "4608", "1"));
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1", "\"4608\"", "1")) == false);
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1", "4608", "1 ")));   /* space before the comma */
    CHECK(same_as_tree(r, kineto(b, sizeof b, "2629828608", "1", "4608", "-0"))); /* the tree's -0 */
    kineto(b, sizeof b, "1", "2", "3", "4");
    b[strlen(b) - 1] = 0; /* cut short: no closing brace */
    CHECK(!same_as_tree(r, b));
    CHECK(same_as_tree(r, "{\"Device Type\": 1, \"Bytes\": 5}"));                  /* another layout: learnt */
    CHECK(same_as_tree(r, "{\"Device Type\": 1, \"Bytes\": -5}"));
    CHECK(same_as_tree(r, "{\"Device Type\": 1, \"Bytez\": 5}") == false);        /* a key changed: no Bytes */
    CHECK(same_as_tree(r, "{\"Device Type\": 1, \"Bytes\": 5, \"Bytes\": 7}"));     /* duplicates: the first */
    CHECK(same_as_tree(r, "{\"Device Type\": 1, \"Bytes\": 6, \"Bytes\": 8}"));
    CHECK(same_as_tree(r, "{\"Device Type\": 2, \"Bytes\": 6}   "));
    tp_mem_reader_free(r);
    tp_trace_free(&t);
}
