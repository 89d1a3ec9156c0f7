/* test_memory.c: the memory model (report/memory/) through `report` and
 * `stats`: a planted trace (tests/lib/mem_gen.h) whose answer is known, and
 * the shared samples recounted here from their raw events with the JSON DOM
 * (convert/codec/json_value.h), not through the Chrome reader or the model. */
#include "tests/lib/harness.h"
#include "tests/lib/mem_gen.h"

#include "convert/codec/json_value.h"

#include <stdlib.h>
#include <string.h>

/* summary.json of `report IN -o DIR` parsed; NULL on failure (doc and text owned by the caller) */
static const tp_jv *report_json(const char *in, const char *dir, tp_jdoc *doc, char **text)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "%s report %s -o %s 2>&1", tp_test_bin(), in, dir);
    if (rc != 0)
        tp_test_fail(__FILE__, __LINE__, "report %s: exit %d: %s", in, rc, out ? out : "");
    free(out);
    *text = tp_test_read_in(dir, "summary.json");
    if (!*text)
        return NULL;
    tp_jdoc_init(doc);
    const tp_jv *root;
    tp_err err = {0};
    if (tp_jv_parse_all(doc, *text, strlen(*text), &root, &err) != 0)
        return NULL;
    return root;
}

static const tp_jv *device(const tp_jv *root, const char *label)
{
    const tp_jv *devs = tp_jv_get(tp_jv_get(root, "memory"), "devices");
    for (size_t i = 0; devs && i < devs->n; i++)
        if (tp_jv_str_eq(tp_jv_get(&devs->items[i], "device"), label))
            return &devs->items[i];
    return NULL;
}

static int64_t num(const tp_jv *obj, const char *key)
{
    int64_t v = INT64_MIN;
    const tp_jv *x = tp_jv_get(obj, key);
    if (!x || tp_jv_int(x, &v) != 0)
        return INT64_MIN;
    return v;
}

static bool str_is(const tp_jv *obj, const char *key, const char *want)
{
    return tp_jv_str_eq(tp_jv_get(obj, key), want);
}

TEST(memory_planted_leak_and_temporary)
{
    mg_opts o = {4, (int64_t)1 << 30, 8 << 20, 512 << 20, 0, 2, true};
    const char *in = mg_write("planted.json", &o);
    tp_jdoc doc;
    char *text = NULL;
    const tp_jv *root = report_json(in, tp_test_tmp("planted"), &doc, &text);
    CHECK(root != NULL);
    const tp_jv *d = device(root, "cuda:0");
    CHECK(d != NULL);
    if (!d)
        goto out;
    CHECK_EQ_INT(num(d, "peak_allocated_bytes"), mg_peak(&o));
    CHECK_EQ_INT(num(d, "peak_allocated_step"), 2);
    CHECK_EQ_INT(num(d, "capacity_bytes"), 85045870592LL);
    CHECK_EQ_INT(num(d, "start_allocated_bytes"), o.held);
    const tp_jv *steps = tp_jv_get(d, "steps");
    CHECK(steps && steps->n == 4);
    for (size_t s = 0; steps && s < steps->n; s++) {
        CHECK_EQ_INT(num(&steps->items[s], "end_bytes"), mg_step_end(&o, (int)s));
        /* the leak: each step ends 8 MiB above the one before */
        if (s)
            CHECK_EQ_INT(num(&steps->items[s], "end_bytes") - num(&steps->items[s - 1], "end_bytes"), o.leak);
        CHECK_EQ_INT(num(&steps->items[s], "start_bytes"), s ? mg_step_end(&o, (int)s - 1) : o.held);
    }
    /* the holders at the peak: the temporary, then the leak of three steps */
    const tp_jv *h = tp_jv_get(d, "holders");
    CHECK(h && h->n >= 3);
    if (h && h->n >= 3) {
        CHECK(str_is(&h->items[0], "op", "big_temp_op"));
        CHECK_EQ_INT(num(&h->items[0], "bytes"), o.temp);
        CHECK(str_is(&h->items[1], "op", "leaky_op"));
        CHECK(str_is(&h->items[1], "module", "nn.Module: Cache_0"));
        CHECK_EQ_INT(num(&h->items[1], "bytes"), 3 * o.leak);
        CHECK_EQ_INT(num(&h->items[1], "allocations"), 3);
        CHECK(str_is(&h->items[2], "op", "aten::linear")); /* the activation, made by aten::empty inside it */
        CHECK(str_is(&h->items[2], "module", "nn.Module: Net_0"));
    }
    const tp_jv *hi = tp_jv_get(d, "holders_innermost");
    CHECK(hi && hi->n >= 3 && str_is(&hi->items[2], "op", "aten::empty"));
    CHECK_EQ_INT(num(d, "held_at_peak_before_trace_bytes"), o.held - MG_UNMATCHED);
    CHECK_EQ_INT(num(tp_jv_get(root, "memory"), "frees_without_allocation"), 1);
    CHECK(device(root, "cpu") && num(device(root, "cpu"), "peak_allocated_bytes") == 16);
    char *md = tp_test_read_in(tp_test_tmp("planted"), "summary.md");
    CHECK(md && strstr(md, "**Memory**: cpu peak allocated 16 B (reserved peak 0 B)") &&
          strstr(md, "cuda:0 peak allocated **1.5 GiB** in step 2") && strstr(md, "top holder `big_temp_op` 512 MiB") &&
          strstr(md, "1 free without an allocation in the trace (made before it began, or freed twice)"));
    free(md);
out:
    tp_jdoc_free(&doc);
    free(text);
}

