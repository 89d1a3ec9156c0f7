/* Inference figures (issue 33): iterations from vLLM/SGLang annotations, the
 * steady-state window, per-token time and tokens/s on a planted trace. */
#include "report/inference/iterations.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two prefill iterations of 2 requests, then ten decode iterations of 8
 * (1020 .. 1110 us), each every 2 ms; SGLang's own label nested inside. */
static const char *planted(void)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,\"tid\":1,"
                    "\"ts\":1,\"dur\":1}");
    for (int i = 0; i < 12; i++) {
        const char *name = i < 2 ? "execute_200_context_2(sq200sk200sqsq20000sqsk20000)_generation_0(sq0sk0sqsq0sqsk0)"
                                 : "execute_8_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk800sqsq8sqsk800)";
        int dur = i < 2 ? 1500 : 1000 + 10 * i;
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                          "\"dur\":%d}",
                      name, 10 + 2000 * i, dur);
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step[%s bs=%d]\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%d,\"dur\":%d}",
                      i < 2 ? "EXTEND" : "DECODE", i < 2 ? 2 : 8, 11 + 2000 * i, dur - 2);
    }
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    const char *p = tp_test_write_text("iterations.json", b.data);
    tp_buf_free(&b);
    return p;
}

TEST(inference_iterations_steady_window)
{
    tp_trace t;
    CHECK(tp_test_load(planted(), &t) == 0);
    tp_iterations r;
    tp_iterations_build(&t, 0, 0, &r);
    CHECK_EQ_INT(r.n, 12); /* the nested step[...] labels are the same iterations */
    CHECK_EQ_INT(r.requests_max, 8);
    CHECK(r.steady);
    CHECK_EQ_INT(r.first, 2);
    CHECK_EQ_INT(r.last, 12);
    CHECK_EQ_INT(r.decode_n, 10);
    CHECK_EQ_INT(r.prefill_n, 0);
    CHECK_EQ_INT(r.decode_median_ns, 1065000); /* (1060 + 1070) / 2 us */
    CHECK_EQ_INT(r.window_ns, 19110000);       /* 2nd iteration's start to the 11th's end */
    CHECK_EQ_INT(r.tokens, 80);
    tp_iterations_free(&r);
    /* --tokens overrides the annotations' counts */
    tp_iterations_build(&t, 16, 0, &r);
    CHECK_EQ_INT(r.tokens, 160);
    CHECK_STR(r.tokens_from, "--tokens");
    tp_iterations_free(&r);
    tp_trace_free(&t);
}

TEST(inference_iterations_in_the_report)
{
    const char *in = planted();
    char *out = NULL;
    const char *dir = tp_test_tmp("iter_rep");
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s -o %s", tp_test_bin(), in, dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "**Inference**: 12 iterations; steady-state window of 10 (19.110 ms); per output token "
                           "(median decode iteration) 1.065 ms; 4190 tokens/s (80 tokens, from the annotations)"));
    free(md);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "\"per_token_ns\":1065000,\"prefill_iteration_ns\":null,\"tokens\":80,\"tokens_per_s\":4186.290"));
    free(js);
    /* a bad --tokens: usage, exit 1 */
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s --tokens 0 -o %s", tp_test_bin(), in, tp_test_tmp("iter_rep2")), 1);
    free(out);
}

/* One SGLang decode iteration of 32 requests over 400 ms whose graph launch
 * ran busy_us of kernels: the per-token figure and tokens/s need the device
 * busy at least 10% of the window (iterations.h TP_ITER_MIN_BUSY_PERMILLE). */
static const char *waiting(const char *name, int busy_us)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"traceEvents\":[\n"
             "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step[DECODE bs=32]\",\"pid\":1,\"tid\":1,\"ts\":0,"
             "\"dur\":400000},\n"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":10,"
             "\"dur\":20,\"args\":{\"correlation\":5}},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":%d,"
             "\"args\":{\"correlation\":5,\"device\":0,\"stream\":7}}\n]}\n",
             busy_us);
    return tp_test_write_text(name, text);
}

TEST(inference_iterations_withheld_when_device_mostly_idle)
{
    char *out = NULL;
    const char *dir = tp_test_tmp("iter_idle");
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s -o %s -q", tp_test_bin(), waiting("idle.json", 8000), dir), 0);
    free(out);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "per-token time and tokens/s withheld: the device was busy 2.0% of the window (under "
                           "10%"));
    CHECK(md && !strstr(md, "tokens/s (32 tokens"));
    free(md);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "\"device_busy_ns\":8000000,\"per_token_ns\":null,"));
    CHECK(js && strstr(js, "\"withheld\":\"the device was busy under 10% of the window\""));
    free(js);
    /* busy 50% of it: shown */
    dir = tp_test_tmp("iter_busy");
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s -o %s -q", tp_test_bin(), waiting("busy.json", 200000), dir), 0);
    free(out);
    md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "per output token (median decode iteration) 400.000 ms; 80.0 tokens/s (32 tokens"));
    free(md);
}
