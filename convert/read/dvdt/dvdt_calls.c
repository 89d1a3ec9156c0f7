/* dvdt_calls.c: dv/dt call records -> model events.
 * Host: one RUNTIME slice per call on the run's "OpenCL API" thread.
 * Device: per enqueue, execution (KERNEL/MEMCPY) on the queue's track and
 * the wait before it (queued -> start, split at submit) on a separate
 * "queue wait" track, so both nest correctly.  Device times are on another
 * clock; they are kept until the run ends, then shifted onto the host clock
 * (see align_offset). */
#include "convert/model/derive.h"
#include "convert/read/dvdt/dvdt.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dv_karg {
    bool set, is_int;
    uint64_t val;     /* little-endian value when the arg is <= 8 bytes of hex */
    char *json;       /* display value (JSON text) */
} dv_karg;

typedef struct dv_kernel {
    dv_karg *args;
    size_t nargs;
} dv_kernel;

typedef struct dv_queue {
    uint64_t ptr;
    uint32_t exec_track, wait_track;
} dv_queue;

/* Device work waiting for the clock offset. */
typedef struct dv_dev {
    int64_t q, s, st, e;       /* device ns: queued, submit, start, end */
    int64_t t0, t1;            /* host ns of the call (valid if has_host) */
    uint32_t host_ev;          /* the enqueue's host slice, or TP_NONE */
    uint32_t queue;            /* index into queues */
    tp_str name;
    uint8_t kind;
    bool has_host;
    uint64_t args;
} dv_dev;

typedef struct dv_layer {
    tp_str label;
    int64_t mmdd_ns;           /* glog "MMDD HH:MM:SS.ffffff" as ns within year 1970 */
    int month, day;
    int64_t dur;
    uint64_t args;
} dv_layer;

struct dv_run {
    tp_trace *t;
    const tp_read_opts *o;
    int repetition;
    uint32_t host_proc, dev_proc, host_track;
    tp_i64map kernel_map, buffer_map, queue_map; /* pointer handles -> indexes */
    dv_kernel *kernels;
    size_t nkernels, kernels_cap;
    int64_t *buffer_sizes;
    size_t nbuffers, buffers_cap;
    dv_queue *queues;
    size_t nqueues, queues_cap;
    dv_dev *devs;
    size_t ndevs, devs_cap;
    dv_layer *layers;
    size_t nlayers, layers_cap;
    int64_t call_index;
    int64_t first_host, last_host;
    bool any_host;
    uint32_t rep_event;        /* CK: the repetition's annotation slice, or TP_NONE */
    tp_argb ab;
    tp_buf tmp, hb;
};

#define DV_MAX_DEVICE_NS ((int64_t)1 << 53)

/* Lenient repairs (errors with --strict). */
#define W_HEX "dvdt: kernel argument value is not arg_size bytes of hex (kept as text)"
#define W_ORDER "dvdt: profiling counters out of order (clamped)"

/* ---- run lifecycle ---------------------------------------------------- */

dv_run *dv_run_begin(tp_trace *t, const tp_read_opts *o, int repetition)
{
    dv_run *r = tp_xcalloc(1, sizeof *r);
    r->t = t;
    r->o = o;
    r->repetition = repetition;
    r->rep_event = TP_NONE;
    int base = repetition < 0 ? 0 : repetition;
    char name[96];
    r->host_proc = tp_process_get(t, 2 * base + 1);
    r->dev_proc = tp_process_get(t, 2 * base + 2);
    if (repetition < 0) {
        t->processes[r->host_proc].name = tp_intern_cstr(t, "dv/dt host");
        t->processes[r->dev_proc].name = tp_intern_cstr(t, "OpenCL device");
    } else {
        snprintf(name, sizeof name, "repetition %d: host", repetition);
        t->processes[r->host_proc].name = tp_intern_cstr(t, name);
        snprintf(name, sizeof name, "repetition %d: OpenCL device", repetition);
        t->processes[r->dev_proc].name = tp_intern_cstr(t, name);
    }
    t->processes[r->host_proc].sort_index = 2 * base;
    t->processes[r->host_proc].has_sort = true;
    t->processes[r->dev_proc].sort_index = 2 * base + 1;
    t->processes[r->dev_proc].has_sort = true;
    t->processes[r->dev_proc].is_device = true;
    t->processes[r->dev_proc].device = 0;
    r->host_track = tp_track_get(t, r->host_proc, 1);
    t->tracks[r->host_track].name = tp_intern_cstr(t, "OpenCL API");
    t->tracks[r->host_track].role = TP_TRACK_HOST;
    return r;
}

