/* flatbuf.c: bounds-checked FlatBuffers access (see flatbuf.h).
 * Positions are kept in uint64 arithmetic before comparing with the buffer
 * length, so no sum of untrusted values can wrap. */
#include "convert/codec/flatbuf.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "flatbuf.c reads little-endian data with memcpy; add byte swapping for this host"
#endif

#define FB_MAX_LEN 0x7fffffffu /* FlatBuffers are < 2 GiB: soffsets are int32 */

/* Does [pos, pos+n) lie inside the buffer? */
static bool fits(const tp_fb *fb, uint64_t pos, uint64_t n) { return pos <= fb->len && n <= fb->len - pos; }

int tp_fb_table_at(const tp_fb *fb, uint32_t pos, tp_fb_table *t, tp_err *err)
{
    if (!fits(fb, pos, 4))
        return tp_fail(err, fb->base + pos, "table starts past the end of the data (truncated file?)");
    int32_t soff = (int32_t)tp_fb_u32_at(fb, pos);
    int64_t vt = (int64_t)pos - (int64_t)soff;
    if (vt < 0 || !fits(fb, (uint64_t)vt, 4))
        return tp_fail(err, fb->base + pos, "table's vtable offset %d points outside the data", soff);
    uint16_t vl, tl;
    memcpy(&vl, fb->buf + vt, 2);
    memcpy(&tl, fb->buf + vt + 2, 2);
    if (vl < 4 || (vl & 1) || !fits(fb, (uint64_t)vt, vl))
        return tp_fail(err, fb->base + (uint64_t)vt, "bad vtable size %u", vl);
    if (tl < 4 || !fits(fb, pos, tl))
        return tp_fail(err, fb->base + pos, "table of %u bytes runs past the end of the data", tl);
    t->pos = pos;
    t->vt = (uint32_t)vt;
    t->vt_len = vl;
    t->tb_len = tl;
    return 0;
}

int tp_fb_root(const tp_fb *fb, const char *ident, tp_fb_table *root, tp_err *err)
{
    if (fb->len > FB_MAX_LEN)
        return tp_fail(err, fb->base, "flatbuffer larger than 2 GiB");
    if (fb->len < 8)
        return tp_fail(err, fb->base + fb->len, "flatbuffer of %zu bytes is too short", fb->len);
    if (ident && memcmp(fb->buf + 4, ident, 4) != 0)
        return tp_fail(err, fb->base + 4, "file identifier is not \"%.4s\"", ident);
    return tp_fb_table_at(fb, tp_fb_u32_at(fb, 0), root, err);
}

int tp_fb_field(const tp_fb *fb, const tp_fb_table *t, unsigned id, size_t size, uint32_t *pos, tp_err *err)
{
    uint32_t slot = 4 + 2 * id;
    if (slot + 2 > t->vt_len)
        return 0; /* field newer than the writer: absent */
    uint16_t fo;
    memcpy(&fo, fb->buf + t->vt + slot, 2);
    if (fo == 0)
        return 0;
    if ((uint64_t)fo + size > t->tb_len)
        return tp_fail(err, fb->base + t->pos, "field %u (offset %u, %zu bytes) lies outside its %u-byte table", id, fo,
                       size, t->tb_len);
    *pos = t->pos + fo;
    return 1;
}

#define SCALAR_GETTER(fn, type)                                                                        \
    int fn(const tp_fb *fb, const tp_fb_table *t, unsigned id, type def, type *out, tp_err *err)      \
    {                                                                                                  \
        uint32_t p = 0;                                                                                    \
        int r = tp_fb_field(fb, t, id, sizeof(type), &p, err);                                         \
        if (r == 1)                                                                                    \
            memcpy(out, fb->buf + p, sizeof(type));                                                    \
        else                                                                                           \
            *out = def;                                                                                \
        return r;                                                                                      \
    }
SCALAR_GETTER(tp_fb_u8, uint8_t)
SCALAR_GETTER(tp_fb_i32, int32_t)
SCALAR_GETTER(tp_fb_u32, uint32_t)
SCALAR_GETTER(tp_fb_u64, uint64_t)

/* Follow the uoffset stored at pos; the target must leave room for `need` bytes. */
static int follow(const tp_fb *fb, uint32_t pos, uint64_t need, uint32_t *target, const char *what, tp_err *err)
{
    uint64_t to = (uint64_t)pos + tp_fb_u32_at(fb, pos);
    if (!fits(fb, to, need))
        return tp_fail(err, fb->base + pos, "%s offset points past the end of the data (truncated file?)", what);
    *target = (uint32_t)to;
    return 0;
}

int tp_fb_table_field(const tp_fb *fb, const tp_fb_table *t, unsigned id, tp_fb_table *sub, tp_err *err)
{
    uint32_t p = 0, to = 0;
    int r = tp_fb_field(fb, t, id, 4, &p, err);
    if (r != 1)
        return r;
    if (follow(fb, p, 4, &to, "table", err) < 0 || tp_fb_table_at(fb, to, sub, err) < 0)
        return -1;
    return 1;
}

static int string_at(const tp_fb *fb, uint32_t p, uint32_t *pos, uint32_t *len, tp_err *err)
{
    uint32_t to = 0;
    if (follow(fb, p, 4, &to, "string", err) < 0)
        return -1;
    uint32_t n = tp_fb_u32_at(fb, to);
    if (!fits(fb, (uint64_t)to + 4, n))
        return tp_fail(err, fb->base + to, "string of %u bytes runs past the end of the data", n);
    *pos = to + 4;
    *len = n;
    return 1;
}

int tp_fb_string(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint32_t *pos, uint32_t *len, tp_err *err)
{
    uint32_t p = 0;
    int r = tp_fb_field(fb, t, id, 4, &p, err);
    if (r != 1) {
        *pos = *len = 0;
        return r;
    }
    return string_at(fb, p, pos, len, err);
}

int tp_fb_vector(const tp_fb *fb, const tp_fb_table *t, unsigned id, size_t elem_size, tp_fb_vec *v, tp_err *err)
{
    uint32_t p = 0, to = 0;
    v->pos = v->n = 0;
    int r = tp_fb_field(fb, t, id, 4, &p, err);
    if (r != 1)
        return r;
    if (follow(fb, p, 4, &to, "vector", err) < 0)
        return -1;
    uint32_t n = tp_fb_u32_at(fb, to);
    if (!fits(fb, (uint64_t)to + 4, (uint64_t)n * elem_size))
        return tp_fail(err, fb->base + to, "vector of %u elements runs past the end of the data", n);
    v->pos = to + 4;
    v->n = n;
    return 1;
}

int tp_fb_vec_table(const tp_fb *fb, const tp_fb_vec *v, uint32_t i, tp_fb_table *t, tp_err *err)
{
    uint32_t p = v->pos + 4 * i, to = 0;
    if (follow(fb, p, 4, &to, "table", err) < 0)
        return -1;
    return tp_fb_table_at(fb, to, t, err);
}

int tp_fb_union(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint8_t *type, tp_fb_table *val, tp_err *err)
{
    *type = 0;
    if (id == 0)
        return tp_fail(err, fb->base + t->pos, "union field id 0 has no type slot");
    uint8_t ty;
    if (tp_fb_u8(fb, t, id - 1, 0, &ty, err) < 0)
        return -1;
    int r = tp_fb_table_field(fb, t, id, val, err);
    if (r != 1)
        return r; /* a type without a value is treated as NONE */
    *type = ty;
    return 1;
}
