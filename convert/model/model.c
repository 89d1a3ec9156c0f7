/* model.c: the trace model: string interning, args arena, processes, tracks,
 * events, warnings.  See model.h for the ownership rule. */
#include "convert/model/model.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tp_event) <= 64, "tp_event must stay within 64 bytes");

static const char *const kind_names[TP_KIND_COUNT] = {
    "other", "host_op", "runtime", "kernel", "memcpy", "memset", "sync", "annotation",
};

const char *tp_kind_name(tp_kind k)
{
    return (unsigned)k < TP_KIND_COUNT ? kind_names[k] : "other";
}

void tp_trace_init(tp_trace *t)
{
    memset(t, 0, sizeof *t);
    t->keep_args = true;
    t->args_text = tp_xcalloc(1, sizeof *t->args_text);
    tp_intern(t, "", 0); /* id 0 is the empty string */
}

void tp_trace_free(tp_trace *t)
{
    free(t->devinfo);
    free(t->costs);
    free(t->str_data);
    free(t->str_off);
    free(t->str_hash);
    free(t->args_data);
    free(t->events);
    free(t->tracks);
    free(t->processes);
    tp_i64map_free(&t->track_index);
    tp_i64map_free(&t->process_index);
    free(t->launch_flows);
    tp_buf_free(&t->toplevel);
    tp_buf_free(&t->notices);
    if (t->args_text)
        tp_buf_free(t->args_text);
    free(t->args_text);
    if (t->format_data_free)
        t->format_data_free(t->format_data);
    memset(t, 0, sizeof *t);
}

/* ---- launch flows kept as ids (model.h) ---- */

void tp_launch_flow_note(tp_trace *t, uint64_t id, bool end, uint32_t track)
{
    TP_GROW(t->launch_flows, t->launch_flows_cap, t->nlaunch_flows + 1);
    t->launch_flows[t->nlaunch_flows++] = (tp_flow_note){id << 1 | (end ? 1u : 0u), track, (uint32_t)t->nevents};
}

void tp_launch_flows_append(tp_trace *t, const tp_trace *u, uint32_t first_event, const uint32_t *track)
{
    if (!u->nlaunch_flows)
        return;
    TP_GROW(t->launch_flows, t->launch_flows_cap, t->nlaunch_flows + u->nlaunch_flows);
    for (size_t i = 0; i < u->nlaunch_flows; i++) {
        tp_flow_note n = u->launch_flows[i];
        n.track = track[n.track];
        n.at += first_event;
        t->launch_flows[t->nlaunch_flows++] = n;
    }
}

