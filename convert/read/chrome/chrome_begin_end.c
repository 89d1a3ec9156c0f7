/* chrome_begin_end.c: 'B'/'E' pairs.  A 'B' waits on its track's stack
 * for the 'E' that makes it a complete slice; the E's args are merged into
 * the B's; B events never ended are closed at the end.  Part of the Chrome
 * reader (chrome_read_int.h). */
#include "convert/read/chrome/chrome_read_int.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <string.h>

void chrome_bstack_push(reader *r, uint32_t track, uint32_t ev)
{
    if (track >= r->bstack_tracks) {
        size_t n = track + 16;
        r->bstack = tp_xrealloc(r->bstack, n * sizeof *r->bstack);
        r->bdepth = tp_xrealloc(r->bdepth, n * sizeof *r->bdepth);
        r->bcap = tp_xrealloc(r->bcap, n * sizeof *r->bcap);
        for (size_t i = r->bstack_tracks; i < n; i++) {
            r->bstack[i] = NULL;
            r->bdepth[i] = r->bcap[i] = 0;
        }
        r->bstack_tracks = n;
    }
    TP_GROW(r->bstack[track], r->bcap[track], r->bdepth[track] + 1);
    r->bstack[track][r->bdepth[track]++] = ev;
}

/* Merge E's args into B's: "{a}" + "{b}" -> "{a,b}". */
void chrome_merge_args(reader *r, tp_event *b, const raw_event *ev)
{
    if (!r->o->keep_args || !ev->args || ev->args_n <= 2)
        return;
    size_t blen;
    const char *bargs = tp_args_get(r->t, b->args, &blen);
    if (!bargs || blen <= 2) {
        b->args = tp_args_add(r->t, ev->args, ev->args_n); /* ev may not be in the buffer (halves joining) */
        return;
    }
    tp_buf m = {0};
    tp_buf_put(&m, bargs, blen - 1); /* without '}' */
    const char *inner = tp_json_ws(ev->args + 1, ev->args + ev->args_n);
    if (*inner != '}') {
        tp_buf_putc(&m, ',');
        tp_buf_put(&m, inner, (size_t)(ev->args + ev->args_n - inner));
    } else
        tp_buf_putc(&m, '}');
    b->args = tp_args_add(r->t, m.data, m.len);
    tp_buf_free(&m);
}

/* At the end of the input: 'B' events never ended are closed at the last
 * time of the trace (--strict: an error).  Returns 0 or -1. */
int chrome_close_open_b(reader *r)
{
    tp_trace *t = r->t;
    uint64_t open = 0;
    for (size_t k = 0; k < r->bstack_tracks; k++)
        open += r->bdepth[k];
    if (!open)
        return 0;
    if (r->o->strict)
        return tp_fail(r->err, off_of(r, r->buf + r->pos), "%llu 'B' events never ended", (unsigned long long)open);
    int64_t last = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].ts + t->events[i].dur > last)
            last = t->events[i].ts + t->events[i].dur;
    for (size_t k = 0; k < r->bstack_tracks; k++)
        for (size_t d = 0; d < r->bdepth[k]; d++) {
            tp_event *b = &t->events[r->bstack[k][d]];
            b->ph = 'X';
            b->dur = last > b->ts ? last - b->ts : 0;
            b->flags |= TP_EV_FROM_BE;
        }
    tp_warn(t, "B events never ended (closed at trace end)", open);
    return 0;
}
