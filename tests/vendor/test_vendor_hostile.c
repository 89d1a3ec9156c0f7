/* test_vendor_hostile.c: the acceptance review's hostile inputs for the
 * vendor readers (nsys, rocprof): times the model cannot hold, databases cut
 * short, agent lists that cost more than their size. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define NSYS_SAMPLE "vendor/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"

static const char *sqlite_db(const char *name, const char *sql)
{
    char sqlname[128];
    snprintf(sqlname, sizeof sqlname, "%s.sql", name);
    const char *sqlpath = tp_test_write_text(sqlname, sql);
    const char *db = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && sqlite3 '%s' < '%s'", db, db, sqlpath), 0);
    return db;
}

/* 2^62 = 4611686018427387904, 2^61 = 2305843009213693952: starts at or past
 * 2^62, before -2^61, or durations of 2^61 and more overflowed downstream
 * (a GPU span of -9223372036854775.804 us); now dropped and counted. */
TEST(vendor_times_outside_the_model_are_dropped)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = sqlite_db(
        "times.sqlite",
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, demangledName INTEGER);"
        "INSERT INTO StringIds VALUES (1, 'k');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 4611686018427387909, 0, 1),"
        " (4611686018427387904, 4611686018427387905, 0, 1), (-4611686018427387904, -4611686018427387903, 0, 1),"
        " (-2305843009213693952, 9223372036854775807, 0, 1), (9223372036854775800, 9223372036854775807, 0, 1),"
        " (100, 200, 0, 1);");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), db, tp_test_tmp("times.json")), 0);
    CHECK(out && strstr(out, "rows without a valid start and end: 5"));
    free(out);
    const char *doc = tp_test_write_text(
        "times_results.json",
        "{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1}, \"buffer_records\": {\"hip_api\": ["
        "{\"start_timestamp\": 0, \"end_timestamp\": 4611686018427387909, \"thread_id\": 1},"
        "{\"start_timestamp\": 4611686018427387904, \"end_timestamp\": 4611686018427387905, \"thread_id\": 1},"
        "{\"start_timestamp\": -4611686018427387904, \"end_timestamp\": 0, \"thread_id\": 1},"
        "{\"start_timestamp\": -2305843009213693952, \"end_timestamp\": 9223372036854775807, \"thread_id\": 1},"
        "{\"start_timestamp\": 100, \"end_timestamp\": 200, \"thread_id\": 1}]}}]}");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), doc, tp_test_tmp("times2.json")), 0);
    CHECK(out && strstr(out, "records without a valid start and end: 4"));
    free(out);
}

/* SQLite reads the pages past a cut file's end as zeros: the sample cut by
 * 100 bytes read as if whole (exit 0), cut at a page boundary it was "not an
 * Nsight Systems export".  Now: the header's page count says it is cut short. */
TEST(nsys_cut_short_says_truncated)
{
    const char *src = tp_test_shared(NSYS_SAMPLE);
    const long cuts[] = {4096, 806912, 1613824 - 4096, 1613824 - 100};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *part = tp_test_tmp("cut.sqlite");
        CHECK_EQ_INT(tp_test_run(NULL, "head -c %ld '%s' > '%s'", cuts[i], src, part), 0);
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), part), 2);
        CHECK(out && strstr(out, "truncated file?") && strchr(out, '\n') == out + strlen(out) - 1);
        free(out);
        /* gzip'd, read from memory: the same */
        CHECK_EQ_INT(tp_test_run(&out, "gzip -c '%s' > '%s.gz' && '%s' stats '%s.gz' 2>&1 >/dev/null", part, part,
                                 tp_test_bin(), part),
                     2);
        CHECK(out && strstr(out, "cut short"));
        free(out);
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), src), 0);
    free(out);
}

/* 100,000 GPU agents (4.8 MB): each agent scanned the device table (11 s);
 * now a bit per device number.  Under `timeout 5`. */
