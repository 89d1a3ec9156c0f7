/* test_rocpd_review.c: what an acceptance review of the rocpd reader
 * (convert/read/nsys/rocpd_read.c) found, each a regression test that fails
 * on the reader as it first landed.  Databases built with the sqlite3 shell
 * from the documented schema (rocpd_schema.h), as test_rocpd.c does. */
#include "tests/lib/harness.h"
#include "tests/vendor/rocpd_schema.h"

#include <stdlib.h>
#include <string.h>

static const char *review_db(const char *name, const char *sql)
{
    char sqlname[128];
    snprintf(sqlname, sizeof sqlname, "%s.sql", name);
    const char *sqlpath = tp_test_write_text(sqlname, sql);
    const char *db = tp_test_tmp(name);
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && sqlite3 '%s' < '%s'", db, db, sqlpath), 0);
    return db;
}

/* Kernel rows whose start and end are text and a blob: dropped (counted),
 * but only convert's line said so; `stats` said "values of the wrong type"
 * and not that three kernels were gone.  Now every command says it. */
TEST(rocpd_rows_dropped_are_said_by_stats)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = review_db("review_badtimes.db", ROCPD_SCHEMA ROCPD_ROWS
                               "UPDATE rocpd_kernel_dispatch_5e55 SET start = 'abc', \"end\" = X'00';");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "rocpd: rows without a valid start and end (dropped): 3"));
    free(out);
}

/* A rollback journal beside the database: a write that never finished (the
 * profiler killed while it wrote).  The reader opens the file immutable, so
 * the journal is not replayed and the file may hold half a transaction: it
 * read such a file in silence (a -wal beside it was said, a -journal not).
 * The journal stays as it was. */
TEST(sqlite_journal_beside_the_database_is_said)
{
    if (!tp_test_have("sqlite3"))
        return;
    const char *db = review_db("review_journal.db", ROCPD_SCHEMA ROCPD_ROWS);
    char journal[1100];
    snprintf(journal, sizeof journal, "%s-journal", db);
    tp_test_write_text("review_journal.db-journal", "an unfinished transaction\n");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' 2>&1 >/dev/null", tp_test_bin(), db), 0);
    CHECK(out && strstr(out, "a -journal file beside the database (a write that never finished"));
    free(out);
    char *j = tp_test_read_file(journal, NULL);
    CHECK(j && strcmp(j, "an unfinished transaction\n") == 0);
    free(j);
}
