/* test_chrome_trace_append.c: tp_trace_append (convert/model/trace_append.h),
 * which joins the Chrome reader's halves and is meant for the XPlane
 * reader's parts too: both of its forms on small traces built by hand.
 * (The halves' end-to-end check is test_chrome_halves.c.) */
#include "convert/model/trace_append.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static uint32_t add_event(tp_trace *t, uint32_t track, const char *name, int64_t ts, const char *args)
{
    tp_event e;
    tp_event_init(&e);
    e.track = track;
    e.name = tp_intern_cstr(t, name);
    e.ts = ts;
    if (args)
        e.args = tp_args_add(t, args, strlen(args));
    return tp_event_add(t, &e);
}

static const char *args_of(const tp_trace *t, uint64_t h)
{
    size_t n;
    const char *s = tp_args_get(t, h, &n);
    return s ? s : "";
}

typedef struct hooks {
    int strings, events;
    size_t warnings_at_events; /* t's warnings when events_appended ran */
    tp_trace *t;
    bool go;
} hooks;

static bool on_strings(void *ctx, const tp_append_map *m)
{
    hooks *h = ctx;
    h->strings++;
    CHECK(m->str != NULL && m->process == NULL);
    return h->go;
}

static void on_events(void *ctx, const tp_append_map *m)
{
    hooks *h = ctx;
    h->events++;
    h->warnings_at_events = h->t->nwarnings;
    CHECK(m->track != NULL);
}

/* The Chrome halves' form: u's events in an array of its own, metadata
 * merged by what u's metadata events set. */
TEST(chrome_trace_append_merges_metadata)
{
    tp_trace t, u;
    tp_trace_init(&t);
    tp_trace_init(&u);
    uint32_t p1 = tp_process_get(&t, 1);
    t.processes[p1].name = tp_intern_cstr(&t, "first");
    t.processes[p1].label = tp_intern_cstr(&t, "label1");
    uint32_t k1 = tp_track_get(&t, p1, 10);
    t.tracks[k1].name = tp_intern_cstr(&t, "thread10");
    uint32_t k2 = tp_track_get(&t, p1, 11);
    t.tracks[k2].name = tp_intern_cstr(&t, "thread11");
    add_event(&t, k1, "a", 100, "{\"x\":1}");
    tp_warn(&t, "w1", 1);

    /* u: process 1 renamed by metadata (label not), a string pid, track 10
     * renamed by metadata, track 11 with a name from elsewhere (kept: t's
     * wins), a new track 12 named from elsewhere */
    uint32_t q1 = tp_process_get(&u, 1);
    u.processes[q1].name = tp_intern_cstr(&u, "second");
    u.processes[q1].label = tp_intern_cstr(&u, "label2");
    u.processes[q1].sort_index = 5;
    u.processes[q1].has_sort = true;
    uint32_t q2 = tp_process_get_key(&u, tp_intern_cstr(&u, "host"));
    uint32_t j1 = tp_track_get(&u, q1, 10);
    u.tracks[j1].name = tp_intern_cstr(&u, "renamed10");
    uint32_t j2 = tp_track_get(&u, q1, 11);
    u.tracks[j2].name = tp_intern_cstr(&u, "stream 11");
    uint32_t j3 = tp_track_get(&u, q1, 12);
    u.tracks[j3].name = tp_intern_cstr(&u, "stream 12");
    uint32_t j4 = tp_track_get_key(&u, q2, tp_intern_cstr(&u, "main"));
    uint32_t e1 = add_event(&u, j1, "b", 200, "{\"y\":2}");
    u.events[e1].flags |= TP_EV_ID_STRING;
    u.events[e1].id = tp_intern_cstr(&u, "0x1f");
    add_event(&u, j4, "a", 300, NULL);
    u.events_in = 2;
    t.events_in = 1;
    tp_warn(&u, "w2", 2);
    tp_warn(&u, "w1", 3);
    tp_drop_count(&u, "d", 4);
    uint8_t pset[] = {TP_APPEND_SET_NAME}; /* process 0: name set, label not */
    uint8_t tset[] = {TP_APPEND_SET_NAME, 0, 0};

    hooks h = {.t = &t, .go = true};
    tp_append_how how = {.merge_meta = true, .process_set = pset, .nprocess_set = 1, .track_set = tset,
                         .ntrack_set = 3, .strings_mapped = on_strings, .events_appended = on_events, .ctx = &h};
    tp_append_map m;
    CHECK(tp_trace_append(&t, &u, &how, &m));
    CHECK_EQ_INT(h.strings, 1);
    CHECK_EQ_INT(h.events, 1);
    CHECK_EQ_INT(h.warnings_at_events, 1); /* u's warnings come after the hook */
    CHECK_EQ_INT(m.first_event, 1);
    CHECK_EQ_INT(m.process[q1], p1);
    CHECK_EQ_INT(m.track[j1], k1);
    CHECK_EQ_INT(m.track[j2], k2);
    CHECK_STR(tp_str_get(&t, t.processes[p1].name), "second");
    CHECK_STR(tp_str_get(&t, t.processes[p1].label), "label1");
    CHECK(t.processes[p1].has_sort && t.processes[p1].sort_index == 5);
    CHECK_EQ_INT(t.processes[m.process[q2]].key, tp_str_find(&t, "host", 4));
    CHECK_STR(tp_str_get(&t, t.tracks[k1].name), "renamed10");
    CHECK_STR(tp_str_get(&t, t.tracks[k2].name), "thread11");
    CHECK_STR(tp_str_get(&t, t.tracks[m.track[j3]].name), "stream 12");
    CHECK_STR(tp_str_get(&t, t.tracks[m.track[j4]].key), "main");
    CHECK_EQ_INT(t.nevents, 3);
    CHECK(u.events == NULL && u.nevents == 0);
    CHECK_STR(tp_str_get(&t, t.events[1].name), "b");
    CHECK_STR(tp_str_get(&t, (tp_str)t.events[1].id), "0x1f");
    CHECK_EQ_INT(t.events[1].track, k1);
    CHECK_STR(args_of(&t, t.events[0].args), "{\"x\":1}");
    CHECK_STR(args_of(&t, t.events[1].args), "{\"y\":2}");
    CHECK_EQ_INT(t.events[2].args, 0);
    CHECK_EQ_INT(t.events[2].name, t.events[0].name); /* "a" is one string */
    CHECK_EQ_INT(t.events[2].link, TP_NONE);
    CHECK_EQ_INT(t.events_in, 3);
    CHECK_EQ_INT(tp_warning_count(&t, "w1"), 4);
    CHECK_EQ_INT(tp_warning_count(&t, "w2"), 2);
    CHECK_EQ_INT(t.nwarnings, 2);
    CHECK_STR(t.warnings[1].what, "w2");
    CHECK_EQ_INT(tp_dropped_total(&t), 4);
    tp_append_map_free(&m);
    tp_trace_free(&u);
    tp_trace_free(&t);
}

