/* file_window.c: see file_window.h. */
#include "convert/base/file_window.h"

#include <sys/mman.h>

#define AROUND ((uint64_t)64 << 10)
#define TP_FWIN_WINDOWS 256

void tp_fwin_release(tp_fwin *c)
{
    if (!c->touched)
        return;
    uint64_t hi = (c->hi + 1) * AROUND, top = (c->size + 4095) & ~(uint64_t)4095;
    hi = hi > top ? top : hi;
    (void)madvise((void *)(c->map + c->lo * AROUND), (size_t)(hi - c->lo * AROUND), MADV_DONTNEED);
    c->touched = 0;
}

void tp_fwin_touch(tp_fwin *c, const char *map, uint64_t size, uint64_t off)
{
    uint64_t w = off / AROUND;
    if (c->touched && w == c->last && c->map == map)
        return;
    if (c->touched >= TP_FWIN_WINDOWS || (c->touched && c->map != map))
        tp_fwin_release(c);
    if (!c->touched) {
        c->map = map;
        c->size = size;
        c->lo = c->hi = w;
    }
    c->lo = w < c->lo ? w : c->lo;
    c->hi = w > c->hi ? w : c->hi;
    c->last = w;
    c->touched++;
}