size_t tp_launch_flow_first_at(const tp_trace *t, uint32_t at)
{
    size_t lo = 0, hi = t->nlaunch_flows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->launch_flows[mid].at < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- strings ---- */

static void rehash(tp_trace *t, size_t cap)
{
    uint32_t *tab = tp_xcalloc(cap, sizeof *tab);
    for (size_t id = 1; id < t->nstr; id++) {
        const char *s = t->str_data + t->str_off[id];
        size_t n = t->str_off[id + 1] - t->str_off[id] - 1;
        size_t i = tp_hash_bytes(s, n) & (cap - 1);
        while (tab[i])
            i = (i + 1) & (cap - 1);
        tab[i] = (uint32_t)id;
    }
    free(t->str_hash);
    t->str_hash = tab;
    t->str_hash_cap = cap;
}

tp_str tp_str_find(const tp_trace *t, const char *s, size_t len)
{
    if (len == 0 || !t->str_hash_cap)
        return 0;
    size_t mask = t->str_hash_cap - 1;
    for (size_t i = tp_hash_bytes(s, len) & mask; t->str_hash[i]; i = (i + 1) & mask) {
        uint32_t id = t->str_hash[i];
        size_t off = t->str_off[id];
        if (t->str_off[id + 1] - off - 1 == len && memcmp(t->str_data + off, s, len) == 0)
            return id;
    }
    return 0;
}

tp_str tp_intern(tp_trace *t, const char *s, size_t len)
{
    if (t->nstr > 0 && len == 0)
        return 0;
    if (t->nstr * 2 + 2 > t->str_hash_cap)
        rehash(t, t->str_hash_cap ? t->str_hash_cap * 2 : 1024);
    size_t mask = t->str_hash_cap - 1;
    size_t i = tp_hash_bytes(s, len) & mask;
    while (t->str_hash[i]) {
        uint32_t id = t->str_hash[i];
        size_t off = t->str_off[id];
        if (t->str_off[id + 1] - off - 1 == len && memcmp(t->str_data + off, s, len) == 0)
            return id;
        i = (i + 1) & mask;
    }
    if (t->nstr >= UINT32_MAX - 1) {
        fprintf(stderr, TP_PROG ": too many distinct strings\n");
        exit(TP_EXIT_INPUT);
    }
    /* str_off has nstr+1 entries: the end of the last string is the start of the next */
    if (t->nstr == 0) {
        TP_GROW(t->str_off, t->str_off_cap, 2);
        t->str_off[0] = 0;
    }
    TP_GROW(t->str_data, t->str_cap, t->str_len + len + 1);
    memcpy(t->str_data + t->str_len, s, len);
    t->str_data[t->str_len + len] = 0;
    t->str_len += len + 1;
    uint32_t id = (uint32_t)t->nstr++;
    TP_GROW(t->str_off, t->str_off_cap, t->nstr + 1);
    t->str_off[t->nstr] = t->str_len;
    if (id > 0)
        t->str_hash[i] = id;
    return id;
}

tp_str tp_intern_cstr(tp_trace *t, const char *s) { return tp_intern(t, s, strlen(s)); }

/* ---- args ---- */

uint64_t tp_args_append(tp_trace *t, const tp_trace *u)
{
    uint64_t shift = t->args_len;
    if (u->args_len) {
        if (t->args_cap < t->args_len + u->args_len) {
            t->args_cap = t->args_len + u->args_len;
            t->args_data = tp_xrealloc(t->args_data, t->args_cap);
        }
        memcpy(t->args_data + t->args_len, u->args_data, u->args_len);
        t->args_len += u->args_len;
    }
    return shift;
}

uint64_t tp_args_add(tp_trace *t, const char *json, size_t len)
{
    if (len == 0 || len > UINT32_MAX)
        return 0;
    size_t need = t->args_len + 4 + len + 1;
    TP_GROW(t->args_data, t->args_cap, need);
    uint32_t l = (uint32_t)len;
    memcpy(t->args_data + t->args_len, &l, 4);
    memcpy(t->args_data + t->args_len + 4, json, len);
    t->args_data[t->args_len + 4 + len] = 0;
    uint64_t handle = t->args_len + 1;
    t->args_len = need;
    return handle;
}

/* Handles that hold {long_name, group_id} themselves: external, bit 62 set,
 * long_name in bits 30..61, group_id + 1 in bits 0..29 (0: none). */
#define ARGS_INLINE TP_ARGS_RESERVED
#define INLINE_GROUP_BITS 30

uint64_t tp_args_name_group(tp_trace *t, tp_str long_name, bool has_group, int64_t group)
{
    if (!long_name && !has_group)
        return 0;
    if (!has_group || (group >= 0 && group < (INT64_C(1) << INLINE_GROUP_BITS) - 1))
        return TP_ARGS_EXTERNAL | ARGS_INLINE | (uint64_t)long_name << INLINE_GROUP_BITS |
               (has_group ? (uint64_t)group + 1 : 0);
    tp_argb b = {0};
    if (long_name)
        tp_argb_str(&b, "long_name", tp_str_get(t, long_name), tp_str_len(t, long_name));
    tp_argb_int(&b, "group_id", group);
    uint64_t h = tp_argb_commit(t, &b);
    tp_argb_free(&b);
    return h;
}

static void inline_parts(uint64_t h, tp_str *long_name, bool *has_group, int64_t *group)
{
    *long_name = (tp_str)((h & ~(TP_ARGS_EXTERNAL | ARGS_INLINE)) >> INLINE_GROUP_BITS);
    uint64_t g = h & ((UINT64_C(1) << INLINE_GROUP_BITS) - 1);
    *has_group = g != 0;
    *group = (int64_t)g - 1;
}

const char *tp_args_get(const tp_trace *t, uint64_t handle, size_t *len)
{
    return tp_args_get_r(t, NULL, t->args_text, handle, len);
}

const char *tp_args_get_r(const tp_trace *t, void *cursor, tp_buf *scratch, uint64_t handle, size_t *len)
{
    if ((handle & (TP_ARGS_EXTERNAL | ARGS_INLINE)) == (TP_ARGS_EXTERNAL | ARGS_INLINE) && scratch) {
        tp_str ln;
        bool has_group;
        int64_t group;
        inline_parts(handle, &ln, &has_group, &group);
        tp_buf *b = scratch;
        b->len = 0;
        tp_buf_puts(b, "{");
        if (ln) {
            tp_buf_puts(b, "\"long_name\":");
            tp_json_put_string(b, tp_str_get(t, ln), tp_str_len(t, ln), NULL);
        }
        if (has_group)
            tp_buf_printf(b, "%s\"group_id\":%lld", ln ? "," : "", (long long)group);
        tp_buf_putc(b, '}');
        if (len)
            *len = b->len;
        return b->data;
    }
    if (handle & TP_ARGS_EXTERNAL) {
        size_t n = 0;
        const char *why = NULL, *s = t->args_source ? t->args_source->json(t, cursor, handle, &n, &why) : NULL;
        if (!s) {
            /* not a JSON object: writers keep it as an "invalid_args" string and count it */
            s = why ? why : "args not available";
            n = strlen(s);
        }
        if (len)
            *len = n;
        return s;
    }
    if (handle == 0 || handle > t->args_len) {
        if (len)
            *len = 0;
        return NULL;
    }
    uint32_t l;
    memcpy(&l, t->args_data + handle - 1, 4);
    if (len)
        *len = l;
    return t->args_data + handle - 1 + 4;
}

bool tp_args_is_minified(const tp_trace *t, uint64_t handle)
{
    if ((handle & (TP_ARGS_EXTERNAL | ARGS_INLINE)) == (TP_ARGS_EXTERNAL | ARGS_INLINE))
        return true;
    return (handle & TP_ARGS_EXTERNAL) && t->args_source && !t->args_source->raw_text;
}

void *tp_args_cursor_new(const tp_trace *t)
{
    return t->args_source && t->args_source->cursor_new ? t->args_source->cursor_new(t) : NULL;
}

void tp_args_cursor_free(const tp_trace *t, void *cursor)
{
    if (cursor && t->args_source && t->args_source->cursor_free)
        t->args_source->cursor_free(cursor);
}

int tp_args_visit(const tp_trace *t, void *cursor, uint64_t handle, tp_arg_fn fn, void *ctx)
{
    if ((handle & (TP_ARGS_EXTERNAL | ARGS_INLINE)) == (TP_ARGS_EXTERNAL | ARGS_INLINE)) {
        tp_arg a;
        bool has_group;
        int64_t group;
        tp_str ln;
        inline_parts(handle, &ln, &has_group, &group);
        memset(&a, 0, sizeof a);
        if (ln) {
            a.key = "long_name";
            a.klen = 9;
            a.type = TP_ARG_STR;
            a.s = tp_str_get(t, ln);
            a.len = tp_str_len(t, ln);
            a.s_id = ln;
            fn(ctx, &a);
        }
        if (has_group) {
            memset(&a, 0, sizeof a);
            a.key = "group_id";
            a.klen = 8;
            a.type = TP_ARG_INT;
            a.i = group;
            fn(ctx, &a);
        }
        return 1;
    }
    if (!(handle & TP_ARGS_EXTERNAL) || !t->args_source || !t->args_source->visit)
        return 0;
    return t->args_source->visit(t, cursor, handle, fn, ctx) < 0 ? -1 : 1;
}

void tp_args_split(const tp_trace *t, uint64_t handle, const char **args, size_t *alen, const char **extra,
                   size_t *elen)
{
    tp_args_split_r(t, NULL, t->args_text, handle, args, alen, extra, elen);
}

void tp_args_split_r(const tp_trace *t, void *cursor, tp_buf *scratch, uint64_t handle, const char **args,
                     size_t *alen, const char **extra, size_t *elen)
{
    size_t len;
    const char *s = tp_args_get_r(t, cursor, scratch, handle, &len);
    *args = s;
    *alen = len;
    *extra = NULL;
    *elen = 0;
    if (!s || (handle & TP_ARGS_EXTERNAL)) /* external args have no event-level extras */
        return;
    const char *sep = memchr(s, '\x1f', len);
    if (sep) {
        *alen = (size_t)(sep - s);
        *extra = sep + 1;
        *elen = len - *alen - 1;
    }
}

/* ---- args builder ---- */

void tp_argb_reset(tp_argb *b)
{
    b->buf.len = 0;
    if (b->buf.data)
        b->buf.data[0] = 0;
    b->n = 0;
}

static void argb_key(tp_argb *b, const char *key)
{
    tp_buf_putc(&b->buf, b->n++ ? ',' : '{');
    tp_json_put_string(&b->buf, key, strlen(key), NULL);
    tp_buf_putc(&b->buf, ':');
}

void tp_argb_str(tp_argb *b, const char *key, const char *val, size_t len)
{
    argb_key(b, key);
    tp_json_put_string(&b->buf, val, len, NULL);
}

void tp_argb_cstr(tp_argb *b, const char *key, const char *val)
{
    tp_argb_str(b, key, val ? val : "", val ? strlen(val) : 0);
}

void tp_argb_int(tp_argb *b, const char *key, int64_t v)
{
    argb_key(b, key);
    tp_buf_printf(&b->buf, "%lld", (long long)v);
}

void tp_argb_uint(tp_argb *b, const char *key, uint64_t v)
{
    argb_key(b, key);
    tp_buf_printf(&b->buf, "%llu", (unsigned long long)v);
}

void tp_argb_bool(tp_argb *b, const char *key, bool v)
{
    argb_key(b, key);
    tp_buf_puts(&b->buf, v ? "true" : "false");
}

void tp_argb_fixed(tp_argb *b, const char *key, int64_t value, int decimals)
{
    argb_key(b, key);
    char tmp[48];
    size_t n = tp_format_fixed(tmp, value, decimals);
    tp_buf_put(&b->buf, tmp, n);
}

void tp_argb_raw(tp_argb *b, const char *key, const char *json, size_t len)
{
    argb_key(b, key);
    tp_buf_put(&b->buf, json, len);
}

uint64_t tp_argb_commit(tp_trace *t, tp_argb *b)
{
    if (b->n == 0)
        return 0;
    tp_buf_putc(&b->buf, '}');
    uint64_t h = tp_args_add(t, b->buf.data, b->buf.len);
    tp_argb_reset(b);
    return h;
}

void tp_argb_free(tp_argb *b) { tp_buf_free(&b->buf); }

/* ---- processes and tracks ---- */
/* Found through hash maps keyed by a mix of the identifying fields; a hit is
 * verified, and only a hash collision falls back to a linear scan. */

static int64_t mix(uint64_t a, uint64_t b, uint64_t tag)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^ tag;
    return (int64_t)(h ^ (h >> 31));
}

