/* pftrace_args.h: a Chrome args object ("{...}" JSON text) as Perfetto
 * DebugAnnotations, and the numeric values of a counter ('C') event's args.
 * Used by the .pftrace writer (pftrace_encode.c); tp_pf_minify
 * is declared here for its test too. */
#ifndef TP_PFTRACE_ARGS_H
#define TP_PFTRACE_ARGS_H

#include "convert/base/common.h"

/* Returns the interned id of an annotation name (the writer interns it). */
typedef uint64_t (*tp_pf_name_fn)(void *ctx, const char *key, size_t len);

/* The interned id of a string value of the annotation named name_iid, or 0
 * to write the string itself. */
typedef uint64_t (*tp_pf_value_iid_fn)(void *ctx, uint64_t name_iid, const char *s, size_t len);

/* Append one TrackEvent.debug_annotations field per top-level key: strings
 * as string_value (or string_value_iid when value_iid gives one), integers
 * as int_value, other numbers as double_value, true/false as bool_value,
 * objects, arrays, null and integers beyond int64 as legacy_json_value
 * (minified JSON text).  Returns 0, or -1 when the text is not a JSON object
 * (nothing is appended then). */
int tp_pf_put_args(tp_buf *b, const char *json, size_t n, tp_pf_name_fn name_iid, tp_pf_value_iid_fn value_iid,
                   void *ctx, tp_buf *scratch, uint64_t *bad_utf8);

/* Call fn for every top-level key whose value is a JSON number.  Returns 0 or
 * -1 when the text is not a JSON object (fn may have been called before). */
typedef void (*tp_pf_value_fn)(void *ctx, const char *key, size_t klen, double v);
int tp_pf_counter_values(const char *json, size_t n, tp_pf_value_fn fn, void *ctx, tp_buf *scratch);

/* Append the JSON text [s, end) without its whitespace outside strings (a
 * legacy_json value); any bytes, valid JSON or not, give the same output
 * as a byte-by-byte walk (its test keeps that walk). */
void tp_pf_minify(tp_buf *out, const char *s, const char *end);
#endif
