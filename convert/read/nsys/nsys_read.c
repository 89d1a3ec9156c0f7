/* nsys_read.c: the Nsight Systems SQLite export reader (`nsys export --type
 * sqlite`): recognition, opening the database without ever changing it,
 * the schema's version, string ids, processes, threads and GPUs.  The
 * activity tables are read by nsys_tables.c.
 *
 * A database is a program as much as a file: SQLite runs what the schema
 * says.  So the file is opened read-only and immutable (no journal or -wal
 * beside it is read, created or replayed, no lock taken), with triggers and
 * views off, an untrusted schema, a cap on one value's size and a cap on the
 * work the queries may do (SQLite VM steps per byte of the file); a table
 * the reader reads must be a real table, never a view.  Bounds: docs/ERRORS.md. */
#include "convert/read/nsys/nsys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int nsys_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    /* The SQLite header; which SQLite database it is (nsys or not) the reader
     * checks from its tables and says so when it is not one. */
    if (n >= 16 && memcmp(head, "SQLite format 3\0", 16) == 0)
        return 80;
    return 0;
}

int ns_has_table(ns_ctx *c, const char *table)
{
    sqlite3_stmt *st = NULL;
    int have = 0;
    if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        have = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return have;
}

int ns_select(ns_ctx *c, const char *table, const char *const *cols, size_t ncols, const char *tail,
              sqlite3_stmt **st, bool *present)
{
    *st = NULL;
    if (!ns_has_table(c, table))
        return 0;
    sqlite3_stmt *info = NULL;
    char q[256];
    snprintf(q, sizeof q, "PRAGMA table_info(\"%s\")", table);
    if (sqlite3_prepare_v2(c->db, q, -1, &info, NULL) != SQLITE_OK) {
        sqlite3_finalize(info);
        return tp_fail_at(c->err, table, "cannot read the table's columns: %s", sqlite3_errmsg(c->db));
    }
    for (size_t i = 0; i < ncols; i++)
        present[i] = false;
    int rc, ndeclared = 0;
    while ((rc = sqlite3_step(info)) == SQLITE_ROW) {
        if (++ndeclared > NS_MAX_COLUMNS) {
            sqlite3_finalize(info);
            return tp_fail_at(c->err, table, "more than %d columns: not an Nsight Systems table", NS_MAX_COLUMNS);
        }
        const char *name = (const char *)sqlite3_column_text(info, 1);
        for (size_t i = 0; name && i < ncols; i++)
            if (strcmp(name, cols[i]) == 0)
                present[i] = true;
    }
    sqlite3_finalize(info);
    if (rc != SQLITE_DONE)
        return tp_fail_at(c->err, table, "cannot read the table's columns: %s", sqlite3_errmsg(c->db));
    tp_buf b = {0};
    tp_buf_puts(&b, "SELECT ");
    for (size_t i = 0; i < ncols; i++)
        tp_buf_printf(&b, "%s%s%s%s", i ? "," : "", present[i] ? "\"" : "NULL", present[i] ? cols[i] : "",
                      present[i] ? "\"" : "");
    tp_buf_printf(&b, " FROM \"%s\"%s", table, tail ? tail : "");
    tp_buf_putc(&b, 0);
    rc = sqlite3_prepare_v2(c->db, b.data, -1, st, NULL);
    tp_buf_free(&b);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
        return tp_fail_at(c->err, table, "cannot read the table: %s", sqlite3_errmsg(c->db));
    }
    return 0;
}

int ns_step(ns_ctx *c, sqlite3_stmt *st, const char *table)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        c->rows++;
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    if (rc == SQLITE_INTERRUPT)
        return tp_fail_at(c->err, table,
                          "the database needs more work than its size allows (%d SQLite steps per byte): "
                          "not a plain Nsight Systems export",
                          NS_STEPS_PER_BYTE);
    return tp_fail_at(c->err, table, "row %llu: %s", (unsigned long long)c->rows + 1, sqlite3_errmsg(c->db));
}

bool ns_int(ns_ctx *c, sqlite3_stmt *st, int col, int64_t *v)
{
    int ty = sqlite3_column_type(st, col);
    if (ty == SQLITE_INTEGER) {
        *v = sqlite3_column_int64(st, col);
        return true;
    }
    if (ty != SQLITE_NULL) /* the reader shares this with rocpd_read.c: the warning names the file's kind */
        tp_warn(c->t,
                strcmp(c->t->format, "rocpd") == 0 ? "rocpd: values of the wrong type (read as missing)"
                                                   : "nsys: values of the wrong type (read as missing)",
                1);
    return false;
}

