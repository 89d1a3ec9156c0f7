/* rocpd_read.c: a rocpd database, rocprofv3's default output (rocprofiler-sdk
 * "rocpd" schema version 3), read through the Nsight Systems reader's
 * hardened connection (nsys_read.c: read-only, immutable, views and triggers
 * off, a work budget per byte).
 *
 * rocprofv3 writes its data into tables named with the session's uuid
 * ("rocpd_region_<uuid>") and the plain names ("rocpd_region") are views
 * over them.  Views are off here (a view runs the file's SQL), so the
 * tables are found by name: every "rocpd_string<suffix>" names one set of
 * tables (a merged database may hold several), each read with joins on the
 * INTEGER PRIMARY KEY ids the schema documents (a row lookup each: the work
 * stays bounded per row).  No real rocpd database was available to check
 * this reader: it follows the documented CREATE statements
 * (docs/formats/rocpd.md says which columns it reads). */
#include "convert/read/nsys/nsys.h"
#include "convert/read/vendor_names.h"

#include <stdio.h>
#include <string.h>

#define RP_MAX_SETS 64 /* table sets (uuids) in one database before it is refused */

/* "SELECT ..." with the set's suffix pasted after every table name ("%s"
 * in the text); the suffix holds only [A-Za-z0-9_] (checked), so it cannot
 * end the quoted name. */
static int prepare(ns_ctx *c, const char *sfx, const char *fmt, int nsfx, sqlite3_stmt **st, const char *what)
{
    char q[2048];
    const char *s[6] = {sfx, sfx, sfx, sfx, sfx, sfx};
    int n = nsfx <= 6 ? snprintf(q, sizeof q, fmt, s[0], s[1], s[2], s[3], s[4], s[5]) : -1;
    *st = NULL;
    if (n < 0 || (size_t)n >= sizeof q)
        return tp_fail_at(c->err, what, "table names too long");
    if (sqlite3_prepare_v2(c->db, q, -1, st, NULL) != SQLITE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
        return tp_fail_at(c->err, what, "not the rocpd schema this reader knows (version 3): %s",
                          sqlite3_errmsg(c->db));
    }
    return 0;
}

static bool has(ns_ctx *c, const char *base, const char *sfx)
{
    char name[160];
    if ((size_t)snprintf(name, sizeof name, "%s%s", base, sfx) >= sizeof name)
        return false;
    return ns_has_table(c, name) == 1;
}

static int read_strings(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx, "SELECT id, string FROM \"rocpd_string%s\"", 1, &st, "rocpd_string") < 0)
        return -1;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_string")) == 1) {
        int64_t id;
        if (ns_int(c, st, 0, &id))
            tp_i64map_put(&c->strings, id, ns_text(c, st, 1));
    }
    sqlite3_finalize(st);
    return rc;
}

/* Processes and threads: their rows' ids are what the activity tables hold
 * (pid and tid columns are ids of these rows, not OS ids). */
