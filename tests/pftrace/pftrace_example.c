/* pftrace_example.c: hand-built Perfetto traces (see pftrace_example.h).
 * Field numbers from Perfetto's protos/perfetto/trace/ (trace_packet.proto,
 * track_event/, interned_data/, clock_snapshot.proto). */
#include "tests/pftrace/pftrace_example.h"
#include "convert/codec/pbwrite.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void str(tp_buf *b, uint32_t field, const char *s) { tp_pbw_bytes(b, field, s, strlen(s)); }

/* A TrackDescriptor packet: uuid, parent (0 none), name (NULL none); pid/tid
 * for a process (tid < 0) or thread (tid >= 0) descriptor when pid > 0. */
static void desc(tp_buf *b, uint64_t uuid, uint64_t parent, const char *name, int64_t pid, int64_t tid,
                 const char *pname, bool counter)
{
    size_t pk = tp_pbw_begin(b, 1);
    size_t td = tp_pbw_begin(b, 60);
    tp_pbw_uint(b, 1, uuid);
    if (parent)
        tp_pbw_uint(b, 5, parent);
    if (name)
        str(b, 2, name);
    if (pid > 0 && tid < 0) {
        size_t d = tp_pbw_begin(b, 3);
        tp_pbw_int(b, 1, pid);
        str(b, 6, pname);
        tp_pbw_end(b, d);
    } else if (pid > 0) {
        size_t d = tp_pbw_begin(b, 4);
        tp_pbw_int(b, 1, pid);
        tp_pbw_int(b, 2, tid);
        str(b, 5, pname);
        tp_pbw_end(b, d);
    }
    if (counter)
        tp_pbw_bytes(b, 8, "", 0);
    tp_pbw_end(b, td);
    tp_pbw_uint(b, 10, 1); /* the service's sequence id of the descriptor writer */
    tp_pbw_end(b, pk);
}

static void entry(tp_buf *b, uint32_t field, uint64_t iid, const char *name)
{
    size_t m = tp_pbw_begin(b, field);
    tp_pbw_uint(b, 1, iid);
    str(b, 2, name);
    tp_pbw_end(b, m);
}

/* debug annotation: name_iid (or inline name), an int or an interned string value */
static void ann_int(tp_buf *b, uint64_t name_iid, int64_t v)
{
    size_t m = tp_pbw_begin(b, 4);
    tp_pbw_uint(b, 1, name_iid);
    tp_pbw_int(b, 4, v);
    tp_pbw_end(b, m);
}

/* One TrackEvent packet on sequence seq: type, time, name iid (0: inline
 * `name`), category iid, track (0: the default). */
static size_t event_begin(tp_buf *b, uint32_t seq, uint64_t ts, int type, uint64_t name_iid, const char *name,
                          uint64_t cat_iid, uint64_t track, size_t *te)
{
    size_t pk = tp_pbw_begin(b, 1);
    tp_pbw_uint(b, 8, ts);
    *te = tp_pbw_begin(b, 11);
    tp_pbw_uint(b, 9, (uint64_t)type);
    if (track)
        tp_pbw_uint(b, 11, track);
    if (name_iid)
        tp_pbw_uint(b, 10, name_iid);
    else if (name)
        str(b, 23, name);
    if (cat_iid)
        tp_pbw_uint(b, 3, cat_iid);
    (void)seq;
    return pk;
}

static void event_end(tp_buf *b, uint32_t seq, size_t pk, size_t te, uint32_t flags)
{
    tp_pbw_end(b, te);
    tp_pbw_uint(b, 10, seq);
    if (flags)
        tp_pbw_uint(b, 13, flags);
    tp_pbw_end(b, pk);
}

static void simple(tp_buf *b, uint32_t seq, uint64_t ts, int type, uint64_t name_iid, const char *name,
                   uint64_t cat_iid, uint64_t track)
{
    size_t te, pk = event_begin(b, seq, ts, type, name_iid, name, cat_iid, track, &te);
    event_end(b, seq, pk, te, 2);
}

/* Sequence 2: interned data, a default track (the thread), host op ->
 * runtime call -> kernel on the GPU stream (bound by a flow id), a counter. */
