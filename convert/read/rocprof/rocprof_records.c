/* rocprof_records.c: rocprofv3 records as events.  kernel_dispatch and
 * memory_copy are device activity (a device process per GPU agent, a track
 * per HIP stream, or per queue when the record has no stream); hip_api,
 * hsa_api and rccl_api records are API calls on their host thread;
 * marker_api records are ROCTx ranges (steps when named like steps).
 * Device records are bound to the API call with the same internal
 * correlation id once the whole process entry is read (the document lists
 * dispatches before calls).  Records of other kinds are counted. */
#include "convert/read/rocprof/rocprof.h"
#include "convert/read/vendor_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool jint(const tp_jv *obj, const char *key, int64_t *v)
{
    const tp_jv *x = obj ? tp_jv_get(obj, key) : NULL;
    return x && tp_jv_int(x, v) == 0;
}

/* {"handle": N} members (agent_id, queue_id, stream_id) */
static bool jhandle(const tp_jv *obj, const char *key, int64_t *v)
{
    const tp_jv *x = obj ? tp_jv_get(obj, key) : NULL;
    return x && jint(x, "handle", v);
}

static tp_str jintern(rp_ctx *c, const tp_jv *v)
{
    size_t n;
    const char *s = v ? tp_jv_str(v, &n) : NULL;
    return s && n ? tp_intern(c->t, s, n) : 0;
}

int rp_entry_tables(rp_ctx *c, const tp_jv *agents, const tp_jv *symbols)
{
    tp_trace *t = c->t;
    for (uint32_t i = 0; agents && agents->type == TP_JV_ARRAY && i < agents->n; i++) {
        const tp_jv *a = &agents->items[i];
        int64_t type, handle, dev;
        if (!jint(a, "type", &type) || type != 2 || !jhandle(a, "id", &handle))
            continue; /* CPU agents (type 1) run no kernels */
        if (!jint(a, "gpu_index", &dev) && !jint(a, "logical_node_type_id", &dev))
            dev = (int64_t)c->agents.n;
        if (dev < 0 || dev > 0xFFFF)
            dev = 0xFFFF;
        tp_i64map_put(&c->agents, handle, (uint32_t)dev);
        /* a second process on the same GPUs: described once (a bit per
         * device number, not a scan of the table per agent: 100,000 agents
         * took 11 s) */
        if (c->described[dev >> 3] & (1u << (dev & 7)))
            continue;
        c->described[dev >> 3] |= (uint8_t)(1u << (dev & 7));
        tp_device_info d = {0};
        d.id = dev;
        d.name = jintern(c, tp_jv_get(a, "product_name"));
        if (!d.name)
            d.name = jintern(c, tp_jv_get(a, "name"));
        d.vendor = jintern(c, tp_jv_get(a, "vendor_name"));
        int64_t v;
        if (jint(a, "cu_count", &v) && v > 0 && v < INT32_MAX)
            d.cores = (int32_t)v;
        if (jint(a, "local_mem_size", &v) && v > 0)
            d.memory_bytes = v;
        tp_devinfo_add(t, &d);
    }
    for (uint32_t i = 0; symbols && symbols->type == TP_JV_ARRAY && i < symbols->n; i++) {
        const tp_jv *s = &symbols->items[i];
        int64_t id;
        if (!jint(s, "kernel_id", &id))
            continue;
        tp_str name = jintern(c, tp_jv_get(s, "formatted_kernel_name"));
        if (!name)
            name = jintern(c, tp_jv_get(s, "demangled_kernel_name"));
        if (!name)
            name = jintern(c, tp_jv_get(s, "kernel_name"));
        if (name)
            tp_i64map_put(&c->kernel_names, id, name);
    }
    /* each record kind's operation names, looked up once here: a lookup per
     * record scanned the strings object's members (200,000 of them and as
     * many records named by operation: 20 s for 24 MB) */
    const tp_jv *kinds = c->strings ? tp_jv_get(c->strings, "buffer_records") : NULL;
    c->nkind_ops = 0;
    if (kinds && kinds->type == TP_JV_ARRAY && kinds->n) {
        TP_GROW(c->kind_ops, c->kind_ops_cap, kinds->n);
        for (uint32_t i = 0; i < kinds->n; i++)
            c->kind_ops[i] = tp_jv_get(&kinds->items[i], "operations");
        c->nkind_ops = kinds->n;
    }
    const tp_jv *markers = c->strings ? tp_jv_get(c->strings, "marker_api") : NULL;
    for (uint32_t i = 0; markers && markers->type == TP_JV_ARRAY && i < markers->n; i++) {
        int64_t key;
        tp_str v = jintern(c, tp_jv_get(&markers->items[i], "value"));
        if (jint(&markers->items[i], "key", &key) && v)
            tp_i64map_put(&c->marker_names, key, v);
    }
    return 0;
}

