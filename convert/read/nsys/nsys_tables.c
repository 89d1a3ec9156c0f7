/* nsys_tables.c: the activity tables of an Nsight Systems export, each read
 * with the columns it has (older exports lack some; a missing column reads
 * as NULL), in an order that lets device activity find its launch call:
 * API calls first (CUPTI_ACTIVITY_KIND_RUNTIME, _DRIVER), then kernels,
 * copies and fills, then NVTX ranges, OS runtime and MPI calls.  Rows whose
 * start/end are not integers with end >= start inside the times the model
 * holds (model.h TP_TS_MIN..) are dropped and counted. */
#include "convert/read/nsys/nsys.h"
#include "convert/read/vendor_names.h"

#include <stdio.h>
#include <string.h>

#define ANY_PROCESS (INT64_C(1) << 62) /* launch key for device rows without globalPid (older exports) */

bool ns_row_times(ns_ctx *c, sqlite3_stmt *st, tp_event *e, const char *dropped, const char *warning)
{
    int64_t s, en;
    if (!ns_int(c, st, 0, &s) || !ns_int(c, st, 1, &en) || !tp_event_span(e, s, en)) {
        tp_drop_count(c->t, dropped, 1);
        tp_warn(c->t, warning, 1); /* said by every command */
        c->t->events_in++;
        return false;
    }
    return true;
}

bool ns_keep_host(ns_ctx *c, const tp_event *e)
{
    if (!c->o->device_only)
        return true;
    if (e->track >= c->host_kept_cap) { /* tracks are few: one flag each */
        size_t old = c->host_kept_cap, cap = old ? old : 64;
        while (cap <= e->track)
            cap *= 2;
        c->host_kept = tp_xrealloc(c->host_kept, cap * sizeof *c->host_kept);
        memset(c->host_kept + old, 0, (cap - old) * sizeof *c->host_kept);
        c->host_kept_cap = cap;
    }
    bool first = !c->host_kept[e->track];
    c->host_kept[e->track] = true;
    if (first || (e->flags & TP_EV_STEP) || strncmp(tp_str_get(c->t, e->name), "ProfilerStep#", 13) == 0)
        return true;
    c->unkept++;
    return false;
}

/* start, end of a row in columns 0 and 1; false (row dropped, counted) when unusable */
static bool row_times(ns_ctx *c, sqlite3_stmt *st, tp_event *e)
{
    return ns_row_times(c, st, e, "nsys: rows without a valid start and end",
                        "nsys: rows without a valid start and end (dropped)");
}

static void remember_launch(ns_ctx *c, int64_t key, uint32_t ev)
{
    uint32_t old = ns_launch_get(&c->launches, key);
    /* the innermost of calls sharing an id: the runtime call inside the
     * driver call, or the entry point inside its wrapper */
    if (old == TP_I64MAP_EMPTY || c->t->events[ev].dur < c->t->events[old].dur)
        ns_launch_put(&c->launches, key, ev);
}

/* Newer exports record some calls twice, on one thread with one id and one
 * name once the entry point's suffix is dropped: a row of eventClass 67
 * around the entry point's row (cudaMemcpy [887755510, 906656915] around
 * cudaMemcpy_v3020 [887755701, 906656645] in the shared sample).  That is
 * one call: the first row read stands for it, widened to the outer of the
 * two, the other is counted as merged.  A driver call around its runtime
 * call has another name and stays two calls. */
static bool same_call(ns_ctx *c, int64_t key, const tp_event *e)
{
    uint32_t old = ns_launch_get(&c->launches, key);
    if (old == TP_I64MAP_EMPTY)
        return false;
    tp_event *o = &c->t->events[old];
    int64_t oe = o->ts + o->dur, ee = e->ts + e->dur;
    bool nested = (e->ts >= o->ts && ee <= oe) || (o->ts >= e->ts && oe <= ee);
    if (o->track != e->track || o->name != e->name || !nested)
        return false;
    if (e->ts < o->ts || ee > oe) { /* the row read now is the wrapper */
        o->ts = e->ts;
        o->dur = e->dur;
    }
    tp_drop_count(c->t, "nsys: API rows merged into the row of the same call (one id, one thread, one name)", 1);
    c->t->events_in++;
    return true;
}