static void interned_sequence(tp_buf *b)
{
    /* the first packet: state cleared, interned data, defaults */
    size_t pk = tp_pbw_begin(b, 1);
    size_t id = tp_pbw_begin(b, 12);
    entry(b, 1, 1, "cpu_op");
    entry(b, 1, 2, "cuda_runtime");
    entry(b, 2, 1, "aten::mm");
    entry(b, 2, 2, "cudaLaunchKernel");
    entry(b, 2, 3, "ampere_sgemm_128x64_tn");
    entry(b, 3, 1, "External id");
    entry(b, 3, 2, "correlation");
    entry(b, 3, 3, "Input Dims");
    entry(b, 29, 1, "[[2, 3], [3, 4]]");
    tp_pbw_end(b, id);
    size_t d = tp_pbw_begin(b, 59);
    size_t ted = tp_pbw_begin(b, 11);
    tp_pbw_uint(b, 11, 101);
    tp_pbw_end(b, ted);
    tp_pbw_end(b, d);
    tp_pbw_uint(b, 10, 2);
    tp_pbw_uint(b, 13, 1);
    tp_pbw_end(b, pk);

    size_t te;
    pk = event_begin(b, 2, 1000, 1, 1, NULL, 1, 0, &te);
    ann_int(b, 1, 7);
    size_t m = tp_pbw_begin(b, 4);
    tp_pbw_uint(b, 1, 3);
    tp_pbw_uint(b, 17, 1); /* string_value_iid */
    tp_pbw_end(b, m);
    event_end(b, 2, pk, te, 2);

    pk = event_begin(b, 2, 1100, 1, 2, NULL, 2, 0, &te);
    ann_int(b, 2, 42);
    tp_pbw_fixed64(b, 47, 9); /* flow_ids */
    event_end(b, 2, pk, te, 2);
    simple(b, 2, 1200, 2, 0, NULL, 0, 0);

    /* the kernel: no category, on the GPU's stream; the flow ends there */
    pk = event_begin(b, 2, 1500, 1, 3, NULL, 0, 201, &te);
    tp_pbw_fixed64(b, 48, 9); /* terminating_flow_ids */
    m = tp_pbw_begin(b, 4);
    str(b, 10, "grid"); /* an inline annotation name */
    str(b, 6, "[128, 1, 1]");
    tp_pbw_end(b, m);
    event_end(b, 2, pk, te, 2);
    simple(b, 2, 1800, 2, 0, NULL, 0, 201);

    simple(b, 2, 1900, 3, 0, "marker", 0, 0);
    simple(b, 2, 2000, 2, 0, NULL, 0, 0);

    pk = event_begin(b, 2, 1000, 4, 0, NULL, 0, 300, &te);
    tp_pbw_double(b, 44, 1.5);
    event_end(b, 2, pk, te, 2);
    pk = event_begin(b, 2, 2000, 4, 0, NULL, 0, 300, &te);
    tp_pbw_int(b, 30, 3);
    event_end(b, 2, pk, te, 2);
    /* the delta counter in KB: 2, then +3 */
    pk = event_begin(b, 2, 1000, 4, 0, NULL, 0, 301, &te);
    tp_pbw_int(b, 30, 2);
    event_end(b, 2, pk, te, 2);
    pk = event_begin(b, 2, 2000, 4, 0, NULL, 0, 301, &te);
    tp_pbw_int(b, 30, 3);
    event_end(b, 2, pk, te, 2);
}

/* A counter track of deltas in KB: CounterDescriptor {unit_multiplier 4, is_incremental 5}. */
static void delta_counter_desc(tp_buf *b)
{
    size_t pk = tp_pbw_begin(b, 1);
    size_t td = tp_pbw_begin(b, 60);
    tp_pbw_uint(b, 1, 301);
    tp_pbw_uint(b, 5, 100);
    str(b, 2, "Heap bytes");
    size_t cd = tp_pbw_begin(b, 8);
    tp_pbw_int(b, 4, 1024);
    tp_pbw_uint(b, 5, 1);
    tp_pbw_end(b, cd);
    tp_pbw_end(b, td);
    tp_pbw_uint(b, 10, 1);
    tp_pbw_end(b, pk);
}

/* Sequence 3: an incremental clock (64) from a snapshot, as the default. */
static void clock_sequence(tp_buf *b)
{
    size_t pk = tp_pbw_begin(b, 1);
    size_t cs = tp_pbw_begin(b, 6);
    size_t c = tp_pbw_begin(b, 1);
    tp_pbw_uint(b, 1, 64);
    tp_pbw_uint(b, 2, 4000);
    tp_pbw_uint(b, 3, 1);
    tp_pbw_end(b, c);
    c = tp_pbw_begin(b, 1);
    tp_pbw_uint(b, 1, 6);
    tp_pbw_uint(b, 2, 5000);
    tp_pbw_end(b, c);
    tp_pbw_end(b, cs);
    size_t d = tp_pbw_begin(b, 59);
    tp_pbw_uint(b, 58, 64);
    tp_pbw_end(b, d);
    tp_pbw_uint(b, 10, 3);
    tp_pbw_uint(b, 13, 1);
    tp_pbw_end(b, pk);
    size_t te;
    /* 4000 + 0 on clock 64 is 5000 on the trace clock; then +500 */
    pk = event_begin(b, 3, 0, 1, 0, "ProfilerStep#1", 0, 101, &te);
    str(b, 22, "user_annotation");
    event_end(b, 3, pk, te, 2);
    simple(b, 3, 500, 2, 0, NULL, 0, 101);
}

/* Sequence 4: a legacy ThreadDescriptor packet; events without a track. */
static void legacy_sequence(tp_buf *b)
{
    size_t pk = tp_pbw_begin(b, 1);
    size_t d = tp_pbw_begin(b, 44);
    tp_pbw_int(b, 1, 1234);
    tp_pbw_int(b, 2, 999);
    str(b, 5, "worker");
    tp_pbw_end(b, d);
    tp_pbw_uint(b, 10, 4);
    tp_pbw_uint(b, 13, 1);
    tp_pbw_end(b, pk);
    simple(b, 4, 6000, 1, 0, "io", 0, 0);
    simple(b, 4, 6100, 2, 0, NULL, 0, 0);
}