static uint32_t process_new(tp_trace *t)
{
    TP_GROW(t->processes, t->processes_cap, t->nprocesses + 1);
    tp_process *p = &t->processes[t->nprocesses];
    memset(p, 0, sizeof *p);
    p->device = -1;
    return (uint32_t)t->nprocesses++;
}

static bool process_is(const tp_process *p, int64_t pid, tp_str key)
{
    return key ? p->key == key : (p->key == 0 && p->pid == pid);
}

static uint32_t process_find(tp_trace *t, int64_t pid, tp_str key, int64_t hkey)
{
    uint32_t c = tp_i64map_get(&t->process_index, hkey);
    if (c == TP_I64MAP_EMPTY)
        return TP_NONE;
    if (process_is(&t->processes[c], pid, key))
        return c;
    for (size_t i = 0; i < t->nprocesses; i++) /* hash collision */
        if (process_is(&t->processes[i], pid, key))
            return (uint32_t)i;
    return TP_NONE;
}

uint32_t tp_process_get(tp_trace *t, int64_t pid)
{
    int64_t h = mix((uint64_t)pid, 0, 1);
    uint32_t i = process_find(t, pid, 0, h);
    if (i != TP_NONE)
        return i;
    i = process_new(t);
    t->processes[i].pid = pid;
    if (tp_i64map_get(&t->process_index, h) == TP_I64MAP_EMPTY)
        tp_i64map_put(&t->process_index, h, i);
    return i;
}

