/* test_device_only.c: `stats --kernels-only` (and --csv) with the SQLite
 * readers keeping only the device activities (tp_read_opts.device_only,
 * convert/read/nsys/): every output the same as when they keep every row
 * (TP_DEVICE_ONLY=0), warnings included, and the memory that saves. */
#include "tests/lib/harness.h"
#include "tests/vendor/nsys_schema.h"
#include "tests/vendor/rocpd_schema.h"

#include <stdlib.h>
#include <string.h>

#define NSYS_SAMPLE "vendor/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"

static bool have_sqlite3(void)
{
    if (tp_test_have("sqlite3"))
        return true;
    fprintf(stderr, "  (no sqlite3: device_only test skipped)\n");
    return false;
}

static const char *make_db(const char *name, const char *sql)
{
    char sqlname[128];
    snprintf(sqlname, sizeof sqlname, "%s.sql", name);
    const char *sqlpath = tp_test_write_text(sqlname, sql);
    const char *db = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && sqlite3 '%s' < '%s'", db, db, sqlpath), 0);
    return db;
}

/* The sample's rows scaled by scripts/bench/nsys_scale (the benchmark's input, small). */
static const char *scaled(const char *name, int copies)
{
    const char *db = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "scripts/bench/nsys_scale '%s' '%s' %d", tp_test_shared(NSYS_SAMPLE), db, copies),
                 0);
    return db;
}

/* stdout then stderr (and the exit code) of `stats ARGS db`, device_only on (dev) or off */
static char *stats_of(const char *db_path, const char *args, bool dev)
{
    char db[1024], err[1024]; /* tp_test_tmp's buffers rotate */
    snprintf(db, sizeof db, "%s", db_path);
    snprintf(err, sizeof err, "%s", tp_test_tmp("device_only.err"));
    char *out = NULL;
    int rc = tp_test_run(&out, "TP_DEVICE_ONLY=%d '%s' stats %s '%s' 2>'%s'; echo \"exit $?\"; cat '%s'", dev ? 1 : 0,
                         tp_test_bin(), args, db, err, err);
    CHECK_EQ_INT(rc, 0);
    return out;
}

/* Every kernel-table output of db the same with and without device_only;
 * with filters too (they read every row: tp_load clears device_only). */
static void same_both_ways(const char *db_path, bool filters)
{
    char db[1024]; /* tp_test_tmp's buffers rotate */
    snprintf(db, sizeof db, "%s", db_path);
    static const char *const args[] = {"--kernels-only", "--kernels-only --json", "--csv", "--kernels-only --strict",
                                        "--kernels-only --json --drop-cat os_runtime",
                                        "--kernels-only --min-dur 150ns", "--kernels-only --steps 3:12"};
    for (size_t i = 0; i < (filters ? 7 : 4); i++) {
        char *a = stats_of(db, args[i], true), *b = stats_of(db, args[i], false);
        CHECK(a && b && strcmp(a, b) == 0);
        if (a && b && strcmp(a, b) != 0)
            fprintf(stderr, "  stats %s %s:\n--- device_only:\n%s--- every row:\n%s", args[i], db, a, b);
        free(a);
        free(b);
    }
}

/* Host rows of every kind on three threads, each kind odd somewhere: a
 * call written twice (merged), rows without a valid time, without a
 * thread, with a name id not in StringIds or of the wrong type, a kernel
 * whose launch is not in the export, steps from NVTX text and ids, a mark,
 * an MPI range named like a PyTorch step (the pipeline makes it a step),
 * OS runtime calls on a thread of their own. */
