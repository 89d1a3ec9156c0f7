/* test_nsys.c: the Nsight Systems SQLite reader (convert/read/nsys/).
 * Counts and totals equal plain SQL over the export (tests/vendor/nsys_recount.py
 * holds the queries); synthetic exports built with the sqlite3 shell cover
 * several processes and GPUs, older schemas, and hostile databases. */
#include "tests/lib/harness.h"
#include "tests/vendor/nsys_schema.h"

#include <stdlib.h>
#include <string.h>

#define NSYS_SAMPLE "vendor/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"

static bool have_tools(void)
{
    if (tp_test_have("sqlite3") && tp_test_have("python3"))
        return true;
    fprintf(stderr, "  (no sqlite3 or python3: nsys test skipped)\n");
    return false;
}

/* A database built from SQL text by the sqlite3 shell. */
static const char *make_db(const char *name, const char *sql)
{
    char sqlname[128];
    snprintf(sqlname, sizeof sqlname, "%s.sql", name);
    const char *sqlpath = tp_test_write_text(sqlname, sql);
    const char *db = tp_test_tmp(name);
    char *out = NULL;
    int rc = tp_test_run(&out, "rm -f '%s' && sqlite3 '%s' < '%s'", db, db, sqlpath);
    if (rc)
        fprintf(stderr, "sqlite3: %s\n", out ? out : "");
    free(out);
    return db;
}

/* Two processes on two GPUs that use the same correlation ids: each
 * device row must find the launch call of its own process. */
static const char two_gpus_sql[] =
    NSYS_SCHEMA
    "INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'gemm_kernel'),(3,'ncclKernel_AllReduce'),"
    " (4,'cudaMemcpyAsync_v3020'),(5,'ProfilerStep#4'),(6,'cudaMemsetAsync_v3020');"
    "INSERT INTO TARGET_INFO_GPU VALUES (0,'NVIDIA H100 80GB HBM3',85520809984,132,9,0,3352320000000,1980000000),"
    " (1,'NVIDIA H100 80GB HBM3',85520809984,132,9,0,3352320000000,1980000000);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000,1100,0," G100 ",7,1,0),(2000,2100,0," G200 ",7,1,0),"
    " (3000,3100,0," G100 ",8,4,0),(4000,4100,0," G200 ",9,6,0);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1200,1700,0,1,7,7," P100 ",2,2,4,1,1,128,1,1),"
    " (2200,2950,1,2,7,7," P200 ",3,3,1,1,1,256,1,1);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3200,3400,0,1,8,8," P100 ",4096,1,0,2);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (4200,4300,1,2,7,9," P200 ",0,512);"
    "INSERT INTO NVTX_EVENTS VALUES (500,5000,59,NULL," G100 ",5,0),(600,700,59,'step 12'," G200 ",NULL,0),"
    " (800,NULL,34,'a mark'," G200 ",NULL,0);";

TEST(nsys_sample_counts_equal_sql)
{
    if (!have_tools())
        return;
    char *out = NULL;
    int rc = tp_test_run(&out, "python3 tests/vendor/nsys_recount.py '%s' '%s' 2>/dev/null", tp_test_bin(),
                         tp_test_shared(NSYS_SAMPLE));
    CHECK_EQ_INT(rc, 0);
    /* SOURCES.md: 5 kernels, 15 copies, 95 runtime rows, 24 NVTX rows (2 name things); the 95 rows are 57
     * calls: 38 are written twice (an eventClass 67 row around its entry point's, cudaMemcpy around
     * cudaMemcpy_v3020), one call each, or the sync evidence said "cudaMemcpy x30" for 15 calls */
    CHECK(out && strstr(out, "nsys recount: OK 3 names, 5 kernels, 15 copies, 57 API calls, 22 NVTX, 20 launch flows"));
    if (rc)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    /* the unread tables are named, not dropped in silence; the device table matches the roofline's */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), tp_test_shared(NSYS_SAMPLE)), 0);
    CHECK(out && strstr(out, "warning: nsys: table SCHED_EVENTS: 3238 rows not read"));
    free(out);
}

