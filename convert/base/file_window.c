/* file_window.c: see file_window.h. */
#include "convert/base/file_window.h"

#include <sys/mman.h>

#define WINDOW ((uint64_t)2 << 20)

static void drop_window(const tp_fwin *c, uint64_t w)
{
    uint64_t lo = w * WINDOW, hi = lo + WINDOW, top = (c->size + 4095) & ~(uint64_t)4095;
    hi = hi > top ? top : hi;
    if (hi > lo)
        (void)madvise((void *)(c->map + lo), (size_t)(hi - lo), MADV_DONTNEED);
}

void tp_fwin_release(tp_fwin *c)
{
    for (size_t k = 0; k < c->n; k++)
        drop_window(c, c->win[k]);
    c->n = 0;
    c->next = 0;
}

void tp_fwin_touch(tp_fwin *c, const char *map, uint64_t size, uint64_t off)
{
    uint64_t w = off / WINDOW;
    if (c->n && c->map == map) {
        if (w == c->win[c->last])
            return;
        for (size_t k = 0; k < c->n; k++)
            if (c->win[k] == w) {
                c->last = k;
                return;
            }
    }
    if (c->n && c->map != map)
        tp_fwin_release(c);
    c->map = map;
    c->size = size;
    size_t k;
    if (c->n < TP_FWIN_WINDOWS)
        k = c->n++;
    else { /* the oldest window makes room */
        k = c->next;
        c->next = (c->next + 1) % TP_FWIN_WINDOWS;
        drop_window(c, c->win[k]);
    }
    c->win[k] = w;
    c->last = k;
}