void dv_run_abort(dv_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nkernels; i++) {
        for (size_t k = 0; k < r->kernels[i].nargs; k++)
            free(r->kernels[i].args[k].json);
        free(r->kernels[i].args);
    }
    free(r->kernels);
    free(r->buffer_sizes);
    free(r->queues);
    free(r->devs);
    free(r->layers);
    tp_i64map_free(&r->kernel_map);
    tp_i64map_free(&r->buffer_map);
    tp_i64map_free(&r->queue_map);
    tp_argb_free(&r->ab);
    tp_buf_free(&r->tmp);
    tp_buf_free(&r->hb);
    free(r);
}

static dv_kernel *kernel_of(dv_run *r, uint64_t ptr)
{
    uint32_t k = tp_i64map_get(&r->kernel_map, (int64_t)ptr);
    if (k == TP_I64MAP_EMPTY) {
        TP_GROW(r->kernels, r->kernels_cap, r->nkernels + 1);
        memset(&r->kernels[r->nkernels], 0, sizeof r->kernels[0]);
        k = (uint32_t)r->nkernels++;
        tp_i64map_put(&r->kernel_map, (int64_t)ptr, k);
    }
    return &r->kernels[k];
}

static uint32_t queue_of(dv_run *r, uint64_t ptr, const char *text, size_t len)
{
    uint32_t known = tp_i64map_get(&r->queue_map, (int64_t)ptr);
    if (known != TP_I64MAP_EMPTY)
        return known;
    TP_GROW(r->queues, r->queues_cap, r->nqueues + 1);
    dv_queue *q = &r->queues[r->nqueues];
    q->ptr = ptr;
    char name[96];
    int64_t k = (int64_t)r->nqueues;
    q->exec_track = tp_track_get(r->t, r->dev_proc, 2 * k + 1);
    snprintf(name, sizeof name, "queue %.*s", (int)(len > 40 ? 40 : len), text);
    r->t->tracks[q->exec_track].name = tp_intern_cstr(r->t, name);
    r->t->tracks[q->exec_track].role = TP_TRACK_DEVICE;
    q->wait_track = tp_track_get(r->t, r->dev_proc, 2 * k + 2);
    snprintf(name, sizeof name, "queue wait %.*s", (int)(len > 40 ? 40 : len), text);
    r->t->tracks[q->wait_track].name = tp_intern_cstr(r->t, name);
    r->t->tracks[q->wait_track].role = TP_TRACK_DEVICE;
    tp_i64map_put(&r->queue_map, (int64_t)ptr, (uint32_t)r->nqueues);
    return (uint32_t)r->nqueues++;
}

/* ---- per call --------------------------------------------------------- */