/* The XPlane parts' form: u's events already in t's array after t's, new
 * processes whose fields are all copied, derived tracks, event indexes. */
TEST(chrome_trace_append_copies_parts_in_place)
{
    tp_trace t, u;
    tp_trace_init(&t);
    tp_trace_init(&u);
    uint32_t p1 = tp_process_get(&t, 1);
    uint32_t k1 = tp_track_get(&t, p1, 1);
    add_event(&t, k1, "host", 0, "{\"h\":0}");
    add_event(&t, k1, "host2", 5, NULL);

    uint32_t q = tp_process_get(&u, 7);
    u.processes[q].name = tp_intern_cstr(&u, "/device:GPU:0");
    u.processes[q].is_device = true;
    u.processes[q].device = 0;
    uint32_t line = tp_track_get(&u, q, 3);
    u.tracks[line].name = tp_intern_cstr(&u, "Stream #3");
    u.tracks[line].role = TP_TRACK_DEVICE;
    uint32_t ops = tp_track_add(&u, q, tp_intern_cstr(&u, "TF Ops"), TP_TRACK_DERIVED, line);
    /* u writes into its slice of t's array */
    TP_GROW_EVENTS(&t, t.nevents + 3);
    u.events = t.events + t.nevents;
    u.events_cap = 3;
    uint32_t a = add_event(&u, line, "kernel", 10, "{\"k\":1}");
    uint32_t b = add_event(&u, ops, "op", 10, NULL);
    uint32_t c = add_event(&u, line, "kernel2", 20, NULL);
    u.events[a].op = b;
    u.events[c].link = a;
    u.events[c].args = TP_ARGS_EXTERNAL | 42; /* the reader's own form: kept */
    tp_event *slice = u.events;

    /* a hook that says no: nothing but strings changes */
    hooks h = {.t = &t, .go = false};
    tp_append_how how = {.strings_mapped = on_strings, .events_appended = on_events, .ctx = &h};
    tp_append_map m;
    CHECK(!tp_trace_append(&t, &u, &how, &m));
    CHECK_EQ_INT(t.nprocesses, 1);
    CHECK_EQ_INT(t.nevents, 2);
    CHECK_EQ_INT(u.nevents, 3);
    CHECK_EQ_INT(h.events, 0);
    tp_append_map_free(&m);

    h.go = true;
    CHECK(tp_trace_append(&t, &u, &how, &m));
    CHECK_EQ_INT(t.nevents, 5);
    CHECK(t.events + 2 == slice); /* remapped where they were */
    uint32_t p7 = m.process[q];
    CHECK_EQ_INT(t.processes[p7].pid, 7);
    CHECK(t.processes[p7].is_device && t.processes[p7].device == 0);
    CHECK_STR(tp_str_get(&t, t.processes[p7].name), "/device:GPU:0");
    uint32_t kl = m.track[line], ko = m.track[ops];
    CHECK_EQ_INT(t.tracks[kl].role, TP_TRACK_DEVICE);
    CHECK_EQ_INT(t.tracks[ko].role, TP_TRACK_DERIVED);
    CHECK_EQ_INT(t.tracks[ko].derived_of, kl);
    CHECK_STR(tp_str_get(&t, t.tracks[ko].name), "TF Ops");
    CHECK_EQ_INT(t.events[2].op, 3);
    CHECK_EQ_INT(t.events[4].link, 2);
    CHECK_EQ_INT(t.events[3].op, TP_NONE);
    CHECK_EQ_INT(t.events[4].args, TP_ARGS_EXTERNAL | 42);
    CHECK_STR(args_of(&t, t.events[0].args), "{\"h\":0}");
    CHECK_STR(args_of(&t, t.events[2].args), "{\"k\":1}");
    CHECK_STR(tp_str_get(&t, t.events[4].name), "kernel2");
    CHECK(u.events == NULL);
    tp_append_map_free(&m);
    tp_trace_free(&u);
    tp_trace_free(&t);
}