/* strings.buffer_records[kind].operations[operation] */
static tp_str op_name(rp_ctx *c, int64_t kind, int64_t op)
{
    int64_t key = (int64_t)((uint64_t)kind << 32) | (op & 0xFFFFFFFF); /* unsigned: a negative kind (hostile) */
    uint32_t s = tp_i64map_get(&c->op_names, key);
    if (s != TP_I64MAP_EMPTY)
        return s;
    const tp_jv *ops = kind >= 0 && (uint64_t)kind < c->nkind_ops ? c->kind_ops[kind] : NULL;
    const tp_jv *name = ops && op >= 0 && op <= UINT32_MAX ? tp_jv_at(ops, (size_t)op) : NULL;
    tp_str id = jintern(c, name);
    if (!id) {
        char b[64];
        int n = snprintf(b, sizeof b, "[operation %lld of kind %lld]", (long long)op, (long long)kind);
        id = tp_intern(c->t, b, (size_t)n);
        tp_warn(c->t, "rocprof: operations not named in strings.buffer_records", 1);
    }
    tp_i64map_put(&c->op_names, key, id);
    return id;
}

static uint32_t device_track(rp_ctx *c, int64_t agent, int64_t tid, const char *what, int64_t shown)
{
    uint32_t dev = tp_i64map_get(&c->agents, agent);
    if (dev == TP_I64MAP_EMPTY) {
        tp_warn(c->t, "rocprof: device records of agents not in the agent list", 1);
        dev = 0xFFFF;
    }
    uint32_t p = tp_process_get(c->t, dev);
    tp_process *pr = &c->t->processes[p];
    if (!pr->is_device) {
        pr->is_device = true;
        pr->device = (int32_t)dev;
        char b[32];
        int n = snprintf(b, sizeof b, "GPU %u", dev);
        pr->name = tp_intern(c->t, b, (size_t)n);
    }
    if (c->many_processes) /* one GPU, streams of several processes */
        tid = (int64_t)((uint64_t)c->pid << 32) | (tid & 0xFFFFFFFF); /* unsigned: a negative pid (hostile) */
    uint32_t k = tp_track_get(c->t, p, tid);
    if (!c->t->tracks[k].name) {
        char b[64];
        int n = c->many_processes ? snprintf(b, sizeof b, "%s %lld (pid %lld)", what, (long long)shown, (long long)c->pid)
                                  : snprintf(b, sizeof b, "%s %lld", what, (long long)shown);
        c->t->tracks[k].name = tp_intern(c->t, b, (size_t)n);
        c->t->tracks[k].role = TP_TRACK_DEVICE;
    }
    return k;
}

static bool times(rp_ctx *c, const tp_jv *rec, tp_event *e)
{
    int64_t s, en;
    if (!jint(rec, "start_timestamp", &s) || !jint(rec, "end_timestamp", &en) || !tp_event_span(e, s, en)) {
        tp_drop_count(c->t, "rocprof: records without a valid start and end", 1);
        c->t->events_in++;
        return false;
    }
    return true;
}

static void xyz(rp_ctx *c, const char *key, const tp_jv *v)
{
    int64_t x, y, z;
    if (v && jint(v, "x", &x) && jint(v, "y", &y) && jint(v, "z", &z)) {
        char b[96];
        int n = snprintf(b, sizeof b, "[%lld, %lld, %lld]", (long long)x, (long long)y, (long long)z);
        tp_argb_raw(&c->ab, key, b, (size_t)n);
    }
}

