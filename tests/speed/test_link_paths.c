/* test_link_paths.c: the reader splits a large file in two halves on two
 * threads (and linking was tried on two threads: under the 5% rule, it runs
 * on one); TP_THREADS=1 reads it all on one.  The outputs must be
 * byte-identical: on a trace whose launch calls sit in the first half of
 * the events and their kernels in the second (with a duplicate correlation
 * id across the halves, a kernel of no launch and the input's own ac2g
 * flows), and on the shared Kineto samples. */
#include "tests/lib/harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 400 };

static const char *write_crossing_trace(void)
{
    size_t cap = (size_t)STEPS * 1600 + 4096, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "{\"traceEvents\":[\n");
    for (int s = 0; s < STEPS; s++) { /* host: two threads, each an op around a launch, and the launch's flow */
        long base = 1000L + s * 1000L;
        for (int tid = 1; tid <= 2; tid++) {
            int corr = tid == 1 ? s + 1 : 100000 + s;
            len += (size_t)snprintf(text + len, cap - len,
                                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d_%d\",\"pid\":1,\"tid\":%d,"
                                    "\"ts\":%ld,\"dur\":300},\n"
                                    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                                    "\"tid\":%d,\"ts\":%ld,\"dur\":20,\"args\":{\"correlation\":%d}},\n"
                                    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":%d,"
                                    "\"ts\":%ld},\n",
                                    tid, s % 5, tid, base + tid * 5, tid, base + tid * 5 + 10, corr, corr, tid,
                                    base + tid * 5 + 10);
        }
    }
    for (int s = 0; s < STEPS; s++) /* device: the kernels, in the second half of the events */
        for (int tid = 1; tid <= 2; tid++) {
            int corr = tid == 1 ? s + 1 : 100000 + s;
            long ts = 1000L + s * 1000L + 400 + tid * 100;
            len += (size_t)snprintf(text + len, cap - len,
                                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"pid\":0,\"tid\":7,"
                                    "\"ts\":%ld,\"dur\":90,\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}},\n"
                                    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":0,\"tid\":7,"
                                    "\"ts\":%ld,\"bp\":\"e\"},\n",
                                    s % 3, ts, corr, corr, ts);
        }
    /* a second launch call with the id 1 (the first is kept), a kernel no launch knows */
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                            "\"ts\":%ld,\"dur\":20,\"args\":{\"correlation\":1}},\n"
                            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":%ld,"
                            "\"dur\":5,\"args\":{\"correlation\":999999,\"device\":0,\"stream\":7}}\n]}\n",
                            1000L + STEPS * 1000L, 1000L + STEPS * 1000L + 50);
    const char *path = tp_test_write_text("link_crossing.json", text);
    free(text);
    return path;
}

/* convert and stats --json of `in`, with and without TP_THREADS=1, compared;
 * the threaded run's stderr is returned (malloc'ed). */
static char *same_both_ways(const char *in, const char *tag)
{
    char one[1024], two[1024];
    snprintf(one, sizeof one, "%s", tp_test_tmp(tag));
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", one), 0);
    snprintf(two, sizeof two, "%s", one);
    char bin[4096];
    CHECK(realpath(tp_test_bin(), bin) != NULL); /* the commands run in the test's folder */
    const char *env[2] = {"TP_THREADS=1", "TP_THREADS= TP_READ_SPLIT_MIN=0"}; /* (two reader halves even when small) */
    const char *dir[2] = {"t1", "t2"};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && mkdir -p %s && %s '%s' convert -q '%s' -o %s/out.json 2>/dev/null", one,
                                 dir[k], env[k], bin, in, dir[k]),
                     0);
        CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && %s '%s' stats --json '%s' > %s/stats.json 2> %s/stats.err", one,
                                 env[k], bin, in, dir[k], dir[k]),
                     0);
    }
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cmp -s t1/out.json t2/out.json", one), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cmp -s t1/stats.json t2/stats.json", one), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cmp -s t1/stats.err t2/stats.err", one), 0);
    char *err = NULL;
    tp_test_run(&err, "cat '%s/t2/stats.err'", two);
    return err;
}

TEST(link_threads_and_one_thread_give_the_same_outputs_across_the_halves)
{
    const char *in = write_crossing_trace();
    char *err = same_both_ways(in, "link_crossing");
    CHECK(err && strstr(err, "duplicate correlation ids on launch calls (first kept): 1"));
    free(err);
    /* the links were made: a flow into every kernel of a launch, none of the input's flows left, the ops seen */
    const char *dir = tp_test_tmp("link_crossing");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "grep -c '\"flow_in\":true' '%s/t2/out.json'", dir), 0);
    CHECK(out && atoi(out) == 2 * STEPS);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "grep -c '\"ph\":\"[sf]\"' '%s/t2/out.json'", dir), 1);
    CHECK(out && atoi(out) == 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "grep -q 'aten::op2_4' '%s/t2/stats.json'", dir), 0);
}

TEST(link_threads_and_one_thread_give_the_same_outputs_on_samples)
{
    static const char *const samples[] = {
        "external/kineto/kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz",
        "external/kineto/hta_nccl_data_2024.json.gz",
        "external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "link_sample_%zu", i);
        free(same_both_ways(tp_test_shared(samples[i]), tag));
    }
}
