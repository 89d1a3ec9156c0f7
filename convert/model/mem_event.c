/* mem_event.c: see mem_event.h */
#include "convert/model/mem_event.h"

#include "convert/codec/json_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout of the last args read in one pass: a profiler writes every
 * event's args alike (the same keys in the same order, the same
 * indentation), so the next one is checked against the separators between
 * its numbers and only the numbers are read (a fifth of the one-pass read's
 * work; 280k events at 1 GB).  Anything else goes to the one pass, which
 * learns its layout instead. */
#define SKEL_TEXT 512
#define SKEL_NUMS 16

typedef struct mem_skel {
    unsigned char text[SKEL_TEXT];               /* the args text learnt */
    uint16_t seg_at[SKEL_NUMS + 1], seg_len[SKEL_NUMS + 1]; /* separator k: before number k, the last after them */
    int8_t slot[SKEL_NUMS];                      /* number k's key (K_*), -1: another key or a duplicate */
    size_t nnum;
    bool valid;
} mem_skel;

/* a number of the one-pass read: where it is (its '-' included) and its key */
typedef struct mem_tok {
    uint16_t at, end;
    int8_t slot;
} mem_tok;

struct tp_mem_reader {
    const tp_trace *t;
    tp_jdoc doc;
    void *cursor;
    tp_buf scratch;
    mem_skel skel;
    uint64_t layout_reads; /* args read by the learnt layout (tests see the quick path taken) */
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

uint64_t tp_mem_reader_layout_reads(const tp_mem_reader *r) { return r->layout_reads; }

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

static inline uint64_t load8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static const unsigned char *ws(const unsigned char *p, const unsigned char *end)
{
    while (p < end && (cls[*p] & CL_WS)) /* most calls meet no space at all: the class first */
        p += *p == ' ' && end - p >= 8 && load8(p) == 0x2020202020202020ull ? 8 : 1; /* indentation, 8 at once */
    return p;
}

/* One of the six keys with its closing quote at k (*q: that quote), else -1: a fixed compare each,
 * chosen by the first letter (no search for the quote; 280k events at 1 GB, seven keys each). */
static int known_key(const unsigned char *k, const unsigned char *end, const unsigned char **q)
{
    size_t room = (size_t)(end - k);
#define KEY(lit, id)                                                                                                   \
    if (room > sizeof lit - 1 && memcmp(k, lit "\"", sizeof lit) == 0) {                                               \
        *q = k + sizeof lit - 1;                                                                                       \
        return id;                                                                                                     \
    }
    switch (room ? *k : 0) {
    case 'D': KEY("Device Type", K_TYPE) KEY("Device Id", K_ID) break;
    case 'B': KEY("Bytes", K_BYTES) break;
    case 'A': KEY("Addr", K_ADDR) break;
    case 'T': KEY("Total Allocated", K_ALLOC) KEY("Total Reserved", K_RES) break;
    default: break;
    }
#undef KEY
    return -1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MEM_SWAR 1
/* Eight bytes at a time (the first byte the lowest): how many of them lead
 * as ASCII digits, and their value.  A byte is a digit when its high nibble
 * is 3 and adding 6 keeps it 3; a carry only reaches bytes past a non-digit. */
static inline unsigned lead_digits(uint64_t w)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, three = 0x3030303030303030ull;
    uint64_t nd = ((w & hi) ^ three) | (((w + 0x0606060606060606ull) & hi) ^ three);
    return nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
}

/* the value of the first c (1..8) digits: shifted to the top (the bytes past them out, zeros before
 * them), then pairs, quads and the two halves joined */
static inline uint64_t digits_value(uint64_t w, unsigned c)
{
    uint64_t d = (w - 0x3030303030303030ull) << (8 * (8 - c));
    d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;
    d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;
    return (d * 10000 + (d >> 32)) & 0xFFFFFFFFull;
}
#endif

/* the run of digits at p (stops past 18 of them: the caller refuses those), its value in *x */
static inline __attribute__((always_inline)) const unsigned char *digits(const unsigned char *p,
                                                                        const unsigned char *end, uint64_t *x)
{
    const unsigned char *d = p;
    uint64_t v = 0;
#ifdef MEM_SWAR
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    while (end - p >= 8 && p - d <= 18) {
        uint64_t w = load8(p);
        unsigned c = lead_digits(w);
        if (c)
            v = v * pow10[c] + digits_value(w, c);
        p += c;
        if (c < 8) {
            *x = v;
            return p;
        }
    }
#endif
    while (p < end && (cls[*p] & CL_DIGIT) && p - d <= 18)
        v = v * 10 + (uint64_t)(*p++ - '0');
    *x = v;
    return p;
}

/* tok (room for SKEL_NUMS): the numbers met, *ntok their count (past SKEL_NUMS: not all noted) */
static bool fast_read(const char *text, size_t n, int64_t v[K_N], bool have[K_N], mem_tok *tok, size_t *ntok)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + n;
    *ntok = 0;
    p = ws(p, end);
    if (p == end || *p++ != '{')
        return false;
    p = ws(p, end);
    if (p < end && *p == '}')
        return ws(p + 1, end) == end;
    for (;;) {
        if (p == end || *p++ != '"')
            return false;
        const unsigned char *k = p, *q;
        int i = known_key(k, end, &q);
        if (i < 0) {
            q = memchr(p, '"', (size_t)(end - p));
            if (!q)
                return false;
            for (const unsigned char *c = k; c < q; c++)
                if (!(cls[*c] & CL_KEY)) /* printable ASCII keys only: the tree checks the rest */
                    return false;
        }
        p = ws(q + 1, end);
        if (p == end || *p++ != ':')
            return false;
        p = ws(p, end);
        const unsigned char *num = p;
        bool neg = p < end && *p == '-';
        p += neg;
        const unsigned char *d = p;
        uint64_t x;
        p = digits(p, end, &x);
        if (p == d || p - d > 18 || (p - d > 1 && *d == '0') || (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
            return false;
        bool first = i >= 0 && !have[i]; /* the first of duplicates, as the tree's lookup */
        if (first) {
            v[i] = neg ? -(int64_t)x : (int64_t)x;
            have[i] = true;
        }
        if (*ntok < SKEL_NUMS && n <= SKEL_TEXT)
            tok[*ntok] = (mem_tok){(uint16_t)(num - (const unsigned char *)text),
                                   (uint16_t)(p - (const unsigned char *)text), (int8_t)(first ? i : -1)};
        ++*ntok;
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

/* the layout of text, read by fast_read into tok[0..ntok) */
static void skel_learn(mem_skel *k, const char *text, size_t n, const mem_tok *tok, size_t ntok)
{
    k->valid = false;
    if (n > SKEL_TEXT || ntok > SKEL_NUMS)
        return;
    memcpy(k->text, text, n);
    size_t at = 0;
    for (size_t j = 0; j < ntok; j++) {
        k->seg_at[j] = (uint16_t)at;
        k->seg_len[j] = (uint16_t)(tok[j].at - at);
        k->slot[j] = tok[j].slot;
        at = tok[j].end;
    }
    k->seg_at[ntok] = (uint16_t)at;
    k->seg_len[ntok] = (uint16_t)(n - at);
    k->nnum = ntok;
    k->valid = true;
}

static inline bool same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (n >= 8) { /* words, the last one overlapping the one before */
        for (size_t i = 0; i + 8 < n; i += 8)
            if (load8(a + i) != load8(b + i))
                return false;
        return load8(a + n - 8) == load8(b + n - 8);
    }
    while (n--)
        if (*a++ != *b++)
            return false;
    return true;
}

/* text read with the learnt layout: its separators the same bytes, its numbers numbers as fast_read
 * takes them (then fast_read would read the same keys and values: it decides by the separators and
 * where each number ends, and a number ends at the same separator) */
static bool skel_read(const mem_skel *k, const char *text, size_t n, int64_t v[K_N], bool have[K_N])
{
    const unsigned char *p = (const unsigned char *)text, *end = p + n;
    for (size_t j = 0;; j++) {
        size_t len = k->seg_len[j];
        if ((size_t)(end - p) < len || !same_bytes(p, k->text + k->seg_at[j], len))
            return false;
        p += len;
        if (j == k->nnum)
            return p == end;
        bool neg = p < end && *p == '-';
        p += neg;
        const unsigned char *d = p;
        uint64_t x;
        p = digits(p, end, &x);
        if (p == d || p - d > 18 || (p - d > 1 && *d == '0'))
            return false; /* what follows the digits is the next separator, checked next */
        int i = k->slot[j];
        if (i >= 0) {
            v[i] = neg ? -(int64_t)x : (int64_t)x;
            have[i] = true;
        }
    }
}

/* the one-pass read: the learnt layout first, else fast_read (which learns this one's) */
static bool quick_read(tp_mem_reader *r, const char *text, size_t n, int64_t v[K_N], bool have[K_N])
{
    if (r->skel.valid) {
        if (skel_read(&r->skel, text, n, v, have)) {
            r->layout_reads++;
            return true;
        }
        memset(v, 0, K_N * sizeof *v);
        memset(have, 0, K_N * sizeof *have);
    }
    mem_tok tok[SKEL_NUMS];
    size_t ntok;
    if (!fast_read(text, n, v, have, tok, &ntok))
        return false;
    skel_learn(&r->skel, text, n, tok, ntok);
    return true;
}

int tp_mem_args_parse(tp_mem_reader *r, const char *args, size_t alen, bool tree_only, tp_mem_event *out)
{
    memset(out, 0, sizeof *out);
    if (!args)
        return -1;
    int64_t v[K_N] = {0};
    bool have[K_N] = {0};
    if (!tree_only && quick_read(r, args, alen, v, have)) {
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
