/* test_rocpd.c: the rocpd database reader (convert/read/nsys/rocpd_read.c).
 * No real rocpd database was available: the databases here are built with
 * the sqlite3 shell from the documented schema (rocpd_schema.h), with the
 * uuid-suffixed tables and the plain-name views a real one has. */
#include "tests/lib/harness.h"
#include "tests/vendor/rocpd_schema.h"

#include <stdlib.h>
#include <string.h>

static const char *rocpd_db(const char *name, const char *sql)
{
    char sqlname[128];
    snprintf(sqlname, sizeof sqlname, "%s.sql", name);
    const char *sqlpath = tp_test_write_text(sqlname, sql);
    const char *db = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && sqlite3 '%s' < '%s'", db, db, sqlpath), 0);
    return db;
}

static bool one_line(const char *out)
{
    return out && strchr(out, '\n') == out + strlen(out) - 1;
}

TEST(rocpd_database_reads_kernels_copies_calls_steps_and_gpus)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = rocpd_db("results.db", ROCPD_SCHEMA ROCPD_ROWS);
    char *out = NULL;
    /* 2 kernels (the third row ends before it starts: dropped), 1 copy, the ROCTx step */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>/dev/null", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "\"format\":\"rocpd\""));
    CHECK(out && strstr(out, "\"kernels_only\":{\"instances\":2,\"names\":2,\"total_ns\":1250},\"memcpy_instances\":1"));
    CHECK(out && strstr(out, "\"name\":\"gemm_kernel()\"") && strstr(out, "\"name\":\"Cijk_Alik_Bljk\""));
    CHECK(out && strstr(out, "{\"step\":7,"));
    CHECK(out && strstr(out, "\"unlinked_ns\":0"));
    free(out);
    /* every device row bound to its HIP call (correlation ids through rocpd_event) */
    const char *conv = tp_test_tmp("rocpd.json");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), db, conv), 0);
    CHECK(out && strstr(out, "3 launch flows") && strstr(out, "rocpd: rows without a valid start and end: 1"));
    CHECK(out && strstr(out, "rocpd: table rocpd_sample: 1 rows not read"));
    free(out);
    char *j = tp_test_read_file(conv, NULL);
    CHECK(j && strstr(j, "\"name\":\"worker\"") && strstr(j, "\"name\":\"stream 3\"") && strstr(j, "\"name\":\"queue 1\""));
    CHECK(j && strstr(j, "\"pid\":4242,\"tid\":4250"));
    /* the HSA call inside hipLaunchKernel has its id but is not the launch */
    const char *hsa = j ? strstr(j, "\"name\":\"hsa_queue_store_write_index\"") : NULL;
    const char *eol = hsa ? strchr(hsa, '\n') : NULL;
    const char *flow = hsa ? strstr(hsa, "flow_out") : NULL;
    CHECK(hsa && eol && (!flow || flow > eol));
    CHECK(j && strstr(j, "\"cat\":\"cuda_driver\",\"name\":\"hsa_queue_store_write_index\""));
    free(j);
    if (tp_test_have("node") && !getenv("TP_SKIP_NODE")) {
        CHECK_EQ_INT(tp_test_run(&out, "node tests/check_trace.mjs '%s'", conv), 0);
        CHECK(out && strstr(out, "\"flows_bound\":3") && strstr(out, "\"problems\":[]"));
        free(out);
    }
    /* the GPUs in the device table the roofline matches */
    const char *rep = tp_test_tmp("rocpd_report");
    CHECK_EQ_INT(tp_test_run(&out, "rm -rf '%s' && '%s' report -q '%s' -o '%s'", rep, tp_test_bin(), db, rep), 0);
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", rep);
    j = tp_test_read_file(path, NULL);
    CHECK(j && strstr(j, "\"devices\":[\"AMD Instinct MI300X\",\"AMD Instinct MI300X\"]"));
    CHECK(j && strstr(j, "\"table_id\":\"MI300X\""));
    free(j);
    /* --strict: the dropped row is an error */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --strict '%s' 2>&1", tp_test_bin(), db), 2);
    CHECK(out && strstr(out, "rejected by --strict") && one_line(out));
    free(out);
}

TEST(rocpd_database_broken_or_hostile)
{
    if (!tp_test_have("sqlite3"))
        return;
    char *out = NULL;
    /* a table the joins need is missing: one line, exit 2 */
    const char *noev = rocpd_db("noevent.db", ROCPD_SCHEMA ROCPD_ROWS "DROP TABLE rocpd_event_5e55;");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), noev), 2);
    CHECK(out && strstr(out, "a rocpd database without its table rocpd_event_5e55") && one_line(out));
    free(out);
    /* another schema's columns: one line naming the table, exit 2 */
    const char *old = rocpd_db("oldcols.db", ROCPD_SCHEMA ROCPD_ROWS
                               "ALTER TABLE rocpd_kernel_dispatch_5e55 RENAME COLUMN kernel_id TO kid;");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), old), 2);
    CHECK(out && strstr(out, "rocpd_kernel_dispatch") && strstr(out, "not the rocpd schema") && one_line(out));
    free(out);
    /* a table set whose name would end the quoted name: not read, said */
    const char *quote = rocpd_db("quote.db", "CREATE TABLE \"rocpd_string_a\"\"b\" (id INTEGER PRIMARY KEY, string TEXT);");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), quote), 2);
    CHECK(out && strstr(out, "without a rocpd_string table") && one_line(out));
    free(out);
    /* names and agents that point nowhere, text where numbers go: read, counted */
    const char *odd = rocpd_db("odd.db", ROCPD_SCHEMA ROCPD_ROWS
                               "UPDATE rocpd_kernel_dispatch_5e55 SET agent_id = 99, kernel_id = 77 WHERE id = 1;"
                               "UPDATE rocpd_region_5e55 SET name_id = 'x', tid = 55 WHERE id = 2;"
                               "UPDATE rocpd_info_agent_5e55 SET extdata = '{not json' WHERE id = 3;");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), odd), 0);
    CHECK(out && strstr(out, "rocpd: kernel ids not in rocpd_info_kernel_symbol: 1"));
    CHECK(out && strstr(out, "rocpd: device rows of agents that are not GPUs in rocpd_info_agent: 1"));
    CHECK(out && strstr(out, "rocpd: regions whose thread is not in rocpd_info_thread: 1"));
    CHECK(out && strstr(out, "rocpd: values of the wrong type (read as missing): 1"));
    free(out);
    /* another schema version: read, said */
    const char *v4 = rocpd_db("v4.db", ROCPD_SCHEMA ROCPD_ROWS
                              "UPDATE rocpd_metadata_5e55 SET value = '4' WHERE tag = 'schema_version';");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), v4), 0);
    CHECK(out && strstr(out, "rocpd: a schema version other than 3 (read as version 3)"));
    free(out);
}