static int read_processes(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    tp_trace *t = c->t;
    if (prepare(c, sfx, "SELECT id, pid, command FROM \"rocpd_info_process%s\"", 1, &st, "rocpd_info_process") < 0)
        return -1;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_info_process")) == 1) {
        int64_t id, pid;
        if (!ns_int(c, st, 0, &id) || !ns_int(c, st, 1, &pid) || pid < 0 || pid > UINT32_MAX - 2)
            continue;
        tp_i64map_put(&c->proc_names, id, (uint32_t)pid);
        uint32_t p = tp_process_get(t, pid);
        tp_str name = ns_text(c, st, 2);
        if (name && !t->processes[p].name) {
            /* the command line's program, as a process name */
            const char *s = tp_str_get(t, name);
            size_t n = tp_str_len(t, name), k = 0;
            while (k < n && s[k] != ' ')
                k++;
            t->processes[p].name = ns_intern_prefix(c, name, k); /* s may move while interning */
        }
    }
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    if (prepare(c, sfx,
                "SELECT T.id, P.pid, T.tid, T.name FROM \"rocpd_info_thread%s\" T"
                " LEFT JOIN \"rocpd_info_process%s\" P ON P.id = T.pid",
                2, &st, "rocpd_info_thread") < 0)
        return -1;
    while ((rc = ns_step(c, st, "rocpd_info_thread")) == 1) {
        int64_t id, pid, tid;
        if (!ns_int(c, st, 0, &id) || !ns_int(c, st, 1, &pid) || !ns_int(c, st, 2, &tid))
            continue;
        uint32_t k = tp_track_get(t, tp_process_get(t, pid), tid);
        tp_str name = ns_text(c, st, 3);
        if (name && !t->tracks[k].name)
            t->tracks[k].name = name;
        tp_i64map_put(&c->thread_names, id, k); /* thread row -> its track */
    }
    sqlite3_finalize(st);
    return rc;
}

/* GPU agents: the device number is the agent's index among GPUs
 * (type_index, as rocprofv3's JSON gpu_index), else its logical index. */
static int read_agents(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx,
                "SELECT id, type, type_index, logical_index, product_name, name, vendor_name,"
                " CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.cu_count') END"
                " FROM \"rocpd_info_agent%s\" ORDER BY id",
                1, &st, "rocpd_info_agent") < 0)
        return -1;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_info_agent")) == 1) {
        int64_t id, dev, v;
        const char *type = (const char *)sqlite3_column_text(st, 1);
        if (!ns_int(c, st, 0, &id) || !type || strcmp(type, "GPU") != 0)
            continue; /* CPU agents run no kernels */
        if (!ns_int(c, st, 2, &dev) && !ns_int(c, st, 3, &dev))
            dev = (int64_t)c->agents.n;
        if (dev < 0 || dev > 0xFFFF)
            dev = 0xFFFF;
        bool described = false;
        for (uint32_t i = 0; i < c->t->ndevinfo; i++)
            described |= c->t->devinfo[i].id == dev;
        tp_i64map_put(&c->agents, id, (uint32_t)dev);
        if (described) /* a second process on the same GPU */
            continue;
        tp_device_info d = {0};
        d.id = dev;
        d.name = ns_text(c, st, 4);
        if (!d.name)
            d.name = ns_text(c, st, 5);
        d.vendor = ns_text(c, st, 6);
        if (ns_int(c, st, 7, &v) && v > 0 && v < INT32_MAX)
            d.cores = (int32_t)v;
        tp_devinfo_add(c->t, &d);
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_symbols(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx, "SELECT id, display_name, kernel_name FROM \"rocpd_info_kernel_symbol%s\"", 1, &st,
                "rocpd_info_kernel_symbol") < 0)
        return -1;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_info_kernel_symbol")) == 1) {
        int64_t id;
        tp_str name = ns_text(c, st, 1);
        if (!name)
            name = ns_text(c, st, 2);
        if (ns_int(c, st, 0, &id) && name)
            tp_i64map_put(&c->kernel_names, id, name);
    }
    sqlite3_finalize(st);
    return rc;
}

static bool row_times(ns_ctx *c, sqlite3_stmt *st, tp_event *e)
{
    return ns_row_times(c, st, e, "rocpd: rows without a valid start and end",
                        "rocpd: rows without a valid start and end (dropped)");
}

static tp_str string_of(ns_ctx *c, sqlite3_stmt *st, int col, const char *none)
{
    int64_t id;
    if (ns_int(c, st, col, &id)) {
        uint32_t s = tp_i64map_get(&c->strings, id);
        if (s != TP_I64MAP_EMPTY && s)
            return s;
        tp_warn(c->t, "rocpd: string ids not in rocpd_string", 1);
    }
    return tp_intern_cstr(c->t, none);
}