/* clSetKernelArg: remember the decoded value for the next enqueues. */
static void set_kernel_arg(dv_run *r, const tp_jv *rec)
{
    uint64_t kptr;
    int64_t idx, size;
    if (dv_parse_ptr(tp_jv_get(rec, "kernel"), &kptr) || tp_jv_int(tp_jv_get(rec, "arg_index"), &idx) ||
        tp_jv_int(tp_jv_get(rec, "arg_size"), &size) || idx < 0 || idx > 4096 || size < 0) {
        tp_warn(r->t, "dvdt: clSetKernelArg without kernel/arg_index/arg_size (ignored)", 1);
        return;
    }
    dv_kernel *k = kernel_of(r, kptr);
    if ((size_t)idx >= k->nargs) {
        k->args = tp_xrealloc(k->args, ((size_t)idx + 1) * sizeof *k->args);
        memset(k->args + k->nargs, 0, ((size_t)idx + 1 - k->nargs) * sizeof *k->args);
        k->nargs = (size_t)idx + 1;
    }
    dv_karg *a = &k->args[idx];
    free(a->json);
    memset(a, 0, sizeof *a);
    a->set = true;
    size_t hl = 0;
    const char *hex = tp_jv_str(tp_jv_get(rec, "arg_value"), &hl);
    tp_buf b = {0};
    uint64_t v;
    if (!hex) {
        /* __local memory (NULL value) or a build without values */
        tp_buf_printf(&b, "\"%lld bytes (no value)\"", (long long)size);
    } else if (hl != 2 * (uint64_t)size || !dv_all_hex(hex, hl) || (size <= 8 && dv_hex_le(hex, hl, &v))) {
        tp_warn(r->t, W_HEX, 1);
        tp_json_put_string(&b, hex, hl, NULL);
    } else if (size <= 8) {
        a->val = v;
        uint32_t bi = size == 8 ? tp_i64map_get(&r->buffer_map, (int64_t)v) : TP_I64MAP_EMPTY;
        if (bi != TP_I64MAP_EMPTY) {
            tp_buf_puts(&b, "\"cl_mem ");
            dv_put_hex(&b, v);
            tp_buf_puts(&b, " (");
            dv_put_i64(&b, r->buffer_sizes[bi]);
            tp_buf_puts(&b, " bytes)\"");
        } else if (size == 8) {
            tp_buf_putc(&b, '"'); /* pointer-sized: shown as a pointer */
            dv_put_hex(&b, v);
            tp_buf_putc(&b, '"');
        } else {
            a->is_int = true;
            dv_put_u64(&b, v);
        }
    } else {
        tp_buf_puts(&b, "\"0x");
        tp_buf_put(&b, hex, hl); /* memory order, as logged */
        tp_buf_puts(&b, "\"");
    }
    tp_buf_putc(&b, 0);
    a->json = b.data;
}

static void create_buffer(dv_run *r, const tp_jv *rec)
{
    uint64_t ptr;
    int64_t size;
    /* the returned handle is "buffer" (cjson); old ostream parser output used "queue" */
    const tp_jv *h = tp_jv_get(rec, "buffer");
    if (!h)
        h = tp_jv_get(rec, "queue");
    if (dv_parse_ptr(h, &ptr) || tp_jv_int(tp_jv_get(rec, "size"), &size))
        return;
    uint32_t bi = tp_i64map_get(&r->buffer_map, (int64_t)ptr);
    if (bi == TP_I64MAP_EMPTY) {
        TP_GROW(r->buffer_sizes, r->buffers_cap, r->nbuffers + 1);
        bi = (uint32_t)r->nbuffers++;
        tp_i64map_put(&r->buffer_map, (int64_t)ptr, bi);
    }
    r->buffer_sizes[bi] = size;
}

static bool is_gemm(const char *name)
{
    return strncmp(name, "Xgemm", 5) == 0 || strncmp(name, "gemm", 4) == 0;
}

static bool lws_is_null(const tp_jv *lws)
{
    if (!lws || lws->type != TP_JV_ARRAY)
        return false;
    for (uint32_t i = 0; i < lws->n; i++) {
        int64_t x;
        if (tp_jv_int(&lws->items[i], &x) || x != 0)
            return false;
    }
    return true;
}

/* Args of the kernel at enqueue time: {"0": 224, "1": "cl_mem ..."} */
static void put_kernel_args_json(tp_buf *b, const dv_kernel *k)
{
    tp_buf_putc(b, '{');
    int n = 0;
    for (size_t i = 0; i < k->nargs; i++) {
        if (!k->args[i].set)
            continue;
        tp_buf_puts(b, n++ ? ",\"" : "\"");
        dv_put_u64(b, i);
        tp_buf_puts(b, "\":");
        tp_buf_puts(b, k->args[i].json);
    }
    tp_buf_putc(b, '}');
}