uint32_t tp_process_get_key(tp_trace *t, tp_str key)
{
    if (key == 0)
        return tp_process_get(t, 0);
    int64_t h = mix(key, 0, 2);
    uint32_t i = process_find(t, 0, key, h);
    if (i != TP_NONE)
        return i;
    i = process_new(t);
    t->processes[i].key = key;
    t->processes[i].pid = -1; /* assigned by tp_assign_ids before writing */
    if (tp_i64map_get(&t->process_index, h) == TP_I64MAP_EMPTY)
        tp_i64map_put(&t->process_index, h, i);
    return i;
}

void tp_process_reindex(tp_trace *t)
{
    tp_i64map_clear(&t->process_index);
    for (size_t i = 0; i < t->nprocesses; i++) {
        const tp_process *p = &t->processes[i];
        int64_t h = p->key ? mix(p->key, 0, 2) : mix((uint64_t)p->pid, 0, 1);
        if (tp_i64map_get(&t->process_index, h) == TP_I64MAP_EMPTY) /* the first one, as when found */
            tp_i64map_put(&t->process_index, h, (uint32_t)i);
    }
}

static uint32_t track_new(tp_trace *t, uint32_t process)
{
    TP_GROW(t->tracks, t->tracks_cap, t->ntracks + 1);
    tp_track *k = &t->tracks[t->ntracks];
    memset(k, 0, sizeof *k);
    k->process = process;
    k->derived_of = TP_NONE;
    k->role = TP_TRACK_HOST;
    return (uint32_t)t->ntracks++;
}