static int read_api(ns_ctx *c, const char *table)
{
    static const char *const cols[] = {"start", "end", "globalTid", "correlationId", "nameId", "returnValue"};
    bool have[6];
    sqlite3_stmt *st;
    if (ns_select(c, table, cols, 6, NULL, &st, have) < 0)
        return -1;
    if (!st)
        return 0;
    tp_trace *t = c->t;
    int rc;
    while ((rc = ns_step(c, st, table)) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        int64_t gid = 0, corr, name_id, ret;
        if (!ns_int(c, st, 2, &gid))
            tp_warn(t, "nsys: API calls without a thread (globalTid)", 1);
        e.track = ns_host_track(c, gid);
        tp_str full = ns_int(c, st, 4, &name_id) ? ns_string(c, name_id) : tp_intern_cstr(t, "[unnamed call]");
        /* the name without its suffix and its category, once per name */
        if (full != c->last_api) {
            uint32_t shown = tp_i64map_get(&c->api_names, full);
            if (shown == TP_I64MAP_EMPTY) {
                const char *s = tp_str_get(t, full);
                size_t n = tp_str_len(t, full), k = tp_vendor_api_name_len(s, n);
                shown = k == n ? full : ns_intern_prefix(c, full, k); /* s may move while interning */
                tp_i64map_put(&c->api_names, full, shown);
            }
            const char *s = tp_str_get(t, shown);
            c->last_api = full;
            c->last_api_shown = shown;
            c->last_api_cat = strncmp(s, "cu", 2) == 0 && strncmp(s, "cuda", 4) != 0 ? c->cat_driver : c->cat_runtime;
        }
        tp_str shown = c->last_api_shown;
        e.name = shown;
        e.kind = TP_KIND_RUNTIME;
        e.cat = c->last_api_cat;
        bool has_corr = ns_int(c, st, 3, &corr) && corr >= 0 && corr <= UINT32_MAX;
        if (t->keep_args) {
            tp_argb_reset(&c->ab);
            if (has_corr)
                tp_argb_int(&c->ab, "correlation", corr);
            if (ns_int(c, st, 5, &ret))
                tp_argb_int(&c->ab, "return", ret);
            if (shown != full)
                tp_argb_str(&c->ab, "entry point", tp_str_get(t, full), tp_str_len(t, full));
            e.args = tp_argb_commit(t, &c->ab);
        }
        int64_t key = has_corr ? (c->corr_only ? ANY_PROCESS | corr : (ns_gid_pid(gid) << 32) | corr) : 0;
        if (c->o->device_only) { /* no links: that the launch is there is all the device rows ask (a warning) */
            if (has_corr && ns_launch_get(&c->launches, key) == TP_I64MAP_EMPTY)
                ns_launch_put(&c->launches, key, 0);
            if (ns_keep_host(c, &e))
                tp_event_add(t, &e);
            continue;
        }
        if (has_corr && same_call(c, key, &e))
            continue;
        uint32_t ev = tp_event_add(t, &e);
        if (has_corr)
            remember_launch(c, key, ev);
    }
    sqlite3_finalize(st);
    return rc;
}

/* columns 2..6 of every device table: deviceId, contextId, streamId, correlationId, globalPid */
static void device_row(ns_ctx *c, sqlite3_stmt *st, tp_event *e, tp_kind kind, tp_str cat)
{
    int64_t dev = 0, ctx = 0, stream = 0, corr, gpid;
    ns_int(c, st, 2, &dev);
    ns_int(c, st, 3, &ctx);
    ns_int(c, st, 4, &stream);
    e->kind = (uint8_t)kind;
    e->cat = cat;
    e->track = ns_device_track(c, dev, ctx, stream);
    if (ns_int(c, st, 5, &corr) && corr >= 0 && corr <= UINT32_MAX) {
        int64_t key = c->corr_only ? ANY_PROCESS | corr
                      : ns_int(c, st, 6, &gpid) ? (ns_gid_pid(gpid) << 32) | corr
                                                : -1; /* a row without its process: no launch to find */
        uint32_t l = ns_launch_get(&c->launches, key);
        if (l != TP_I64MAP_EMPTY)
            e->link = c->o->device_only ? TP_NONE : l; /* device_only: the map says only that it is there */
        else
            tp_warn(c->t, "nsys: device activity whose launch call is not in the export", 1);
    }
    if (c->t->keep_args) {
        tp_argb_reset(&c->ab);
        tp_argb_int(&c->ab, "device", dev);
        tp_argb_int(&c->ab, "context", ctx);
        tp_argb_int(&c->ab, "stream", stream);
        if (ns_int(c, st, 5, &corr))
            tp_argb_int(&c->ab, "correlation", corr);
    }
}