static void pend(rp_ctx *c, uint32_t ev, const tp_jv *rec)
{
    int64_t corr;
    const tp_jv *cid = tp_jv_get(rec, "correlation_id");
    if (!cid || !jint(cid, "internal", &corr))
        return;
    if (c->npending == c->pending_cap) {
        c->pending_cap = c->pending_cap ? c->pending_cap * 2 : 1024;
        c->pending = tp_xrealloc(c->pending, c->pending_cap * sizeof *c->pending);
        c->pending_corr = tp_xrealloc(c->pending_corr, c->pending_cap * sizeof *c->pending_corr);
    }
    c->pending[c->npending] = ev;
    c->pending_corr[c->npending++] = (uint64_t)corr;
}

static int dispatch(rp_ctx *c, const tp_jv *rec)
{
    tp_event e;
    if (!times(c, rec, &e))
        return 0;
    const tp_jv *di = tp_jv_get(rec, "dispatch_info");
    int64_t agent = -1, queue = 0, stream, kid = -1, v;
    jhandle(di, "agent_id", &agent);
    jhandle(di, "queue_id", &queue);
    bool has_stream = jhandle(rec, "stream_id", &stream);
    e.track = has_stream ? device_track(c, agent, stream, "stream", stream)
                         : device_track(c, agent, (INT64_C(1) << 31) | queue, "queue", queue);
    e.kind = TP_KIND_KERNEL;
    e.cat = c->cat_kernel;
    uint32_t name = jint(di, "kernel_id", &kid) ? tp_i64map_get(&c->kernel_names, kid) : TP_I64MAP_EMPTY;
    if (name == TP_I64MAP_EMPTY) {
        char b[48];
        int n = snprintf(b, sizeof b, "[kernel id %lld]", (long long)kid);
        e.name = tp_intern(c->t, b, (size_t)n);
        tp_warn(c->t, "rocprof: kernel ids not in kernel_symbols", 1);
    } else
        e.name = name;
    if (c->t->keep_args) {
        tp_argb_reset(&c->ab);
        if (has_stream)
            tp_argb_int(&c->ab, "stream", stream);
        tp_argb_int(&c->ab, "queue", queue);
        const tp_jv *cid = tp_jv_get(rec, "correlation_id");
        if (cid && jint(cid, "internal", &v))
            tp_argb_int(&c->ab, "correlation", v);
        if (jint(di, "dispatch_id", &v))
            tp_argb_int(&c->ab, "dispatch", v);
        xyz(c, "grid", tp_jv_get(di, "grid_size"));
        xyz(c, "workgroup", tp_jv_get(di, "workgroup_size"));
        if (jint(di, "group_segment_size", &v))
            tp_argb_int(&c->ab, "LDS bytes", v);
        if (jint(di, "private_segment_size", &v))
            tp_argb_int(&c->ab, "scratch bytes", v);
        e.args = tp_argb_commit(c->t, &c->ab);
    }
    pend(c, tp_event_add(c->t, &e), rec);
    return 0;
}

static int copy(rp_ctx *c, const tp_jv *rec)
{
    tp_event e;
    if (!times(c, rec, &e))
        return 0;
    int64_t dst = -1, src = -1, stream, kind = 10, op = 0, bytes;
    jhandle(rec, "dst_agent_id", &dst);
    jhandle(rec, "src_agent_id", &src);
    int64_t agent = tp_i64map_get(&c->agents, dst) != TP_I64MAP_EMPTY ? dst : src; /* the GPU end */
    bool has_stream = jhandle(rec, "stream_id", &stream);
    e.track = has_stream ? device_track(c, agent, stream, "stream", stream)
                         : device_track(c, agent, INT64_C(1) << 30, "memory copies", 0);
    e.kind = TP_KIND_MEMCPY;
    e.cat = c->cat_memcpy;
    jint(rec, "kind", &kind);
    jint(rec, "operation", &op);
    e.name = op_name(c, kind, op);
    if (c->t->keep_args) {
        tp_argb_reset(&c->ab);
        if (jint(rec, "bytes", &bytes))
            tp_argb_int(&c->ab, "bytes", bytes);
        e.args = tp_argb_commit(c->t, &c->ab);
    }
    pend(c, tp_event_add(c->t, &e), rec);
    return 0;
}