static const char odd_rows_sql[] =
    NSYS_SCHEMA
    "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER, globalTid INTEGER,"
    " nameId INTEGER);"
    "CREATE TABLE MPI_OTHER_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, textId INTEGER);"
    "INSERT INTO StringIds VALUES (1,'cudaLaunchKernel_v7000'),(2,'gemm_kernel'),(3,'cudaMemcpyAsync_v3020'),"
    " (4,'ProfilerStep#3'),(5,'pthread_mutex_lock'),(6,'MPI_Barrier'),(8,'ProfilerStep#9');"
    "INSERT INTO TARGET_INFO_GPU VALUES (0,'NVIDIA H100 80GB HBM3',85520809984,132,9,0,3352320000000,1980000000);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000,1100,0," G100 ",7,1,0),(990,1110,67," G100 ",7,1,0),"
    " (3000,3100,0," G100 ",8,3,0),(4000,3900,0," G100 ",9,1,0),(5000,5100,0,NULL,10,1,0),"
    " (5200,5300,0," G200 ",11,99,0),(6000,6100,0," G200 ",12,'x',0);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1200,1700,0,1,7,7," P100 ",2,2,4,1,1,128,1,1),"
    " (2200,2950,0,1,7,55," P100 ",2,2,1,1,1,256,1,1),(5150,5180,0,1,7,10,0,2,2,1,1,1,256,1,1);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3200,3400,0,1,8,8," P100 ",4096,1,0,2);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (5400,5500,0,1,7,11," P200 ",0,512);"
    "INSERT INTO NVTX_EVENTS VALUES (500,9000,59,NULL," G100 ",4,0),(600,700,59,'step 12'," G200 ",NULL,0),"
    " (800,NULL,34,'a mark'," G200 ",NULL,0),(900,950,59,'a range'," G100 ",NULL,0),"
    " (910,940,59,'iteration 5',1677721701,NULL,0);"
    "INSERT INTO OSRT_API VALUES (100,200,0," G100 ",5),(300,400,0,1677721702,5),(450,460,0,1677721702,5);"
    "INSERT INTO MPI_OTHER_EVENTS VALUES (7000,7100," G100 ",6),(7200,7300," G100 ",8);";

TEST(nsys_device_only_prints_what_every_row_prints)
{
    if (!have_sqlite3())
        return;
    same_both_ways(tp_test_shared(NSYS_SAMPLE), false);
    same_both_ways(scaled("scaled30.sqlite", 30), false);
    char db[1024];
    snprintf(db, sizeof db, "%s", make_db("odd_rows.sqlite", odd_rows_sql));
    same_both_ways(db, true);
    /* what the odd rows make: 22 rows, steps 3, 5, 9 and 12, five host tracks and two streams, the warnings */
    char *out = stats_of(db, "--kernels-only --json", true);
    CHECK(out && strstr(out, "\"events\":22,\"tracks\":7,\"steps\":4"));
    CHECK(out && strstr(out, "nsys: string ids not in StringIds: 1"));
    CHECK(out && strstr(out, "nsys: device activity whose launch call is not in the export: 1"));
    free(out);
}

TEST(rocpd_device_only_prints_what_every_row_prints)
{
    if (!have_sqlite3())
        return;
    same_both_ways(make_db("device_only.db", ROCPD_SCHEMA ROCPD_ROWS), false);
}

/* The least address space (KB, to 2 MB) `stats --kernels-only db` runs in. */
static long least_kb(const char *db, bool dev)
{
    long lo = 16L * 1024, hi = 256L * 1024;
    const char *fmt = "(ulimit -v %ld && TP_DEVICE_ONLY=%d timeout 20 '%s' stats --kernels-only '%s'; exit $?) "
                      ">/dev/null 2>&1";
    if (tp_test_run(NULL, fmt, hi, dev ? 1 : 0, tp_test_bin(), db) != 0)
        return -1;
    while (hi - lo > 2048) {
        long mid = lo + (hi - lo) / 2;
        if (tp_test_run(NULL, fmt, mid, dev ? 1 : 0, tp_test_bin(), db) == 0)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* 3,000 copies of the sample's rows (20 MB, 297,000 events of which
 * 60,000 device activities): keeping only the device activities saves the
 * other 237,000 events' 64 bytes; asked here as at least 32 bytes each
 * (7.2 MB; measured 15-20 MB).  Compared with the same run keeping every
 * row, never with a time. */
TEST(nsys_device_only_keeps_the_host_rows_out_of_memory)
{
    if (!have_sqlite3())
        return;
    if (tp_test_run(NULL, "(ulimit -v 4000000 && '%s' --version; exit $?) >/dev/null 2>&1", tp_test_bin()) != 0)
        return; /* ASan: no cap */
    char db[1024];
    snprintf(db, sizeof db, "%s", scaled("scaled3k.sqlite", 3000));
    long every = least_kb(db, false), dev = least_kb(db, true);
    CHECK(every > 0 && dev > 0);
    CHECK(every - dev >= 237000L * 32 / 1024);
    if (every - dev < 237000L * 32 / 1024)
        fprintf(stderr, "  least address space: %ld KB keeping every row, %ld KB device_only\n", every, dev);
}
