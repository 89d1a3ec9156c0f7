/* dvdt_samples.c: see dvdt_samples.h. */
#include "tests/lib/dvdt_samples.h"
#include "tests/lib/harness.h"

void tp_test_dvdt_ck_rep(tp_buf *b, int rep)
{
    /* kA: exec 10000 + 1000*rep ns; kB: exec 20000 ns; host at 2018-05-20 12:40:04 */
    tp_buf_printf(b,
                  "%s{\"compile\":{},\"run\":{\"run_success\":\"yes\",\"time_fw_ms\":%d.5,\"dvdt_prof\":["
                  "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"kA\",\"queue\":\"0x3000\",\"kernel\":\"0x5000\","
                  "\"gws\":[8,1,1],\"lws\":[8,1,1],\"gwo\":[0,0,0],\"profiling\":{\"queued\":5000000,\"submit\":5001000,"
                  "\"start\":5002000,\"end\":%d},\"timestamp\":{\"start\":\"2018-05-20T12:40:04.000000\","
                  "\"end\":\"2018-05-20T12:40:04.000050\"}},"
                  "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"kB\",\"queue\":\"0x3000\",\"kernel\":\"0x6000\","
                  "\"gws\":[8,1,1],\"lws\":[8,1,1],\"gwo\":[0,0,0],\"profiling\":{\"queued\":6000000,\"submit\":6001000,"
                  "\"start\":6002000,\"end\":6022000},\"timestamp\":{\"start\":\"2018-05-20T12:40:04.001000\","
                  "\"end\":\"2018-05-20T12:40:04.001050\"}}],"
                  "\"per_layer_info\":[{\"direction\":\"forward\",\"index\":1,\"label\":\"01: conv1\",\"time_ms\":0.5,"
                  "\"time_s\":0.0005,\"timestamp\":\"0520 12:40:04.000000\"},"
                  "{\"direction\":\"forward\",\"index\":2,\"label\":\"02: relu1\",\"time_ms\":0.3,"
                  "\"time_s\":0.0003,\"timestamp\":\"0520 12:40:04.000900\"}]}}",
                  rep ? "," : "", 12 + rep, 5002000 + 10000 + 1000 * rep);
}

const char *tp_test_dvdt_ck_point(const char *name, int reps)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\n  \"characteristics_list\": [");
    for (int r = 0; r < reps; r++)
        tp_test_dvdt_ck_rep(&b, r);
    tp_buf_puts(&b, "],\n  \"choices\": {\"env\": {\"CK_CAFFE_BATCH_SIZE\": \"2\"}}}\n");
    tp_buf_putc(&b, 0);
    const char *p = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return p;
}