/* ---- the independent recount of a real trace ---- */

typedef struct rc_ev {
    int64_t ts, type, id, bytes, addr, alloc, res;
} rc_ev;

static int cmp_ts(const void *a, const void *b)
{
    const rc_ev *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts; /* qsort is not stable: ties are rare and tied events agree */
}

static void recount(const char *sample)
{
    const char *raw = tp_test_tmp("raw.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "gzip -dc %s > %s", tp_test_shared(sample), raw), 0);
    free(out);
    size_t len;
    char *text = tp_test_read_file(raw, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root;
    tp_err err = {0};
    CHECK_EQ_INT(tp_jv_parse_all(&doc, text, len, &root, &err), 0);
    const tp_jv *evs = tp_jv_get(root, "traceEvents");
    rc_ev *m = calloc(evs->n, sizeof *m);
    int64_t (*win)[3] = calloc(evs->n, sizeof *win);
    size_t nm = 0, nw = 0;
    for (size_t i = 0; i < evs->n; i++) {
        const tp_jv *e = &evs->items[i], *a = tp_jv_get(e, "args");
        const tp_jv *name = tp_jv_get(e, "name");
        size_t nl;
        const char *nm_s = name ? tp_jv_str(name, &nl) : NULL;
        if (tp_jv_str_eq(name, "[memory]") && a && tp_jv_get(a, "Total Allocated")) {
            rc_ev *r = &m[nm++];
            tp_jv_fixed(tp_jv_get(e, "ts"), 3, &r->ts);
            tp_jv_int(tp_jv_get(a, "Device Type"), &r->type);
            tp_jv_int(tp_jv_get(a, "Device Id"), &r->id);
            tp_jv_int(tp_jv_get(a, "Bytes"), &r->bytes);
            tp_jv_int(tp_jv_get(a, "Addr"), &r->addr);
            tp_jv_int(tp_jv_get(a, "Total Allocated"), &r->alloc);
            tp_jv_int(tp_jv_get(a, "Total Reserved"), &r->res);
        } else if (nm_s && nl > 13 && memcmp(nm_s, "ProfilerStep#", 13) == 0 &&
                   tp_jv_str_eq(tp_jv_get(e, "cat"), "user_annotation")) {
            int64_t ts, dur;
            tp_jv_fixed(tp_jv_get(e, "ts"), 3, &ts);
            tp_jv_fixed(tp_jv_get(e, "dur"), 3, &dur);
            win[nw][0] = ts;
            win[nw][1] = ts + dur;
            win[nw][2] = atoll(nm_s + 13);
            nw++;
        }
    }
    qsort(m, nm, sizeof *m, cmp_ts);
    tp_jdoc rdoc;
    char *rtext = NULL;
    const tp_jv *rep = report_json(tp_test_shared(sample), tp_test_tmp("real"), &rdoc, &rtext);
    CHECK(rep != NULL);
    const tp_jv *d = rep ? device(rep, "cuda:0") : NULL;
    CHECK(d != NULL);
    if (d) {
        int64_t peak = 0, peak_r = 0;
        size_t peak_k = 0, n = 0;
        for (size_t k = 0; k < nm; k++)
            if (m[k].type == 1 && m[k].id == 0) {
                n++;
                if (m[k].alloc > peak)
                    peak = m[k].alloc, peak_k = k;
                if (m[k].res > peak_r)
                    peak_r = m[k].res;
            }
        CHECK(n > 100);
        CHECK_EQ_INT(num(d, "events"), (int64_t)n);
        CHECK_EQ_INT(num(d, "peak_allocated_bytes"), peak);
        CHECK_EQ_INT(num(d, "peak_reserved_bytes"), peak_r);
        /* the live allocations at the peak: replayed by address */
        int64_t seen = 0;
        for (size_t k = 0; k <= peak_k; k++) {
            if (m[k].type != 1 || m[k].id != 0 || m[k].bytes <= 0)
                continue;
            bool freed = false;
            for (size_t j = k + 1; j <= peak_k && !freed; j++)
                freed = m[j].type == 1 && m[j].id == 0 && m[j].addr == m[k].addr && m[j].bytes < 0;
            if (!freed)
                seen += m[k].bytes;
        }
        CHECK_EQ_INT(num(d, "held_at_peak_seen_bytes"), seen);
        /* per step: the level after the last event before it, the highest inside, after the last one in it */
        const tp_jv *steps = tp_jv_get(d, "steps");
        CHECK(steps && steps->n == nw);
        for (size_t s = 0; steps && s < steps->n && s < nw; s++) {
            int64_t first = -1, start = -1, end = -1, top = -1;
            for (size_t k = 0; k < nm; k++) {
                if (m[k].type != 1 || m[k].id != 0)
                    continue;
                if (first < 0)
                    first = m[k].alloc - m[k].bytes;
                if (m[k].ts < win[s][0])
                    start = m[k].alloc;
                if (m[k].ts < win[s][1])
                    end = m[k].alloc;
                if (m[k].ts >= win[s][0] && m[k].ts < win[s][1] && m[k].alloc > top)
                    top = m[k].alloc;
            }
            start = start < 0 ? first : start;
            end = end < 0 ? first : end;
            top = top > start ? top : start;
            const tp_jv *st = &steps->items[s];
            CHECK_EQ_INT(num(st, "step"), win[s][2]);
            CHECK_EQ_INT(num(st, "start_bytes"), start);
            CHECK_EQ_INT(num(st, "peak_bytes"), top);
            CHECK_EQ_INT(num(st, "end_bytes"), end);
        }
    }
    if (rep)
        tp_jdoc_free(&rdoc);
    free(rtext);
    free(m);
    free(win);
    tp_jdoc_free(&doc);
    free(text);
}

TEST(memory_recount_tracelens_bert) { recount("external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz"); }
TEST(memory_recount_tracelens_qwen) { recount("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"); }

TEST(memory_said_once_without_levels_or_events)
{
    char *out = NULL;
    /* PyTorch 1.9: Bytes only, no totals: counted, no levels guessed */
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s", tp_test_bin(),
                             tp_test_shared("external/kineto/kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz")),
                 0);
    CHECK(out && strstr(out, "Memory (docs/REPORT.md \"Memory\"; bytes): 12838 events") &&
          strstr(out, "12838 lack Total Allocated/Total Reserved (no levels from them)") && !strstr(out, "peak allocated"));
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats golden/example.pt.trace.json", tp_test_bin()), 0);
    CHECK(out && strstr(out, "\nMemory: no [memory] events (record with profile_memory=True)\n"));
    free(out);
}