TEST(rocprof_many_agents_linear)
{
    if (!tp_test_have("python3"))
        return;
    const char *doc = tp_test_tmp("agents_results.json");
    CHECK_EQ_INT(tp_test_run(NULL,
                             "python3 -c 'import json,sys; json.dump({\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1},"
                             " \"agents\": [{\"type\": 2, \"id\": {\"handle\": i}, \"gpu_index\": i} for i in range(100000)],"
                             " \"buffer_records\": {}}]}, sys.stdout)' > '%s'",
                             doc),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 5 '%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), doc), 0);
    free(out);
}

/* A rocpd database names its tables with the session's uuid and makes the
 * plain names views (rocprofiler-sdk's rocpd_tables.sql, rocpd_views.sql):
 * it was "not an Nsight Systems export"; now it is named. */
TEST(nsys_reader_names_a_real_rocpd_database)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = sqlite_db(
        "results.db",
        "CREATE TABLE \"rocpd_string_0a1b2c\" (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);"
        "CREATE TABLE \"rocpd_info_agent_0a1b2c\" (id INTEGER PRIMARY KEY, guid TEXT, type TEXT);"
        "CREATE VIEW rocpd_string AS SELECT * FROM \"rocpd_string_0a1b2c\";"
        "CREATE VIEW rocpd_info_agent AS SELECT * FROM \"rocpd_info_agent_0a1b2c\";");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1", tp_test_bin(), db), 2);
    CHECK(out && strstr(out, "a rocpd database") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
}

/* The timeline keeps every device stream; when they do not all fit, the
 * least busy are left out.  The rocprof sample (568 HIP streams) showed its
 * first 62 streams, nearly empty, and left out the one with 37,300 of its
 * 43,915 kernels.  Here 120 streams, the last the only busy one. */
TEST(timeline_with_more_streams_than_fit_shows_the_busiest)
{
    if (!tp_test_have("python3") || !tp_test_have("pdftotext"))
        return;
    const char *doc = tp_test_tmp("streams_results.json");
    CHECK_EQ_INT(
        tp_test_run(NULL,
                    "python3 -c 'import json,sys; rec=lambda s,t,d: {\"start_timestamp\": t, \"end_timestamp\": t + d,"
                    " \"stream_id\": {\"handle\": s}, \"dispatch_info\": {\"agent_id\": {\"handle\": 5}, \"kernel_id\": 1}};"
                    " json.dump({\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1}, \"agents\": [{\"type\": 2,"
                    " \"id\": {\"handle\": 5}, \"gpu_index\": 0}], \"kernel_symbols\": [{\"kernel_id\": 1,"
                    " \"formatted_kernel_name\": \"k\"}], \"buffer_records\": {\"kernel_dispatch\": [rec(s, 1000 + s, 10)"
                    " for s in range(119)] + [rec(119, 1000 + 200 * i, 150) for i in range(50)]}}]}, sys.stdout)' > '%s'",
                    doc),
        0);
    const char *dir = tp_test_tmp("streams_report");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' 2>&1", tp_test_bin(), doc, dir), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir), 0);
    const char *tl = out ? strstr(out, "Timeline of the whole trace") : NULL;
    CHECK(tl && strstr(tl, "more tracks not shown"));
    CHECK(tl && strstr(tl, "stream 119"));
    free(out);
}

/* Context -1 on a stream another context also uses: the map of stream owners
 * could not hold 0xFFFFFFFF (its free mark), so both contexts' stream 7 were
 * one track; and a negative context, process id or record kind was shifted
 * left as a signed number (undefined: the ASan+UBSan build stops). */
TEST(vendor_negative_ids_and_context_minus_one)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = sqlite_db(
        "contexts.sqlite",
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,"
        " streamId INTEGER, demangledName INTEGER);"
        "INSERT INTO StringIds VALUES (1, 'k');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, -1, 7, 1), (150, 250, 0, 5, 7, 1),"
        " (300, 400, 0, -7, 7, 1);");
    const char *conv = tp_test_tmp("contexts.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), db, conv), 0);
    CHECK(out && strstr(out, " 0 repaired"));
    free(out);
    char *text = tp_test_read_file(conv, NULL);
    CHECK(text && strstr(text, "stream 7 (context 5)") && strstr(text, "stream 7 (context -7)"));
    free(text);
    const char *doc = tp_test_write_text(
        "negative_results.json",
        "{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": -5}, \"agents\": [{\"type\": 2, \"id\": {\"handle\": 5},"
        " \"gpu_index\": 0}], \"buffer_records\": {\"hip_api\": [{\"start_timestamp\": 1, \"end_timestamp\": 2,"
        " \"kind\": -3, \"operation\": -1, \"thread_id\": 1}], \"kernel_dispatch\": [{\"start_timestamp\": 1,"
        " \"end_timestamp\": 2, \"stream_id\": {\"handle\": 1}, \"dispatch_info\": {\"agent_id\": {\"handle\": 5}}}]}},"
        " {\"metadata\": {\"pid\": -6}}]}");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' 2>&1", tp_test_bin(), doc, tp_test_tmp("neg.json")), 0);
    free(out);
}

