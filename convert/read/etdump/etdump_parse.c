/* etdump_parse.c: ETDump flatbuffer -> tp_etdump (see etdump.h).  Field ids
 * and defaults follow ../shared/specs/ETDUMP.md section 2; fields this
 * reader does not know are ignored (newer writers), absent fields take the
 * schema default (several are -1). */
#include "convert/read/etdump/etdump.h"
#include "convert/codec/flatbuf.h"
#include "convert/io/input.h"

#include <stdlib.h>
#include <string.h>

int tp_etdump_probe(const unsigned char *head, size_t n)
{
    if (n >= 12 && memcmp(head + 8, "ED00", 4) == 0)
        return 100; /* size-prefixed (what the runtime writes) */
    if (n >= 8 && memcmp(head + 4, "ED00", 4) == 0)
        return 100;
    return 0;
}

typedef struct parser {
    tp_fb fb;
    tp_etdump *d;
    size_t ev_cap, run_cap, tensor_cap;
    tp_err *err;
} parser;

/* A string field as a slice of the file, cut to TP_ED_MAX_TEXT bytes. */
static int text(parser *p, const tp_fb_table *t, unsigned id, tp_ed_slice *s)
{
    uint32_t pos, len;
    int r = tp_fb_string(&p->fb, t, id, &pos, &len, p->err);
    s->pos = s->len = 0;
    if (r != 1)
        return r;
    if (len > TP_ED_MAX_TEXT) {
        len = TP_ED_MAX_TEXT;
        p->d->ncut++;
    }
    s->pos = pos + p->d->fb_base;
    s->len = len;
    return 1;
}

static int profile_event(parser *p, const tp_fb_table *t, tp_ed_event *e)
{
    const tp_fb *fb = &p->fb;
    tp_err *err = p->err;
    int32_t chain;
    tp_fb_vec meta;
    int r = text(p, t, 0, &e->name);
    if (r < 0)
        return -1;
    e->has_name = r == 1;
    if (tp_fb_i32(fb, t, 1, 0, &chain, err) < 0 || tp_fb_i32(fb, t, 2, -1, &e->instruction_id, err) < 0 ||
        tp_fb_i32(fb, t, 3, -1, &e->delegate_int, err) < 0 || text(p, t, 4, &e->delegate_str) < 0 ||
        tp_fb_vector(fb, t, 5, 1, &meta, err) < 0 || tp_fb_u64(fb, t, 6, 0, &e->start, err) < 0 ||
        tp_fb_u64(fb, t, 7, 0, &e->end, err) < 0)
        return -1;
    e->chain_index = chain;
    e->metadata.pos = meta.n ? meta.pos + p->d->fb_base : 0;
    e->metadata.len = meta.n;
    return 0;
}

static int tensor(parser *p, const tp_fb_table *t, uint32_t *index)
{
    const tp_fb *fb = &p->fb;
    tp_etdump *d = p->d;
    tp_ed_tensor x = {0};
    tp_fb_vec sizes;
    if (tp_fb_u8(fb, t, 0, 0, &x.scalar_type, p->err) < 0 || tp_fb_vector(fb, t, 1, 8, &sizes, p->err) < 0 ||
        tp_fb_u64(fb, t, 3, 0, (uint64_t *)&x.offset, p->err) < 0)
        return -1;
    x.ndim = sizes.n;
    x.ndim_kept = sizes.n < TP_ED_MAX_DIMS ? (uint8_t)sizes.n : TP_ED_MAX_DIMS;
    for (unsigned i = 0; i < x.ndim_kept; i++)
        x.sizes[i] = (int64_t)tp_fb_u64_at(fb, sizes.pos + 8 * i);
    TP_GROW(d->tensors, p->tensor_cap, d->ntensors + 1);
    d->tensors[d->ntensors] = x;
    *index = (uint32_t)d->ntensors++;
    return 0;
}

/* A scalar wrapper table (Int, Bool, Float, Double): its field 0. */
static int wrapped(parser *p, const tp_fb_table *value, unsigned id, size_t size, void *out)
{
    tp_fb_table w;
    int r = tp_fb_table_field(&p->fb, value, id, &w, p->err);
    if (r != 1)
        return r;
    uint32_t pos;
    r = tp_fb_field(&p->fb, &w, 0, size, &pos, p->err);
    if (r == 1)
        memcpy(out, p->fb.buf + pos, size);
    return r < 0 ? -1 : 1;
}