TEST(nsys_two_processes_two_gpus_link_their_own_launches)
{
    if (!have_tools())
        return;
    const char *db = make_db("two_gpus.sqlite", two_gpus_sql);
    char *out = NULL;
    int rc = tp_test_run(&out, "python3 tests/vendor/nsys_recount.py '%s' '%s' 2>&1", tp_test_bin(), db);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "OK 4 names, 2 kernels, 2 copies, 4 API calls, 3 NVTX, 4 launch flows"));
    if (rc)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    const char *conv = tp_test_tmp("two_gpus.json");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert -q '%s' -o '%s'", tp_test_bin(), db, conv), 0);
    free(out);
    char *j = tp_test_read_file(conv, NULL);
    /* the kernel on GPU 1 is bound to process 200's call (ts 2000), not process 100's (same id 7) */
    CHECK(j && strstr(j, "\"name\":\"cudaLaunchKernel\",\"pid\":200,\"tid\":200,\"ts\":1.500,\"dur\":0.100"));
    CHECK(j && strstr(j, "\"stream 7\""));
    free(j);
    /* steps from NVTX ranges named like steps; the GPUs in the device table */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s'", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "\"steps\":2"));
    free(out);
    if (tp_test_have("node") && !getenv("TP_SKIP_NODE")) {
        CHECK_EQ_INT(tp_test_run(&out, "node tests/check_trace.mjs '%s'", conv), 0);
        CHECK(out && strstr(out, "\"flows_bound\":4") && strstr(out, "\"problems\":[]"));
        free(out);
    }
}

TEST(nsys_older_schema_reads_what_is_there)
{
    if (!have_tools())
        return;
    /* no metadata table, no globalPid, no shortName, no grid: the launch is found by id alone */
    const char *db = make_db("old.sqlite",
                             "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                             "INSERT INTO StringIds VALUES (1,'cudaLaunch'),(2,'old_kernel');"
                             "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,"
                             " correlationId INTEGER, nameId INTEGER);"
                             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10,20," G100 ",3,1);"
                             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                             " contextId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName INTEGER);"
                             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30,90,0,1,7,3,2),(95,'x',0,1,7,4,2);");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>&1", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "\"kernels_only\":{\"instances\":1,\"names\":1,\"total_ns\":60}"));
    free(out);
    const char *conv = tp_test_tmp("old.json");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), db, conv), 0);
    CHECK(out && strstr(out, "export without a schema version") && strstr(out, "1 launch flows") &&
          strstr(out, "1 dropped"));
    free(out);
    /* --strict: the row with a text end is an error */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --strict '%s' 2>&1", tp_test_bin(), db), 2);
    CHECK(out && strstr(out, "rejected by --strict"));
    free(out);
}

TEST(nsys_not_an_export_and_hostile_databases)
{
    if (!have_tools())
        return;
    char *out = NULL;
    /* an SQLite file of another program: one line, exit 2 */
    const char *other = make_db("other.sqlite", "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), other), 2);
    CHECK(out && strstr(out, "not an Nsight Systems export") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    /* a view where a table should be (a view runs the file's SQL: here an endless
     * recursion) is not read: the reader finishes at once */
    const char *view = make_db("view.sqlite",
                               "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                               "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
                               "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL"
                               " SELECT i + 1 FROM r) SELECT i AS start, i + 1 AS end FROM r;");
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 '%s' stats --json '%s' 2>&1", tp_test_bin(), view), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":0"));
    free(out);
    /* a huge value: refused with one line, not read into memory */
    const char *huge = make_db("huge.sqlite", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                                              "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
                                              "INSERT INTO StringIds VALUES (1, printf('%.*c', 3000000, 'x'));");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), huge), 2);
    CHECK(out && strstr(out, "StringIds") && strstr(out, "too big"));
    free(out);
    /* endless work in a generated column: the work cap stops it */
    const char *work = make_db("work.sqlite",
                               "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                               " demangledName INTEGER);"
                               "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000)"
                               " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i, i + 1, 0, 1 FROM r;");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>&1", tp_test_bin(), work), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":20000"));
    free(out);
}

