/* test_pftrace_review.c: what an acceptance review of the Perfetto reader
 * (convert/read/pftrace/) found, each a regression test that fails on the
 * reader as it first landed. */
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* `stats` of a file on stdout, without its first line (it names the file and
 * the reader, and counts the events read) and the "Cannot tell" lines (they
 * name what a .pftrace does not carry: Kineto's device table and shapes). */
static char *stats_body(const char *path)
{
    char *out = NULL;
    if (tp_test_run(&out, "%s stats '%s' 2>/dev/null", tp_test_bin(), path) != 0) {
        free(out);
        return NULL;
    }
    tp_buf b = {0};
    const char *p = strchr(out, '\n');
    p = p ? p + 1 : out + strlen(out);
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p + 1) : strlen(p);
        if (strncmp(p, "Cannot tell", 11) != 0)
            tp_buf_put(&b, p, n);
        p += n;
    }
    tp_buf_putc(&b, 0);
    free(out);
    return b.data;
}

/* Kineto's MTIA trace (HTA's sample): its device events (category
 * mtia_ccp_events, on "Stream N" tracks of process "MTIA 17") were no
 * device activity once read back from a .pftrace: 974 kernels and copies
 * became 0, and the device was labelled "GPU 17".  Now the categories read
 * as the Chrome reader reads them, and stats are equal. */
