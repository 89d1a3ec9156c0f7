/* chrome_args.c: the Chrome reader's args left in the input file
 * (see chrome_args.h). */
#include "convert/read/chrome/chrome_args.h"
#include "convert/base/file_window.h"


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

/* Args are copied by the writers straight from the mapping (reading them
 * into a buffer first cost a third of the writers' CPU); each writer
 * thread's cursor bounds what stays mapped (file_window.h). */
typedef struct file_args {
    const char *map;
    uint64_t size;
} file_args;

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
    if (cursor)
        tp_fwin_touch(cursor, f->map, f->size, off);
    *len = (size_t)n;
    return f->map + off;
}

static void *file_cursor_new(const tp_trace *t)
{
    (void)t;
    return tp_xaligned_zero(64, sizeof(tp_fwin)); /* one per writer thread: lines of its own */
}

static void file_cursor_free(void *p)
{
    tp_fwin_release(p);
    free(p);
}

/* json() returns the file's own text: writers check it (tp_args_is_minified) */
static const tp_args_source file_source = {
    .json = file_json,
    .cursor_new = file_cursor_new,
    .cursor_free = file_cursor_free,
    .raw_text = true,
};

static void file_args_free(void *p)
{
    file_args *f = p;
    munmap((void *)f->map, f->size);
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
    close(fd); /* the mapping stays */
    if (map == MAP_FAILED)
        return false;
    file_args *f = tp_xcalloc(1, sizeof *f);
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
