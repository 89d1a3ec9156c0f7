/* test_rocprof.c: the rocprofv3 JSON reader (convert/read/rocprof/).
 * Counts and totals equal a recount of the document with Python's json
 * module (tests/vendor/rocprof_recount.py says how); a synthetic document
 * with every record kind the reader reads covers API calls, copies,
 * markers, two GPUs and launch flows. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define ROCPROF_SAMPLE "vendor/rocprof/908_results.json.gz"

/* The shape of a rocprofv3 document (rocprofiler-sdk 0.6): two GPUs, a HIP
 * launch and a copy bound by correlation id, an HSA call, a ROCTx range named
 * like a step, a record kind the reader does not read (counted). */
static const char doc[] =
    "{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 4242, \"command\": [\"/usr/bin/python3\", \"train.py\"]},"
    " \"agents\": [{\"type\": 1, \"id\": {\"handle\": 10}, \"name\": \"cpu\"},"
    "  {\"type\": 2, \"id\": {\"handle\": 11}, \"gpu_index\": 0, \"cu_count\": 304, \"name\": \"gfx942\","
    "   \"product_name\": \"AMD Instinct MI300X\", \"vendor_name\": \"AMD\"},"
    "  {\"type\": 2, \"id\": {\"handle\": 12}, \"gpu_index\": 1, \"cu_count\": 304, \"name\": \"gfx942\","
    "   \"product_name\": \"AMD Instinct MI300X\", \"vendor_name\": \"AMD\"}],"
    " \"strings\": {\"buffer_records\": [{\"kind\": \"NONE\", \"operations\": []},"
    "   {\"kind\": \"HSA_CORE_API\", \"operations\": [\"hsa_init\", \"hsa_signal_wait\"]},"
    "   {\"kind\": \"HIP_RUNTIME_API\", \"operations\": [\"hipApiName\", \"hipLaunchKernel\", \"hipMemcpyAsync\"]},"
    "   {\"kind\": \"MEMORY_COPY\", \"operations\": [\"MEMORY_COPY_NONE\", \"MEMORY_COPY_HOST_TO_DEVICE\"]},"
    "   {\"kind\": \"MARKER_CORE_API\", \"operations\": [\"roctxMarkA\", \"roctxRangePushA\"]}],"
    "  \"marker_api\": [{\"key\": 50, \"value\": \"train_step_3\"}]},"
    " \"kernel_symbols\": [{\"kernel_id\": 1, \"kernel_name\": \"gemm.kd\", \"formatted_kernel_name\": \"gemm\"},"
    "  {\"kernel_id\": 2, \"kernel_name\": \"_Z4axpyPf.kd\", \"formatted_kernel_name\": \"\","
    "   \"demangled_kernel_name\": \"axpy(float*)\"}],"
    " \"buffer_records\": {"
    "  \"kernel_dispatch\": [{\"kind\": 11, \"operation\": 2, \"thread_id\": 4242,"
    "    \"correlation_id\": {\"internal\": 7, \"external\": 0}, \"start_timestamp\": 1000300, \"end_timestamp\": 1000800,"
    "    \"dispatch_info\": {\"agent_id\": {\"handle\": 11}, \"queue_id\": {\"handle\": 3}, \"kernel_id\": 1,"
    "     \"grid_size\": {\"x\": 1024, \"y\": 1, \"z\": 1}, \"workgroup_size\": {\"x\": 256, \"y\": 1, \"z\": 1}},"
    "    \"stream_id\": {\"handle\": 1}},"
    "   {\"kind\": 11, \"operation\": 2, \"thread_id\": 4242, \"correlation_id\": {\"internal\": 8, \"external\": 0},"
    "    \"start_timestamp\": 1001000, \"end_timestamp\": 1001250, \"dispatch_info\": {\"agent_id\": {\"handle\": 12},"
    "     \"queue_id\": {\"handle\": 4}, \"kernel_id\": 2}}],"
    "  \"hip_api\": [{\"kind\": 2, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 7},"
    "    \"start_timestamp\": 1000100, \"end_timestamp\": 1000200},"
    "   {\"kind\": 2, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 8},"
    "    \"start_timestamp\": 1000850, \"end_timestamp\": 1000900},"
    "   {\"kind\": 2, \"operation\": 2, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 9},"
    "    \"start_timestamp\": 1001300, \"end_timestamp\": 1001400}],"
    "  \"hsa_api\": [{\"kind\": 1, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 20},"
    "    \"start_timestamp\": 1001500, \"end_timestamp\": 1001600}],"
    "  \"memory_copy\": [{\"kind\": 3, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 9},"
    "    \"start_timestamp\": 1001450, \"end_timestamp\": 1001650, \"dst_agent_id\": {\"handle\": 11},"
    "    \"src_agent_id\": {\"handle\": 10}, \"bytes\": 1048576}],"
    "  \"marker_api\": [{\"kind\": 4, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 50},"
    "    \"start_timestamp\": 1000000, \"end_timestamp\": 1002000}],"
    "  \"scratch_memory\": [{\"kind\": 12, \"operation\": 1, \"start_timestamp\": 1, \"end_timestamp\": 2}],"
    "  \"pc_sample_host_trap\": []},"
    " \"callback_records\": {\"hip_api\": [{\"kind\": 2}, {\"kind\": 2}], \"counter_collection\": []}}]}";