static void put_kernel_args(dv_run *r, tp_argb *ab, const dv_kernel *k)
{
    if (!k || !k->nargs)
        return;
    r->tmp.len = 0;
    put_kernel_args_json(&r->tmp, k);
    tp_argb_raw(ab, "kernel_args", r->tmp.data, r->tmp.len);
}

static void put_value(dv_run *r, tp_argb *ab, const char *key, size_t klen, const tp_jv *v)
{
    r->tmp.len = 0;
    tp_jv_write(&r->tmp, v);
    char k[64];
    snprintf(k, sizeof k, "%.*s", (int)(klen < 63 ? klen : 63), key);
    tp_argb_raw(ab, k, r->tmp.data, r->tmp.len);
}

/* Device args of an enqueue (always kept: the dv/dt analysis needs them). */
static uint64_t device_args(dv_run *r, const tp_jv *rec, const char *name, const dv_kernel *k, int64_t q,
                            int64_t s, int64_t st, int64_t e)
{
    tp_argb *ab = &r->ab;
    tp_argb_reset(ab);
    tp_argb_int(ab, "call_index", r->call_index);
    static const char *const keys[] = {"queue", "kernel", "gws", "gwo", "buffer", "size", "blocking"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const tp_jv *v = tp_jv_get(rec, keys[i]);
        if (v)
            put_value(r, ab, keys[i], strlen(keys[i]), v);
    }
    const tp_jv *lws = tp_jv_get(rec, "lws");
    if (lws_is_null(lws))
        tp_argb_cstr(ab, "lws", "NULL");
    else if (lws)
        put_value(r, ab, "lws", 3, lws);
    tp_argb_int(ab, "queued", q);
    tp_argb_int(ab, "submit", s);
    tp_argb_int(ab, "start", st);
    tp_argb_int(ab, "end", e);
    tp_argb_int(ab, "queue_wait_ns", st - q);
    tp_argb_int(ab, "exec_ns", e - st);
    put_kernel_args(r, ab, k);
    if (k && is_gemm(name)) {
        if (k->nargs >= 3 && k->args[0].is_int && k->args[1].is_int && k->args[2].is_int) {
            tp_argb_uint(ab, "M", k->args[0].val);
            tp_argb_uint(ab, "N", k->args[1].val);
            tp_argb_uint(ab, "K", k->args[2].val);
        } else
            tp_warn(r->t, "dvdt: GEMM-named kernel whose arguments 0-2 are not integers (no M, N, K)", 1);
    }
    return tp_argb_commit(r->t, ab);
}

/* Every field of the call but "call" and "timestamp", written straight
 * into the args arena's text (this runs for every call of big traces). */
static uint64_t host_args(dv_run *r, const tp_jv *rec, const dv_kernel *k, bool enqueue)
{
    tp_buf *b = &r->hb;
    b->len = 0;
    tp_buf_puts(b, "{\"call_index\":");
    dv_put_i64(b, r->call_index);
    for (uint32_t i = 0; i < rec->n; i++) {
        const char *key = rec->keys[i];
        size_t kl = rec->key_lens[i];
        const tp_jv *v = &rec->items[i];
        if ((kl == 4 && memcmp(key, "call", 4) == 0) || (kl == 9 && memcmp(key, "timestamp", 9) == 0))
            continue;
        tp_buf_putc(b, ',');
        tp_json_put_string(b, key, kl, NULL);
        tp_buf_putc(b, ':');
        if (kl == 6 && memcmp(key, "source", 6) == 0 && !tp_dvdt_opts_of(r->o)->with_source) {
            /* program text is large; --with-source keeps it */
            b->len -= 9; /* replace the key: "source": -> "source_bytes": */
            tp_buf_puts(b, "\"source_bytes\":");
            int64_t total = 0;
            for (uint32_t j = 0; j < v->n; j++)
                total += (int64_t)v->items[j].len;
            dv_put_i64(b, total);
        } else if (enqueue && kl == 3 && memcmp(key, "lws", 3) == 0 && lws_is_null(v))
            tp_buf_puts(b, "\"NULL\"");
        else
            tp_jv_write(b, v);
    }
    if (enqueue && k && k->nargs) {
        tp_buf_puts(b, ",\"kernel_args\":");
        put_kernel_args_json(b, k);
    }
    tp_buf_putc(b, '}');
    return tp_args_add(r->t, b->data, b->len);
}

