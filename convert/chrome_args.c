/* chrome_args.c: the Chrome reader's args left in the input file
 * (see chrome_args.h). */
#include "chrome_args.h"

#include "sort.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* handle: TP_ARGS_EXTERNAL | length << OFF_BITS | offset (bit 62 stays clear:
 * the model's own inline handles use it) */
#define OFF_BITS 40
#define LEN_BITS 22
#define OFF_MAX ((UINT64_C(1) << OFF_BITS) - 1)
#define LEN_MAX ((UINT64_C(1) << LEN_BITS) - 1)

/* Ranges closer than GAP are read with one pread: the bytes between are
 * other tracks' events, cheaper to copy than a system call each (about 2 us
 * here, the time to copy 20 KB).  When that would read more than twice the
 * args (and 1 MB), the ranges are cut with SMALL_GAP instead, so a batch
 * never costs much more memory than its args. */
#define GAP ((uint64_t)4 << 10)
#define SMALL_GAP 256

typedef struct file_args {
    int fd;
    const char *map; /* for renders without a prefetch (single events) */
    uint64_t size;
} file_args;

/* A writer thread's cursor: the args of its next events, read in batches. */
typedef struct seg {
    uint64_t off, end; /* file range */
    size_t at;         /* where it starts in buf */
} seg;

typedef struct file_cursor {
    seg *segs;
    size_t nsegs, segs_cap;
    uint64_t *offs; /* scratch: (offset, end) pairs to sort */
    size_t offs_cap;
    char *buf;
    size_t buf_cap;
} file_cursor;

static const tp_args_source file_source;

static const file_args *source_of(const tp_trace *t)
{
    return t->args_source == &file_source ? t->format_data : NULL;
}

static void range_of(uint64_t h, uint64_t *off, uint64_t *n)
{
    *off = h & OFF_MAX;
    *n = (h >> OFF_BITS) & LEN_MAX;
}

static const char *file_json(const tp_trace *t, void *cursor, uint64_t h, size_t *len, const char **err)
{
    const file_args *f = source_of(t);
    uint64_t off, n;
    range_of(h, &off, &n);
    if (!f || off > f->size || n > f->size - off) {
        *len = 0;
        *err = "args outside the input file";
        return NULL;
    }
    *len = (size_t)n;
    const file_cursor *c = cursor;
    if (c && c->nsegs) { /* the segment holding it: the last one starting at or before off */
        size_t lo = 0, hi = c->nsegs;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->segs[mid].off <= off)
                lo = mid;
            else
                hi = mid;
        }
        const seg *s = &c->segs[lo];
        if (s->off <= off && off + n <= s->end)
            return c->buf + s->at + (off - s->off);
    }
    return f->map + off;
}

#define LESS_U64(x, y, c) (*(x) < *(y))
TP_SORT_DEFINE(sort_ranges, uint64_t, void *, LESS_U64)

/* Segments of the sorted ranges offs[0..n), ranges closer than gap joined;
 * returns the bytes they cover. */
static size_t cut_segments(file_cursor *c, size_t n, uint64_t gap)
{
    size_t total = 0;
    c->nsegs = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = c->offs[i] >> LEN_BITS, end = off + (c->offs[i] & LEN_MAX);
        seg *last = c->nsegs ? &c->segs[c->nsegs - 1] : NULL;
        if (last && off <= last->end + gap) {
            if (end > last->end) {
                total += end - last->end;
                last->end = end;
            }
            continue;
        }
        TP_GROW(c->segs, c->segs_cap, c->nsegs + 1);
        c->segs[c->nsegs++] = (seg){off, end, total};
        total += end - off;
    }
    return total;
}

static void file_prefetch(const tp_trace *t, void *cursor, const uint32_t *events, size_t nev)
{
    const file_args *f = source_of(t);
    file_cursor *c = cursor;
    c->nsegs = 0;
    size_t n = 0;
    TP_GROW(c->offs, c->offs_cap, nev);
    for (size_t i = 0; i < nev; i++) {
        uint64_t h = t->events[events[i]].args, off, len;
        if ((h & (TP_ARGS_EXTERNAL | TP_ARGS_RESERVED)) != TP_ARGS_EXTERNAL)
            continue;
        range_of(h, &off, &len);
        if (off <= f->size && len <= f->size - off)
            c->offs[n++] = off << LEN_BITS | len; /* offsets below 2^40, lengths below 2^22 */
    }
    if (!n)
        return;
    sort_ranges(c->offs, n, NULL); /* a track's events in time order are mostly in file order already */
    size_t args = 0;
    for (size_t i = 0; i < n; i++)
        args += c->offs[i] & LEN_MAX;
    size_t total = cut_segments(c, n, GAP);
    if (total > 2 * args + ((size_t)1 << 20))
        total = cut_segments(c, n, SMALL_GAP);
    TP_GROW(c->buf, c->buf_cap, total);
    for (size_t i = 0; i < c->nsegs; i++) {
        seg *s = &c->segs[i];
        size_t want = (size_t)(s->end - s->off), got = 0;
        while (got < want) {
            ssize_t r = pread(f->fd, c->buf + s->at + got, want - got, (off_t)(s->off + got));
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got < want) /* read error: these come from the mapping instead */
            s->end = s->off;
    }
}

static void *file_cursor_new(const tp_trace *t)
{
    (void)t;
    return tp_xcalloc(1, sizeof(file_cursor));
}

static void file_cursor_free(void *p)
{
    file_cursor *c = p;
    free(c->segs);
    free(c->offs);
    free(c->buf);
    free(c);
}

/* json() returns the file's own text: writers check it (tp_args_is_minified) */
static const tp_args_source file_source = {
    .json = file_json,
    .cursor_new = file_cursor_new,
    .cursor_free = file_cursor_free,
    .raw_text = true,
    .prefetch = file_prefetch,
};

static void file_args_free(void *p)
{
    file_args *f = p;
    munmap((void *)f->map, f->size);
    close(f->fd);
    free(f);
}

bool tp_chrome_args_attach(tp_trace *t, const char *path, uint64_t size)
{
    if (t->args_source || t->format_data || size == 0 || size > OFF_MAX)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
        map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        close(fd);
        return false;
    }
    file_args *f = tp_xcalloc(1, sizeof *f);
    f->fd = fd;
    f->map = map;
    f->size = size;
    t->format_data = f;
    t->format_data_free = file_args_free;
    t->args_source = &file_source;
    return true;
}

void tp_chrome_args_share(tp_trace *u, const tp_trace *t)
{
    if (!source_of(t))
        return;
    u->format_data = t->format_data; /* not owned: no format_data_free */
    u->args_source = &file_source;
}

uint64_t tp_chrome_args_handle(const tp_trace *t, uint64_t off, size_t len)
{
    const file_args *f = source_of(t);
    if (!f || len == 0 || len > LEN_MAX || off > f->size || len > f->size - off)
        return 0;
    return TP_ARGS_EXTERNAL | (uint64_t)len << OFF_BITS | off;
}

bool tp_chrome_args_is_file(const tp_trace *t, uint64_t handle)
{
    return source_of(t) && (handle & (TP_ARGS_EXTERNAL | TP_ARGS_RESERVED)) == TP_ARGS_EXTERNAL;
}
