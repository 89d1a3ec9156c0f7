/* xplane_event.c: a plane's lines and events into the model (tp_trace).
 * A plane with lines becomes a process (pid by its name: /host:CPU* 701,
 * 702...; devices 1 + id; /device:CUSTOM: 501 + id; others 801...), a line
 * a track, an XEvent a tp_event: its time, name, kind and correlation from
 * its stats (metadata stats first, the event's replacing them), its args
 * as a handle on the file (rendered by xplane_args.c), and what the
 * derivation engine and the report keep of it.  Once per event: the hot
 * path of the reader. */
#include "convert/read/xplane/xplane_read_int.h"

#include <stdio.h>
#include <sys/mman.h>

/* ps -> ns, rounded to nearest (half away from zero) */
static int64_t ps_to_ns(int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

static uint32_t plane_process(xp_reader *r)
{
    if (r->process != TP_NONE)
        return r->process;
    const uint8_t *n = r->plane_name;
    size_t nl = r->plane_name_len;
    int64_t pid;
    bool device = has_prefix(n, nl, "/device:");
    if (has_prefix(n, nl, "/host:CPU"))
        pid = 701 + r->nhost++;
    else if (has_prefix(n, nl, "/device:CUSTOM:"))
        pid = 501 + r->plane_id;
    else if (device)
        pid = (r->plane_id >= 0 && r->plane_id < 500) ? 1 + r->plane_id : 1;
    else
        pid = 801 + r->nother++;
    uint32_t p = tp_process_get(r->t, pid);
    tp_process *pr = &r->t->processes[p];
    pr->name = tp_intern(r->t, (const char *)n, nl);
    pr->sort_index = pid;
    pr->has_sort = true;
    pr->is_device = device;
    if (device) {
        /* ordinal: the digits after the last ':' ("/device:GPU:4") */
        size_t i = nl;
        while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
            i--;
        if (i < nl && i > 0 && n[i - 1] == ':' && nl - i < 9) {
            int32_t d = 0;
            for (size_t j = i; j < nl; j++)
                d = d * 10 + (n[j] - '0');
            pr->device = d;
        }
    }
    r->process = p;
    return p;
}

/* at: the XEvent field (key) in the file; msg[0..len): its payload. */
static int read_event(xp_reader *r, const uint8_t *at, const uint8_t *msg, size_t len, const xp_line *L,
                      uint32_t track, bool is_device_line)
{
    xp_evhdr h;
    r->ev.n = 0;
    if (decode_event(r->top.base, msg, len, &h, &r->ev, r->err) < 0)
        return -1;
    uint64_t evoff = (uint64_t)(msg - r->top.base);
    uint32_t mi = ids_get(&r->pl->eids, h.mid);
    xp_emeta *m = mi == TP_I64MAP_EMPTY ? NULL : &r->em[mi];
    if (!m)
        tp_warn(r->t, "XPlane event metadata id not found (event named by id)", 1);
    r->st.n = 0;
    uint32_t badrefs = 0;
    if (m) {
        if (!m->decoded && xp_emeta_stats(r, mi) < 0)
            return -1;
        m = &r->em[mi];
        if (m->nst) {
            TP_GROW(r->st.v, r->st.cap, m->nst);
            memcpy(r->st.v, r->mst + m->st, m->nst * sizeof *r->st.v);
        }
        r->st.n = m->nst;
        badrefs = m->badrefs;
    }
    for (size_t i = 0; i < r->ev.n; i++)
        resolve_stat(r, &r->ev.v[i], &badrefs);
    xp_stats_merge_all(&r->st, &r->ev);
    if (badrefs)
        tp_warn(r->t, "XPlane ref_value without its string (shown empty)", badrefs);

    tp_event e;
    tp_event_init(&e);
    e.track = track;
    int64_t off = h.off, dur = h.dur;
    if (dur < 0 || dur > (INT64_C(1) << 62) || off < -(INT64_C(1) << 62) || off > (INT64_C(1) << 62))
        return tp_fail(r->err, evoff, "XPlane event time out of range (offset_ps %lld, duration_ps %lld)",
                       (long long)off, (long long)dur);
    int64_t s_ns = ps_to_ns(off), e_ns = ps_to_ns(off + dur);
    if (__builtin_add_overflow(L->ts_ns, s_ns, &e.ts) || __builtin_add_overflow(L->ts_ns, e_ns, &e_ns))
        return tp_fail(r->err, evoff, "XPlane event time overflows (line timestamp_ns %lld)", (long long)L->ts_ns);
    e.dur = e_ns - e.ts;
    if (h.has_occ) { /* an aggregated event: no time of its own, kept as an instant */
        e.ph = 'i';
        e.ts = L->ts_ns;
        e.dur = 0;
    }
    if (m) {
        if (!m->interned)
            xp_emeta_intern(r, mi);
        e.name = m->shown;
    } else {
        char b[48];
        snprintf(b, sizeof b, "metadata %lld", (long long)h.mid);
        e.name = tp_intern_cstr(r->t, b);
    }

    int64_t group = TP_DERIVE_NO_GROUP, corr = -1, device_id = -1, v;
    bool kernel = false, memcpy_ = false, memset_ = false, graph = false, async = false;
    bool has_flops = false, has_bytes = false;
    uint64_t flops = 0, bytes = 0;
    for (size_t i = 0; i < r->st.n; i++) {
        const xp_stat *s = &r->st.v[i];
        switch (stat_wk(r->pl, s)) {
        case WK_GROUP_ID:
            if (stat_int(s, &v))
                group = v;
            break;
        case WK_STEP_NAME:
            if (stat_text(s) && s->len)
                e.name = stat_str(r, s);
            break;
        case WK_KERNEL_DETAILS: kernel = true; break;
        case WK_MEMCPY_DETAILS: memcpy_ = true; break;
        case WK_MEMSET_DETAILS: memset_ = true; break;
        case WK_CUDA_GRAPH_EXEC: graph = true; break;
        case WK_IS_ASYNC:
            if (stat_int(s, &v) && v)
                async = true;
            break;
        case WK_CORRELATION_ID:
            if (stat_int(s, &v))
                corr = v;
            break;
        case WK_DEVICE_ID:
            if (stat_int(s, &v))
                device_id = v;
            break;
        case WK_FLOPS: has_flops = stat_count(s, &flops); break;
        case WK_BYTES_ACCESSED: has_bytes = stat_count(s, &bytes); break;
        default: break;
        }
    }
    if (is_device_line) {
        if (memcpy_)
            e.kind = TP_KIND_MEMCPY;
        else if (memset_)
            e.kind = TP_KIND_MEMSET;
        else if (kernel || graph)
            e.kind = TP_KIND_KERNEL;
        else if (!async && !r->plane_is_gpu && L->nlen == 7 && memcmp(L->name, "XLA Ops", 7) == 0)
            e.kind = TP_KIND_KERNEL; /* TPU: the runtime's XLA Ops line is the op executions */
        else
            e.kind = TP_KIND_OTHER;
    } else if (r->plane_is_device) {
        e.kind = TP_KIND_OTHER;
    } else {
        /* a launch: TF 2.x calls have no device_id but the details of what they launch */
        e.kind = corr >= 0 && (device_id >= 0 || kernel || memcpy_ || memset_) ? TP_KIND_RUNTIME : TP_KIND_HOST_OP;
    }
    /* categories: the kind names the converter's own output uses (so a
     * converted trace reads back with the same kinds), "derived" for lines
     * TensorFlow derived */
    if (!r->cat_derived) {
        r->cat_derived = tp_intern_cstr(r->t, TP_DERIVED_CAT);
        for (int kk = 0; kk < TP_KIND_COUNT; kk++)
            r->cat_kind[kk] = tp_intern_cstr(r->t, tp_kind_name((tp_kind)kk));
    }
    if (is_device_line && m && e.kind == TP_KIND_KERNEL && !async && !h.has_occ) /* an op execution */
        xp_cost_event(r, mi, e.name, has_flops && has_bytes, flops, bytes);
    e.cat = r->plane_is_device && !is_device_line ? r->cat_derived : r->cat_kind[e.kind];
    if (r->plane_is_device && !is_device_line) /* a line TensorFlow derived: not the trace's own slices */
        e.flags |= TP_EV_DERIVED;
    if (corr >= 0 && (is_device_line || e.kind == TP_KIND_RUNTIME)) {
        e.corr = (uint32_t)corr;
        e.flags |= TP_EV_HAS_CORR;
    }

    if (r->o->keep_args && (r->st.n || h.has_occ || (m && r->pl->em[mi].full))) {
        uint64_t at_off = (uint64_t)(at - r->top.base);
        if (r->lazy_args && r->pi < XP_MAX_PLANES && at_off < (UINT64_C(1) << XP_OFF_BITS)) {
            /* the writers render them from the file: their names must be interned now */
            for (size_t i = 0; i < r->st.n; i++) {
                const xp_stat *s = &r->st.v[i];
                if (s->sm != TP_I64MAP_EMPTY)
                    smeta_name(r, s->sm);
                if (s->type == XS_REF && s->ref != TP_I64MAP_EMPTY)
                    smeta_name(r, s->ref);
            }
            e.args = TP_ARGS_EXTERNAL | (uint64_t)r->pi << XP_OFF_BITS | at_off;
        } else {
            tp_argb_reset(&r->ab);
            xp_args_json(&r->ab.buf, r->pl, m && r->pl->em[mi].full ? (const char *)m->name : NULL, m ? m->nlen : 0,
                      h.has_occ, h.occ, &r->st);
            e.args = tp_args_add(r->t, r->ab.buf.data, r->ab.buf.len);
        }
    }
    if (r->plane_is_device && !is_device_line && group != TP_DERIVE_NO_GROUP && group >= 0 && L->nlen == 5 &&
        memcmp(L->name, "Steps", 5) == 0) { /* a Steps line kept from the file: its events are the steps */
        e.flags |= TP_EV_STEP;
        e.id = (uint64_t)group;
    }
    if (r->t->nevents >= r->ev_limit) /* more events than counted: the file changed under us */
        return tp_fail(r->err, evoff, "XPlane events changed while the file was read");
    uint32_t idx = tp_event_add(r->t, &e);
    r->t->events_in++;
    r->plane_events++;

    bool activity = e.kind == TP_KIND_KERNEL || e.kind == TP_KIND_MEMCPY || e.kind == TP_KIND_MEMSET;
    if (is_device_line && e.ph == 'X' && !async && (r->plane_derive || (r->xd && activity))) {
        tp_annot a;
        tp_str hlo = 0;
        xp_annotate(r, idx, group, kernel || graph || e.kind == TP_KIND_KERNEL, m, &a, r->xd ? &hlo : NULL);
        if (r->plane_derive)
            tp_derive_add(&r->din, &a);
        if (r->xd && activity && (a.op || hlo)) {
            TP_GROW(r->xd->ops, r->xd->ops_cap, r->xd->nops + 1);
            r->xd->ops[r->xd->nops++] = (tp_xplane_opkey){idx, a.op, a.op ? a.op_display : 0, hlo};
        }
    }
    if (!r->plane_is_device && e.kind == TP_KIND_RUNTIME && corr >= 0 &&
        tp_launch_counted(m ? (const char *)m->name : "", m ? m->nlen : 0)) {
        if (group != TP_DERIVE_NO_GROUP && device_id >= 0) /* device: an ordinal until the end */
            tp_derive_add_launch(&r->din, (uint32_t)device_id, group, e.ts, e.dur);
        if (r->xd) {
            TP_GROW(r->xd->launches, r->xd->launches_cap, r->xd->nlaunches + 1);
            r->xd->launches[r->xd->nlaunches++] =
                (tp_xplane_launch){idx, device_id >= 0 && device_id < INT32_MAX ? (uint32_t)device_id : TP_NONE, group};
        }
    }
    return 0;
}

/* Give back the pages of a finished range of a mapped file. */
static void drop_pages(xp_reader *r, const uint8_t *from, const uint8_t *to)
{
    if (!r->page)
        return;
    uintptr_t a = ((uintptr_t)from + r->page - 1) & ~(uintptr_t)(r->page - 1);
    uintptr_t b = (uintptr_t)to & ~(uintptr_t)(r->page - 1);
    if (b > a + 16 * r->page)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

int xp_read_line(xp_reader *r, const tp_pb *plane, const tp_pb_field *lf)
{
    xp_line L;
    if (r->lcache_next < r->nlcache && r->lcache[r->lcache_next].data == lf->data)
        L = r->lcache[r->lcache_next++].L;
    else if (xp_decode_line(plane, lf, &L, r->err) < 0)
        return -1;
    bool derived = tp_xplane_is_derived_line_id(L.id);
    if (derived && tp_xplane_opts_of(r->o)->rederive)
        return 0; /* rebuilt by the engine instead */
    if (L.nevents == 0) /* a line without events (TPU "Overlay") gets no track: viewers skip them too */
        return 0;
    uint32_t proc = plane_process(r);
    tp_trace *t = r->t;
    int64_t tid = (int64_t)(uint32_t)(uint64_t)(L.display_id ? L.display_id : L.id);
    tp_str name = L.dlen ? tp_intern(t, (const char *)L.disp, L.dlen) : tp_intern(t, (const char *)L.name, L.nlen);
    uint32_t track;
    if (derived) {
        track = tp_track_add(t, proc, name, TP_TRACK_DERIVED, TP_NONE); /* derived_of set after the plane */
        t->tracks[track].tid = tid;
    } else {
        track = tp_track_get(t, proc, tid);
        t->tracks[track].name = name;
        t->tracks[track].role = r->plane_is_device ? TP_TRACK_DEVICE : TP_TRACK_HOST;
    }
    bool is_device_line = r->plane_is_device && !derived;
    tp_pb p = tp_pb_sub(plane, lf);
    tp_pb_field f;
    int k;
    const uint8_t *at = p.p;
    while ((k = tp_pb_next_fast(&p, &f, r->err)) == 1) {
        if (f.num == 4 && f.wt == TP_PB_LEN) {
            if (read_event(r, at, f.data, f.len, &L, track, is_device_line) < 0)
                return -1;
        }
        at = p.p;
    }
    if (k < 0)
        return -1;
    drop_pages(r, lf->data, lf->data + lf->len);
    return 0;
}