TEST(pftrace_round_trip_of_an_mtia_trace_keeps_its_device_activity)
{
    const char *in = tp_test_shared("external/hta/mtia_inference_rank_0.json.gz");
    const char *pf = tp_test_tmp("review_mtia.pftrace");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s' 2>/dev/null", tp_test_bin(), in, pf), 0);
    char *a = stats_body(in), *b = stats_body(pf);
    CHECK(a && b);
    CHECK(b && strstr(b, "974 kernel/memcpy/memset instances of 4 names, 459456313 ns in total"));
    CHECK(b && strstr(b, "MTIA 17 Stream 101") && !strstr(b, "GPU 17"));
    CHECK(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
}

/* A slice begun and never ended, a packet whose time is past the model's
 * range: the reader drops them (counted), but only convert's line said so;
 * `stats` and `report` were silent.  Now every command warns. */
static const unsigned char never_ended[] = {
    /* TrackDescriptor uuid 1 "proc", process pid 10 */
    0x0a, 0x11, 0x50, 0x01, 0xe2, 0x03, 0x0c, 0x08, 0x01, 0x12, 0x04, 'p', 'r', 'o', 'c', 0x1a, 0x02, 0x08, 0x0a,
    /* TrackDescriptor uuid 2 "thr", parent 1, thread pid 10 tid 11 */
    0x0a, 0x12, 0x50, 0x01, 0xe2, 0x03, 0x0d, 0x08, 0x02, 0x12, 0x03, 't', 'h', 'r', 0x22, 0x04, 0x08, 0x0a, 0x10,
    0x0b,
    /* SLICE_BEGIN "a" on track 2 at 1000 ns, no end */
    0x0a, 0x0f, 0x50, 0x01, 0x40, 0xe8, 0x07, 0x5a, 0x08, 0x48, 0x01, 0x58, 0x02, 0xba, 0x01, 0x01, 'a',
    /* INSTANT "b" at 2^63 - 1 ns: out of the model's range */
    0x0a, 0x16, 0x50, 0x01, 0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x5a, 0x08, 0x48, 0x03,
    0x58, 0x02, 0xba, 0x01, 0x01, 'b',
};

TEST(pftrace_dropped_events_are_said_by_stats_and_report)
{
    const char *pf = tp_test_write("review_never_ended.pftrace", never_ended, sizeof never_ended);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>&1 >/dev/null", tp_test_bin(), pf), 0);
    CHECK(out && strstr(out, "warning: ") && strstr(out, "pftrace: slices without an end (dropped): 1"));
    CHECK(out && strstr(out, "pftrace: times out of range or on an unknown clock (events dropped): 1"));
    free(out);
    const char *rep = tp_test_tmp("review_never_ended_report");
    CHECK_EQ_INT(tp_test_run(&out, "rm -rf '%s' && %s report -o '%s' '%s' 2>&1 >/dev/null", rep, tp_test_bin(), rep, pf),
                 0);
    CHECK(out && strstr(out, "slices without an end (dropped): 1"));
    free(out);
}

/* XPlane -> .pftrace -> report: the device "/device:GPU:0" (convert writes
 * it as process 1, XPlane's planes numbered from 1) came back as "GPU 1", so
 * the round trip renamed every device of an XPlane trace.  Now a process
 * named "/device:GPU:N" is device N, as the XPlane reader has it. */
TEST(pftrace_round_trip_of_xplane_keeps_the_device_numbers)
{
    const char *in = tp_test_shared("external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb");
    const char *pf = tp_test_tmp("review_xplane.pftrace");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s' 2>/dev/null", tp_test_bin(), in, pf), 0);
    char *a = stats_body(in), *b = stats_body(pf);
    CHECK(a && strstr(a, "device 0 Stream #16(Kernel)"));
    CHECK(b && strstr(b, "device 0 Stream #16(Kernel)") && !strstr(b, "GPU 1"));
    free(a);
    free(b);
}

/* The ulimit -v wrapper of a run when the binary runs under one (ASan
 * reserves terabytes of address space: no cap there). */
static const char *memory_cap(long kb)
{
    static char s[64];
    bool works = tp_test_run(NULL, "(ulimit -v %ld && '%s' --version; exit $?) >/dev/null 2>&1", kb, tp_test_bin()) == 0;
    snprintf(s, sizeof s, works ? "ulimit -v %ld; " : "", kb);
    return s;
}

/* 300,000 packets of 17 bytes, each on a sequence of its own that clears
 * its state and interns one name: each sequence's table was 64 slots and
 * its clock list 16 (5 MB of input, 289 MB peak: 57 bytes per input byte).
 * Now a sequence's tables grow from what it holds (78 MB peak). */
TEST(pftrace_many_sequences_memory_bounded)
{
    enum { N = 300000 };
    unsigned char *b = tp_xmalloc((size_t)N * 17);
    size_t n = 0;
    for (uint32_t i = 1; i <= N; i++) {
        /* packet { seq_id (10) = i as 3 varint bytes; sequence_flags (13) = 1;
         *          interned_data (12) { event_names (2) { iid 1, name "a" } } } */
        const unsigned char p[17] = {0x0a, 0x0f, 0x50, (unsigned char)(0x80 | (i & 0x7f)),
                                     (unsigned char)(0x80 | ((i >> 7) & 0x7f)), (unsigned char)(i >> 14), 0x68, 0x01,
                                     0x62, 0x07, 0x12, 0x05, 0x08, 0x01, 0x12, 0x01, 'a'};
        memcpy(b + n, p, sizeof p);
        n += sizeof p;
    }
    const char *pf = tp_test_write("review_sequences.pftrace", b, n);
    free(b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s timeout 60 '%s' stats '%s' 2>&1", memory_cap(200L * 1024), tp_test_bin(), pf), 0);
    CHECK(out && strstr(out, "pftrace trace, 0 events"));
    free(out);
}

/* A clock snapshot's packet that also carries a time: Perfetto's reader ends
 * such a packet at the snapshot (ProtoTraceReader::ParsePacket), so its time
 * is no delta on the sequence's incremental clock.  The reader added it
 * (700 ns here), shifting every later event of the sequence. */
static const unsigned char snapshot_with_time[] = {
    /* process (uuid 1, pid 10) and thread (uuid 2, tid 11) tracks */
    0x0a, 0x11, 0x50, 0x01, 0xe2, 0x03, 0x0c, 0x08, 0x01, 0x12, 0x04, 0x70, 0x72, 0x6f, 0x63, 0x1a, 0x02, 0x08, 0x0a,
    0x0a, 0x12, 0x50, 0x01, 0xe2, 0x03, 0x0d, 0x08, 0x02, 0x12, 0x03, 0x74, 0x68, 0x72, 0x22, 0x04, 0x08, 0x0a, 0x10,
    0x0b,
    /* sequence 3 cleared; snapshot {64: 4000 incremental, 6: 5000}; default
     * clock 64; timestamp 700 */
    0x0a, 0x1f, 0x50, 0x03, 0x68, 0x01, 0x32, 0x10, 0x0a, 0x07, 0x08, 0x40, 0x10, 0xa0, 0x1f, 0x18, 0x01, 0x0a, 0x05,
    0x08, 0x06, 0x10, 0x88, 0x27, 0xda, 0x03, 0x03, 0xd0, 0x03, 0x40, 0x40, 0xbc, 0x05,
    /* instant "a" at 5000 on clock 6 */
    0x0a, 0x12, 0x50, 0x03, 0x40, 0x88, 0x27, 0xd0, 0x03, 0x06, 0x5a, 0x08, 0x48, 0x03, 0x58, 0x02, 0xba, 0x01, 0x01,
    0x61,
    /* instant "b" 100 after the snapshot on clock 64: 5100 */
    0x0a, 0x0e, 0x50, 0x03, 0x40, 0x64, 0x5a, 0x08, 0x48, 0x03, 0x58, 0x02, 0xba, 0x01, 0x01, 0x62};

TEST(pftrace_clock_snapshot_packet_time_moves_no_clock)
{
    const char *pf = tp_test_write("review_snapshot.pftrace", snapshot_with_time, sizeof snapshot_with_time);
    const char *js = tp_test_tmp("review_snapshot.json");
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s' && %s convert '%s' -o '%s' 2>/dev/null", js, tp_test_bin(), pf, js), 0);
    char *j = tp_test_read_file(js, NULL);
    CHECK(j && strstr(j, "\"name\":\"a\",\"pid\":10,\"tid\":11,\"ts\":0.000"));
    CHECK(j && strstr(j, "\"name\":\"b\",\"pid\":10,\"tid\":11,\"ts\":0.100"));
    free(j);
    /* a track event in that packet is not read either: said */
    unsigned char more[sizeof snapshot_with_time + 10];
    memcpy(more, snapshot_with_time, sizeof snapshot_with_time);
    size_t at = 39; /* the snapshot packet: its length grows by the event's 10 bytes */
    more[at + 1] = 0x1f + 10;
    memmove(more + at + 2 + 0x1f + 10, more + at + 2 + 0x1f, sizeof snapshot_with_time - (at + 2 + 0x1f));
    const unsigned char ev[10] = {0x5a, 0x08, 0x48, 0x03, 0x58, 0x02, 0xba, 0x01, 0x01, 'z'};
    memcpy(more + at + 2 + 0x1f, ev, sizeof ev);
    const char *pf2 = tp_test_write("review_snapshot_event.pftrace", more, sizeof more);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>&1 >/dev/null", tp_test_bin(), pf2), 0);
    CHECK(out && strstr(out, "pftrace: payloads in a clock snapshot's packet (not read, as Perfetto): 1"));
    free(out);
}

/* A Chrome JSON trace whose first line is empty, named *.pftrace: 0x0a then
 * '{' read as a packet of 123 bytes, and the name made it a Perfetto trace
 * ("protobuf field 1: length 123 runs past the end", exit 2).  Recognition is
 * by content: it is JSON. */
TEST(pftrace_name_does_not_make_json_a_protobuf_trace)
{
    const char *js = tp_test_write_text("review_blank_first_line.pftrace",
                                        "\n{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
                                        "\"ts\":1,\"dur\":2}]}\n");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>&1", tp_test_bin(), js), 0);
    CHECK(out && strstr(out, "chrome trace, 1 events"));
    free(out);
}

/* A snapshot naming another trace clock (primary_trace_clock: MONOTONIC)
 * after times were read on BOOTTIME: the reader switched clocks midway, so
 * the events before and after were on two grounds ("b", 1 us after "a",
 * came out 1 s before it).  Perfetto's ClockTracker refuses the change once
 * the trace clock was used; so does the reader now, in a warning. */
static const unsigned char clock_change[] = {
    /* process (uuid 1, pid 10) and thread (uuid 2, tid 11) tracks */
    0x0a, 0x11, 0x50, 0x01, 0xe2, 0x03, 0x0c, 0x08, 0x01, 0x12, 0x04, 0x70, 0x72, 0x6f, 0x63, 0x1a, 0x02, 0x08, 0x0a,
    0x0a, 0x12, 0x50, 0x01, 0xe2, 0x03, 0x0d, 0x08, 0x02, 0x12, 0x03, 0x74, 0x68, 0x72, 0x22, 0x04, 0x08, 0x0a, 0x10,
    0x0b,
    /* instant "a" at 1000 on clock 6 (BOOTTIME, the trace clock) */
    0x0a, 0x12, 0x50, 0x03, 0x40, 0xe8, 0x07, 0xd0, 0x03, 0x06, 0x5a, 0x08, 0x48, 0x03, 0x58, 0x02, 0xba, 0x01, 0x01,
    0x61,
    /* snapshot {6: 10^9, 3: 0}, primary_trace_clock 3 */
    0x0a, 0x16, 0x50, 0x03, 0x32, 0x12, 0x0a, 0x08, 0x08, 0x06, 0x10, 0x80, 0x94, 0xeb, 0xdc, 0x03, 0x0a, 0x04, 0x08,
    0x03, 0x10, 0x00, 0x10, 0x03,
    /* instant "b" at 2000 on clock 6 */
    0x0a, 0x12, 0x50, 0x03, 0x40, 0xd0, 0x0f, 0xd0, 0x03, 0x06, 0x5a, 0x08, 0x48, 0x03, 0x58, 0x02, 0xba, 0x01, 0x01,
    0x62};

TEST(pftrace_trace_clock_does_not_change_after_use)
{
    const char *pf = tp_test_write("review_clock_change.pftrace", clock_change, sizeof clock_change);
    const char *js = tp_test_tmp("review_clock_change.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "rm -f '%s' && %s convert '%s' -o '%s' 2>&1", js, tp_test_bin(), pf, js), 0);
    CHECK(out && strstr(out, "pftrace: a change of the trace clock after times were read (ignored): 1"));
    free(out);
    char *j = tp_test_read_file(js, NULL);
    CHECK(j && strstr(j, "\"name\":\"a\",\"pid\":10,\"tid\":11,\"ts\":0.000"));
    CHECK(j && strstr(j, "\"name\":\"b\",\"pid\":10,\"tid\":11,\"ts\":1.000"));
    free(j);
}