static int debug_event(parser *p, const tp_fb_table *t, tp_ed_event *e)
{
    const tp_fb *fb = &p->fb;
    tp_err *err = p->err;
    uint64_t chain;
    tp_fb_table val;
    if (tp_fb_u64(fb, t, 0, 0, &chain, err) < 0 || tp_fb_i32(fb, t, 1, -1, &e->instruction_id, err) < 0 ||
        tp_fb_i32(fb, t, 3, -1, &e->delegate_int, err) < 0 || text(p, t, 4, &e->delegate_str) < 0 ||
        text(p, t, 5, &e->name) < 0)
        return -1;
    e->chain_index = (int64_t)chain;
    e->has_name = e->name.len > 0;
    e->v.tensor = UINT32_MAX;
    int r = tp_fb_table_field(fb, t, 2, &val, err);
    if (r <= 0)
        return r;
    uint8_t ty;
    if (tp_fb_u8(fb, &val, 0, 0, &ty, err) < 0)
        return -1;
    e->val_type = ty;
    uint8_t b = 0;
    if (wrapped(p, &val, 7, 1, &b) < 0)
        return -1;
    e->output = b != 0;
    switch (ty) {
    case TP_ED_VAL_INT:
        return wrapped(p, &val, 3, 8, &e->v.i) < 0 ? -1 : 0;
    case TP_ED_VAL_BOOL:
        b = 0;
        if (wrapped(p, &val, 6, 1, &b) < 0)
            return -1;
        e->v.i = b != 0;
        return 0;
    case TP_ED_VAL_FLOAT: {
        float f = 0;
        if (wrapped(p, &val, 4, 4, &f) < 0)
            return -1;
        e->v.d = f;
        return 0;
    }
    case TP_ED_VAL_DOUBLE:
        e->v.d = 0;
        return wrapped(p, &val, 5, 8, &e->v.d) < 0 ? -1 : 0;
    case TP_ED_VAL_TENSOR: {
        tp_fb_table tt;
        r = tp_fb_table_field(fb, &val, 1, &tt, err);
        return r < 0 ? -1 : r == 1 ? tensor(p, &tt, &e->v.tensor) : 0;
    }
    case TP_ED_VAL_TENSOR_LIST: {
        tp_fb_table tl, tt;
        tp_fb_vec v;
        r = tp_fb_table_field(fb, &val, 2, &tl, err);
        if (r <= 0)
            return r;
        if (tp_fb_vector(fb, &tl, 0, 4, &v, err) < 0)
            return -1;
        e->list_len = v.n;
        if (v.n && (tp_fb_vec_table(fb, &v, 0, &tt, err) < 0 || tensor(p, &tt, &e->v.tensor) < 0))
            return -1;
        return 0;
    }
    default:
        return 0; /* Null, String (no member in Value) or a newer type: kept as its type only */
    }
}

static int event(parser *p, const tp_fb_table *t, tp_ed_event *e)
{
    tp_fb_table sub;
    memset(e, 0, sizeof *e);
    e->instruction_id = -1;
    e->delegate_int = -1;
    int r = tp_fb_table_field(&p->fb, t, 0, &sub, p->err);
    if (r < 0)
        return -1;
    if (r == 1) {
        e->type = TP_ED_PROFILE;
        p->d->nprofile++;
        return profile_event(p, &sub, e);
    }
    r = tp_fb_table_field(&p->fb, t, 2, &sub, p->err);
    if (r < 0)
        return -1;
    if (r == 1) {
        e->type = TP_ED_DEBUG;
        p->d->ndebug++;
        return debug_event(p, &sub, e);
    }
    r = tp_fb_table_field(&p->fb, t, 1, &sub, p->err);
    if (r < 0)
        return -1;
    if (r == 1) {
        int32_t alloc;
        e->type = TP_ED_ALLOC;
        p->d->nalloc++;
        if (tp_fb_i32(&p->fb, &sub, 0, 0, &alloc, p->err) < 0 || tp_fb_u64(&p->fb, &sub, 1, 0, &e->end, p->err) < 0)
            return -1;
        e->start = (uint64_t)(int64_t)alloc;
        return 0;
    }
    p->d->nempty++; /* an Event with no member: nothing to keep */
    return 0;
}

static int run(parser *p, const tp_fb_table *t)
{
    tp_etdump *d = p->d;
    tp_ed_run r = {0};
    tp_fb_vec allocs, events;
    if (text(p, t, 0, &r.name) < 0 || tp_fb_i32(&p->fb, t, 1, -1, &r.bundled_input_index, p->err) < 0 ||
        tp_fb_vector(&p->fb, t, 2, 4, &allocs, p->err) < 0 || tp_fb_vector(&p->fb, t, 3, 4, &events, p->err) < 0)
        return -1;
    r.nallocators = allocs.n;
    r.first = d->nevents;
    TP_GROW(d->events, p->ev_cap, d->nevents + events.n);
    for (uint32_t i = 0; i < events.n; i++) {
        tp_fb_table et;
        tp_ed_event *e = &d->events[d->nevents];
        if (tp_fb_vec_table(&p->fb, &events, i, &et, p->err) < 0 || event(p, &et, e) < 0)
            return -1;
        if (e->type)
            d->nevents++;
    }
    r.n = d->nevents - r.first;
    TP_GROW(d->runs, p->run_cap, d->nruns + 1);
    d->runs[d->nruns++] = r;
    return 0;
}

