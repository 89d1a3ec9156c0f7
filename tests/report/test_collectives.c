/* Collectives (issue 21, item 3 for one trace): sizes and nccl-tests
 * bandwidths on the real NCCL sample, recomputed by hand, and the metadata
 * sources and kinds on a planted trace. */
#include "report/comm/collectives.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int load(const char *path, tp_trace *t)
{
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_summary_wants_args;
    tp_err err = {0};
    tp_trace_init(t);
    if (tp_load(path, &lo, t, &err) < 0) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return -1;
    }
    return 0;
}

static const tp_coll_row *row(const tp_collectives *c, const char *kind, uint64_t bytes)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->rows[i].kind, kind) == 0 && c->rows[i].bytes == bytes)
            return &c->rows[i];
    return NULL;
}

TEST(collectives_nccl_sample_by_hand)
{
    tp_trace t;
    CHECK(load(tp_test_shared("external/kineto/hta_nccl_data_2024.json.gz"), &t) == 0);
    tp_collectives c;
    tp_collectives_build(&t, NULL, 0, &c);
    CHECK_EQ_INT(c.calls, 21);
    CHECK_EQ_INT(c.sized, 21);
    CHECK_EQ_INT(c.from_kernel, 21);
    CHECK_EQ_INT(c.n, 7);
    /* all-reduce of 2,049,000 floats over [0, 1]: S = 8,196,000 B, busbw = algbw x 2(2-1)/2 */
    const tp_coll_row *r = row(&c, "all_reduce", 2049000ull * 4);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->count, 3);
        CHECK_EQ_INT(r->group_size, 2);
        CHECK_STR(r->group, "0");
        CHECK_STR(r->ranks, "[0, 1]");
        CHECK_STR(r->dtype, "Float");
        CHECK(r->factor == 1.0);
        CHECK_EQ_INT(r->total_ns, 11820962);
        CHECK(fabs(r->algbw - 8196000.0 * 3 / 11820962.0) < 1e-12);
        CHECK(fabs(r->busbw - r->algbw) < 1e-12);
        CHECK_EQ_INT(r->min_ns, 2520607);
        CHECK_EQ_INT(r->max_ns, 5993392);
    }
    /* broadcasts of 53,120 floats and 53 longs */
    CHECK(row(&c, "broadcast", 53120ull * 4) && row(&c, "broadcast", 53 * 8));
    int64_t sum = 0;
    for (size_t i = 0; i < c.n; i++)
        sum += c.rows[i].total_ns;
    CHECK_EQ_INT(sum, c.total_ns);
    tp_collectives_free(&c);
    tp_trace_free(&t);
}

/* A kernel with its own metadata, one whose metadata is on the
 * record_param_comms op around its launch, and one with none. */