/* The host track of a region: its thread row, else (pid row, OS tid 0). */
static uint32_t host_track(ns_ctx *c, sqlite3_stmt *st, int tid_col, int pid_col)
{
    int64_t tid, pid;
    uint32_t k = ns_int(c, st, tid_col, &tid) ? tp_i64map_get(&c->thread_names, tid) : TP_I64MAP_EMPTY;
    if (k != TP_I64MAP_EMPTY)
        return k;
    tp_warn(c->t, "rocpd: regions whose thread is not in rocpd_info_thread", 1);
    uint32_t p = ns_int(c, st, pid_col, &pid) ? tp_i64map_get(&c->proc_names, pid) : TP_I64MAP_EMPTY;
    return tp_track_get(c->t, tp_process_get(c->t, p == TP_I64MAP_EMPTY ? 0 : p), 0);
}

/* launch key: the process row and the correlation id (ids are per process) */
static int64_t launch_key(ns_ctx *c, sqlite3_stmt *st, int pid_col, int corr_col, int64_t *corr)
{
    int64_t pid = 0;
    if (!ns_int(c, st, corr_col, corr) || *corr <= 0 || *corr > UINT32_MAX)
        return -1;
    ns_int(c, st, pid_col, &pid);
    return (int64_t)((uint64_t)(pid & 0x3FFFFFFF) << 32) | *corr;
}

/* Regions: HIP/HSA/RCCL API calls (launches), ROCTx ranges (annotations,
 * steps when named like steps), other categories as plain slices. */