tp_str ns_string(ns_ctx *c, int64_t id)
{
    uint32_t s = tp_i64map_get(&c->strings, id);
    if (s != TP_I64MAP_EMPTY)
        return s;
    tp_warn(c->t, "nsys: string ids not in StringIds", 1);
    char b[48];
    int n = snprintf(b, sizeof b, "[string id %lld]", (long long)id);
    return tp_intern(c->t, b, (size_t)n);
}

tp_str ns_intern_prefix(ns_ctx *c, tp_str s, size_t k)
{
    char *copy = tp_xmalloc(k + 1);
    memcpy(copy, tp_str_get(c->t, s), k);
    tp_str id = tp_intern(c->t, copy, k);
    free(copy);
    return id;
}

tp_str ns_text(ns_ctx *c, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) != SQLITE_TEXT)
        return 0;
    const char *s = (const char *)sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    return s && n > 0 ? tp_intern(c->t, s, (size_t)n) : 0;
}

uint32_t ns_host_track(ns_ctx *c, int64_t gid)
{
    if (c->last_track != TP_NONE && gid == c->last_gid)
        return c->last_track;
    int64_t pid = ns_gid_pid(gid), tid = ns_gid_tid(gid);
    uint32_t p = tp_process_get(c->t, pid);
    if (!c->t->processes[p].name) {
        uint32_t name = tp_i64map_get(&c->proc_names, pid);
        if (name != TP_I64MAP_EMPTY)
            c->t->processes[p].name = name;
    }
    uint32_t k = tp_track_get(c->t, p, tid);
    if (!c->t->tracks[k].name) {
        uint32_t name = tp_i64map_get(&c->thread_names, gid);
        if (name != TP_I64MAP_EMPTY)
            c->t->tracks[k].name = name;
    }
    c->last_gid = gid;
    c->last_track = k;
    return k;
}

/* Device processes take pids below any OS pid nsys records (the kernel's
 * idle task is 0, init is 1: neither launches kernels), as Kineto's do:
 * pid = the device's number. */
uint32_t ns_device_track(ns_ctx *c, int64_t device, int64_t context, int64_t stream)
{
    if (device < 0 || device > 0xFFFF)
        device = 0xFFFF;
    if (c->last_dev_track != TP_NONE && c->last_dev[0] == device && c->last_dev[1] == context &&
        c->last_dev[2] == stream)
        return c->last_dev_track;
    uint32_t p = tp_process_get(c->t, device);
    tp_process *pr = &c->t->processes[p];
    if (!pr->is_device) {
        pr->is_device = true;
        pr->device = (int32_t)device;
        char b[32];
        int n = snprintf(b, sizeof b, "GPU %lld", (long long)device);
        pr->name = tp_intern(c->t, b, (size_t)n);
    }
    /* Two contexts (two processes) on one GPU may each have a stream 7:
     * the second one's stream gets a tid of its own */
    int64_t key = (device << 32) | (stream & 0xFFFFFFFF);
    uint32_t owner = tp_i64map_get(&c->stream_ctx, key);
    /* the context's low half as the map's value, which may not be the map's
     * free mark: context -1 (0xFFFFFFFF) was never stored, so a second
     * context's stream N took the same track */
    uint32_t ctx32 = (uint32_t)context == TP_I64MAP_EMPTY ? TP_I64MAP_EMPTY - 1 : (uint32_t)context;
    int64_t tid = stream;
    if (owner == TP_I64MAP_EMPTY)
        tp_i64map_put(&c->stream_ctx, key, ctx32);
    else if (owner != ctx32)
        tid = (int64_t)((uint64_t)context << 32) | (stream & 0xFFFFFFFF);
    uint32_t k = tp_track_get(c->t, p, tid);
    if (!c->t->tracks[k].name) {
        char b[64];
        int n = tid == stream ? snprintf(b, sizeof b, "stream %lld", (long long)stream)
                              : snprintf(b, sizeof b, "stream %lld (context %lld)", (long long)stream,
                                         (long long)context);
        c->t->tracks[k].name = tp_intern(c->t, b, (size_t)n);
        c->t->tracks[k].role = TP_TRACK_DEVICE;
    }
    c->last_dev[0] = device;
    c->last_dev[1] = context;
    c->last_dev[2] = stream;
    c->last_dev_track = k;
    return k;
}