static int api_call(rp_ctx *c, const tp_jv *rec, tp_str cat, tp_kind kind, bool marker)
{
    tp_event e;
    if (!times(c, rec, &e))
        return 0;
    int64_t tid = 0, k = 0, op = 0, corr = -1;
    if (!jint(rec, "thread_id", &tid))
        tp_warn(c->t, "rocprof: API records without a thread_id", 1);
    e.track = tp_track_get(c->t, tp_process_get(c->t, c->pid), tid);
    jint(rec, "kind", &k);
    jint(rec, "operation", &op);
    const tp_jv *cid = tp_jv_get(rec, "correlation_id");
    bool has_corr = cid && jint(cid, "internal", &corr);
    uint32_t mn = marker && has_corr ? tp_i64map_get(&c->marker_names, corr) : TP_I64MAP_EMPTY;
    e.name = mn != TP_I64MAP_EMPTY ? mn : op_name(c, k, op);
    e.kind = (uint8_t)kind;
    e.cat = cat;
    if (marker) {
        int64_t step = tp_vendor_step_number(tp_str_get(c->t, e.name), tp_str_len(c->t, e.name));
        if (step >= 0) {
            e.flags |= TP_EV_STEP;
            e.id = (uint64_t)step;
        }
    }
    if (c->t->keep_args && has_corr) {
        tp_argb_reset(&c->ab);
        tp_argb_int(&c->ab, "correlation", corr);
        e.args = tp_argb_commit(c->t, &c->ab);
    }
    uint32_t ev = tp_event_add(c->t, &e);
    if (has_corr && !marker && tp_i64map_get(&c->launches, corr) == TP_I64MAP_EMPTY)
        tp_i64map_put(&c->launches, corr, ev);
    return 0;
}

int rp_record(rp_ctx *c, const char *key, size_t klen, const tp_jv *rec)
{
    if (rec->type != TP_JV_OBJECT)
        return tp_fail(c->err, rec->off, "a record of buffer_records is not an object");
#define IS(s) (klen == sizeof(s) - 1 && memcmp(key, s, klen) == 0)
    if (IS("kernel_dispatch"))
        return dispatch(c, rec);
    if (IS("memory_copy"))
        return copy(c, rec);
    if (IS("hip_api") || IS("rccl_api"))
        return api_call(c, rec, c->cat_runtime, TP_KIND_RUNTIME, false);
    if (IS("hsa_api"))
        return api_call(c, rec, c->cat_driver, TP_KIND_RUNTIME, false);
    if (IS("marker_api"))
        return api_call(c, rec, c->cat_marker, TP_KIND_ANNOTATION, true);
#undef IS
    /* memory_allocation, scratch_memory, page migration, decode, PC samples: counted */
    tp_warn(c->t, "rocprof: records of kinds not read (memory allocation, scratch memory, PC samples, ...)", 1);
    return 0;
}

void rp_entry_done(rp_ctx *c)
{
    for (size_t i = 0; i < c->npending; i++) {
        uint32_t l = c->pending_corr[i] <= INT64_MAX ? tp_i64map_get(&c->launches, (int64_t)c->pending_corr[i])
                                                     : TP_I64MAP_EMPTY;
        if (l != TP_I64MAP_EMPTY)
            c->t->events[c->pending[i]].link = l;
        else
            tp_warn(c->t, "rocprof: device records whose API call is not in the document", 1);
    }
    c->npending = 0;
    c->nkind_ops = 0; /* they point into the entry's tables, freed after it */
    tp_i64map_clear(&c->launches);
    tp_i64map_clear(&c->kernel_names);
    tp_i64map_clear(&c->agents);
    tp_i64map_clear(&c->op_names);
    tp_i64map_clear(&c->marker_names);
}