static int read_profiling(dv_run *r, const tp_jv *p, int64_t v[4])
{
    static const char *const names[4] = {"queued", "submit", "start", "end"};
    /* cJSON wrote doubles: beyond 2^53 they are not exact, and such values are not device uptimes */
    for (int i = 0; i < 4; i++)
        if ((tp_jv_int(tp_jv_get(p, names[i]), &v[i]) && tp_jv_fixed(tp_jv_get(p, names[i]), 0, &v[i])) ||
            v[i] < 0 || v[i] > DV_MAX_DEVICE_NS)
            return -1;
    if (v[1] < v[0] || v[2] < v[1] || v[3] < v[2]) {
        tp_warn(r->t, W_ORDER, 1);
        for (int i = 1; i < 4; i++)
            if (v[i] < v[i - 1])
                v[i] = v[i - 1];
    }
    return 0;
}

int dv_run_call(dv_run *r, const tp_jv *rec, uint64_t off, tp_err *err)
{
    tp_trace *t = r->t;
    if (rec->type != TP_JV_OBJECT)
        return tp_fail(err, off, "dv/dt call record %lld is not a JSON object", (long long)r->call_index);
    size_t cl;
    const char *call = tp_jv_str(tp_jv_get(rec, "call"), &cl);
    if (!call || cl == 0)
        return tp_fail(err, off, "dv/dt call record %lld has no \"call\" name", (long long)r->call_index);
    t->events_in++;

    bool nd = cl == 22 && memcmp(call, "clEnqueueNDRangeKernel", 22) == 0;
    bool rw = (cl == 19 && memcmp(call, "clEnqueueReadBuffer", 19) == 0) ||
              (cl == 20 && memcmp(call, "clEnqueueWriteBuffer", 20) == 0);
    uint64_t hex_before = tp_warning_count(t, W_HEX), order_before = tp_warning_count(t, W_ORDER);
    if (cl == 14 && memcmp(call, "clSetKernelArg", 14) == 0)
        set_kernel_arg(r, rec);
    else if (cl == 14 && memcmp(call, "clCreateBuffer", 14) == 0)
        create_buffer(r, rec);

    dv_kernel *k = NULL;
    uint64_t kptr;
    if (nd && dv_parse_ptr(tp_jv_get(rec, "kernel"), &kptr) == 0) {
        uint32_t ki = tp_i64map_get(&r->kernel_map, (int64_t)kptr);
        if (ki != TP_I64MAP_EMPTY)
            k = &r->kernels[ki];
    }

    /* host slice */
    const tp_jv *ts = tp_jv_get(rec, "timestamp");
    size_t l0 = 0, l1 = 0;
    const char *s0 = tp_jv_str(tp_jv_get(ts, "start"), &l0), *s1 = tp_jv_str(tp_jv_get(ts, "end"), &l1);
    int64_t t0 = 0, t1 = 0;
    bool has_host = s0 && s1 && dv_parse_iso(s0, l0, &t0) == 0 && dv_parse_iso(s1, l1, &t1) == 0;
    uint32_t host_ev = TP_NONE;
    if (has_host) {
        if (t1 < t0) {
            tp_warn(t, "dvdt: host end before start (duration set to 0)", 1);
            t1 = t0;
        }
        if (!r->any_host || t0 < r->first_host)
            r->first_host = t0;
        if (!r->any_host || t1 > r->last_host)
            r->last_host = t1;
        r->any_host = true;
        tp_event e;
        tp_event_init(&e);
        e.ts = t0;
        e.dur = t1 - t0;
        e.track = r->host_track;
        e.name = tp_intern(t, call, cl);
        e.cat = tp_intern_cstr(t, tp_kind_name(TP_KIND_RUNTIME)); /* kind names: re-reading the output keeps kinds */
        e.kind = TP_KIND_RUNTIME;
        if (r->o->keep_args)
            e.args = host_args(r, rec, k, nd);
        host_ev = tp_event_add(t, &e);
    } else if (s0 && l0 >= 10 && memcmp(s0, "1970-01-01", 10) == 0)
        tp_warn(t, "dvdt: no host clock in this build (WALLCLOCK=timeofday placeholder)", 1);
    else
        tp_warn(t, "dvdt: call without a valid host timestamp (no host slice)", 1);

    /* device activity */
    if (nd || rw) {
        const tp_jv *prof = tp_jv_get(rec, "profiling");
        int64_t v[4];
        if (!prof) {
            tp_warn(t, "dvdt: enqueue without profiling info (no device slice)", 1);
        } else if (read_profiling(r, prof, v)) {
            tp_warn(t, "dvdt: enqueue with unreadable profiling counters (no device slice)", 1);
        } else {
            size_t ql = 0;
            const char *qs = tp_jv_str(tp_jv_get(rec, "queue"), &ql);
            uint64_t qptr = 0;
            if (!qs || dv_parse_ptr(tp_jv_get(rec, "queue"), &qptr)) {
                qs = "?";
                ql = 1;
                tp_warn(t, "dvdt: enqueue without a queue handle (put on queue ?)", 1);
            }
            size_t nl = 0;
            const char *name = nd ? tp_jv_str(tp_jv_get(rec, "name"), &nl) : NULL;
            char namebuf[256];
            if (nd && !name) {
                tp_warn(t, "dvdt: kernel enqueue without a kernel name", 1);
                name = "(unnamed kernel)";
                nl = strlen(name);
            } else if (!nd) {
                name = call;
                nl = cl;
            }
            snprintf(namebuf, sizeof namebuf, "%.*s", (int)(nl > 255 ? 255 : nl), name);
            TP_GROW(r->devs, r->devs_cap, r->ndevs + 1);
            dv_dev *d = &r->devs[r->ndevs++];
            d->q = v[0];
            d->s = v[1];
            d->st = v[2];
            d->e = v[3];
            d->t0 = t0;
            d->t1 = t1;
            d->has_host = has_host;
            d->host_ev = host_ev;
            d->queue = queue_of(r, qptr, qs, ql);
            d->name = tp_intern(t, name, nl);
            d->kind = nd ? TP_KIND_KERNEL : TP_KIND_MEMCPY;
            d->args = device_args(r, rec, namebuf, k, v[0], v[1], v[2], v[3]);
        }
    }
    if (r->o->strict && tp_warning_count(t, W_HEX) != hex_before)
        return tp_fail(err, off, "call record %lld: kernel argument value is not arg_size bytes of hex (rejected by --strict)",
                       (long long)r->call_index);
    if (r->o->strict && tp_warning_count(t, W_ORDER) != order_before)
        return tp_fail(err, off, "call record %lld: profiling counters out of order (rejected by --strict)",
                       (long long)r->call_index);
    r->call_index++;
    return 0;
}