static void compressed(tp_buf *b, const tp_buf *inner)
{
    uLongf n = compressBound(inner->len);
    unsigned char *z = tp_xmalloc(n);
    compress2(z, &n, (const Bytef *)inner->data, inner->len, 6);
    size_t pk = tp_pbw_begin(b, 1);
    tp_pbw_bytes(b, 50, z, n);
    tp_pbw_end(b, pk);
    free(z);
}

void tp_pftrace_example(tp_buf *out, bool compress)
{
    out->len = 0;
    desc(out, 100, 0, NULL, 1234, -1, "MyProcess", false);
    desc(out, 101, 100, NULL, 1234, 5678, "Main Thread", false);
    desc(out, 200, 0, NULL, 77, -1, "GPU 0", false);
    desc(out, 201, 200, "stream 7", 0, 0, NULL, false);
    desc(out, 300, 100, "Memory Usage", 0, 0, NULL, true);
    delta_counter_desc(out);
    if (compress) {
        tp_buf inner = {0};
        interned_sequence(&inner);
        compressed(out, &inner);
        tp_buf_free(&inner);
    } else
        interned_sequence(out);
    clock_sequence(out);
    legacy_sequence(out);
}

void tp_pftrace_nested(tp_buf *out, int depth)
{
    tp_buf cur = {0}, next = {0};
    simple(&cur, 1, 10, 3, 0, "deep", 0, 0);
    desc(&cur, 5, 0, "t", 0, 0, NULL, false);
    for (int i = 0; i < depth; i++) {
        next.len = 0;
        compressed(&next, &cur);
        tp_buf tmp = cur;
        cur = next;
        next = tmp;
    }
    out->len = 0;
    tp_buf_put(out, cur.data, cur.len);
    tp_buf_free(&cur);
    tp_buf_free(&next);
}

void tp_pftrace_bomb(tp_buf *out, unsigned mb)
{
    /* packets of 64 KB of padding (an unknown field), deflated as a stream */
    tp_buf pad = {0};
    size_t pk = tp_pbw_begin(&pad, 1);
    char *zeros = tp_xcalloc(65536, 1);
    tp_pbw_bytes(&pad, 900, zeros, 65536 - 16);
    tp_pbw_end(&pad, pk);
    free(zeros);
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit(&z, 9);
    tp_buf zb = {0};
    size_t total = (size_t)mb << 20;
    for (size_t done = 0; done < total; done += pad.len) {
        z.next_in = (Bytef *)pad.data;
        z.avail_in = (uInt)pad.len;
        int flush = done + pad.len >= total ? Z_FINISH : Z_NO_FLUSH, zr;
        do {
            TP_GROW(zb.data, zb.cap, zb.len + 65536);
            z.next_out = (Bytef *)zb.data + zb.len;
            z.avail_out = 65536;
            zr = deflate(&z, flush);
            zb.len += 65536 - z.avail_out;
        } while (flush == Z_FINISH ? zr != Z_STREAM_END : z.avail_out == 0);
    }
    deflateEnd(&z);
    out->len = 0;
    desc(out, 5, 0, "t", 0, 0, NULL, false);
    pk = tp_pbw_begin(out, 1);
    tp_pbw_bytes(out, 50, zb.data, zb.len);
    tp_pbw_end(out, pk);
    tp_buf_free(&pad);
    tp_buf_free(&zb);
}

void tp_pftrace_rocprof_like(tp_buf *out)
{
    out->len = 0;
    desc(out, 10, 0, NULL, 4242, -1, "python3", false);
    desc(out, 11, 10, NULL, 4242, 4243, "python3", false);
    desc(out, 20, 10, "HIP Dispatch Queue [0]", 0, 0, NULL, false);
    size_t first = tp_pbw_begin(out, 1); /* the sequence's state cleared (its packets need it) */
    tp_pbw_uint(out, 10, 5);
    tp_pbw_uint(out, 13, 1);
    tp_pbw_end(out, first);
    /* the call's end before its begin in the file: a reader sorts by time, as Perfetto does */
    simple(out, 5, 1100, 2, 0, NULL, 0, 11);
    size_t te, pk = event_begin(out, 5, 1000, 1, 0, "hipLaunchKernel", 0, 11, &te);
    str(out, 22, "hip_api");
    tp_pbw_fixed64(out, 47, 77);
    event_end(out, 5, pk, te, 0);
    pk = event_begin(out, 5, 1300, 1, 0, "gemm_kernel", 0, 20, &te);
    str(out, 22, "kernel_dispatch");
    tp_pbw_fixed64(out, 48, 77);
    event_end(out, 5, pk, te, 0);
    simple(out, 5, 1900, 2, 0, NULL, 0, 20);
}