static int read_kernels(ns_ctx *c)
{
    static const char *const cols[] = {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                       "globalPid", "demangledName", "shortName", "gridX", "gridY", "gridZ",
                                       "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                                       "dynamicSharedMemory", "graphNodeId"};
    enum { NC = sizeof cols / sizeof cols[0] };
    bool have[NC];
    sqlite3_stmt *st;
    const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (ns_select(c, table, cols, NC, NULL, &st, have) < 0)
        return -1;
    if (!st)
        return 0;
    tp_trace *t = c->t;
    int rc;
    while ((rc = ns_step(c, st, table)) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        device_row(c, st, &e, TP_KIND_KERNEL, c->cat_kernel);
        int64_t id;
        if (ns_int(c, st, 7, &id) || ns_int(c, st, 8, &id))
            e.name = ns_string(c, id);
        else {
            e.name = tp_intern_cstr(t, "[unnamed kernel]");
            tp_warn(t, "nsys: kernels without a name", 1);
        }
        if (t->keep_args) {
            int64_t v[9];
            ns_dims(c, st, 9, "grid", "block");
            if (ns_int(c, st, 15, &v[6]))
                tp_argb_int(&c->ab, "registers per thread", v[6]);
            if (ns_int(c, st, 16, &v[7]) && ns_int(c, st, 17, &v[8]))
                tp_argb_int(&c->ab, "shared memory", v[7] + v[8]);
            if (ns_int(c, st, 18, &v[0]))
                tp_argb_int(&c->ab, "graph node", v[0]);
            e.args = tp_argb_commit(t, &c->ab);
        }
        tp_event_add(t, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

/* nsys's names for copies (its enum of copy kinds, as `nsys stats` prints them) */
static const char *copy_name(int64_t kind)
{
    static const char *const names[] = {
        "[CUDA memcpy Unknown]",         "[CUDA memcpy Host-to-Device]",        "[CUDA memcpy Device-to-Host]",
        "[CUDA memcpy Host-to-Array]",   "[CUDA memcpy Array-to-Host]",         "[CUDA memcpy Array-to-Array]",
        "[CUDA memcpy Array-to-Device]", "[CUDA memcpy Device-to-Array]",       "[CUDA memcpy Device-to-Device]",
        "[CUDA memcpy Host-to-Host]",    "[CUDA memcpy Peer-to-Peer]",          "[CUDA memcpy Unified Host-to-Device]",
        "[CUDA memcpy Unified Device-to-Host]", "[CUDA memcpy Unified Device-to-Device]",
    };
    return kind >= 0 && kind < (int64_t)(sizeof names / sizeof names[0]) ? names[kind] : names[0];
}

static int read_copies(ns_ctx *c, bool memset_table)
{
    static const char *const ccols[] = {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                        "globalPid", "bytes", "copyKind", "srcKind", "dstKind"};
    static const char *const scols[] = {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                        "globalPid", "bytes", "value"};
    const char *table = memset_table ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
    bool have[11];
    sqlite3_stmt *st;
    if (ns_select(c, table, memset_table ? scols : ccols, memset_table ? 9 : 11, NULL, &st, have) < 0)
        return -1;
    if (!st)
        return 0;
    tp_trace *t = c->t;
    tp_str memset_name = tp_intern_cstr(t, "[CUDA memset]");
    int rc;
    while ((rc = ns_step(c, st, table)) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        device_row(c, st, &e, memset_table ? TP_KIND_MEMSET : TP_KIND_MEMCPY,
                   memset_table ? c->cat_memset : c->cat_memcpy);
        int64_t bytes = 0, kind = 0, v;
        bool has_bytes = ns_int(c, st, 7, &bytes);
        if (memset_table)
            e.name = memset_name;
        else {
            ns_int(c, st, 8, &kind);
            e.name = tp_intern_cstr(t, copy_name(kind));
        }
        if (t->keep_args) {
            if (has_bytes)
                tp_argb_int(&c->ab, "bytes", bytes);
            if (has_bytes && e.dur > 0) /* bytes per ns = GB/s, to 3 decimals */
                tp_argb_fixed(&c->ab, "memory bandwidth (GB/s)",
                              (int64_t)((double)bytes * 1000.0 / (double)e.dur + 0.5), 3);
            if (memset_table && ns_int(c, st, 8, &v))
                tp_argb_int(&c->ab, "value", v);
            e.args = tp_argb_commit(t, &c->ab);
        }
        tp_event_add(t, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

enum { NVTX_CATEGORY = 33, NVTX_MARK = 34, NVTX_THREAD_NAME = 39, NVTX_DOMAIN_CREATE = 75, NVTX_DOMAIN_DESTROY = 76 };

static int read_nvtx(ns_ctx *c)
{
    static const char *const cols[] = {"start", "end", "eventType", "text", "textId", "globalTid", "domainId"};
    bool have[7];
    sqlite3_stmt *st;
    const char *table = "NVTX_EVENTS";
    /* domains first: their names label the ranges */
    tp_i64map domains = {0};
    if (ns_select(c, table, cols, 7, " WHERE eventType = 75", &st, have) < 0)
        return -1;
    if (!st)
        return 0;
    int rc;
    while ((rc = ns_step(c, st, table)) == 1) {
        int64_t dom;
        tp_str name = ns_text(c, st, 3);
        if (ns_int(c, st, 6, &dom) && name)
            tp_i64map_put(&domains, dom, name);
    }
    sqlite3_finalize(st);
    if (rc < 0 || ns_select(c, table, cols, 7, NULL, &st, have) < 0) {
        tp_i64map_free(&domains);
        return -1;
    }
    tp_trace *t = c->t;
    while ((rc = ns_step(c, st, table)) == 1) {
        int64_t type = -1, id, gid = 0, dom;
        ns_int(c, st, 2, &type);
        if (type == NVTX_CATEGORY || type == NVTX_THREAD_NAME || type == NVTX_DOMAIN_CREATE ||
            type == NVTX_DOMAIN_DESTROY)
            continue; /* names of things, not time */
        tp_event e;
        int64_t s, en;
        bool mark = type == NVTX_MARK || (sqlite3_column_type(st, 1) == SQLITE_NULL && ns_int(c, st, 0, &s));
        if (mark) {
            if (!ns_int(c, st, 0, &s) || s < TP_TS_MIN || s >= TP_TS_MAX) {
                tp_drop_count(t, "nsys: rows without a valid start and end", 1);
                tp_warn(t, "nsys: rows without a valid start and end (dropped)", 1);
                t->events_in++;
                continue;
            }
            tp_event_init(&e);
            e.ts = s;
            e.ph = 'i';
        } else if (!row_times(c, st, &e))
            continue;
        (void)en;
        if (!ns_int(c, st, 5, &gid))
            tp_warn(t, "nsys: NVTX events without a thread (globalTid)", 1);
        e.track = ns_host_track(c, gid);
        e.name = ns_text(c, st, 3);
        if (!e.name && ns_int(c, st, 4, &id))
            e.name = ns_string(c, id);
        e.kind = TP_KIND_ANNOTATION;
        e.cat = c->cat_nvtx;
        const char *nm = tp_str_get(t, e.name);
        int64_t step = mark ? -1 : tp_vendor_step_number(nm, tp_str_len(t, e.name));
        if (step >= 0) {
            e.flags |= TP_EV_STEP;
            e.id = (uint64_t)step;
        }
        if (t->keep_args && ns_int(c, st, 6, &dom)) {
            tp_argb_reset(&c->ab);
            uint32_t dn = tp_i64map_get(&domains, dom);
            if (dn != TP_I64MAP_EMPTY)
                tp_argb_str(&c->ab, "domain", tp_str_get(t, dn), tp_str_len(t, dn));
            else
                tp_argb_int(&c->ab, "domain", dom);
            e.args = tp_argb_commit(t, &c->ab);
        }
        if (ns_keep_host(c, &e))
            tp_event_add(t, &e);
    }
    sqlite3_finalize(st);
    tp_i64map_free(&domains);
    return rc;
}

/* OS runtime calls and MPI calls: start, end, globalTid, a StringIds name */
static int read_host_calls(ns_ctx *c, const char *table, const char *name_col, tp_str cat, tp_kind kind)
{
    const char *cols[] = {"start", "end", "globalTid", name_col};
    bool have[4];
    sqlite3_stmt *st;
    if (ns_select(c, table, cols, 4, NULL, &st, have) < 0)
        return -1;
    if (!st)
        return 0;
    int rc;
    while ((rc = ns_step(c, st, table)) == 1) {
        tp_event e;
        if (!row_times(c, st, &e))
            continue;
        int64_t gid = 0, id;
        ns_int(c, st, 2, &gid);
        e.track = ns_host_track(c, gid);
        e.name = ns_int(c, st, 3, &id) ? ns_string(c, id) : tp_intern_cstr(c->t, "[unnamed call]");
        e.cat = cat;
        e.kind = (uint8_t)kind;
        if (ns_keep_host(c, &e))
            tp_event_add(c->t, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Tables of time this reader does not read: their rows are counted, so
 * nothing is dropped in silence. */
static int count_unread(ns_ctx *c)
{
    static const char *const unread[] = {
        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
        "CUDA_GRAPH_EVENTS", "CUDNN_EVENTS", "CUBLAS_EVENTS", "SCHED_EVENTS", "OPENMP_EVENT_KIND_PARALLEL",
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS", "CUDA_UM_GPU_PAGE_FAULT_EVENTS", "GPU_METRICS", "UCP_WORKERS",
        "NVTX_PAYLOAD_SCHEMAS", "COMPOSITE_EVENTS", "VULKAN_WORKLOAD", "OPENGL_WORKLOAD", "DX12_WORKLOAD",
    };
    for (size_t i = 0; i < sizeof unread / sizeof unread[0]; i++)
        if (ns_has_table(c, unread[i]) && ns_count_unread(c, "nsys", unread[i], "") < 0)
            return -1;
    return 0;
}

int ns_count_unread(ns_ctx *c, const char *reader, const char *table, const char *sfx)
{
    char q[256];
    if ((size_t)snprintf(q, sizeof q, "SELECT count(*) FROM \"%s%s\"", table, sfx) >= sizeof q)
        return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db, q, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return tp_fail_at(c->err, table, "%s", sqlite3_errmsg(c->db));
    }
    int rc = ns_step(c, st, table);
    int64_t n = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc < 0)
        return -1;
    if (n > 0)
        tp_buf_printf(&c->t->notices, "%s: table %s: %lld rows not read\n", reader, table, (long long)n);
    return 0;
}

/* Does a device table lack globalPid (exports before 2020)?  Then launches
 * are found by correlation id alone, which is unique within one process. */
static int device_tables_lack_pid(ns_ctx *c)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const col[] = {"globalPid"};
    for (int i = 0; i < 3; i++) {
        bool have;
        sqlite3_stmt *st;
        if (ns_select(c, tables[i], col, 1, " LIMIT 0", &st, &have) < 0)
            return -1;
        sqlite3_finalize(st);
        if (st && !have)
            return 1;
    }
    return 0;
}

int ns_read_tables(ns_ctx *c)
{
    int lack = device_tables_lack_pid(c);
    if (lack < 0)
        return -1;
    c->corr_only = lack == 1;
    if (read_api(c, "CUPTI_ACTIVITY_KIND_RUNTIME") < 0 || read_api(c, "CUPTI_ACTIVITY_KIND_DRIVER") < 0)
        return -1;
    if (read_kernels(c) < 0 || read_copies(c, false) < 0 || read_copies(c, true) < 0)
        return -1;
    if (read_nvtx(c) < 0 || read_host_calls(c, "OSRT_API", "nameId", c->cat_osrt, TP_KIND_OTHER) < 0)
        return -1;
    static const char *const mpi[] = {"MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS",
                                      "MPI_OTHER_EVENTS"};
    for (int i = 0; i < 4; i++)
        if (read_host_calls(c, mpi[i], "textId", c->cat_mpi, TP_KIND_ANNOTATION) < 0)
            return -1;
    c->t->events_in += c->t->nevents + c->unkept; /* with the rows dropped (counted as they were) */
    return count_unread(c);
}

void ns_dims(ns_ctx *c, sqlite3_stmt *st, int col, const char *first, const char *second)
{
    int64_t v[6];
    bool all = true;
    for (int i = 0; i < 6; i++)
        all &= ns_int(c, st, col + i, &v[i]);
    if (!all)
        return;
    char b[128];
    int n = snprintf(b, sizeof b, "[%lld, %lld, %lld]", (long long)v[0], (long long)v[1], (long long)v[2]);
    tp_argb_raw(&c->ab, first, b, (size_t)n);
    n = snprintf(b, sizeof b, "[%lld, %lld, %lld]", (long long)v[3], (long long)v[4], (long long)v[5]);
    tp_argb_raw(&c->ab, second, b, (size_t)n);
}
