/* output.h: every file tracepress writes goes through here.  Data goes to a
 * temporary file in the destination directory and is renamed over the final
 * name only when complete, so a failure, a full disk or a signal never
 * leaves a partial output.  A name ending in ".gz" is written gzip'ed. */
#ifndef TP_OUTPUT_H
#define TP_OUTPUT_H

#include "convert/base/common.h"
#include "convert/io/protect.h" /* the inputs tp_out_open refuses to replace */

typedef struct tp_out tp_out;

/* Open for writing.  Refuses to write over `protect` (the input) when it is
 * the same file.  NULL on failure (err filled). */
tp_out *tp_out_open(const char *path, const char *protect, tp_err *err);
/* Append bytes (buffered).  Errors are remembered and reported by commit. */
void tp_out_write(tp_out *o, const void *p, size_t n);
/* The buffer writers format into directly; flushed when large. */
tp_buf *tp_out_buf(tp_out *o);
void tp_out_maybe_flush(tp_out *o);
/* Finish: flush, fsync-free close, rename.  Returns 0 or -1 (err filled;
 * the temporary file is removed). */
int tp_out_commit(tp_out *o, tp_err *err);
/* Give up: remove the temporary file. */
void tp_out_abort(tp_out *o);
uint64_t tp_out_bytes(const tp_out *o); /* uncompressed bytes written */
/* Set up ISA-L's deflate as a `.gz` output uses it (the level and why: output.c). */
struct isal_zstream;
void tp_out_gzip_init(struct isal_zstream *z);

/* A set of outputs published together (a report's PDF, PNGs, summary.json
 * and summary.md; the parts of a split): each member is written and
 * committed under its temporary name, and tp_outset_publish renames them
 * all at the end.  Until then the previous set stays as it was; on failure
 * or a signal no member is left.  Members that are not regular files (-o -,
 * a FIFO) are written straight, as ever. */
typedef struct tp_outset tp_outset;
tp_outset *tp_outset_new(void);
tp_out *tp_out_open_in(tp_outset *set, const char *path, const char *protect, tp_err *err);
/* Until the next call, every tp_out_open on this thread (the canvases'
 * files too: a report's PDF and PNGs) joins SET (NULL: none, as ever).
 * Returns the set used before, to be restored. */
tp_outset *tp_outset_use(tp_outset *set);
/* The members an earlier set of this kind may have left in DIR (NAMES,
 * relative to DIR, NULL-terminated): once SET is published, each that it
 * did not write again is removed, so the folder holds one set (a report
 * without a chart leaves no older chart beside it).  Only regular files
 * (lstat: a symbolic link there is the user's), never an input
 * (tp_out_protected), never through a linked subfolder (DIR/png -> ...). */
void tp_outset_replaces(tp_outset *set, const char *dir, const char *const *names);
/* Renames every committed member; 0, or -1 with err (the rest removed). Frees the set. */
int tp_outset_publish(tp_outset *set, tp_err *err);
/* The end of a set begun with prev = tp_outset_use(set): restores prev,
 * then publishes the set when rc >= 0 (its result is returned) or aborts it
 * (rc is returned). */
int tp_outset_finish(tp_outset *set, tp_outset *prev, int rc, tp_err *err);
/* Removes every committed member's temporary file and frees the set (NULL: nothing). */
void tp_outset_abort(tp_outset *set);

/* Install SIGINT/SIGTERM/SIGHUP handlers that remove open temporary files,
 * and ignore SIGXFSZ (a file-size limit becomes a write error, EFBIG).
 * main() calls it for every command. */
void tp_out_install_signal_cleanup(void);
/* Remove every stale temporary file of folder dir now (NAME.tmp.PID.XXXXXX
 * of a process that is gone); outputs written into dir afterwards, by this
 * process or its forks, skip their own scan of it (a job's thousands of rank
 * summaries). */
void tp_out_sweep_dir(const char *dir);

/* Write a whole small file (JSON, Markdown) atomically: DIR/NAME, or PATH
 * when dir is NULL.  0 or -1 with err. */
int tp_out_write_file(const char *dir, const char *name, const void *data, size_t len, tp_err *err);

/* Create a directory and its parents (mkdir -p).  0 or -1 with err. */
int tp_mkdirs(const char *path, tp_err *err);

#endif
