/* fuzz_formats.c: libFuzzer target for every input format.
 *
 * The input bytes are put in a memory file and loaded the way the commands
 * load files: once with format detection (every probe), then once forced to
 * each format in tp_formats[] (so a reader sees inputs its probe would
 * refuse), strict and lenient by turns; each trace that loads goes through
 * the pipeline (tp_load), the kernel table (stats) and the Chrome writer;
 * the output must be valid JSON (tp_json_valid) and valid UTF-8, whatever the input; and what `stats
 * --kernels-only` prints is the same with and without tp_read_opts.device_only.  A new reader is covered as soon
 * as it is in tp_formats[]: nothing here names a format.
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "convert/write/chrome_write.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"
#include "tests/fuzz/fuzz_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out_path[4096];

static void load_one(const char *format, bool strict, bool keep_args)
{
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format = format;
    lo.read.strict = strict;
    lo.read.keep_args = keep_args;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(fuzz_in_path, &lo, &t, &err) == 0) {
        tp_kernel_table kt;
        tp_kernel_table_build(&t, &kt);
        tp_kernel_table_free(&kt);
        tp_err oerr = {0};
        tp_out *o = tp_out_open(out_path, fuzz_in_path, &oerr);
        if (o) {
            tp_write_stats st;
            tp_write_chrome(&t, o, &st);
            if (tp_out_commit(o, &oerr) == 0) {
                /* whatever came in, what goes out is valid JSON */
                size_t got = 0;
                char *b = (char *)fuzz_read_file(out_path, &got);
                if (b) {
                    if (!tp_json_valid(b, got)) {
                        fprintf(stderr, "reader %s: the Chrome writer produced invalid JSON\n",
                                format ? format : "(detected)");
                        abort();
                    }
                    for (size_t i = 0; i < got;) { /* and valid UTF-8, byte for byte */
                        size_t k = tp_utf8_seq_len((const unsigned char *)b + i, got - i);
                        if (!k) {
                            fprintf(stderr, "reader %s: the Chrome writer produced invalid UTF-8 at %zu\n",
                                    format ? format : "(detected)", i);
                            abort();
                        }
                        i += k;
                    }
                    free(b);
                }
                unlink(out_path);
            }
        }
    } else if (!err.set) {
        /* the error contract: a reader that fails says why */
        fprintf(stderr, "reader %s failed without an error message\n", format ? format : "(detected)");
        abort();
    }
    tp_trace_free(&t);
}

/* What `stats --kernels-only` prints of a trace, as one text: events,
 * the tracks that hold an event, the steps, the kernel table, warnings and
 * notices (report/cmd_stats.c prints these). */
static void kernels_only_text(const tp_trace *t, tp_buf *b)
{
    tp_buf_printf(b, "events %llu\ntracks", (unsigned long long)t->events_in);
    bool *used = calloc(t->ntracks + 1, sizeof *used);
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!(e->flags & TP_EV_DROPPED) && e->ph != 'M')
            used[e->track] = true;
        if ((e->flags & TP_EV_STEP) && !(e->flags & TP_EV_DROPPED))
            tp_buf_printf(b, " step %llu", (unsigned long long)e->id);
    }
    for (size_t k = 0; k < t->ntracks; k++)
        if (used[k])
            tp_buf_printf(b, " %zu", k);
    free(used);
    tp_kernel_table kt;
    tp_kernel_table_build(t, &kt);
    tp_buf_printf(b, "\nkernels %zu %llu %lld %llu %llu %llu\n", kt.n, (unsigned long long)kt.instances,
                  (long long)kt.total_ns, (unsigned long long)kt.kernels, (unsigned long long)kt.memcpys,
                  (unsigned long long)kt.memsets);
    for (size_t i = 0; i < kt.n; i++)
        tp_buf_printf(b, "%s %d %llu %lld %lld\n", tp_str_get(t, kt.rows[i].name), kt.rows[i].kind,
                      (unsigned long long)kt.rows[i].count, (long long)kt.rows[i].total_ns, (long long)kt.rows[i].p50_ns);
    tp_kernel_table_free(&kt);
    for (size_t i = 0; i < t->nwarnings; i++)
        tp_buf_printf(b, "warning %s %llu\n", t->warnings[i].what, (unsigned long long)t->warnings[i].count);
    if (t->notices.len)
        tp_buf_put(b, t->notices.data, t->notices.len);
}

/* `stats --kernels-only`'s load, with and without tp_read_opts.device_only
 * (a reader may then leave out events that print nothing): the same text,
 * the same error. */
static void device_only_same(void)
{
    tp_buf text[2] = {{0}, {0}};
    tp_err err[2] = {{0}, {0}};
    int rc[2];
    for (int k = 0; k < 2; k++) {
        tp_load_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.no_links = lo.no_derive = true;
        lo.read.device_only = k == 1;
        tp_trace t;
        tp_trace_init(&t);
        rc[k] = tp_load(fuzz_in_path, &lo, &t, &err[k]);
        if (rc[k] == 0)
            kernels_only_text(&t, &text[k]);
        tp_trace_free(&t);
    }
    bool same_err = rc[0] == 0 || (strcmp(err[0].msg, err[1].msg) == 0 && strcmp(err[0].where, err[1].where) == 0);
    if (rc[0] != rc[1] || !same_err || text[0].len != text[1].len ||
        (text[0].len && memcmp(text[0].data, text[1].data, text[0].len) != 0)) {
        fprintf(stderr, "device_only changed what stats --kernels-only prints:\n%.*s\n---\n%.*s\n", (int)text[0].len,
                text[0].data ? text[0].data : "", (int)text[1].len, text[1].data ? text[1].data : "");
        abort();
    }
    tp_buf_free(&text[0]);
    tp_buf_free(&text[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_set_input(data, size);
    if (!out_path[0])
        snprintf(out_path, sizeof out_path, "%s/out.json", fuzz_dir);
    bool strict = size && (data[size - 1] & 1);
    load_one(NULL, strict, true);
    for (size_t i = 0; tp_formats[i]; i++)
        load_one(tp_formats[i]->name, !strict, i & 1);
    device_only_same();
    return 0;
}
