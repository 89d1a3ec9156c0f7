/* file_window.h: reading a mapped input file from writer threads without
 * keeping it all resident.
 *
 * Mapped pages count in the process's resident size, and a fault maps more
 * than its page: the kernel's fault-around (64 KB), and on kernels with
 * large page-cache folios (ext4 since Linux 6.x) the whole folio, up to
 * 2 MB (measured on 6.18: 0.7-1.5 MB mapped per touch of a 500 MB file).
 * So a reader thread notes the 2 MB-aligned windows it touches (a folio
 * never straddles one) and keeps at most TP_FWIN_WINDOWS of them mapped:
 * touching one more hands back the oldest (MADV_DONTNEED: the page cache
 * keeps the pages; a later touch, maybe another thread's, maps them again).
 * That bounds the mapped pages at TP_FWIN_WINDOWS x 2 MB per thread however
 * the thread walks the file.  The old bound, 256 windows of 64 KB handed
 * back as one span, let a writer thread map 180 MB of a 500 MB input at
 * once (each touch mapped a folio, not 64 KB); and a span handed back
 * unmapped the other threads' windows in it too.  Used by the Chrome
 * reader's args (chrome_args.c) and the XPlane args renderer (xplane_args.c). */
#ifndef TP_FILE_WINDOW_H
#define TP_FILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* 8 x 2 MB = 16 MB per thread: a 500 MB conversion's peak 0.66x -> 0.41x the input, the same CPU
 * (16 windows: 0.46x, 32: 0.55x) */
#define TP_FWIN_WINDOWS 8
typedef struct tp_fwin {
    const char *map;         /* the mapping the windows are in (set by the first touch) */
    uint64_t size;
    uint64_t win[TP_FWIN_WINDOWS]; /* the windows mapped (file offset / window size) */
    size_t n, next, last;    /* how many; the oldest (replaced next); the last touched */
} tp_fwin;

/* Note a read at offset off of the mapping (map, size). */
void tp_fwin_touch(tp_fwin *c, const char *map, uint64_t size, uint64_t off);

/* Hand back the pages of the windows touched so far. */
void tp_fwin_release(tp_fwin *c);

#endif
