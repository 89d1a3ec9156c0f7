/* file_window.h: reading a mapped input file from writer threads without
 * keeping it all resident.
 *
 * Mapped pages count in the process's resident size, and each fault maps
 * the cached pages around it too (the kernel's fault-around, 64 KB), so a
 * reader thread notes the 64 KB windows it touches and, past
 * TP_FWIN_WINDOWS of them, hands back the span they lie in (MADV_DONTNEED:
 * the page cache keeps the pages; a later touch, maybe another thread's,
 * maps them again).  A writer walks one track at a time: a busy track's
 * data are close together in the file, a sparse one's far apart, so this
 * bounds the mapped pages at about TP_FWIN_WINDOWS x 64 KB per thread
 * either way, with few system calls.  Used by the Chrome reader's args
 * (chrome_args.c) and the XPlane args renderer (xplane_args.c). */
#ifndef TP_FILE_WINDOW_H
#define TP_FILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_fwin {
    const char *map;         /* the mapping the windows are in (set by the first touch) */
    uint64_t size;
    uint64_t last, lo, hi;   /* the last window touched; the span of all of them */
    size_t touched;
} tp_fwin;

/* Note a read at offset off of the mapping (map, size). */
void tp_fwin_touch(tp_fwin *c, const char *map, uint64_t size, uint64_t off);

/* Hand back the pages of the windows touched so far. */
void tp_fwin_release(tp_fwin *c);

#endif