static bool track_is(const tp_track *k, uint32_t process, int64_t tid, tp_str key)
{
    if (k->process != process)
        return false;
    if (key)
        return k->key == key;
    return k->key == 0 && k->tid == tid && (k->role == TP_TRACK_HOST || k->role == TP_TRACK_DEVICE);
}

static uint32_t track_lookup(tp_trace *t, uint32_t process, int64_t tid, tp_str key)
{
    int64_t h = key ? mix(key, process, 4) : mix((uint64_t)tid, process, 3);
    uint32_t c = tp_i64map_get(&t->track_index, h);
    if (c != TP_I64MAP_EMPTY) {
        if (track_is(&t->tracks[c], process, tid, key))
            return c;
        for (size_t i = 0; i < t->ntracks; i++) /* hash collision */
            if (track_is(&t->tracks[i], process, tid, key))
                return (uint32_t)i;
    }
    uint32_t i = track_new(t, process);
    if (key) {
        t->tracks[i].key = key;
        t->tracks[i].tid = -1; /* assigned by tp_assign_ids */
    } else
        t->tracks[i].tid = tid;
    if (c == TP_I64MAP_EMPTY)
        tp_i64map_put(&t->track_index, h, i);
    return i;
}

uint32_t tp_track_get(tp_trace *t, uint32_t process, int64_t tid) { return track_lookup(t, process, tid, 0); }