/* ---- CK extras ---------------------------------------------------------- */

int dv_run_ck(dv_run *r, const tp_jv *run, tp_err *err)
{
    tp_trace *t = r->t;
    if (!run || run->type != TP_JV_OBJECT)
        return 0;
    /* the repetition as an annotation on the host thread, carrying time_fw_ms */
    tp_argb *ab = &r->ab;
    tp_argb_reset(ab);
    tp_argb_int(ab, "repetition", r->repetition);
    static const char *const keys[] = {"time_fw_ms", "time_bw_ms", "time_total_ms", "run_success"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const tp_jv *v = tp_jv_get(run, keys[i]);
        if (v && (v->type == TP_JV_NUMBER || v->type == TP_JV_STRING))
            put_value(r, ab, keys[i], strlen(keys[i]), v);
    }
    tp_event e;
    tp_event_init(&e);
    e.track = r->host_track;
    e.kind = TP_KIND_ANNOTATION;
    e.cat = tp_intern_cstr(t, tp_kind_name(TP_KIND_ANNOTATION));
    char name[64];
    snprintf(name, sizeof name, "repetition %d", r->repetition);
    e.name = tp_intern_cstr(t, name);
    e.ts = r->any_host ? r->first_host : 0;
    e.dur = r->any_host ? r->last_host - r->first_host : 0;
    e.args = tp_argb_commit(t, ab);
    r->rep_event = tp_event_add(t, &e);

    const tp_jv *pli = tp_jv_get(run, "per_layer_info");
    if (!pli)
        return 0;
    if (pli->type != TP_JV_ARRAY) {
        tp_warn(t, "dvdt: per_layer_info is not a list (ignored)", 1);
        return 0;
    }
    for (uint32_t i = 0; i < pli->n; i++) {
        const tp_jv *L = &pli->items[i];
        size_t sl = 0, ll = 0;
        const char *ts = tp_jv_str(tp_jv_get(L, "timestamp"), &sl);
        const char *label = tp_jv_str(tp_jv_get(L, "label"), &ll);
        int64_t dur_ns, tod;
        int mo, dd;
        /* glog time "MMDD HH:MM:SS.ffffff": no year, taken from the dv/dt host times */
        if (!ts || sl < 13 || ts[4] != ' ' || dv_digits(ts, 2, &mo) || dv_digits(ts + 2, 2, &dd) || mo < 1 || mo > 12 ||
            dd < 1 || dd > 31 || dv_parse_clock(ts + 5, sl - 5, &tod) ||
            tp_jv_fixed(tp_jv_get(L, "time_ms"), 6, &dur_ns) || dur_ns < 0 || dur_ns > DV_MAX_DEVICE_NS) {
            tp_warn(t, "dvdt: per_layer_info entry with a missing or out-of-range timestamp/time_ms (skipped)", 1);
            continue;
        }
        if (!label) {
            label = tp_jv_str(tp_jv_get(L, "name"), &ll);
            if (!label) {
                label = "layer";
                ll = 5;
            }
        }
        TP_GROW(r->layers, r->layers_cap, r->nlayers + 1);
        dv_layer *y = &r->layers[r->nlayers++];
        y->label = tp_intern(t, label, ll);
        y->month = mo;
        y->day = dd;
        y->mmdd_ns = tod;
        y->dur = dur_ns;
        tp_argb_reset(ab);
        static const char *const lk[] = {"index", "direction", "label", "time_ms", "timestamp"};
        for (size_t j = 0; j < sizeof lk / sizeof lk[0]; j++) {
            const tp_jv *v = tp_jv_get(L, lk[j]);
            if (v)
                put_value(r, ab, lk[j], strlen(lk[j]), v);
        }
        y->args = tp_argb_commit(t, ab);
    }
    (void)err;
    return 0;
}