static int read_strings(ns_ctx *c)
{
    static const char *const cols[] = {"id", "value"};
    bool have[2];
    sqlite3_stmt *st;
    if (ns_select(c, "StringIds", cols, 2, NULL, &st, have) < 0)
        return -1;
    int rc;
    while ((rc = ns_step(c, st, "StringIds")) == 1) {
        int64_t id;
        if (!ns_int(c, st, 0, &id)) {
            tp_warn(c->t, "nsys: StringIds rows without an integer id (not read)", 1);
            continue;
        }
        tp_str s = ns_text(c, st, 1);
        tp_i64map_put(&c->strings, id, s);
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_names(ns_ctx *c)
{
    static const char *const pcols[] = {"pid", "name"};
    static const char *const tcols[] = {"globalTid", "nameId"};
    bool have[2];
    sqlite3_stmt *st;
    int rc = 0;
    if (ns_select(c, "PROCESSES", pcols, 2, NULL, &st, have) < 0)
        return -1;
    while (st && (rc = ns_step(c, st, "PROCESSES")) == 1) {
        int64_t pid;
        tp_str name = ns_text(c, st, 1);
        if (ns_int(c, st, 0, &pid) && name)
            tp_i64map_put(&c->proc_names, pid, name);
    }
    sqlite3_finalize(st);
    if (rc < 0 || ns_select(c, "ThreadNames", tcols, 2, NULL, &st, have) < 0)
        return -1;
    while (st && (rc = ns_step(c, st, "ThreadNames")) == 1) {
        int64_t gid, id;
        if (ns_int(c, st, 0, &gid) && ns_int(c, st, 1, &id))
            tp_i64map_put(&c->thread_names, gid, ns_string(c, id));
    }
    sqlite3_finalize(st);
    return rc;
}

/* TARGET_INFO_GPU: the device table the roofline matches (name, memory,
 * SMs, compute capability, memory bandwidth); clockRate is read where
 * present but not used (the roofline's peaks come from its device table). */
static int read_gpus(ns_ctx *c)
{
    static const char *const cols[] = {"id",      "name",         "totalMemory",  "smCount",
                                       "computeMajor", "computeMinor", "memoryBandwidth", "clockRate"};
    bool have[8];
    sqlite3_stmt *st;
    if (ns_select(c, "TARGET_INFO_GPU", cols, 8, " ORDER BY id", &st, have) < 0)
        return -1;
    int rc = 0;
    while (st && (rc = ns_step(c, st, "TARGET_INFO_GPU")) == 1) {
        tp_device_info d = {0};
        int64_t v;
        d.id = ns_int(c, st, 0, &v) ? v : -1;
        d.name = ns_text(c, st, 1);
        d.vendor = tp_intern_cstr(c->t, "Nvidia");
        if (ns_int(c, st, 2, &v) && v > 0)
            d.memory_bytes = v;
        if (ns_int(c, st, 3, &v) && v > 0 && v < INT32_MAX)
            d.cores = (int32_t)v;
        if (ns_int(c, st, 4, &v) && v >= 0 && v < 100)
            d.cc_major = (int32_t)v;
        if (ns_int(c, st, 5, &v) && v >= 0 && v < 100)
            d.cc_minor = (int32_t)v;
        if (ns_int(c, st, 6, &v) && v > 0)
            d.peak_mem_gbps = (double)v / 1e9; /* bytes per second */
        tp_devinfo_add(c->t, &d);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The exporter's schema version: META_DATA_EXPORT (2023+) or
 * EXPORT_META_DATA (older); exports before either have none. */
static int read_version(ns_ctx *c)
{
    static const char *const cols[] = {"name", "value"};
    const char *tables[] = {"META_DATA_EXPORT", "EXPORT_META_DATA"};
    for (int k = 0; k < 2; k++) {
        bool have[2];
        sqlite3_stmt *st;
        if (ns_select(c, tables[k], cols, 2, NULL, &st, have) < 0)
            return -1;
        if (!st)
            continue;
        int rc;
        while ((rc = ns_step(c, st, tables[k])) == 1) {
            const char *n = (const char *)sqlite3_column_text(st, 0);
            const char *v = (const char *)sqlite3_column_text(st, 1);
            if (n && v && strcmp(n, "EXPORT_SCHEMA_VERSION_MAJOR") == 0)
                c->schema_major = atoi(v);
            if (n && v && strcmp(n, "EXPORT_SCHEMA_VERSION_MINOR") == 0)
                c->schema_minor = atoi(v);
        }
        sqlite3_finalize(st);
        return rc;
    }
    tp_warn(c->t, "nsys: export without a schema version (an exporter before 2021)", 1);
    return 0;
}

static int read_session_start(ns_ctx *c)
{
    static const char *const cols[] = {"utcEpochNs"};
    bool have[1];
    sqlite3_stmt *st;
    if (ns_select(c, "TARGET_INFO_SESSION_START_TIME", cols, 1, " LIMIT 1", &st, have) < 0)
        return -1;
    int rc = 0;
    int64_t v;
    if (st && (rc = ns_step(c, st, "TARGET_INFO_SESSION_START_TIME")) == 1 && ns_int(c, st, 0, &v) && v > 0)
        c->t->base_ns = v;
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* A rocpd database (rocprofv3's default output): its tables carry the
 * session's uuid ("rocpd_string_<uuid>") and its plain names are views over
 * them (rocprofiler-sdk's rocpd_tables.sql and rocpd_views.sql), so the
 * schema is searched by prefix and for any type. */
static bool is_rocpd(ns_ctx *c)
{
    sqlite3_stmt *st = NULL;
    bool yes = false;
    if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM sqlite_master WHERE name LIKE 'rocpd\\_%' ESCAPE '\\' LIMIT 1", -1,
                           &st, NULL) == SQLITE_OK)
        yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

typedef struct work_budget {
    uint64_t left;
} work_budget;

/* Called every 1000 VM instructions: a bound on the work per input byte. */
static int out_of_budget(void *p)
{
    work_budget *b = p;
    if (b->left == 0)
        return 1;
    b->left--;
    return 0;
}

/* "file:" URI of a path: the characters a URI gives meaning escaped */
static char *file_uri(const char *path)
{
    tp_buf b = {0};
    /* an absolute path after an empty authority ("file://" + "/x"): "file:"
     * + "//tmp/x" named the authority "tmp" (an error) */
    tp_buf_puts(&b, path[0] == '/' ? "file://" : "file:");
    for (const char *p = path; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '%' || ch == '?' || ch == '#' || ch < 0x21 || ch >= 0x7F)
            tp_buf_printf(&b, "%%%02X", ch);
        else
            tp_buf_putc(&b, (char)ch);
    }
    tp_buf_puts(&b, "?immutable=1");
    tp_buf_putc(&b, 0);
    return b.data;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A database cut short reads without an error: SQLite takes the pages past
 * the file's end as zeros (rows lost or read as zeros, or "not an export"
 * when sqlite_master's pages are gone).  So the file must hold every page
 * its header counts (the count is valid when the header's version-valid-for
 * equals its change counter, as a writer since 2010 keeps it) and whole
 * pages. */
static int check_whole(ns_ctx *c, const unsigned char *h, size_t n, uint64_t size)
{
    if (n < 100)
        return tp_fail(c->err, size, "the SQLite header ends early (truncated file?)");
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || (page & (page - 1)))
        return tp_fail(c->err, 16, "not a valid SQLite header (page size %u)", page);
    uint64_t pages = be32(h + 28);
    if (pages && be32(h + 92) == be32(h + 24) && size < pages * page)
        return tp_fail(c->err, size,
                       "the database is cut short: its header counts %llu pages of %u bytes, the file holds %llu "
                       "bytes (truncated file?)",
                       (unsigned long long)pages, page, (unsigned long long)size);
    if (size % page)
        return tp_fail(c->err, size, "the file is not a whole number of %u-byte pages (truncated file?)", page);
    return 0;
}

/* Open the database: a plain file in place (read-only, immutable), or a
 * gzip or piped one read into memory (read-only). */
static int open_db(ns_ctx *c, tp_input *in, char **mem, uint64_t *size)
{
    const char *path = tp_input_path(in);
    int rc;
    if (tp_input_seekable(in) && strcmp(path, "-") != 0) {
        unsigned char head[100];
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(head, 1, sizeof head, f) : 0;
        if (f)
            fclose(f);
        *size = tp_input_compressed_size(in);
        if (check_whole(c, head, n, *size) < 0)
            return -1;
        char *uri = file_uri(path);
        rc = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
        free(uri);
    } else {
        size_t len = 0;
        *mem = tp_input_slurp(in, &len, NS_MAX_SLURP, c->err);
        if (!*mem)
            return -1;
        *size = len;
        if (check_whole(c, (const unsigned char *)*mem, len < 100 ? len : 100, len) < 0)
            return -1;
        /* a database last written in WAL mode (header bytes 18, 19 = 2) cannot
         * be read from memory: read as the rollback-journal file it also is
         * (this copy only; its -wal, as for a plain file, is not read) */
        if (len >= 20 && (*mem)[18] == 2 && (*mem)[19] == 2)
            (*mem)[18] = (*mem)[19] = 1;
        rc = sqlite3_open_v2(":memory:", &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_deserialize(c->db, "main", (unsigned char *)*mem, (sqlite3_int64)len, (sqlite3_int64)len,
                                     SQLITE_DESERIALIZE_READONLY);
    }
    if (rc != SQLITE_OK)
        return tp_fail(c->err, 0, "cannot open the SQLite database: %s",
                       c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
    sqlite3_db_config(c->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(c->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite3_db_config(c->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
    sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, NS_MAX_VALUE_BYTES);
    sqlite3_limit(c->db, SQLITE_LIMIT_ATTACHED, 0);
    return 0;
}

/* --strict: the lenient repairs (rows dropped, values of the wrong type,
 * names not in StringIds) become the error they are. */
static int strict_check(tp_trace *t, tp_err *err)
{
    const tp_warning *lists[2] = {t->drops, t->warnings};
    size_t counts[2] = {t->ndrops, t->nwarnings};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const char *w = lists[l][i].what;
            if (strncmp(w, "nsys: rows", 10) == 0 || strncmp(w, "nsys: values", 12) == 0 ||
                strncmp(w, "nsys: string ids", 16) == 0 || strncmp(w, "nsys: StringIds", 15) == 0 ||
                strncmp(w, "rocpd: rows", 11) == 0 || strncmp(w, "rocpd: string ids", 17) == 0 ||
                strncmp(w, "rocpd: values", 13) == 0 ||
                strncmp(w, "rocpd: kernel ids", 17) == 0)
                return tp_fail(err, 0, "%s: %llu (rejected by --strict)", w, (unsigned long long)lists[l][i].count);
        }
    return 0;
}

static const char *const nsys_tables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY", "NVTX_EVENTS",
    "TARGET_INFO_GPU", "META_DATA_EXPORT", "EXPORT_META_DATA", "OSRT_API", "TARGET_INFO_SESSION_START_TIME",
};

static int nsys_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    ns_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.o = o;
    c.err = err;
    c.last_track = TP_NONE;
    c.last_dev_track = TP_NONE;
    c.last_api = TP_NONE;
    t->format = "nsys";
    t->strict = o->strict;
    t->keep_args = o->keep_args;
    char *mem = NULL;
    uint64_t size = 0;
    work_budget budget = {0};
    bool rocpd = false; /* rocprofv3's database: rocpd_read.c */
    int rc = open_db(&c, in, &mem, &size);
    if (rc == 0) {
        budget.left = (NS_STEPS_BASE + size * NS_STEPS_PER_BYTE) / 1000;
        sqlite3_progress_handler(c.db, 1000, out_of_budget, &budget);
        /* the schema must read (not "not an export" for a database SQLite refuses) */
        sqlite3_stmt *schema = NULL;
        int src = sqlite3_prepare_v2(c.db, "SELECT count(*) FROM sqlite_master", -1, &schema, NULL);
        if (src == SQLITE_OK)
            src = sqlite3_step(schema);
        if (src != SQLITE_ROW)
            rc = tp_fail(err, 0, "cannot read the SQLite database's schema: %s", sqlite3_errmsg(c.db));
        sqlite3_finalize(schema);
    }
    if (rc == 0) {
        /* a -wal beside the file holds changes the database does not have
         * yet: not read (immutable), said */
        if (!mem) {
            char wal[4096];
            struct stat sb;
            if ((size_t)snprintf(wal, sizeof wal, "%s-wal", tp_input_path(in)) < sizeof wal && stat(wal, &sb) == 0 &&
                sb.st_size > 0)
                tp_warn(t, "nsys: a -wal file beside the export (changes not in the database file; not read)", 1);
            /* a rollback journal beside it: a write that never finished (the
             * profiler killed mid-export): the file may hold half of it */
            if ((size_t)snprintf(wal, sizeof wal, "%s-journal", tp_input_path(in)) < sizeof wal &&
                stat(wal, &sb) == 0 && sb.st_size > 0)
                tp_warn(t, "nsys: a -journal file beside the database (a write that never finished: it may be "
                           "inconsistent; the journal not read)", 1);
        }
        /* the header only says SQLite: an export has StringIds and its own tables */
        int known = 0;
        for (size_t i = 0; i < sizeof nsys_tables / sizeof nsys_tables[0]; i++)
            known += ns_has_table(&c, nsys_tables[i]);
        if (!ns_has_table(&c, "StringIds") || !known) {
            if (is_rocpd(&c))
                rocpd = true;
            else
                rc = tp_fail(err, 0, "an SQLite database, but not an Nsight Systems export or a rocpd database "
                                     "(no StringIds and CUPTI_/NVTX_/TARGET_INFO_ tables, no rocpd_ tables)");
        }
    }
    if (rc == 0 && rocpd) {
        c.cat_kernel = tp_intern_cstr(t, "kernel");
        c.cat_memcpy = tp_intern_cstr(t, "gpu_memcpy");
        c.cat_runtime = tp_intern_cstr(t, "cuda_runtime");
        c.cat_driver = tp_intern_cstr(t, "cuda_driver");
        c.cat_nvtx = tp_intern_cstr(t, "user_annotation");
        rc = rocpd_read_tables(&c);
    } else if (rc == 0) {
        c.cat_kernel = tp_intern_cstr(t, "kernel");
        c.cat_memcpy = tp_intern_cstr(t, "gpu_memcpy");
        c.cat_memset = tp_intern_cstr(t, "gpu_memset");
        c.cat_runtime = tp_intern_cstr(t, "cuda_runtime");
        c.cat_driver = tp_intern_cstr(t, "cuda_driver");
        c.cat_nvtx = tp_intern_cstr(t, "user_annotation");
        c.cat_osrt = tp_intern_cstr(t, "os_runtime");
        c.cat_mpi = tp_intern_cstr(t, "mpi");
        rc = read_version(&c);
    }
    if (rc == 0 && !rocpd)
        rc = read_session_start(&c);
    if (rc == 0 && !rocpd)
        rc = read_strings(&c);
    if (rc == 0 && !rocpd)
        rc = read_names(&c);
    if (rc == 0 && !rocpd)
        rc = read_gpus(&c);
    if (rc == 0 && !rocpd)
        rc = ns_read_tables(&c);
    if (rc == 0 && o->strict)
        rc = strict_check(t, err);
    if (c.db)
        sqlite3_close_v2(c.db);
    free(mem);
    tp_i64map_free(&c.strings);
    tp_i64map_free(&c.proc_names);
    tp_i64map_free(&c.thread_names);
    tp_i64map_free(&c.api_names);
    ns_launch_free(&c.launches);
    tp_i64map_free(&c.stream_ctx);
    tp_i64map_free(&c.agents);
    tp_i64map_free(&c.kernel_names);
    tp_argb_free(&c.ab);
    free(c.host_kept);
    return rc < 0 ? -1 : 0;
}

const tp_format tp_format_nsys = {
    .name = "nsys",
    .description = "Nsight Systems SQLite export (nsys export --type sqlite): CUDA kernels, copies, API calls, NVTX",
    .extensions = "*.sqlite",
    .probe = nsys_probe,
    .read = nsys_read,
    .caps = 0,
    .options = NULL,
};

/* rocpd shares the reader: the tables tell the two databases apart, so
 * either name reads either file.  Its probe ranks under nsys's: the
 * header alone cannot tell them apart. */
static int rocpd_probe(const unsigned char *head, size_t n, const char *path)
{
    return nsys_probe(head, n, path) ? 79 : 0;
}

const tp_format tp_format_rocpd = {
    .name = "rocpd",
    .description = "rocprofv3 rocpd SQLite database (schema 3): kernel dispatches, memory copies, HIP/HSA calls, "
                   "ROCTx ranges",
    .extensions = "*.db",
    .probe = rocpd_probe,
    .read = nsys_read,
    .caps = 0,
    .options = NULL,
};
