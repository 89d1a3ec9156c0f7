/* xplane_read.c: TensorFlow / JAX / XLA profiler XSpace files (*.xplane.pb):
 * the file, the XSpace and its planes.
 *
 * The file is walked with pbwire over the mapped bytes, plane by plane; no
 * message tree is built.  A plane serialises its lines before its metadata
 * maps (XPLANE.md §8), so each plane is read in two passes: first the
 * metadata maps and plane stats (lines are only skipped over), then the
 * lines (xplane_event.c).  Names stay pointers into the file until an event
 * needs them.  Large files have their later planes read on a second thread
 * (xplane_parts.c).
 *
 * Mapping (XPLANE.md §6): /host:CPU* planes are pids 701, 702...; device
 * planes pid 1 + plane id (clamped to 1..500), /device:CUSTOM: 501 + id; other
 * planes with lines 801, 802...  A line is a track with tid = (uint32)
 * (display_id or id) and name = display_name or name.  Times: line
 * timestamp_ns + offset_ps, each end rounded to the nearest ns.  Plane stats,
 * hostnames, errors and warnings go to the top-level "xplane" object.
 *
 * Args are not kept as JSON text: an event's args handle is the offset of
 * its XEvent in the file (TP_ARGS_EXTERNAL), and the writers have the stats
 * decoded again and rendered (xplane_args.c).  The file is read again with
 * pread in windows, so it does not stay resident; what the renderer needs
 * of each plane (names of stat and event metadata, metadata stats) is kept
 * as interned strings.  Hot loops decode the usual encoding inline and hand
 * anything else to pbwire (same results, same errors: xplane_wire.c). */
#include "convert/read/xplane/xplane_read_int.h"
#include "convert/codec/json_write.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool tp_xplane_is_derived_line_id(int64_t id)
{
    int32_t v = (int32_t)(uint32_t)(uint64_t)id;
    int32_t min = (int32_t)0xdeadbeefu;
    return v >= min && v < min + 400;
}

void xp_data_free(void *p)
{
    tp_xplane_data *xd = p;
    if (!xd)
        return;
    free(xd->launches);
    free(xd->ops);
    free(xd);
}

void xp_reader_free(xp_reader *r)
{
    free(r->lcache);
    xp_data_free(r->xd);
    xp_src_free(r->src);
    tp_buf_free(&r->planes_json);
    tp_i64map_free(&r->opcache);
    free(r->ops);
    free(r->costs);
    free(r->em);
    free(r->sm);
    free(r->skeys);
    free(r->ekeys);
    free(r->mst);
    free(r->st.v);
    free(r->ev.v);
    tp_argb_free(&r->ab);
    tp_derive_input_free(&r->din);
    memset(r, 0, sizeof *r);
}

/* ---- planes ---- */

static void plane_json_begin(xp_reader *r)
{
    tp_buf *b = &r->planes_json;
    if (b->len)
        tp_buf_putc(b, ',');
}

/* The plane's stats (field 6): the "stats" of its entry in "xplane". */
static int plane_stats_json(xp_reader *r, const tp_pb *plane)
{
    r->ev.n = r->st.n = 0;
    if (xp_decode_stats(r->top.base, plane->p, (size_t)(plane->end - plane->p), 6, &r->ev, r->err) < 0)
        return -1;
    uint32_t badrefs = 0;
    for (size_t i = 0; i < r->ev.n; i++) {
        resolve_stat(r, &r->ev.v[i], &badrefs);
        xp_stats_merge(&r->st, &r->ev.v[i]);
    }
    if (badrefs)
        tp_warn(r->t, "XPlane ref_value without its string (shown empty)", badrefs);
    tp_argb_reset(&r->ab);
    xp_args_json(&r->ab.buf, r->pl, NULL, 0, false, 0, &r->st);
    if (r->ab.buf.len) {
        tp_buf_puts(&r->planes_json, ",\"stats\":");
        tp_buf_put(&r->planes_json, r->ab.buf.data, r->ab.buf.len);
    }
    tp_argb_reset(&r->ab);
    return 0;
}

