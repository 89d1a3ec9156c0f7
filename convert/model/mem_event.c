/* mem_event.c: see mem_event.h */
#include "convert/model/mem_event.h"

#include "convert/codec/json_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_mem_reader {
    const tp_trace *t;
    tp_jdoc doc;
    void *cursor;
    tp_buf scratch;
};

tp_str tp_mem_event_name(const tp_trace *t)
{
    return tp_str_find(t, TP_MEM_EVENT_NAME, sizeof TP_MEM_EVENT_NAME - 1);
}

bool tp_mem_wants_args(const char *name, size_t len)
{
    return len == sizeof TP_MEM_EVENT_NAME - 1 && memcmp(name, TP_MEM_EVENT_NAME, len) == 0;
}

tp_mem_reader *tp_mem_reader_new(const tp_trace *t)
{
    tp_mem_reader *r = tp_xcalloc(1, sizeof *r);
    r->t = t;
    tp_jdoc_init(&r->doc);
    r->cursor = tp_args_cursor_new(t);
    return r;
}

void tp_mem_reader_free(tp_mem_reader *r)
{
    if (!r)
        return;
    tp_buf_free(&r->scratch);
    tp_args_cursor_free(r->t, r->cursor);
    tp_jdoc_free(&r->doc);
    free(r);
}

static bool int_member(const tp_jv *root, const char *key, int64_t *out)
{
    const tp_jv *v = tp_jv_get(root, key);
    return v && v->type == TP_JV_NUMBER && tp_jv_int(v, out) == 0;
}

/* The allocator's args are a flat object of integers: read them in one pass
 * (a 300 MB trace has 83k of them; the JSON tree took 36 ms).  Anything
 * else (a string, a nested value, an escape, a fraction, a long number)
 * returns false and the tree reads it: the same answer either way. */
enum { K_TYPE, K_ID, K_BYTES, K_ADDR, K_ALLOC, K_RES, K_N };

static int key_of(const char *k, size_t n)
{
    /* the six keys have six lengths: one comparison each */
    switch (n) {
    case 11: return memcmp(k, "Device Type", 11) == 0 ? K_TYPE : -1;
    case 9: return memcmp(k, "Device Id", 9) == 0 ? K_ID : -1;
    case 5: return memcmp(k, "Bytes", 5) == 0 ? K_BYTES : -1;
    case 4: return memcmp(k, "Addr", 4) == 0 ? K_ADDR : -1;
    case 15: return memcmp(k, "Total Allocated", 15) == 0 ? K_ALLOC : -1;
    case 14: return memcmp(k, "Total Reserved", 14) == 0 ? K_RES : -1;
    default: return -1;
    }
}

/* byte classes: one table lookup a byte (the args are about 200 bytes, half of them indentation) */
enum { CL_WS = 1, CL_KEY = 2, CL_DIGIT = 4 };
static const uint8_t cls[256] = { /* CL_WS: \t \n \r space; CL_KEY: printable ASCII but " and \\; CL_DIGIT */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    3, 2, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static const unsigned char *ws(const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        uint64_t w;
        if (end - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ull)) { /* indentation, 8 spaces at once */
            p += 8;
            continue;
        }
        if (!(cls[*p] & CL_WS))
            break;
        p++;
    }
    return p;
}

