/* test_step_figures_ref.c: the step figures (report/analysis/steps.c) against
 * a nanosecond-by-nanosecond count, on kernels of three streams that come in
 * no order (the figures group the activity by stream, sort each stream's and
 * spread it by step, where they sorted all intervals at once): each step's
 * and the whole trace's busy time per stream, busy time of any stream, time
 * of two or more, and device events. */
#include "tests/lib/harness.h"
#include "report/analysis/steps.h"

#include <stdlib.h>
#include <string.h>

enum { STREAMS = 3, KERNELS = 900, SPAN = 3000, NSTEPS = 5 };

static const int64_t step_at[NSTEPS][2] = {{1800, 700}, {0, 500}, {500, 500}, {1200, 600}, {2600, 300}};

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static unsigned next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

/* busy, overlap and per-stream busy of the kernels whose start lies in [lo, hi) */
static void reference(const tp_trace *t, const uint32_t *stream_track, int64_t lo, int64_t hi, int64_t per[STREAMS],
                      int64_t *busy, int64_t *overlap, uint64_t *events)
{
    static unsigned char on[STREAMS][SPAN + 64];
    memset(on, 0, sizeof on);
    *events = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL || e->ts < lo || e->ts >= hi)
            continue;
        ++*events;
        for (int k = 0; k < STREAMS; k++)
            if (stream_track[k] == e->track)
                for (int64_t x = e->ts; x < e->ts + e->dur; x++)
                    on[k][x] = 1;
    }
    *busy = *overlap = 0;
    for (int k = 0; k < STREAMS; k++)
        per[k] = 0;
    for (int x = 0; x < SPAN + 64; x++) {
        int level = 0;
        for (int k = 0; k < STREAMS; k++) {
            per[k] += on[k][x];
            level += on[k][x];
        }
        *busy += level >= 1;
        *overlap += level >= 2;
    }
}

TEST(step_figures_match_a_count_of_every_nanosecond)
{
    tp_trace t;
    tp_trace_init(&t);
    uint32_t host = tp_process_get(&t, 1), gpu = tp_process_get(&t, 0);
    t.processes[gpu].is_device = true;
    uint32_t host_track = tp_track_get(&t, host, 1), tracks[STREAMS];
    for (int k = 0; k < STREAMS; k++) {
        tracks[k] = tp_track_get(&t, gpu, 7 + k);
        t.tracks[tracks[k]].role = TP_TRACK_DEVICE;
    }
    for (int s = 0; s < NSTEPS; s++) { /* out of order, as some traces write them */
        tp_event e;
        tp_event_init(&e);
        e.track = host_track;
        e.kind = TP_KIND_ANNOTATION;
        e.flags = TP_EV_STEP;
        e.id = (uint64_t)(step_at[s][0] / 100);
        e.ts = step_at[s][0];
        e.dur = step_at[s][1];
        tp_event_add(&t, &e);
    }
    for (int i = 0; i < KERNELS; i++) { /* shuffled starts, overlapping in a stream and across streams */
        tp_event e;
        tp_event_init(&e);
        e.track = tracks[next_rand() % STREAMS];
        e.kind = TP_KIND_KERNEL;
        e.ts = (int64_t)(next_rand() % SPAN);
        e.dur = (int64_t)(next_rand() % 40);
        tp_event_add(&t, &e);
    }
    tp_host_tree ht;
    tp_host_tree_build(&t, &ht);
    tp_step_figures sf;
    tp_step_figures_build(&t, &ht, &sf);
    CHECK_EQ_INT(sf.nsteps, NSTEPS);
    CHECK_EQ_INT(sf.nstreams, STREAMS);
    size_t bad = 0;
    for (size_t b = 0; b <= sf.nsteps && sf.nstreams == STREAMS; b++) {
        const tp_step_row *r = b < sf.nsteps ? &sf.steps[b] : &sf.whole;
        int64_t lo = b < sf.nsteps ? r->ts : INT64_MIN, hi = b < sf.nsteps ? r->ts + r->host_ns : INT64_MAX;
        int64_t per[STREAMS], busy, overlap;
        uint64_t events;
        reference(&t, sf.streams, lo, hi, per, &busy, &overlap, &events);
        bad += r->busy_ns != busy;
        bad += r->overlap_ns != overlap;
        bad += r->device_events != events;
        for (int k = 0; k < STREAMS; k++)
            bad += r->stream_busy[k] != per[k];
    }
    CHECK_EQ_INT(bad, 0);
    tp_step_figures_free(&sf);
    tp_host_tree_free(&ht);
    tp_trace_free(&t);
}
