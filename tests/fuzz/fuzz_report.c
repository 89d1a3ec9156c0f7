/* fuzz_report.c: libFuzzer target for the report: the input is loaded as
 * `report` loads a file (under a hostile file name, which becomes the
 * title), the summary and the format's analysis are built, every PDF page
 * (common and format pages) is drawn on the recording canvas, and
 * summary.json must parse as JSON and summary.md keep the Markdown
 * guarantees of tests/fuzz/md_oracle.h, whatever the input.  Built by
 * `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "convert/critical/critical.h"
#include "convert/codec/json_value.h"
#include "convert/pipeline/pipeline.h"
#include "report/assemble/report_write.h"
#include "report/formats/format_pages.h"
#include "report/out/summary_write.h"
#include "tests/fuzz/md_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char fd_path[64], dir[64], link_path[512];

/* File names the title is made from: one of these, then the input's last bytes. */
static const char *const hostile[] = {
    "<img src=https:x.example:t.png>", "[x](https:x.example)", "@someone", "a`b", "```x```", "a|b",
    "# heading", "<script>", "https:::evil.example", "&lt;", "*bold*", "~~x~~", "<!-- x", "]:", "www.x.example",
    "- item", "1. item", "a\nb", "x@y.example", "a\\|b", "$x$", "plain",
};

static void cleanup(void)
{
    unlink(link_path);
    rmdir(dir);
}

static void setup(void)
{
    memfd = memfd_create("tp-fuzz-input", 0);
    char d[] = "/tmp/tp-fuzz-XXXXXX";
    if (memfd < 0 || !mkdtemp(d))
        abort();
    snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", memfd);
    snprintf(dir, sizeof dir, "%s", d);
    atexit(cleanup);
}

/* A symlink to the input named from hostile[] and the input's last bytes
 * ('/' and NUL become '_'). */
static const char *hostile_link(const uint8_t *data, size_t size)
{
    unlink(link_path);
    unsigned h = 0;
    for (size_t i = 0; i < size && i < 64; i++)
        h = h * 31 + data[i];
    char name[128];
    int k = snprintf(name, sizeof name, "%s", hostile[h % (sizeof hostile / sizeof *hostile)]);
    for (size_t i = size > 12 ? size - 12 : 0; i < size && k < (int)sizeof name - 1; i++)
        name[k++] = data[i] == '/' || data[i] == 0 ? '_' : (char)data[i];
    name[k] = 0;
    snprintf(link_path, sizeof link_path, "%s/%s", dir, name);
    if (symlink(fd_path, link_path) != 0)
        abort();
    return link_path;
}

static void fail(const char *what, const char *why, const tp_buf *b)
{
    fprintf(stderr, "%s: %s\n---\n%.*s\n---\n", what, why, (int)(b->len > 20000 ? 20000 : b->len), b->data);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0)
        setup();
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        abort();
    const char *path = hostile_link(data, size);
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.no_derive = true; /* as `report` loads */
    lo.read.report_data = true;
    lo.read.keep_args_of = tp_summary_wants_args; /* as `report` loads: the shapes and collectives */
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(path, &lo, &t, &err) == 0) {
        tp_report_opts ro = {path, NULL, size % 3 ? 0 : 64, NULL, false, NULL, false, NULL};
        tp_summary s;
        tp_summary_build(&t, &ro, &s);
        tp_fp_opts fo = {lo.read};
        if (tp_format_pages_build(&s, &fo, &err) == 0) {
            tp_buf rec = {0}, json = {0}, md = {0};
            tp_canvas *cv = tp_canvas_rec(&rec);
            tp_page_opts po = {595, 842, 2};
            tp_report_draw(cv, &s, &po);
            tp_canvas_close(cv, &err);
            tp_report_summary_json(&s, &json);
            tp_jdoc d;
            tp_jdoc_init(&d);
            const tp_jv *v;
            if (tp_jv_parse_all(&d, json.data, json.len, &v, &err) < 0)
                fail("summary.json is not JSON", err.msg, &json);
            tp_jdoc_free(&d);
            static const char *const pngs[] = {"png/kernels_total.png", "png/timeline.png", NULL};
            tp_summary_md(&s, pngs, tp_format_pages_md, &md);
            const char *why = tp_md_oracle(md.data, md.len);
            if (why)
                fail("summary.md breaks a Markdown guarantee", why, &md);
            tp_buf_free(&rec);
            tp_buf_free(&json);
            tp_buf_free(&md);
        }
        tp_summary_free(&s);
        /* convert --critical-path's overlay on the same trace (it adds events, flows and a track) */
        tp_cp_window *w = NULL;
        size_t nw = 0;
        char msg[300];
        if (tp_cp_windows(&t, size % 5 ? NULL : "a#1", &w, &nw, msg, sizeof msg) == 0) {
            tp_critical c;
            tp_critical_build(&t, w, nw, NULL, &c);
            for (size_t i = 0; i < c.n; i++) {
                int64_t sum = 0;
                for (int k = 0; k < TP_CPB_COUNT; k++)
                    sum += c.paths[i].bound_ns[k];
                if (sum != c.paths[i].length_ns) {
                    tp_buf why = {0};
                    tp_buf_printf(&why, "window %zu: %lld of %lld ns", i, (long long)sum, (long long)c.paths[i].length_ns);
                    fail("the critical path's bound types do not add up to the window", "", &why);
                }
            }
            tp_critical_overlay(&t, &c);
            tp_critical_free(&c);
        }
        free(w);
    }
    tp_trace_free(&t);
    return 0;
}