static bool fast_read(const char *text, size_t n, int64_t v[K_N], bool have[K_N])
{
    const unsigned char *p = (const unsigned char *)text, *end = p + n;
    p = ws(p, end);
    if (p == end || *p++ != '{')
        return false;
    p = ws(p, end);
    if (p < end && *p == '}')
        return true;
    for (;;) {
        if (p == end || *p++ != '"')
            return false;
        const unsigned char *k = p, *q = memchr(p, '"', (size_t)(end - p));
        if (!q)
            return false;
        size_t kn = (size_t)(q - k);
        int i = key_of((const char *)k, kn); /* a known key is printable ASCII by itself */
        if (i < 0)
            for (const unsigned char *c = k; c < q; c++)
                if (!(cls[*c] & CL_KEY)) /* printable ASCII keys only: the tree checks the rest */
                    return false;
        p = q;
        p = ws(p + 1, end);
        if (p == end || *p++ != ':')
            return false;
        p = ws(p, end);
        bool neg = p < end && *p == '-';
        p += neg;
        const unsigned char *d = p;
        uint64_t x = 0;
        while (p < end && (cls[*p] & CL_DIGIT))
            x = x * 10 + (uint64_t)(*p++ - '0');
        if (p == d || p - d > 18 || (p - d > 1 && *d == '0') || (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
            return false;
        if (i >= 0 && !have[i]) { /* the first of duplicates, as the tree's lookup */
            v[i] = neg ? -(int64_t)x : (int64_t)x;
            have[i] = true;
        }
        p = ws(p, end);
        if (p == end)
            return false;
        if (*p == '}')
            return ws(p + 1, end) == end;
        if (*p++ != ',')
            return false;
        p = ws(p, end);
    }
}

int tp_mem_args_parse(tp_mem_reader *r, const char *args, size_t alen, bool tree_only, tp_mem_event *out)
{
    memset(out, 0, sizeof *out);
    if (!args)
        return -1;
    int64_t v[K_N] = {0};
    bool have[K_N] = {0};
    if (!tree_only && fast_read(args, alen, v, have)) {
        if (!have[K_TYPE] || !have[K_BYTES])
            return -1;
        out->type = v[K_TYPE];
        out->bytes = v[K_BYTES];
        out->id = have[K_ID] ? v[K_ID] : -1;
        out->has_addr = have[K_ADDR];
        out->addr = have[K_ADDR] ? v[K_ADDR] : 0;
        out->has_levels = have[K_ALLOC] && have[K_RES] && v[K_ALLOC] >= 0 && v[K_RES] >= 0;
        out->allocated = have[K_ALLOC] ? v[K_ALLOC] : 0;
        out->reserved = have[K_RES] ? v[K_RES] : 0;
        return 0;
    }
    const tp_jv *root;
    tp_err err = {0};
    tp_jdoc_reset(&r->doc);
    if (tp_jv_parse_all(&r->doc, args, alen, &root, &err) != 0 || root->type != TP_JV_OBJECT)
        return -1;
    if (!int_member(root, "Device Type", &out->type) || !int_member(root, "Bytes", &out->bytes))
        return -1;
    if (!int_member(root, "Device Id", &out->id))
        out->id = -1; /* the host's events of some versions have none */
    out->has_addr = int_member(root, "Addr", &out->addr);
    if (!out->has_addr)
        out->addr = 0;
    bool a = int_member(root, "Total Allocated", &out->allocated), b = int_member(root, "Total Reserved", &out->reserved);
    out->has_levels = a && b && out->allocated >= 0 && out->reserved >= 0;
    if (!a)
        out->allocated = 0;
    if (!b)
        out->reserved = 0;
    return 0;
}

int tp_mem_event_read(tp_mem_reader *r, const tp_event *e, tp_mem_event *out)
{
    memset(out, 0, sizeof *out);
    if (!e->args)
        return -1;
    const char *args, *extra;
    size_t alen = 0, elen;
    tp_args_split_r(r->t, r->cursor, &r->scratch, e->args, &args, &alen, &extra, &elen);
    return tp_mem_args_parse(r, args, alen, false, out);
}

void tp_mem_device_label(int64_t type, int64_t id, char *buf, size_t n)
{
    /* c10::DeviceType numbers of the devices traces hold */
    static const char *const names[] = {"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga",
                                        "maia", "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu",
                                        "ve", "lazy", "ipu", "mtia"};
    if (type == 0 && id < 0)
        snprintf(buf, n, "cpu");
    else if (type >= 0 && type < (int64_t)(sizeof names / sizeof *names))
        snprintf(buf, n, "%s:%lld", names[type], (long long)id);
    else
        snprintf(buf, n, "type%lld:%lld", (long long)type, (long long)id);
}