/* A database last written in WAL mode (header bytes 18, 19 = 2), gzip'd: the
 * copy in memory could not be read and was "not an Nsight Systems export";
 * SQLite errors on the schema are said as such.  A -wal file beside a plain
 * export is not read (immutable) and now said. */
TEST(nsys_wal_mode_database_in_memory_and_wal_beside)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = sqlite_db("walmode.sqlite",
                               "PRAGMA journal_mode=WAL;"
                               "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                               "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
                               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                               " demangledName INTEGER);"
                               "INSERT INTO StringIds VALUES (1, 'k');"
                               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 1), (300, 400, 0, 1);");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "test \"$(od -A n -t u1 -j 18 -N 2 '%s' | tr -d ' ')\" = 22", db), 0);
    CHECK_EQ_INT(tp_test_run(&out, "gzip -c '%s' > '%s.gz' && '%s' stats --json '%s.gz' 2>&1", db, db, tp_test_bin(), db),
                 0);
    CHECK(out && strstr(out, "\"kernel_instances\":2"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "cat '%s' | '%s' stats --json - 2>&1", db, tp_test_bin()), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":2"));
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "head -c 4152 /dev/zero > '%s-wal'", db), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats --json '%s' 2>&1", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "\"kernel_instances\":2") && strstr(out, "-wal file beside the export"));
    free(out);
}

/* An absolute path written with two leading slashes (legal, the same file):
 * the database's URI read "tmp" as an authority ("invalid uri authority") */
TEST(nsys_path_with_two_leading_slashes)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = sqlite_db("slashes.sqlite", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                                                 "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats \"/$(realpath '%s')\" 2>&1", tp_test_bin(), db), 0);
    free(out);
}

/* 200,000 members in "strings" before buffer_records, and 200,000 API
 * records each naming another operation: every operation's name was looked
 * up by scanning the strings object (20 s for 24 MB); now once per entry.
 * Under `timeout 8`. */
TEST(rocprof_operation_names_found_once_per_entry)
{
    if (!tp_test_have("python3"))
        return;
    const char *doc = tp_test_tmp("ops_results.json");
    CHECK_EQ_INT(tp_test_run(NULL,
                             "python3 -c 'import json,sys; s={\"k%%d\" %% i: i for i in range(200000)};"
                             " s[\"buffer_records\"]=[]; json.dump({\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1},"
                             " \"strings\": s, \"buffer_records\": {\"hip_api\": [{\"start_timestamp\": i,"
                             " \"end_timestamp\": i + 1, \"thread_id\": 1, \"kind\": 2, \"operation\": i}"
                             " for i in range(200000)]}}]}, sys.stdout)' > '%s'",
                             doc),
                 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 8 '%s' stats --kernels-only '%s' 2>&1 >/dev/null", tp_test_bin(), doc), 0);
    free(out);
}