int tp_etdump_parse(uint8_t *data, size_t len, tp_etdump *d, tp_err *err)
{
    memset(d, 0, sizeof *d);
    d->data = data;
    d->len = len;
    parser p = {.d = d, .err = err};
    if (len >= 12 && memcmp(data + 8, "ED00", 4) == 0) {
        uint32_t size;
        memcpy(&size, data, 4);
        if ((uint64_t)size + 4 > len)
            return tp_fail(err, 0, "size prefix says %u bytes follow but the file has %zu (truncated file)", size,
                           len - 4);
        d->fb_base = 4;
        d->trailing = len - 4 - size;
        p.fb = (tp_fb){data + 4, size, 4};
    } else if (len >= 8 && memcmp(data + 4, "ED00", 4) == 0) {
        p.fb = (tp_fb){data, len, 0};
    } else {
        return tp_fail(err, len < 12 ? len : 4, "not an ETDump (no \"ED00\" identifier)");
    }
    tp_fb_table root, rt;
    tp_fb_vec runs;
    if (tp_fb_root(&p.fb, "ED00", &root, err) < 0 || tp_fb_u32(&p.fb, &root, 0, 0, &d->version, err) < 0 ||
        tp_fb_vector(&p.fb, &root, 1, 4, &runs, err) < 0)
        return -1;
    /* Reserve the events of all runs at once (a large file has ~1M): counting
     * costs one vector header per run; a bad run is reported by run() below. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < runs.n; i++) {
        tp_fb_vec ev;
        tp_err ignore = {0};
        if (tp_fb_vec_table(&p.fb, &runs, i, &rt, &ignore) == 0 && tp_fb_vector(&p.fb, &rt, 3, 4, &ev, &ignore) == 1)
            total += ev.n;
    }
    /* Each event is a 4-byte entry of its run's vector, and runs do not share
     * vectors in a real file: more events than that means vectors that
     * point at the same bytes, which would let 80 KB ask for gigabytes. */
    if (total > p.fb.len / 4)
        return tp_fail(err, 0, "%llu events in %zu bytes: runs share their event vectors (hostile or corrupt file)",
                       (unsigned long long)total, (size_t)p.fb.len);
    if (total)
        TP_GROW(d->events, p.ev_cap, (size_t)total);
    for (uint32_t i = 0; i < runs.n; i++)
        if (tp_fb_vec_table(&p.fb, &runs, i, &rt, err) < 0 || run(&p, &rt) < 0)
            return -1;
    return 0;
}

int tp_etdump_load(const char *path, tp_etdump *d, tp_err *err)
{
    memset(d, 0, sizeof *d);
    tp_input *in = tp_input_open(path, err);
    if (!in)
        return -1;
    size_t len;
    char *data = tp_input_slurp(in, &len, (uint64_t)1 << 31, err);
    tp_input_close(in);
    if (!data)
        return -1;
    return tp_etdump_parse((uint8_t *)data, len, d, err);
}

void tp_etdump_free(tp_etdump *d)
{
    free(d->data);
    free(d->runs);
    free(d->events);
    free(d->tensors);
    memset(d, 0, sizeof *d);
}

/* ---- time ---- */

int tp_ed_scale_parse(const char *s, tp_ed_scale *sc, tp_err *err)
{
    static const struct {
        const char *name;
        uint64_t num;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    if (!s || !*s)
        s = "ns";
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(s, units[i].name) == 0) {
            *sc = (tp_ed_scale){units[i].num, 1, units[i].name};
            return 0;
        }
    if (strncmp(s, "cycles:", 7) == 0) {
        char *end;
        unsigned long long hz = strtoull(s + 7, &end, 10);
        if (end != s + 7 && *end == 0 && hz > 0 && s[7] != '-') {
            *sc = (tp_ed_scale){1000000000, hz, "cycles"};
            return 0;
        }
    }
    return tp_fail_at(err, "", "--time-scale '%s': expected ns, us, ms, s or cycles:HZ (cycles need a clock rate)", s);
}

bool tp_ed_elapsed(uint64_t start, uint64_t end, uint64_t *ticks)
{
    if (start <= end) {
        *ticks = end - start;
        return true;
    }
    if (start <= UINT32_MAX && end <= UINT32_MAX) {
        *ticks = (UINT32_MAX - start) + end;
        return true;
    }
    *ticks = 0;
    return false;
}

int64_t tp_ed_ns(const tp_ed_scale *sc, uint64_t ticks)
{
    if (sc->den == 1 && ticks <= INT64_MAX / sc->num) /* the usual case, without a 128-bit division */
        return (int64_t)(ticks * sc->num);
    unsigned __int128 v = (unsigned __int128)ticks * sc->num / sc->den;
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

bool tp_ed_is_framework(const char *s, size_t n)
{
    static const char *const names[] = {"Method::init", "Program::load_method", "Method::execute"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
            return true;
    return false;
}
