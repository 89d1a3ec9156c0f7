/* fuzz_diff.c: libFuzzer target for `diff`: the input is split at the first
 * "\n#-#-#\n" (else in two halves), both parts are loaded as `diff` loads
 * them (under hostile file names, which become the titles), summarised and
 * diffed with every gate at 0% (so the gate reasons name kernels), the
 * change and step charts drawn on the recording canvas; diff.json must
 * parse as JSON and diff.md keep the Markdown guarantees of
 * tests/fuzz/md_oracle.h.  Built by `make fuzz`. */
#include "convert/codec/json_value.h"
#include "convert/pipeline/pipeline.h"
#include "render/canvas.h"
#include "report/diff/diff.h"
#include "tests/fuzz/md_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd[2] = {-1, -1};
static char fd_path[2][64], dir[64], link_path[2][512];

static const char *const hostile[] = {
    "<img src=https:x.example:t.png>", "[x](https:x.example)", "@someone", "a`b", "```x```", "a|b",
    "# heading", "<script>", "https:::evil.example", "*bold*", "~~x~~", "<!-- x", "www.x.example", "a\nb",
};

static void cleanup(void)
{
    for (int k = 0; k < 2; k++)
        unlink(link_path[k]);
    rmdir(dir);
}

static void setup(void)
{
    char d[] = "/tmp/tp-fuzz-XXXXXX";
    if (!mkdtemp(d))
        abort();
    snprintf(dir, sizeof dir, "%s", d);
    for (int k = 0; k < 2; k++) {
        memfd[k] = memfd_create("tp-fuzz-input", 0);
        if (memfd[k] < 0)
            abort();
        snprintf(fd_path[k], sizeof fd_path[k], "/proc/self/fd/%d", memfd[k]);
    }
    atexit(cleanup);
}

static void fail(const char *what, const char *why, const tp_buf *b)
{
    fprintf(stderr, "%s: %s\n---\n%.*s\n---\n", what, why, (int)(b->len > 20000 ? 20000 : b->len), b->data);
    abort();
}

static bool load(int k, const uint8_t *p, size_t n, unsigned pick, tp_trace *t)
{
    if (ftruncate(memfd[k], 0) != 0 || pwrite(memfd[k], p, n, 0) != (ssize_t)n)
        abort();
    unlink(link_path[k]);
    snprintf(link_path[k], sizeof link_path[k], "%s/%s%d", dir, hostile[pick % (sizeof hostile / sizeof *hostile)], k);
    if (symlink(fd_path[k], link_path[k]) != 0)
        abort();
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.read.keep_args_of = tp_summary_wants_args; /* as `diff` loads */
    tp_trace_init(t);
    tp_err err = {0};
    return tp_load(link_path[k], &lo, t, &err) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd[0] < 0)
        setup();
    static const char sep[] = "\n#-#-#\n";
    const uint8_t *cut = memmem(data, size, sep, sizeof sep - 1);
    size_t n0 = cut ? (size_t)(cut - data) : size / 2, skip = cut ? sizeof sep - 1 : 0;
    tp_trace t[2];
    bool ok0 = load(0, data, n0, (unsigned)size, &t[0]);
    bool ok1 = load(1, data + n0 + skip, size - n0 - skip, (unsigned)n0 * 7u, &t[1]);
    if (ok0 && ok1) {
        tp_summary s[2];
        for (int k = 0; k < 2; k++) {
            tp_report_opts ro = {link_path[k], NULL, 0, NULL, false, NULL, false, NULL};
            tp_summary_build(&t[k], &ro, &s[k]);
        }
        tp_diff d;
        tp_diff_build(&s[0], &s[1], &d);
        tp_diff_gates g = {true, true, 0, 0, 0, "high", {true, false, 0, 0}}; /* the findings and memory gates too */
        tp_buf why = {0}, json = {0}, md = {0}, rec = {0};
        int tripped = tp_diff_check(&d, &g, &why);
        tp_canvas *cv = tp_canvas_rec(&rec);
        tp_diff_png_page(cv, &d, 0);
        if (d.s[0]->sf.nsteps || d.s[1]->sf.nsteps)
            tp_diff_png_page(cv, &d, 1);
        tp_err err = {0};
        tp_canvas_close(cv, &err);
        tp_diff_json(&d, &g, &why, tripped, &json);
        tp_jdoc jd;
        tp_jdoc_init(&jd);
        const tp_jv *v;
        if (tp_jv_parse_all(&jd, json.data, json.len, &v, &err) < 0)
            fail("diff.json is not JSON", err.msg, &json);
        tp_jdoc_free(&jd);
        static const char *const pngs[] = {"png/changes.png", "png/steps.png", NULL};
        tp_diff_md(&d, &g, &why, tripped, NULL, pngs, &md);
        const char *bad = tp_md_oracle(md.data, md.len);
        if (bad)
            fail("diff.md breaks a Markdown guarantee", bad, &md);
        tp_buf_free(&why);
        tp_buf_free(&json);
        tp_buf_free(&md);
        tp_buf_free(&rec);
        tp_diff_free(&d);
        for (int k = 0; k < 2; k++)
            tp_summary_free(&s[k]);
    }
    tp_trace_free(&t[0]);
    tp_trace_free(&t[1]);
    return 0;
}
