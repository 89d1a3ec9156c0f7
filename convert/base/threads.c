/* threads.c: see threads.h. */
#include "convert/base/threads.h"

#include <stdlib.h>
#include <string.h>

bool tp_single_thread(const char *own_var)
{
    const char *all = getenv("TP_THREADS"), *own = own_var ? getenv(own_var) : NULL;
    return (all && strcmp(all, "1") == 0) || (own && strcmp(own, "1") == 0);
}

bool tp_run_pair(tp_thread_fn side, void *a, tp_thread_fn here, void *b, const char *own_var)
{
    pthread_t th;
    if (!tp_single_thread(own_var) && pthread_create(&th, NULL, side, a) == 0) {
        here(b);
        pthread_join(th, NULL);
        return true;
    }
    side(a);
    here(b);
    return false;
}

void tp_side_start(tp_side *s, tp_thread_fn fn, void *arg, const char *own_var)
{
    s->threaded = !tp_single_thread(own_var) && pthread_create(&s->th, NULL, fn, arg) == 0;
    if (!s->threaded)
        fn(arg);
}

void tp_side_join(tp_side *s)
{
    if (s->threaded)
        pthread_join(s->th, NULL);
    s->threaded = false;
}