uint32_t tp_track_get_key(tp_trace *t, uint32_t process, tp_str key)
{
    return key ? track_lookup(t, process, 0, key) : tp_track_get(t, process, 0);
}

uint32_t tp_track_add(tp_trace *t, uint32_t process, tp_str name, uint8_t role, uint32_t derived_of)
{
    uint32_t i = track_new(t, process);
    t->tracks[i].name = name;
    t->tracks[i].role = role;
    t->tracks[i].derived_of = derived_of;
    t->tracks[i].tid = -1; /* assigned by tp_assign_ids */
    return i;
}

/* ---- events ---- */

bool tp_event_span(tp_event *e, int64_t start, int64_t end)
{
    if (start < TP_TS_MIN || start >= TP_TS_MAX || end < start || end >= TP_TS_MAX + TP_DUR_MAX ||
        end - start >= TP_DUR_MAX)
        return false;
    tp_event_init(e);
    e->ts = start;
    e->dur = end - start;
    return true;
}

void tp_event_init(tp_event *e)
{
    memset(e, 0, sizeof *e);
    e->link = TP_NONE;
    e->op = TP_NONE;
    e->ph = 'X';
}

uint32_t tp_event_add(tp_trace *t, const tp_event *e)
{
    if (t->nevents >= UINT32_MAX - 1) {
        fprintf(stderr, TP_PROG ": more than 4 billion events\n");
        exit(TP_EXIT_INPUT);
    }
    TP_GROW_EVENTS(t, t->nevents + 1);
    t->events[t->nevents] = *e;
    return (uint32_t)t->nevents++;
}

/* ---- warnings ---- */

static void count_in(tp_warning *list, size_t *n, size_t cap, const char *what, uint64_t k, uint64_t at);

void tp_warn(tp_trace *t, const char *what, uint64_t n)
{
    count_in(t->warnings, &t->nwarnings, sizeof t->warnings / sizeof t->warnings[0], what, n, 0);
}

void tp_warn_at(tp_trace *t, const char *what, uint64_t n, uint64_t offset)
{
    count_in(t->warnings, &t->nwarnings, sizeof t->warnings / sizeof t->warnings[0], what, n, offset + 1);
}

void tp_warn_merge(tp_trace *t, const tp_warning *w)
{
    count_in(t->warnings, &t->nwarnings, sizeof t->warnings / sizeof t->warnings[0], w->what, w->count, w->at);
}

const tp_warning *tp_warning_first(const tp_trace *t)
{
    const tp_warning *best = NULL;
    for (size_t i = 0; i < t->nwarnings; i++) {
        const tp_warning *w = &t->warnings[i];
        if (!best || (w->at && (!best->at || w->at < best->at)))
            best = w;
    }
    return best;
}

uint64_t tp_warning_count(const tp_trace *t, const char *what)
{
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strcmp(t->warnings[i].what, what) == 0)
            return t->warnings[i].count;
    return 0;
}

/* `at`: 1 + offset, 0 = not known; the counter keeps the smallest known. */
static void count_in(tp_warning *list, size_t *n, size_t cap, const char *what, uint64_t k, uint64_t at)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i].what, what) == 0) {
            list[i].count += k;
            if (at && (!list[i].at || at < list[i].at))
                list[i].at = at;
            return;
        }
    if (*n < cap) {
        list[*n].what = what;
        list[*n].count = k;
        list[*n].at = at;
        ++*n;
    }
}

void tp_drop(tp_trace *t, uint32_t i, const char *why)
{
    if (t->events[i].flags & TP_EV_DROPPED)
        return;
    t->events[i].flags |= TP_EV_DROPPED;
    count_in(t->drops, &t->ndrops, sizeof t->drops / sizeof t->drops[0], why, 1, 0);
}