static const char planted[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50,"
    "\"args\":{\"Collective name\":\"_allgather_base\",\"In msg nelems\":1024,\"Out msg nelems\":4096,\"dtype\":\"BFloat16\","
    "\"Group size\":4,\"Process Group Name\":\"1\",\"Process Group Ranks\":\"[0, 1, 2, 3]\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,"
    "\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL(ncclDevComm*)\",\"pid\":0,\"tid\":9,"
    "\"ts\":120,\"dur\":8.192,\"args\":{\"correlation\":1,\"device\":0,\"stream\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":5,"
    "\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_ReduceScatter_RING_LL_Sum_float\",\"pid\":0,\"tid\":9,"
    "\"ts\":210,\"dur\":16,\"args\":{\"correlation\":2,\"device\":0,\"stream\":9,\"Collective name\":\"reduce_scatter\","
    "\"In msg nelems\":8000,\"Out msg nelems\":1000,\"dtype\":\"Float\",\"Group size\":8}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":5,"
    "\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t\",\"pid\":0,\"tid\":9,"
    "\"ts\":310,\"dur\":4,\"args\":{\"correlation\":3,\"device\":0,\"stream\":9}}\n"
    "]}\n";

TEST(collectives_sources_kinds_and_factors)
{
    tp_trace t;
    CHECK(load(tp_test_write_text("coll.json", planted), &t) == 0);
    tp_collectives c;
    tp_collectives_build(&t, NULL, 0, &c);
    CHECK_EQ_INT(c.calls, 3);
    CHECK_EQ_INT(c.sized, 2);
    CHECK_EQ_INT(c.from_kernel, 1);
    CHECK_EQ_INT(c.from_op, 1);
    /* all-gather: S = 4096 x 2 B (the output), 8.192 us: algbw 1 GB/s, busbw x 3/4 */
    const tp_coll_row *ag = row(&c, "all_gather", 8192);
    CHECK(ag != NULL);
    if (ag) {
        CHECK(fabs(ag->algbw - 1.0) < 1e-12);
        CHECK(fabs(ag->busbw - 0.75) < 1e-12);
        CHECK_STR(ag->ranks, "[0, 1, 2, 3]");
    }
    /* reduce-scatter: S = 8000 x 4 B (the input) in 16 us: 2 GB/s, busbw x 7/8 */
    const tp_coll_row *rs = row(&c, "reduce_scatter", 32000);
    CHECK(rs != NULL);
    if (rs) {
        CHECK(fabs(rs->algbw - 2.0) < 1e-12);
        CHECK(fabs(rs->busbw - 1.75) < 1e-12);
    }
    /* send/recv without metadata: the kind from the kernel's name, no size */
    const tp_coll_row *sr = row(&c, "send_recv", 0);
    CHECK(sr != NULL && sr->count == 1 && sr->algbw == 0 && sr->group_size == 0);
    CHECK(tp_coll_factor("all_reduce", 8) == 2.0 * 7 / 8 && tp_coll_factor("broadcast", 8) == 1 &&
          tp_coll_factor("all_to_all", 4) == 0.75 && tp_coll_factor("gather", 4) == 0 &&
          tp_coll_factor("all_reduce", 0) == 0);
    tp_collectives_free(&c);
    tp_trace_free(&t);
}

#include "convert/model/dist_info.h"

/* Which rank of which job: real distributedInfo and bad ones. */
TEST(dist_info_rank_world_and_groups)
{
    static const struct {
        const char *rel;
        int64_t rank, world;
        size_t groups;
    } real[] = {
        {"external/hta/trace_filter_sampled_rank-1.json.gz", 1, 128, 0},
        {"external/kineto/hta_nccl_data_2024.json.gz", 0, 2, 1},
        {"external/kineto/hta_critical_path_alexnet_2023.json.gz", 0, -1, 0}, /* {"rank": 0} only */
    };
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        tp_trace t;
        CHECK(load(tp_test_shared(real[i].rel), &t) == 0);
        tp_dist_info d;
        tp_dist_info_read(&t, &d);
        CHECK(d.present && d.problem == NULL);
        CHECK_EQ_INT(d.rank, real[i].rank);
        CHECK_EQ_INT(d.world_size, real[i].world);
        CHECK_EQ_INT(d.ngroups, real[i].groups);
        if (d.ngroups) {
            CHECK_STR(d.groups[0].name, "0");
            CHECK_STR(d.groups[0].desc, "default_pg");
            CHECK(d.groups[0].size == 2 && d.groups[0].nranks == 2 && d.groups[0].ranks[1] == 1);
            CHECK_STR(d.backend, "nccl");
        }
        tp_dist_info_free(&d);
        tp_trace_free(&t);
    }
    static const struct {
        const char *json, *problem;
    } bad[] = {
        {"{\"distributedInfo\":{\"rank\":5,\"world_size\":2},\"traceEvents\":[]}", "a rank not below world_size"},
        {"{\"distributedInfo\":{\"rank\":-1,\"world_size\":2},\"traceEvents\":[]}", "a rank that is not a whole number >= 0"},
        {"{\"distributedInfo\":{\"rank\":0,\"world_size\":0},\"traceEvents\":[]}",
         "a world_size that is not a whole number above 0"},
        {"{\"distributedInfo\":[1,2],\"traceEvents\":[]}", "distributedInfo that is not an object"},
        {"{\"distributedInfo\":{\"rank\":0,\"world_size\":2,\"pg_config\":[7,{\"pg_name\":\"\\u0007x\",\"ranks\":[0,\"a\"]}]},"
         "\"traceEvents\":[]}",
         "a pg_config rank that is not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tp_trace t;
        CHECK(load(tp_test_write_text("dist.json", bad[i].json), &t) == 0);
        tp_dist_info d;
        tp_dist_info_read(&t, &d);
        if (!d.problem || strcmp(d.problem, bad[i].problem) != 0)
            tp_test_fail(__FILE__, __LINE__, "%s: problem \"%s\", expected \"%s\"", bad[i].json,
                         d.problem ? d.problem : "(none)", bad[i].problem);
        if (i == 4)
            CHECK(d.ngroups == 1 && strcmp(d.groups[0].name, "?x") == 0 && d.groups[0].nranks == 1);
        tp_dist_info_free(&d);
        tp_trace_free(&t);
    }
}