/* ---- end of run: clock alignment, device events, Layers line ------------ */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Host ns = device ns + offset.  Each call blocks, so t0 <= queued and
 * end <= t1 on the host clock.  Estimate: the (lower) median of t0 - queued
 * (spec section 4), moved into [max(t0 - queued), min(t1 - end)] when that
 * interval is not empty so every device slice sits inside its call. */
static int64_t align_offset(dv_run *r, bool *aligned)
{
    size_t n = 0;
    int64_t *d = tp_xmalloc((r->ndevs + 1) * sizeof *d);
    int64_t lo = INT64_MIN, hi = INT64_MAX, first_q = INT64_MAX;
    for (size_t i = 0; i < r->ndevs; i++) {
        const dv_dev *x = &r->devs[i];
        if (x->q < first_q)
            first_q = x->q;
        if (!x->has_host)
            continue;
        int64_t a = x->t0 - x->q, b = x->t1 - x->e;
        d[n++] = a;
        if (a > lo)
            lo = a;
        if (b < hi)
            hi = b;
    }
    int64_t off;
    *aligned = n > 0;
    if (n == 0) {
        off = r->ndevs ? -first_q : 0; /* device timeline on its own, from 0 */
    } else {
        qsort(d, n, sizeof *d, cmp_i64);
        off = d[(n - 1) / 2];
        if (lo <= hi) {
            if (off < lo)
                off = lo;
            if (off > hi)
                off = hi;
        } else
            tp_warn(r->t, "dvdt: host and device clocks disagree (device slices may stick out of their calls)", 1);
    }
    free(d);
    return off;
}

