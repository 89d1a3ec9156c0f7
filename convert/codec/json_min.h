/* json_min.h: copying JSON text minified and checked (the writers' args,
 * extra event keys and top-level keys). */
#ifndef TP_JSON_MIN_H
#define TP_JSON_MIN_H

#include "convert/base/common.h"

/* What tp_json_min copies: a whole value, or object members without their
 * braces (`"k":v,...`, which may start with a comma in the second form). */
enum { TP_MIN_VALUE, TP_MIN_MEMBERS_AFTER_COMMA, TP_MIN_MEMBERS };

/* Append s[0..n) to b without insignificant whitespace, checking it
 * against the JSON grammar as it goes (nesting up to TP_JSON_MAX_DEPTH):
 * raw control characters in strings are escaped and invalid UTF-8 is
 * replaced by U+FFFD (counted in *bad_utf8).  Anything else that is not
 * JSON returns false with b and *bad_utf8 as they were, so broken input is
 * never written as broken output.  One pass. */
bool tp_json_min(tp_buf *b, const char *s, size_t n, int mode, uint64_t *bad_utf8);

#endif