int xp_read_plane(xp_reader *r, const tp_pb_field *pf)
{
    tp_pb plane = tp_pb_sub(&r->top, pf);
    tp_pb_field f;
    int k;
    xp_src *src = r->src;
    TP_GROW(src->planes, src->planes_cap, src->nplanes + 1);
    r->pi = src->nplanes++;
    r->pl = &src->planes[r->pi];
    memset(r->pl, 0, sizeof *r->pl);
    r->nem = r->nsm = r->nmst = 0;
    r->process = TP_NONE;
    r->plane_id = 0;
    r->plane_name = (const uint8_t *)"";
    r->plane_name_len = 0;
    r->plane_events = 0;
    r->plane_has_derived = false;
    uint64_t nlines_raw = 0;
    /* pass 1: everything but the lines */
    while ((k = tp_pb_next(&plane, &f, r->err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_VARINT)
            r->plane_id = (int64_t)f.v;
        else if (f.num == 2 && f.wt == TP_PB_LEN) {
            r->plane_name = f.data;
            r->plane_name_len = f.len;
        } else if (f.num == 3 && f.wt == TP_PB_LEN) {
            nlines_raw++;
            /* only the id (field 1, serialised first): a full scan happens in pass 2 */
            int64_t id;
            int k2 = xp_peek_line_id(&plane, &f, &id, r->err);
            if (k2 < 0)
                return -1;
            if (k2 == 1 && tp_xplane_is_derived_line_id(id))
                r->plane_has_derived = true;
        } else if (f.num == 4 && f.wt == TP_PB_LEN) {
            if (xp_read_event_metadata(r, &plane, &f) < 0)
                return -1;
        } else if (f.num == 5 && f.wt == TP_PB_LEN) {
            if (xp_read_stat_metadata(r, &plane, &f) < 0)
                return -1;
        }
    }
    if (k < 0)
        return -1;
    xp_plane *pl = r->pl;
    xp_ids_build(&pl->sids, r->skeys, r->nsm);
    xp_ids_build(&pl->eids, r->ekeys, r->nem);
    pl->nsm = r->nsm;
    pl->sm = tp_xcalloc(r->nsm + 1, sizeof *pl->sm);
    for (size_t i = 0; i < r->nsm; i++)
        pl->sm[i].wk = r->sm[i].wk;
    pl->nem = r->nem;
    pl->em = tp_xcalloc(r->nem + 1, sizeof *pl->em);
    r->plane_is_device = has_prefix(r->plane_name, r->plane_name_len, "/device:");
    r->plane_is_gpu = has_prefix(r->plane_name, r->plane_name_len, "/device:GPU:");
    r->plane_derive = r->plane_is_device && (tp_xplane_opts_of(r->o)->rederive || !r->plane_has_derived);

    plane_json_begin(r);
    tp_buf_puts(&r->planes_json, "{\"id\":");
    tp_buf_printf(&r->planes_json, "%lld,\"name\":", (long long)r->plane_id);
    tp_json_put_string(&r->planes_json, (const char *)r->plane_name, r->plane_name_len, NULL);
    plane = tp_pb_sub(&r->top, pf);
    if (plane_stats_json(r, &plane) < 0)
        return -1;
    xp_device_begin(r); /* (from the plane's stats just decoded) */

    /* pass 2: the lines */
    plane = tp_pb_sub(&r->top, pf);
    while ((k = tp_pb_next(&plane, &f, r->err)) == 1)
        if (f.num == 3 && f.wt == TP_PB_LEN && xp_read_line(r, &plane, &f) < 0)
            return -1;
    if (k < 0)
        return -1;
    if (r->process != TP_NONE) { /* derived lines in the file sit beside the first stream */
        tp_trace *t = r->t;
        uint32_t first = TP_NONE;
        for (size_t i = 0; i < t->ntracks && first == TP_NONE; i++)
            if (t->tracks[i].process == r->process && t->tracks[i].role == TP_TRACK_DEVICE)
                first = (uint32_t)i;
        for (size_t i = 0; i < t->ntracks; i++)
            if (t->tracks[i].process == r->process && t->tracks[i].role == TP_TRACK_DERIVED &&
                t->tracks[i].derived_of == TP_NONE)
                t->tracks[i].derived_of = first;
    }
    xp_device_end(r);
    tp_buf_printf(&r->planes_json, ",\"lines\":%llu,\"events\":%llu", (unsigned long long)nlines_raw,
                  (unsigned long long)r->plane_events);
    if (r->process != TP_NONE)
        tp_buf_printf(&r->planes_json, ",\"pid\":%lld", (long long)r->t->processes[r->process].pid);
    tp_buf_putc(&r->planes_json, '}');
    return 0;
}

static void json_str_list(tp_buf *b, const char *key, const tp_buf *items)
{
    if (!items->len)
        return;
    tp_buf_printf(b, ",\"%s\":[", key);
    tp_buf_put(b, items->data, items->len);
    tp_buf_putc(b, ']');
}

/* The process of the /device:GPU:<ordinal> plane (the last one, should a
 * file have two), or TP_NONE: what a launch's device_id names. */
static uint32_t gpu_process(const tp_trace *t, uint32_t ordinal)
{
    uint32_t proc = TP_NONE;
    for (size_t p = 0; ordinal != TP_NONE && p < t->nprocesses; p++)
        if (t->processes[p].is_device && t->processes[p].device == (int32_t)ordinal &&
            strncmp(tp_str_get(t, t->processes[p].name), "/device:GPU:", 12) == 0)
            proc = (uint32_t)p;
    return proc;
}

/* ---- the XSpace ---- */

/* mapped: buf is a private file mapping whose finished lines may be dropped.
 * On success with args kept, t->format_data is the renderer, without the
 * input's bytes yet: the caller attaches them (xp_attach_bytes). */
static int read_space(const void *buf, size_t len, bool mapped, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    xp_reader r;
    memset(&r, 0, sizeof r);
    if (mapped)
        r.page = (size_t)sysconf(_SC_PAGESIZE);
    r.t = t;
    r.o = o;
    r.err = err;
    r.top = tp_pb_init(buf, len);
    r.src = tp_xcalloc(1, sizeof *r.src);
    r.src->fd = -1;
    r.lazy_args = o->keep_args;
    r.ev_limit = SIZE_MAX;
    if (r.lazy_args) {
        r.src->k_long_name = tp_intern_cstr(t, "long_name");
        r.src->k_occ = tp_intern_cstr(t, "num_occurrences");
        r.src->k_corr = tp_intern_cstr(t, "correlation");
    }
    t->format = "xplane";
    if (o->report_data)
        r.xd = tp_xcalloc(1, sizeof *r.xd);
    tp_buf hosts = {0}, errs = {0}, warns = {0};
    tp_pb_field f, *planes = NULL;
    size_t nplanes = 0, planes_cap = 0;
    int k, rc = -1;
    tp_err scan_err = {0}; /* a framing error after some planes: theirs come first */
    while ((k = tp_pb_next(&r.top, &f, &scan_err)) == 1) {
        if (f.wt != TP_PB_LEN)
            continue;
        if (f.num == 1) {
            TP_GROW(planes, planes_cap, nplanes + 1);
            planes[nplanes++] = f;
        } else if (f.num >= 2 && f.num <= 4) {
            tp_buf *b = f.num == 2 ? &errs : f.num == 3 ? &warns : &hosts;
            if (b->len)
                tp_buf_putc(b, ',');
            tp_json_put_string(b, (const char *)f.data, f.len, NULL);
        }
    }
    if (xp_read_planes(&r, planes, nplanes) < 0)
        goto out;
    xp_costs_finish(&r);
    if (k < 0) {
        *err = scan_err;
        goto out;
    }
    if (nplanes == 0) {
        tp_fail(err, 0, "not an XSpace: no planes");
        goto out;
    }
    /* Launch Stats: the launches' device ordinals become device processes
     * (only devices whose lines we derive) */
    bool *derived_dev = tp_xcalloc(t->nprocesses + 1, sizeof *derived_dev);
    for (size_t a = 0; a < r.din.nannots; a++)
        derived_dev[t->tracks[t->events[r.din.annots[a].event].track].process] = true;
    size_t nl = 0;
    for (size_t i = 0; i < r.din.nlaunches; i++) {
        tp_launch la = r.din.launches[i];
        uint32_t proc = gpu_process(t, la.device);
        if (proc == TP_NONE || !derived_dev[proc])
            continue;
        la.device = proc;
        r.din.launches[nl++] = la;
    }
    free(derived_dev);
    r.din.nlaunches = nl;
    tp_derive_opts dopt = {.framework_names = tp_xplane_opts_of(o)->framework_names,
                           .mark_steps = true,
                           .era = tp_derive_era_of(o->derive_era)};
    tp_timing("read: planes");
    if (o->derive_later) {
        o->derive_later->in = r.din;
        o->derive_later->opts = dopt;
        o->derive_later->set = true;
        memset(&r.din, 0, sizeof r.din);
    } else {
        tp_derive_from(t, &r.din, &dopt);
    }

    tp_buf top = {0};
    tp_buf_puts(&top, "\"xplane\":{\"planes\":[");
    tp_buf_put(&top, r.planes_json.data, r.planes_json.len);
    tp_buf_putc(&top, ']');
    json_str_list(&top, "hostnames", &hosts);
    json_str_list(&top, "errors", &errs);
    json_str_list(&top, "warnings", &warns);
    tp_buf_putc(&top, '}');
    if (t->toplevel.len)
        tp_buf_putc(&t->toplevel, ',');
    tp_buf_put(&t->toplevel, top.data, top.len);
    tp_buf_free(&top);
    if (r.xd) {
        uint32_t last = TP_NONE, last_proc = TP_NONE; /* launches come in runs of one device */
        for (size_t i = 0; i < r.xd->nlaunches; i++) {
            uint32_t d = r.xd->launches[i].device;
            if (d != last) {
                last = d;
                last_proc = gpu_process(t, d);
            }
            r.xd->launches[i].device = last_proc;
        }
    }
    rc = 0;
    if (r.lazy_args) {
        r.src->size = len;
        r.src->xd = r.xd; /* the renderer holds format_data: the report's data rides along */
        r.xd = NULL;
        t->format_data = r.src;
        t->format_data_free = xp_src_free;
        t->args_source = &xp_args_source;
        r.src = NULL;
    } else if (r.xd && !t->format_data) {
        t->format_data = r.xd;
        t->format_data_free = xp_data_free;
        r.xd = NULL;
    }
out:
    free(planes);
    tp_buf_free(&hosts);
    tp_buf_free(&errs);
    tp_buf_free(&warns);
    xp_reader_free(&r);
    return rc;
}

int tp_xplane_read_mem(const void *buf, size_t len, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    int rc = read_space(buf, len, false, t, o, err);
    if (rc == 0 && t->args_source == &xp_args_source) { /* the caller keeps its buffer: a copy for the writers */
        void *copy = tp_xmalloc(len + 1);
        memcpy(copy, buf, len);
        xp_attach_bytes(t, -1, copy);
    }
    return rc;
}

static int xplane_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    const char *path = tp_input_path(in);
    /* A plain file is mapped, so finished lines can be given back to the OS
     * (peak memory is the model, not the model plus the file); the writers
     * read the args again through the same descriptor. */
    if (!tp_input_is_gzip(in) && path && strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map != MAP_FAILED) {
                madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
                int rc = read_space(map, (size_t)sb.st_size, true, t, o, err);
                munmap(map, (size_t)sb.st_size);
                if (rc == 0)
                    xp_attach_bytes(t, fd, NULL);
                else
                    close(fd);
                return rc;
            }
            close(fd);
        } else if (fd >= 0) {
            close(fd);
        }
    }
    size_t len;
    char *buf = tp_input_slurp(in, &len, 0, err);
    if (!buf)
        return -1;
    int rc = read_space(buf, len, false, t, o, err);
    if (rc == 0)
        xp_attach_bytes(t, -1, buf); /* gzip or stdin: the writers render args from the bytes in memory */
    else
        free(buf);
    return rc;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* An XSpace starts with field 1 (planes, LEN) whose payload starts with
 * XPlane field 1 (id, varint), 2 (name) or 3 (lines). */