int dv_run_end(dv_run *r, tp_err *err)
{
    tp_trace *t = r->t;
    bool aligned;
    int64_t off = align_offset(r, &aligned);
    /* The label names the device (the report's stream rows show it, so it
     * must tell repetitions apart); the name adds how its clock was placed. */
    {
        tp_process *dp = &t->processes[r->dev_proc];
        const char *id = tp_str_get(t, dp->name);
        char nm[160];
        snprintf(nm, sizeof nm, "%s (%s)", id,
                 aligned ? "device clock aligned to host, estimate" : "device clock not aligned");
        dp->label = dp->name;
        dp->name = tp_intern_cstr(t, nm);
    }
    tp_str wait = tp_intern_cstr(t, "queue wait"), queued = tp_intern_cstr(t, "queued"),
           submitted = tp_intern_cstr(t, "submitted"), wait_cat = tp_intern_cstr(t, "queue_wait");
    uint32_t layer_of = TP_NONE; /* the queue track the Layers line sits beside */
    for (size_t i = 0; i < r->ndevs; i++) {
        const dv_dev *x = &r->devs[i];
        const dv_queue *q = &r->queues[x->queue];
        if (layer_of == TP_NONE)
            layer_of = q->exec_track;
        tp_event e;
        tp_event_init(&e);
        e.cat = wait_cat;
        e.track = q->wait_track;
        e.kind = TP_KIND_OTHER;
        e.ts = x->q + off;
        e.dur = x->st - x->q;
        e.name = wait;
        tp_event_add(t, &e);
        e.dur = x->s - x->q;
        e.name = queued;
        tp_event_add(t, &e);
        e.ts = x->s + off;
        e.dur = x->st - x->s;
        e.name = submitted;
        tp_event_add(t, &e);
        e.track = q->exec_track;
        e.ts = x->st + off;
        e.dur = x->e - x->st;
        e.name = x->name;
        e.kind = x->kind;
        e.cat = tp_intern_cstr(t, tp_kind_name((tp_kind)x->kind));
        e.args = x->args;
        e.link = x->host_ev;
        tp_event_add(t, &e);
    }
    if (r->nlayers) {
        if (layer_of == TP_NONE) {
            tp_warn(t, "dvdt: per_layer_info without device activity (no Layers line)", 1);
        } else {
            /* a Layers line beside the queue, through the derivation engine
             * (windows: spans the file gives, written as they are; category
             * "derived", so read again the line stays a derived line) */
            int64_t y = 1970;
            if (r->any_host) {
                /* civil year of the first host time */
                int64_t days = r->first_host / 86400000000000LL;
                y = 1970 + days / 366;
                while (dv_days_from_civil(y + 1, 1, 1) <= days)
                    y++;
            }
            tp_derive_input in;
            memset(&in, 0, sizeof in);
            for (size_t i = 0; i < r->nlayers; i++) {
                const dv_layer *L = &r->layers[i];
                tp_window w = {.track = layer_of, .name = L->label, .dur = L->dur, .args = L->args};
                w.ts = dv_days_from_civil(y, (unsigned)L->month, (unsigned)L->day) * 86400000000000LL + L->mmdd_ns;
                tp_derive_add_window(&in, &w);
            }
            tp_derive_opts o = {.per_stream = true}; /* beside the stream, not the device's first track */
            tp_derive_from(t, &in, &o);
            tp_derive_input_free(&in);
        }
    }
    (void)err;
    dv_run_abort(r);
    return 0;
}