void tp_drop_count(tp_trace *t, const char *why, uint64_t n)
{
    count_in(t->drops, &t->ndrops, sizeof t->drops / sizeof t->drops[0], why, n, 0);
}

uint64_t tp_dropped_total(const tp_trace *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->ndrops; i++)
        n += t->drops[i].count;
    return n;
}

/* ---- categories ---- */

tp_kind tp_kind_from_cat(const char *cat, size_t len)
{
    static const struct {
        const char *cat;
        tp_kind kind;
    } map[] = {
        /* modern Kineto (2021-06+) */
        {"cpu_op", TP_KIND_HOST_OP},
        {"user_annotation", TP_KIND_ANNOTATION},
        {"gpu_user_annotation", TP_KIND_ANNOTATION},
        {"python_function", TP_KIND_ANNOTATION},
        {"cuda_runtime", TP_KIND_RUNTIME},
        {"cuda_driver", TP_KIND_RUNTIME},
        {"kernel", TP_KIND_KERNEL},
        {"gpu_memcpy", TP_KIND_MEMCPY},
        {"gpu_memset", TP_KIND_MEMSET},
        {"cuda_sync", TP_KIND_SYNC},
        /* old Kineto (PyTorch 1.8) */
        {"Operator", TP_KIND_HOST_OP},
        {"Runtime", TP_KIND_RUNTIME},
        {"Kernel", TP_KIND_KERNEL},
        {"Memcpy", TP_KIND_MEMCPY},
        {"Memset", TP_KIND_MEMSET},
        /* the converter's own output uses the kind names as categories */
        {"host_op", TP_KIND_HOST_OP},
        {"runtime", TP_KIND_RUNTIME},
        {"memcpy", TP_KIND_MEMCPY},
        {"memset", TP_KIND_MEMSET},
        {"sync", TP_KIND_SYNC},
        {"annotation", TP_KIND_ANNOTATION},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].cat) == len && memcmp(map[i].cat, cat, len) == 0)
            return map[i].kind;
    return TP_KIND_OTHER;
}

/* ---- devices and op costs ---- */

void tp_devinfo_add(tp_trace *t, const tp_device_info *d)
{
    TP_GROW(t->devinfo, t->devinfo_cap, t->ndevinfo + 1);
    t->devinfo[t->ndevinfo++] = *d;
}

const tp_name_cost *tp_cost_of(const tp_trace *t, tp_str name)
{
    size_t lo = 0, hi = t->ncosts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->costs[mid].name < name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->ncosts && t->costs[lo].name == name ? &t->costs[lo] : NULL;
}

static int cost_cmp(const void *a, const void *b)
{
    const tp_name_cost *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->flops != y->flops)
        return x->flops < y->flops ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

void tp_costs_add(tp_trace *t, const tp_name_cost *c, size_t n, const tp_str *map)
{
    if (n == 0)
        return;
    TP_GROW(t->costs, t->costs_cap, t->ncosts + n);
    for (size_t i = 0; i < n; i++) {
        tp_name_cost x = c[i];
        if (map)
            x.name = map[x.name];
        t->costs[t->ncosts + i] = x;
    }
    size_t all = t->ncosts + n, out = 0;
    qsort(t->costs, all, sizeof *t->costs, cost_cmp);
    uint64_t disagree = 0;
    for (size_t i = 0, j; i < all; i = j) {
        bool same = true;
        for (j = i + 1; j < all && t->costs[j].name == t->costs[i].name; j++)
            same = same && t->costs[j].flops == t->costs[i].flops && t->costs[j].bytes == t->costs[i].bytes;
        if (same)
            t->costs[out++] = t->costs[i];
        else
            disagree++;
    }
    t->ncosts = out;
    if (disagree)
        tp_warn(t, "op costs that disagree for one name (none kept)", disagree);
}
