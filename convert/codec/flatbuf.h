/* flatbuf.h: reading FlatBuffers from untrusted bytes.  Written from the
 * FlatBuffers binary format (tables with vtables, uoffset fields, strings,
 * vectors, unions); no generated code.  Every access is checked against the
 * buffer: a bad offset becomes a tp_fail with the file offset (buffer
 * position + `base`, so size-prefixed files report real file offsets).
 *
 * Accessors return 1 (present), 0 (absent: the schema default was stored in
 * *out) or -1 (malformed; err filled). */
#ifndef TP_FLATBUF_H
#define TP_FLATBUF_H

#include "convert/base/common.h"

#include <string.h>

typedef struct tp_fb {
    const uint8_t *buf;
    size_t len;
    uint64_t base; /* file offset of buf[0], for messages */
} tp_fb;

typedef struct tp_fb_table {
    uint32_t pos;    /* table start (its soffset to the vtable) */
    uint32_t vt;     /* vtable position */
    uint16_t vt_len; /* vtable size in bytes */
    uint16_t tb_len; /* table inline size in bytes */
} tp_fb_table;

typedef struct tp_fb_vec {
    uint32_t pos; /* first element */
    uint32_t n;   /* element count */
} tp_fb_vec;

static inline uint32_t tp_fb_u32_at(const tp_fb *fb, size_t pos)
{
    uint32_t v;
    memcpy(&v, fb->buf + pos, 4);
    return v; /* little-endian hosts only (checked in flatbuf.c) */
}
static inline uint64_t tp_fb_u64_at(const tp_fb *fb, size_t pos)
{
    uint64_t v;
    memcpy(&v, fb->buf + pos, 8);
    return v;
}

/* The root table: buf[0..4) is its uoffset.  A file identifier (4 bytes at
 * buf[4]) is checked when ident is not NULL. */
int tp_fb_root(const tp_fb *fb, const char *ident, tp_fb_table *root, tp_err *err);
/* A table at pos (validates the soffset, vtable and inline size). */
int tp_fb_table_at(const tp_fb *fb, uint32_t pos, tp_fb_table *t, tp_err *err);

/* Position of field `id` holding `size` bytes inline, checked to lie in the table. */
int tp_fb_field(const tp_fb *fb, const tp_fb_table *t, unsigned id, size_t size, uint32_t *pos, tp_err *err);

int tp_fb_u8(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint8_t def, uint8_t *out, tp_err *err);
int tp_fb_i32(const tp_fb *fb, const tp_fb_table *t, unsigned id, int32_t def, int32_t *out, tp_err *err);
int tp_fb_u32(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint32_t def, uint32_t *out, tp_err *err);
int tp_fb_u64(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint64_t def, uint64_t *out, tp_err *err);

/* Offset fields.  A string is (pos, len) of its bytes, not NUL-terminated
 * for the caller's purposes. */
int tp_fb_table_field(const tp_fb *fb, const tp_fb_table *t, unsigned id, tp_fb_table *sub, tp_err *err);
int tp_fb_string(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint32_t *pos, uint32_t *len, tp_err *err);
/* A vector of elem_size-byte elements (4 for tables/strings). */
int tp_fb_vector(const tp_fb *fb, const tp_fb_table *t, unsigned id, size_t elem_size, tp_fb_vec *v, tp_err *err);
/* Element i of a vector of tables / strings (i < v->n is the caller's job). */
int tp_fb_vec_table(const tp_fb *fb, const tp_fb_vec *v, uint32_t i, tp_fb_table *t, tp_err *err);
/* A FlatBuffers union declared at field `id`: its type byte is field id-1
 * and the table is field id.  *type = 0 (NONE) when absent. */
int tp_fb_union(const tp_fb *fb, const tp_fb_table *t, unsigned id, uint8_t *type, tp_fb_table *val, tp_err *err);

#endif
