/* chrome_args.h: the Chrome reader's args left in the input file.
 *
 * A plain (not gzip) input file is mapped read-only, and an event's args are
 * a handle naming their bytes in it (offset and length) instead of a copy in
 * the args arena: a 1 GB Kineto trace has about 420 MB of args, and copying
 * them into fresh memory was the largest cost of `convert` after parsing.
 * The text is the input's own (not minified, not checked): writers run it
 * through their JSON check as they do arena args (tp_args_is_minified).
 *
 * The mapping is owned by the trace that attached it (format_data); a second
 * reader's trace may share it without owning it.  If the file changes while
 * tracepress runs, the writers still never write broken JSON (the text is
 * checked), but a file cut short under the mapping ends the process (SIGBUS),
 * as it does for the XPlane reader. */
#ifndef TP_CHROME_ARGS_H
#define TP_CHROME_ARGS_H

#include "convert/model/model.h"

/* Map PATH, whose size must be SIZE, and make T's args source the file.
 * Returns false (T unchanged) when the file cannot be mapped or is too large
 * for the handle's offset bits. */
bool tp_chrome_args_attach(tp_trace *t, const char *path, uint64_t size);

/* U renders the same handles from T's mapping (U does not own it). */
void tp_chrome_args_share(tp_trace *u, const tp_trace *t);

/* The handle for LEN bytes at file offset OFF, or 0 when T has no mapping or
 * they do not fit a handle (the caller then copies them into the arena). */
uint64_t tp_chrome_args_handle(const tp_trace *t, uint64_t off, size_t len);

/* A handle made by tp_chrome_args_handle (other handles keep their meaning). */
bool tp_chrome_args_is_file(const tp_trace *t, uint64_t handle);

#endif
