/* test_sort_runs.c: TP_SORT_DEFINE (convert/base/sort.h) merges the input's
 * own ascending runs (short ones lengthened by insertion sort): whatever the
 * shape of the input (in order, a few long runs, many short ones, random,
 * reversed, all equal), the result is the one stable order, the one a sort
 * by (key, input position) gives; and input already in order costs n - 1
 * comparisons. */
#include "tests/lib/harness.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    int key;
    int pos; /* place in the input: equal keys must keep this order */
} item;

static size_t compares;

#define ITEM_LESS(x, y, c) (compares++, (x)->key < (y)->key)
TP_SORT_DEFINE(sort_items, item, int, ITEM_LESS)

static int cmp_key_pos(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static unsigned next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

enum { RANDOM, IN_ORDER, REVERSED, FEW_RUNS, SHORT_RUNS, EQUAL, NSHAPES };

/* keys of one shape; runs: how many interleaved ascending runs (FEW_RUNS, SHORT_RUNS) */
static void fill(item *a, size_t n, int shape, size_t runs)
{
    size_t per = runs ? (n + runs - 1) / runs : n;
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        switch (shape) {
        case RANDOM: k = (int)(next_rand() % (n / 4 + 1)); break; /* many duplicates */
        case IN_ORDER: k = (int)(i / 3); break;
        case REVERSED: k = (int)(n - i); break;
        case FEW_RUNS:
        case SHORT_RUNS: k = (int)((i % per) * 2 + next_rand() % 3); break; /* runs overlapping in keys */
        default: k = 7; break;
        }
        a[i] = (item){k, (int)i};
    }
    if (shape == FEW_RUNS || shape == SHORT_RUNS) /* make each run ascending (its keys were drawn near-sorted) */
        for (size_t lo = 0; lo < n; lo += per) {
            size_t hi = lo + per < n ? lo + per : n;
            for (size_t i = lo + 1; i < hi; i++)
                if (a[i].key < a[i - 1].key)
                    a[i].key = a[i - 1].key;
        }
}

TEST(sort_runs_gives_the_stable_order_of_every_shape)
{
    static const size_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 33, 100, 1000, 4099, 50000};
    size_t bad = 0, cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        item *a = malloc((n + 1) * sizeof *a), *ref = malloc((n + 1) * sizeof *ref);
        for (int shape = 0; shape < NSHAPES; shape++) {
            size_t runs = shape == FEW_RUNS ? 3 + n / 5000 : shape == SHORT_RUNS ? n / 5 + 1 : 0;
            fill(a, n, shape, runs);
            memcpy(ref, a, n * sizeof *a);
            qsort(ref, n, sizeof *ref, cmp_key_pos);
            compares = 0;
            sort_items(a, n, 0);
            bad += n && memcmp(a, ref, n * sizeof *a) != 0;
            cases++;
        }
        free(a);
        free(ref);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(cases, 12 * NSHAPES);
}

TEST(sort_runs_of_input_in_order_compares_each_neighbour_once)
{
    enum { N = 100000 };
    item *a = malloc(N * sizeof *a);
    fill(a, N, IN_ORDER, 0);
    compares = 0;
    sort_items(a, N, 0);
    CHECK_EQ_INT(compares, N - 1);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++)
        bad += a[i].pos != (int)i;
    CHECK_EQ_INT(bad, 0);
    free(a);
}

/* Two long runs (a thread's ops, then its Python frames over the same time): one merge, so about
 * 2n comparisons (the run scan, the cut's two binary searches of 16 each, and the merge: 128,029
 * here); the fixed-run sort before it sorted every
 * 16 by insertion and merged log2(n / 16) times (164,606 comparisons, and every element copied 12 times). */
TEST(sort_runs_of_two_long_runs_is_one_merge)
{
    enum { N = 64000 };
    item *a = malloc(N * sizeof *a), *ref = malloc(N * sizeof *ref);
    for (int i = 0; i < N; i++)
        a[i] = (item){i < N / 2 ? 2 * i : 2 * (i - N / 2) + 1, i};
    memcpy(ref, a, N * sizeof *a);
    qsort(ref, N, sizeof *ref, cmp_key_pos);
    compares = 0;
    sort_items(a, N, 0);
    CHECK(memcmp(a, ref, N * sizeof *a) == 0);
    CHECK(compares <= 2 * (size_t)N + 64);
    free(a);
    free(ref);
}

/* Steps one after the other, each two interleaved ascending runs (a host
 * thread's ops, then its runtime calls): the runs are cut into one group per
 * step and each group merged alone, so the comparisons stay under 3n (the
 * run scan, the cuts' binary searches, one merge: 129,340 for n = 64,000);
 * merging the 128 runs pairwise across the whole array took 348,499. */
TEST(sort_runs_of_steps_merges_each_step_alone)
{
    enum { STEPS = 64, PER = 500, N = STEPS * 2 * PER };
    item *a = malloc(N * sizeof *a), *ref = malloc(N * sizeof *ref);
    size_t o = 0;
    for (int s = 0; s < STEPS; s++)
        for (int part = 0; part < 2; part++)
            for (int i = 0; i < PER; i++, o++)
                a[o] = (item){s * 10 * PER + 2 * i + part, (int)o};
    memcpy(ref, a, N * sizeof *a);
    qsort(ref, N, sizeof *ref, cmp_key_pos);
    compares = 0;
    sort_items(a, N, 0);
    CHECK(memcmp(a, ref, N * sizeof *a) == 0);
    CHECK(compares <= 3 * (size_t)N);
    free(a);
    free(ref);
}

/* The runs cut into groups, each merged alone: on many small arrays of
 * every shape (random, steps one after the other with overlapping runs,
 * sawtooth, many equal keys) exactly the stable order, equal keys in their
 * input order.  Sizes up to 300 make several runs of TP_SORT_RUN and many
 * cuts. */
TEST(sort_runs_by_groups_gives_the_stable_order)
{
    uint64_t x = 88172645463325252ull;
    size_t differ = 0;
    for (int it = 0; it < 20000; it++) {
        item a[300], b[300];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = (size_t)(x % 300);
        int shape = (int)((x >> 12) % 4), range = 1 + (int)((x >> 20) % 50), base = 0;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int v;
            if (shape == 0)
                v = (int)(x % (uint64_t)range);
            else if (shape == 1) { /* steps, each a few overlapping runs */
                if (x % 20 == 0)
                    base += (int)((x >> 8) % (uint64_t)range) + range;
                v = base + (int)((x >> 16) % (uint64_t)range);
            } else if (shape == 2)
                v = (int)(i % (size_t)(1 + range % 9)) * 3 + (int)((x >> 8) % 5);
            else {
                if (x % 10 == 0)
                    base += range;
                v = base - (int)((x >> 8) % 3) * (int)(i % 2);
            }
            a[i] = b[i] = (item){v, (int)i};
        }
        if (n)
            qsort(b, n, sizeof *b, cmp_key_pos);
        sort_items(a, n, 0);
        differ += n && memcmp(a, b, n * sizeof *a) != 0;
    }
    CHECK_EQ_INT(differ, 0);
}