static bool have_python(void)
{
    if (tp_test_have("python3"))
        return true;
    fprintf(stderr, "  (no python3: rocprof recount skipped)\n");
    return false;
}

TEST(rocprof_sample_counts_equal_json_recount)
{
    if (!have_python())
        return;
    char *out = NULL;
    int rc = tp_test_run(&out, "python3 tests/vendor/rocprof_recount.py '%s' '%s' 2>/dev/null", tp_test_bin(),
                         tp_test_shared(ROCPROF_SAMPLE));
    CHECK_EQ_INT(rc, 0);
    /* SOURCES.md: 43,915 kernel dispatches of 80 kernels on the MI350X agents, no other records */
    CHECK(out && strstr(out, "rocprof recount: OK 80 names, 43915 kernels 4441741378 ns, 0 copies, 0 API calls"));
    if (rc)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    /* the GPUs are in the device table under their product name (the roofline matches it) */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>&1", tp_test_bin(), tp_test_shared(ROCPROF_SAMPLE)), 0);
    CHECK(out && strstr(out, "\"format\":\"rocprof\""));
    free(out);
}

TEST(rocprof_record_kinds_flows_and_steps)
{
    const char *in = tp_test_write_text("tiny_results.json", doc);
    char *out = NULL;
    if (have_python()) {
        int rc = tp_test_run(&out, "python3 tests/vendor/rocprof_recount.py '%s' '%s' 2>&1", tp_test_bin(), in);
        CHECK_EQ_INT(rc, 0);
        CHECK(out && strstr(out, "OK 3 names, 2 kernels 750 ns, 1 copies, 4 API calls, 1 markers, 3 launch flows"));
        if (rc)
            fprintf(stderr, "%s\n", out ? out : "");
        free(out);
    }
    const char *conv = tp_test_tmp("tiny.json");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), in, conv), 0);
    CHECK(out && strstr(out, "3 launch flows") && strstr(out, "records of kinds not read") &&
          strstr(out, "callback records not read (buffer records hold the same activity): 2"));
    free(out);
    char *j = tp_test_read_file(conv, NULL);
    CHECK(j && strstr(j, "\"name\":\"axpy(float*)\",\"pid\":1,\"tid\":2147483652"));
    CHECK(j && strstr(j, "\"name\":\"MEMORY_COPY_HOST_TO_DEVICE\",\"pid\":0"));
    CHECK(j && strstr(j, "\"name\":\"python3 train.py\""));
    free(j);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s'", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "\"steps\":1"));
    free(out);
    if (tp_test_have("node") && !getenv("TP_SKIP_NODE")) {
        CHECK_EQ_INT(tp_test_run(&out, "node tests/check_trace.mjs '%s'", conv), 0);
        CHECK(out && strstr(out, "\"flows_bound\":3") && strstr(out, "\"problems\":[]"));
        free(out);
    }
}

TEST(rocprof_every_truncation_is_one_line)
{
    size_t n = strlen(doc);
    char *out = NULL;
    for (size_t cut = 1; cut < n; cut += 7) {
        const char *in = tp_test_write("cut_results.json", doc, cut);
        int rc = tp_test_run(&out, "'%s' stats --format rocprof '%s' 2>&1 >/dev/null", tp_test_bin(), in);
        CHECK_EQ_INT(rc, 2);
        CHECK(out && strstr(out, "tracepress: ") && strchr(out, '\n') == out + strlen(out) - 1);
        free(out);
        out = NULL;
    }
    /* detection by content: the key, whatever the file is called */
    const char *renamed = tp_test_write_text("trace.dat", doc);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>/dev/null", tp_test_bin(), renamed), 0);
    CHECK(out && strstr(out, "\"format\":\"rocprof\""));
    free(out);
    /* a record of the wrong shape: one line, exit 2 */
    const char *badrec = tp_test_write_text("bad_results.json",
                                            "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"hip_api\": [7]}}]}");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), badrec), 2);
    CHECK(out && strstr(out, "not an object"));
    free(out);
}
