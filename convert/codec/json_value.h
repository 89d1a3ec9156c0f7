/* json_value.h: a small JSON DOM for readers whose input is JSON documents
 * rather than a stream of trace events (dv/dt call records, CK experiment
 * points, small side-car files).  Built on json_lex.h.
 *
 * Ownership: a tp_jdoc owns every node it returns (an arena); nodes stay
 * valid until tp_jdoc_reset() or tp_jdoc_free().  Unescaped strings and
 * number texts point into the caller's input buffer, so the input must
 * outlive the nodes too.  Nothing here touches a tp_trace.
 *
 * Numbers are kept as their text: callers parse them exactly with
 * tp_jv_int / tp_jv_fixed (never through a double).  Object keys keep their
 * input order; duplicates are kept (tp_jv_get returns the first). */
#ifndef TP_JSON_VALUE_H
#define TP_JSON_VALUE_H

#include "convert/base/common.h"

typedef enum tp_jv_type {
    TP_JV_NULL = 0,
    TP_JV_BOOL,
    TP_JV_NUMBER, /* s/len: the number's text */
    TP_JV_STRING, /* s/len: unescaped text (not NUL-terminated: may point into the input) */
    TP_JV_ARRAY,  /* items[0..n) */
    TP_JV_OBJECT, /* keys[0..n)/key_lens (unescaped, not NUL-terminated), items[0..n) */
} tp_jv_type;

typedef struct tp_jv {
    uint8_t type;
    bool b;                /* TP_JV_BOOL */
    uint32_t n;            /* members of an array or object */
    uint64_t off;          /* byte offset of the value in the input */
    const char *s;         /* string / number text */
    size_t len;
    struct tp_jv *items;   /* array elements, object values */
    const char **keys;     /* object keys */
    size_t *key_lens;
} tp_jv;

typedef struct tp_jarena_block tp_jarena_block;

typedef struct tp_jdoc {
    tp_jarena_block *blocks; /* newest first; all but the newest freed on reset */
    /* scratch stack for members of containers being parsed */
    tp_jv *stack;
    const char **stack_keys;
    size_t *stack_key_lens;
    size_t stack_len, stack_cap;
    int max_depth;           /* 0: TP_JSON_MAX_DEPTH */
    uint64_t bad_escapes;    /* invalid escapes replaced by U+FFFD (the caller may tp_warn) */
} tp_jdoc;

void tp_jdoc_init(tp_jdoc *d);
void tp_jdoc_reset(tp_jdoc *d); /* forget all nodes, keep one block for reuse */
void tp_jdoc_free(tp_jdoc *d);

/* Parse one JSON value starting at p (leading whitespace skipped).  `origin`
 * is the start of the input buffer: error offsets and node offsets are
 * p - origin.  On success *out is the value and *next points past it (and
 * past trailing whitespace).  On error: tp_fail(err, offset, ...) and -1;
 * a value cut off by `end` is reported as truncated. */
int tp_jv_parse(tp_jdoc *d, const char *origin, const char *p, const char *end, const tp_jv **out,
                const char **next, tp_err *err);

/* Parse a whole buffer holding exactly one value (trailing garbage is an error). */
int tp_jv_parse_all(tp_jdoc *d, const char *buf, size_t len, const tp_jv **out, tp_err *err);

/* Lookups.  NULL when v is not an object/array or the member is absent. */
/* Object members kept as text ("k":v,"k":v: a trace's top-level keys) parsed
 * as one object, through scratch (the caller frees it after the nodes): the
 * root, or NULL when they do not make an object. */
const tp_jv *tp_jv_parse_members(tp_jdoc *d, const char *members, size_t len, tp_buf *scratch);
const tp_jv *tp_jv_get(const tp_jv *obj, const char *key);
const tp_jv *tp_jv_at(const tp_jv *arr, size_t i);

/* Typed views.  Numbers may also come as numeric strings ("17"). Return 0 or -1. */
int tp_jv_int(const tp_jv *v, int64_t *out);
int tp_jv_fixed(const tp_jv *v, int decimals, int64_t *out); /* value * 10^decimals, exact */
/* String contents, or NULL if v is not a string. */
const char *tp_jv_str(const tp_jv *v, size_t *len);
bool tp_jv_str_eq(const tp_jv *v, const char *s);

/* Write v back as compact JSON (strings re-escaped, numbers verbatim). */
void tp_jv_write(tp_buf *b, const tp_jv *v);

#endif