TEST(nsys_input_never_modified_wal_beside_it_ignored)
{
    if (!have_tools())
        return;
    const char *db = make_db("walled.sqlite", two_gpus_sql);
    char *out = NULL;
    /* a -wal file beside it (another writer's, or garbage): immutable means not read, not replayed */
    CHECK_EQ_INT(tp_test_run(NULL, "head -c 5000 /dev/urandom > '%s-wal' && chmod a-w '%s' && sha256sum '%s' '%s-wal' > '%s.sum'",
                             db, db, db, db, db), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>&1", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":4"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "sha256sum -c --quiet '%s.sum' && ! test -e '%s-shm' && ! test -e '%s-journal'", db,
                             db, db), 0);
    free(out);
    /* gzip'd or piped: read from memory, the same numbers */
    CHECK_EQ_INT(tp_test_run(&out, "gzip -c '%s' > '%s.gz' && '%s' stats --json '%s.gz' 2>&1", db, db, tp_test_bin(), db),
                 0);
    CHECK(out && strstr(out, "\"kernel_instances\":4"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "cat '%s' | '%s' stats --json - 2>&1", db, tp_test_bin()), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":4"));
    free(out);
}

TEST(nsys_truncated_sample_gives_one_line)
{
    if (!have_tools())
        return;
    const char *src = tp_test_shared(NSYS_SAMPLE);
    char *out = NULL;
    /* every page boundary of the first 64 pages and a few more: exit 0 or a one-line error, never a crash */
    for (long cut = 100; cut < 1613824; cut += cut < 262144 ? 4096 : 131072) {
        const char *part = tp_test_tmp("cut.sqlite");
        CHECK_EQ_INT(tp_test_run(NULL, "head -c %ld '%s' > '%s'", cut, src, part), 0);
        int rc = tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), part);
        CHECK(rc == 2 || rc == 0);
        if (rc == 2)
            CHECK(out && strstr(out, "tracepress: ") && strchr(out, '\n') == out + strlen(out) - 1);
        free(out);
        out = NULL;
    }
}

/* The bind_id of the one line of a converted trace that holds `marker`, or -1. */
static long bind_id_of(const char *json, const char *marker)
{
    const char *m = json ? strstr(json, marker) : NULL;
    if (!m || strstr(m + 1, marker))
        return -1;
    const char *line = m;
    while (line > json && line[-1] != '\n')
        line--;
    const char *b = strstr(line, "\"bind_id\":");
    return b && b < m ? strtol(b + 10, NULL, 10) : -1;
}

/* The launch map keeps each process's ids as a sorted array and an id that
 * comes out of order beside it (nsys_launches.c): both paths find the
 * launch, and a call written twice is merged whichever part holds it. */
TEST(nsys_launch_map_ids_in_and_out_of_order)
{
    if (!have_tools())
        return;
    const char *db = make_db(
        "order.sqlite",
        NSYS_SCHEMA "INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'k3'),(3,'k5'),(4,'k6'),(5,'k8'),"
                    " (6,'k7');"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000,1100,0," G100 ",5,1,0),"
                    " (2000,2100,0," G100 ",6,1,0),(500,600,0," G100 ",3,1,0),(1990,2150,67," G100 ",6,1,0),"
                    " (450,650,67," G100 ",3,1,0),(3000,3100,0," G100 ",8,1,0),(2500,2600,0," G100 ",4,1,0);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (700,800,0,1,7,3," P100 ",2,2,1,1,1,1,1,1),"
                    " (1200,1300,0,1,7,5," P100 ",3,3,1,1,1,1,1,1),(2200,2300,0,1,7,6," P100 ",4,4,1,1,1,1,1,1),"
                    " (3200,3300,0,1,7,8," P100 ",5,5,1,1,1,1,1,1),(3400,3500,0,1,7,7," P100 ",6,6,1,1,1,1,1,1);");
    const char *conv = tp_test_tmp("order.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), db, conv), 0);
    CHECK(out && strstr(out, "4 launch flows") && strstr(out, "same call (one id, one thread, one name): 2"));
    CHECK(out && strstr(out, "launch call is not in the export: 1"));
    free(out);
    char *j = tp_test_read_file(conv, NULL);
    /* each kernel bound to the call of its own id; id 3 (out of order) widened to its wrapper's times
     * (the trace starts there: ts 0) */
    const char *ids[] = {"3", "5", "6", "8"};
    for (int i = 0; i < 4; i++) {
        char call[64], kern[64];
        snprintf(call, sizeof call, "\"args\":{\"correlation\":%s,\"return\"", ids[i]);
        snprintf(kern, sizeof kern, "\"stream\":7,\"correlation\":%s,", ids[i]);
        long a = bind_id_of(j, call), b = bind_id_of(j, kern);
        CHECK(a > 0 && a == b);
    }
    CHECK(j && strstr(j, "\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,\"ts\":0.000,\"dur\":0.200"));
    free(j);
}