static int read_regions(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx,
                "SELECT R.start, R.\"end\", R.tid, R.pid, R.name_id, E.correlation_id, E.category_id"
                " FROM \"rocpd_region%s\" R LEFT JOIN \"rocpd_event%s\" E ON E.id = R.event_id",
                2, &st, "rocpd_region") < 0)
        return -1;
    tp_trace *t = c->t;
    tp_str last_cat_id = TP_NONE, cat = 0;
    tp_kind kind = TP_KIND_OTHER;
    bool marker = false;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_region")) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        e.track = host_track(c, st, 2, 3);
        e.name = string_of(c, st, 4, "[unnamed region]");
        tp_str cat_name = string_of(c, st, 6, "rocpd_region");
        if (cat_name != last_cat_id) { /* the category's class, once per run of one category */
            const char *s = tp_str_get(t, cat_name);
            last_cat_id = cat_name;
            marker = strncmp(s, "MARKER", 6) == 0;
            kind = marker ? TP_KIND_ANNOTATION
                   : strncmp(s, "HIP", 3) == 0 || strncmp(s, "RCCL", 4) == 0 || strncmp(s, "HSA", 3) == 0
                       ? TP_KIND_RUNTIME
                       : TP_KIND_OTHER;
            cat = marker                          ? c->cat_nvtx
                  : strncmp(s, "HSA", 3) == 0     ? c->cat_driver
                  : kind == TP_KIND_RUNTIME       ? c->cat_runtime
                                                  : cat_name;
        }
        e.kind = (uint8_t)kind;
        e.cat = cat;
        if (marker) {
            int64_t step = tp_vendor_step_number(tp_str_get(t, e.name), tp_str_len(t, e.name));
            if (step >= 0) {
                e.flags |= TP_EV_STEP;
                e.id = (uint64_t)step;
            }
        }
        int64_t corr = -1, key = launch_key(c, st, 3, 5, &corr);
        if (t->keep_args && corr > 0) {
            tp_argb_reset(&c->ab);
            tp_argb_int(&c->ab, "correlation", corr);
            e.args = tp_argb_commit(t, &c->ab);
        }
        if (c->o->device_only) { /* no links: that the launch is there is all the device rows ask (a warning) */
            if (key >= 0 && kind == TP_KIND_RUNTIME && ns_launch_get(&c->launches, key) == TP_I64MAP_EMPTY)
                ns_launch_put(&c->launches, key, 0);
            if (ns_keep_host(c, &e))
                tp_event_add(t, &e);
            continue;
        }
        uint32_t ev = tp_event_add(t, &e);
        if (key >= 0 && kind == TP_KIND_RUNTIME) {
            /* of calls sharing an id, a HIP (or RCCL) call before an HSA call inside it
             * (the call the user made, as hipLaunchKernel in Kineto's traces), then the
             * innermost */
            uint32_t old = ns_launch_get(&c->launches, key);
            bool hsa = cat == c->cat_driver, old_hsa = old != TP_I64MAP_EMPTY && t->events[old].cat == c->cat_driver;
            if (old == TP_I64MAP_EMPTY || (old_hsa && !hsa) ||
                (old_hsa == hsa && t->events[ev].dur < t->events[old].dur))
                ns_launch_put(&c->launches, key, ev);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* A device track: process "GPU n", a track per HIP stream (stream ids > 0),
 * else per queue; copies without either on a "memory copies" track. */
static uint32_t device_track(ns_ctx *c, int64_t agent, int64_t stream, int64_t queue)
{
    uint32_t dev = tp_i64map_get(&c->agents, agent);
    if (dev == TP_I64MAP_EMPTY) {
        tp_warn(c->t, "rocpd: device rows of agents that are not GPUs in rocpd_info_agent", 1);
        dev = 0xFFFF;
    }
    uint32_t p = tp_process_get(c->t, dev);
    tp_process *pr = &c->t->processes[p];
    char b[48];
    if (!pr->is_device) {
        pr->is_device = true;
        pr->device = (int32_t)dev;
        int n = snprintf(b, sizeof b, "GPU %u", dev);
        pr->name = tp_intern(c->t, b, (size_t)n);
    }
    int64_t tid = stream > 0 ? stream : queue > 0 ? (INT64_C(1) << 31) | queue : INT64_C(1) << 30;
    uint32_t k = tp_track_get(c->t, p, tid);
    if (!c->t->tracks[k].name) {
        int n = stream > 0  ? snprintf(b, sizeof b, "stream %lld", (long long)stream)
                : queue > 0 ? snprintf(b, sizeof b, "queue %lld", (long long)queue)
                            : snprintf(b, sizeof b, "memory copies");
        c->t->tracks[k].name = tp_intern(c->t, b, (size_t)n);
        c->t->tracks[k].role = TP_TRACK_DEVICE;
    }
    return k;
}

static void link_launch(ns_ctx *c, sqlite3_stmt *st, tp_event *e, int pid_col, int corr_col)
{
    int64_t corr, key = launch_key(c, st, pid_col, corr_col, &corr);
    uint32_t l = key >= 0 ? ns_launch_get(&c->launches, key) : TP_I64MAP_EMPTY;
    if (l != TP_I64MAP_EMPTY)
        e->link = c->o->device_only ? TP_NONE : l; /* device_only: the map says only that it is there */
    else
        tp_warn(c->t, "rocpd: device activity whose launch call is not in the database", 1);
}

static int read_dispatches(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx,
                "SELECT D.start, D.\"end\", D.pid, D.agent_id, D.kernel_id, D.queue_id, D.stream_id,"
                " E.correlation_id, D.dispatch_id, D.grid_size_x, D.grid_size_y, D.grid_size_z,"
                " D.workgroup_size_x, D.workgroup_size_y, D.workgroup_size_z, D.group_segment_size,"
                " D.private_segment_size"
                " FROM \"rocpd_kernel_dispatch%s\" D LEFT JOIN \"rocpd_event%s\" E ON E.id = D.event_id",
                2, &st, "rocpd_kernel_dispatch") < 0)
        return -1;
    tp_trace *t = c->t;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_kernel_dispatch")) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        int64_t agent = -1, kid = -1, queue = 0, stream = 0, v[8];
        ns_int(c, st, 3, &agent);
        ns_int(c, st, 5, &queue);
        ns_int(c, st, 6, &stream);
        e.track = device_track(c, agent, stream, queue);
        e.kind = TP_KIND_KERNEL;
        e.cat = c->cat_kernel;
        uint32_t name = ns_int(c, st, 4, &kid) ? tp_i64map_get(&c->kernel_names, kid) : TP_I64MAP_EMPTY;
        if (name == TP_I64MAP_EMPTY) {
            char b[48];
            int n = snprintf(b, sizeof b, "[kernel id %lld]", (long long)kid);
            name = tp_intern(t, b, (size_t)n);
            tp_warn(t, "rocpd: kernel ids not in rocpd_info_kernel_symbol", 1);
        }
        e.name = name;
        link_launch(c, st, &e, 2, 7);
        if (t->keep_args) {
            tp_argb_reset(&c->ab);
            if (stream > 0)
                tp_argb_int(&c->ab, "stream", stream);
            tp_argb_int(&c->ab, "queue", queue);
            if (ns_int(c, st, 7, &v[0]))
                tp_argb_int(&c->ab, "correlation", v[0]);
            if (ns_int(c, st, 8, &v[0]))
                tp_argb_int(&c->ab, "dispatch", v[0]);
            ns_dims(c, st, 9, "grid", "workgroup");
            if (ns_int(c, st, 15, &v[6]))
                tp_argb_int(&c->ab, "LDS bytes", v[6]);
            if (ns_int(c, st, 16, &v[7]))
                tp_argb_int(&c->ab, "scratch bytes", v[7]);
            e.args = tp_argb_commit(t, &c->ab);
        }
        tp_event_add(t, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_copies(ns_ctx *c, const char *sfx)
{
    sqlite3_stmt *st;
    if (prepare(c, sfx,
                "SELECT M.start, M.\"end\", M.pid, M.dst_agent_id, M.src_agent_id, M.queue_id, M.stream_id,"
                " E.correlation_id, M.name_id, M.size"
                " FROM \"rocpd_memory_copy%s\" M LEFT JOIN \"rocpd_event%s\" E ON E.id = M.event_id",
                2, &st, "rocpd_memory_copy") < 0)
        return -1;
    tp_trace *t = c->t;
    int rc;
    while ((rc = ns_step(c, st, "rocpd_memory_copy")) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        int64_t dst = -1, src = -1, queue = 0, stream = 0, bytes;
        ns_int(c, st, 3, &dst);
        ns_int(c, st, 4, &src);
        ns_int(c, st, 5, &queue);
        ns_int(c, st, 6, &stream);
        int64_t agent = tp_i64map_get(&c->agents, dst) != TP_I64MAP_EMPTY ? dst : src; /* the GPU end */
        e.track = device_track(c, agent, stream, 0);
        e.kind = TP_KIND_MEMCPY;
        e.cat = c->cat_memcpy;
        e.name = string_of(c, st, 8, "[memory copy]");
        link_launch(c, st, &e, 2, 7);
        if (t->keep_args) {
            tp_argb_reset(&c->ab);
            if (ns_int(c, st, 9, &bytes))
                tp_argb_int(&c->ab, "bytes", bytes);
            if (ns_int(c, st, 9, &bytes) && e.dur > 0) /* bytes per ns = GB/s, to 3 decimals */
                tp_argb_fixed(&c->ab, "memory bandwidth (GB/s)",
                              (int64_t)((double)bytes * 1000.0 / (double)e.dur + 0.5), 3);
            e.args = tp_argb_commit(t, &c->ab);
        }
        tp_event_add(t, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Tables of activity not read: their rows counted in a notice. */
static int count_unread(ns_ctx *c, const char *sfx)
{
    static const char *const unread[] = {"rocpd_memory_allocate", "rocpd_sample", "rocpd_pmc_event"};
    for (size_t i = 0; i < sizeof unread / sizeof unread[0]; i++)
        if (has(c, unread[i], sfx) && ns_count_unread(c, "rocpd", unread[i], sfx) < 0)
            return -1;
    return 0;
}

/* The schema version rocpd_metadata records: another than 3 is read as far
 * as its columns are the documented ones, and said. */
static int check_version(ns_ctx *c, const char *sfx)
{
    if (!has(c, "rocpd_metadata", sfx))
        return 0;
    sqlite3_stmt *st;
    if (prepare(c, sfx, "SELECT value FROM \"rocpd_metadata%s\" WHERE tag = 'schema_version'", 1, &st,
                "rocpd_metadata") < 0)
        return -1;
    int rc = ns_step(c, st, "rocpd_metadata");
    const char *v = rc == 1 ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (v && strcmp(v, "3") != 0)
        tp_warn(c->t, "rocpd: a schema version other than 3 (read as version 3)", 1);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

static int read_set(ns_ctx *c, const char *sfx)
{
    static const char *const needed[] = {"rocpd_string", "rocpd_info_process", "rocpd_info_thread",
                                         "rocpd_info_agent", "rocpd_event"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!has(c, needed[i], sfx))
            return tp_fail(c->err, 0, "a rocpd database without its table %s%s", needed[i], sfx);
    tp_i64map_clear(&c->strings);
    tp_i64map_clear(&c->proc_names);
    tp_i64map_clear(&c->thread_names);
    tp_i64map_clear(&c->agents);
    tp_i64map_clear(&c->kernel_names);
    ns_launch_clear(&c->launches);
    if (check_version(c, sfx) < 0 || read_strings(c, sfx) < 0 || read_processes(c, sfx) < 0 || read_agents(c, sfx) < 0)
        return -1;
    if (has(c, "rocpd_info_kernel_symbol", sfx) && read_symbols(c, sfx) < 0)
        return -1;
    /* API calls first: device rows find their launch among them */
    if (has(c, "rocpd_region", sfx) && read_regions(c, sfx) < 0)
        return -1;
    if (has(c, "rocpd_kernel_dispatch", sfx) && read_dispatches(c, sfx) < 0)
        return -1;
    if (has(c, "rocpd_memory_copy", sfx) && read_copies(c, sfx) < 0)
        return -1;
    return count_unread(c, sfx);
}

int rocpd_read_tables(ns_ctx *c)
{
    c->t->format = "rocpd";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT substr(name, 13) FROM sqlite_master WHERE type = 'table'"
                           " AND name LIKE 'rocpd\\_string%' ESCAPE '\\' ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return tp_fail(c->err, 0, "cannot read the SQLite database's schema: %s", sqlite3_errmsg(c->db));
    }
    char sets[RP_MAX_SETS][96];
    int nsets = 0, rc;
    while ((rc = ns_step(c, st, "sqlite_master")) == 1) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        size_t n = s ? strlen(s) : 0;
        bool plain = n < sizeof sets[0];
        for (size_t i = 0; plain && i < n; i++)
            plain = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                    s[i] == '_';
        if (!plain) {
            tp_warn(c->t, "rocpd: table sets whose name is not a plain uuid (not read)", 1);
            continue;
        }
        if (nsets == RP_MAX_SETS) {
            sqlite3_finalize(st);
            return tp_fail(c->err, 0, "more than %d rocpd table sets in one database", RP_MAX_SETS);
        }
        memcpy(sets[nsets++], s, n + 1);
    }
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    if (!nsets)
        return tp_fail(c->err, 0, "a rocpd database without a rocpd_string table (its plain names are views only?)");
    for (int i = 0; i < nsets; i++)
        if (read_set(c, sets[i]) < 0)
            return -1;
    c->t->events_in += c->t->nevents + c->unkept; /* with the rows dropped (counted as they were) */
    return 0;
}