static int xplane_probe(const unsigned char *head, size_t n, const char *path)
{
    if (path && (ends_with(path, ".xplane.pb") || ends_with(path, ".xplane.pb.gz")))
        return 90;
    if (n < 3 || head[0] != 0x0a)
        return 0;
    size_t i = 1;
    uint64_t len = 0;
    int shift = 0;
    while (i < n && (head[i] & 0x80) && shift < 63) {
        len |= (uint64_t)(head[i] & 0x7f) << shift;
        shift += 7;
        i++;
    }
    if (i >= n - 1)
        return 0;
    len |= (uint64_t)head[i] << shift;
    i++;
    if (len == 0)
        return 0;
    return (head[i] == 0x08 || head[i] == 0x12 || head[i] == 0x1a) ? 40 : 0;
}

/* The command line's XPlane options (one set per process). */
static tp_xplane_opts cli_opts;

static int set_rederive(const void **slot, const char *v, const char **why)
{
    (void)v;
    (void)why;
    cli_opts.rederive = true;
    *slot = &cli_opts;
    return 0;
}

static int set_line_names(const void **slot, const char *v, const char **why)
{
    if (strcmp(v, "framework") != 0 && strcmp(v, "tensorflow") != 0) {
        *why = "takes tensorflow or framework";
        return -1;
    }
    cli_opts.framework_names = strcmp(v, "framework") == 0;
    *slot = &cli_opts;
    return 0;
}

static const tp_format_option xplane_options[] = {
    {"--rederive", NULL, "XPlane: rebuild the derived lines the file already has", set_rederive, false},
    {"--line-names", "NAME", "XPlane derived lines: tensorflow (\"TensorFlow Ops\", default) or framework",
     set_line_names, false},
    {NULL, NULL, NULL, NULL, false},
};

const tp_format tp_format_xplane = {
    "xplane",
    "TensorFlow / JAX / XLA profiler XSpace (XPlane protobuf)",
    ".xplane.pb",
    xplane_probe,
    xplane_read,
    TP_FMT_OWN_DERIVED_LINES,
    xplane_options,
};