TEST(memory_findings_planted)
{
    /* the leak of 8 MiB a step: every step ends higher (memory_growth); no capacity risk at 1.5 GiB of 80 GB */
    mg_opts o = {4, (int64_t)1 << 30, 8 << 20, 512 << 20, 0, 2, true};
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s", tp_test_bin(), mg_write("f1.json", &o)), 0);
    CHECK(out && strstr(out, "memory_growth [high] Memory grows from step to step (a leak)") &&
          strstr(out, "memory_growth: 100.0% of the step transitions (step to next step) (threshold 75.0%)") &&
          strstr(out, "cuda:0: 3 of 3 steps end above the step before; step 0 ends at 1.0 GiB (1082126336 B), step 3 "
                      "at 1.0 GiB (1107292160 B): 8.0 MiB (8388608 B) a step on average") &&
          !strstr(out, "memory_near_capacity [") && !strstr(out, "memory_fragmentation ["));
    free(out);
    /* no leak, 78 GiB held on an 80 GB H100: reserved (rounded to 64 MiB) over 90% of 85045870592 B */
    mg_opts full = {4, (int64_t)78 << 30, 0, 0, 0, -1, true};
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s", tp_test_bin(), mg_write("f2.json", &full)), 0);
    CHECK(out && strstr(out, "memory_near_capacity [high] Device memory is close to full") &&
          strstr(out, "impact: no time (a risk of running out of memory, not time)") && !strstr(out, "memory_growth ["));
    free(out);
    /* a 6 GiB temporary in one step of 4 with 2 GiB held: reserved stays at 8 GiB, the peak is there too: no
     * fragmentation; without deviceProperties the capacity rule cannot tell, and says so */
    mg_opts nocap = {4, (int64_t)2 << 30, 0, (int64_t)6 << 30, 0, 1, false};
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats %s", tp_test_bin(), mg_write("f3.json", &nocap)), 0);
    CHECK(out && !strstr(out, "memory_fragmentation [") &&
          strstr(out, "the trace does not give the device's memory size (deviceProperties totalGlobalMem)"));
    free(out);
}

/* Hostile shapes stay bounded (docs/ERRORS.md "Memory events"): 20,000 devices of one event each under 300
 * steps model the first 64 devices and count the rest (per-step rows are devices x steps); events no op
 * encloses and frees of unknown blocks are counted, not guessed. */
TEST(memory_many_devices_bounded)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}");
    for (int s = 0; s < 300; s++)
        tp_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                          "\"ts\":%d,\"dur\":9}", s, 10 + 10 * s);
    for (int d = 0; d < 20000; d++)
        tp_buf_printf(&b, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%d.%03d,\"args\":"
                          "{\"Device Type\":1,\"Device Id\":%d,\"Addr\":%d,\"Bytes\":-4096,\"Total Allocated\":0,"
                          "\"Total Reserved\":0}}", 10 + d / 7, d % 1000, d, 4096 * d);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    const char *in = tp_test_write_text("devices.json", b.data);
    tp_buf_free(&b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "timeout 20 %s stats --json %s", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "\"memory\":{\"events\":20000,\"lacking_fields\":0,\"without_levels\":0,\"without_addr\":0,"
                             "\"frees_without_allocation\":64,\"allocations\":0,\"frees\":20000,"
                             "\"events_past_devices\":19936,"));
    free(out);
}
