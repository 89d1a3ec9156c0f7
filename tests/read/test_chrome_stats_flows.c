/* test_chrome_stats_flows.c: `stats` (nothing linked) keeps only the first
 * flow event of each (track, category); everything it reports stays what
 * a load that keeps them all gives. */
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>

static const char *flows_trace =
    "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":2},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":5},\n"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":10,\"bp\":\"e\"},\n"
    "{\"ph\":\"s\",\"cat\":\"other\",\"name\":\"x\",\"id\":2,\"pid\":1,\"tid\":3,\"ts\":5},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"x\",\"id\":3,\"pid\":1,\"tid\":3,\"ts\":6},\n"
    "{\"ph\":\"f\",\"cat\":\"kernel\",\"name\":\"x\",\"id\":2,\"pid\":5,\"tid\":3,\"ts\":7},\n"
    "{\"ph\":\"t\",\"cat\":\"ac2g\",\"name\":\"x\",\"id\":2,\"pid\":6,\"tid\":3,\"ts\":\"bad\"},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"x\",\"id\":\"str\",\"pid\":6,\"tid\":4,\"ts\":8},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"short\",\"pid\":1,\"tid\":9,\"ts\":0,\"dur\":0.5},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"x\",\"id\":9,\"pid\":1,\"tid\":9,\"ts\":8},\n"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"x\",\"id\":9,\"pid\":1,\"tid\":9,\"ts\":9}]\n";

/* Per track: 1 when it holds an event that is not metadata and not dropped
 * (what `stats` counts), as a string of digits. */
static void tracks_with_events(const tp_trace *t, char *out, size_t cap)
{
    size_t n = t->ntracks < cap - 1 ? t->ntracks : cap - 1;
    memset(out, '0', n);
    out[n] = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->track < n && e->ph != 'M' && !(e->flags & TP_EV_DROPPED))
            out[e->track] = '1';
    }
}

static void load(const char *path, bool as_stats, const char *drop_cat, int64_t min_dur, tp_trace *t)
{
    tp_load_opts lo = {0};
    lo.no_links = as_stats;
    lo.no_derive = true;
    if (drop_cat)
        lo.drop_cats[lo.ndrop_cats++] = drop_cat;
    lo.min_dur_ns = min_dur;
    tp_err err = {0};
    tp_trace_init(t);
    CHECK_EQ_INT(tp_load(path, &lo, t, &err), 0);
}

TEST(stats_keeps_one_flow_event_per_track_and_category)
{
    const char *path = tp_test_write_text("flows.json", flows_trace);
    const char *drops[] = {NULL, "ac2g", "other", "kernel"};
    for (size_t d = 0; d < sizeof drops / sizeof drops[0]; d++)
        for (int md = 0; md < 2; md++) {
            tp_trace all, st;
            load(path, false, drops[d], md ? 1000 : 0, &all);
            load(path, true, drops[d], md ? 1000 : 0, &st);
            CHECK_EQ_INT(st.events_in, all.events_in);
            CHECK_EQ_INT(st.ntracks, all.ntracks);
            CHECK_EQ_INT(st.nprocesses, all.nprocesses);
            CHECK_EQ_INT(st.nstr, all.nstr);
            char a[64], b[64];
            tracks_with_events(&all, a, sizeof a);
            tracks_with_events(&st, b, sizeof b);
            CHECK_STR(b, a);
            for (size_t p = 0; p < st.nprocesses && p < all.nprocesses; p++)
                CHECK_EQ_INT(st.processes[p].is_device, all.processes[p].is_device);
            CHECK_EQ_INT(tp_warning_count(&st, "bad or out-of-range ts/dur (event dropped)"), 1);
            /* only the second ac2g 's' of (1, 9) went */
            CHECK_EQ_INT(st.nevents + 1, all.nevents);
            tp_trace_free(&all);
            tp_trace_free(&st);
        }
}
