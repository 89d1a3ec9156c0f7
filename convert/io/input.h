/* input.h: reading an input file, plain or gzip, as a stream of chunks or
 * all at once.  gzip is detected by its magic bytes, not by the name. */
#ifndef TP_INPUT_H
#define TP_INPUT_H

#include "convert/base/common.h"

typedef struct tp_input tp_input;

/* Open PATH ("-" for stdin).  On failure returns NULL and fills err. */
tp_input *tp_input_open(const char *path, tp_err *err);
void tp_input_close(tp_input *in);

/* Every read of gzip input (streamed or slurped) refuses data that expands
 * more than this many times once past 64 MB: a gzip bomb becomes an error,
 * not an exhausted machine.  tp_input_set_max_inflate (--max-inflate)
 * changes it for the process; 0 turns the check off. */
#define TP_INPUT_MAX_INFLATE 100
void tp_input_set_max_inflate(unsigned ratio);
unsigned tp_input_max_inflate(void); /* the ratio in force (0: no limit) */

/* Read up to n bytes of (decompressed) data.  Returns bytes read, 0 at end,
 * -1 on error (err filled: truncated gzip, I/O error). */
long tp_input_read(tp_input *in, void *buf, size_t n, tp_err *err);

/* Read everything that is left into one malloc'ed buffer (NUL-terminated
 * beyond *len).  limit caps the decompressed size (0 = no cap).  The caller
 * frees the buffer. */
char *tp_input_slurp(tp_input *in, size_t *len, uint64_t limit, tp_err *err);

/* The first up to 64 decompressed bytes, without consuming them (for probing). */
size_t tp_input_peek(tp_input *in, const unsigned char **head);

/* A plain regular file (not gzip, not a pipe) can be read from any offset:
 * tp_input_seek makes the next read start at `offset` of the file. */
bool tp_input_seekable(const tp_input *in);
/* A regular file (gzip or not): opening its path again reads it again (not
 * standard input, not a pipe or a device). */
bool tp_input_reopenable(const tp_input *in);
int tp_input_seek(tp_input *in, uint64_t offset, tp_err *err);

/* A seekable input (above) mapped read-only, whole, for a reader that parses
 * in place instead of copying the file through read() (1 GB: 0.11 s of
 * system time).  The byte after the last reads as 0, like the NUL after a
 * streamed buffer.  NULL when the input is not such a file or cannot be
 * mapped.  The mapping is the input's (unmapped by tp_input_close); a file
 * cut short while it is mapped ends the process with SIGBUS. */
const char *tp_input_map(tp_input *in, uint64_t *size);
/* Hand back the pages of a tp_input_map mapping from the one holding `from`
 * up to the one holding `to` (excluded): the caller is done with the bytes
 * before `to`.  Mapped pages count in the resident size; the page cache
 * keeps them, and a later touch maps them again. */
void tp_input_unmap_pages(const char *map, uint64_t from, uint64_t to);

bool tp_input_is_gzip(const tp_input *in);
const char *tp_input_path(const tp_input *in);
uint64_t tp_input_compressed_size(const tp_input *in); /* file size on disk (0 for stdin) */

#endif
