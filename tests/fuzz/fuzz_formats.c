/* fuzz_formats.c: libFuzzer target for every input format.
 *
 * The input bytes are put in a memory file and loaded the way the commands
 * load files: once with format detection (every probe), then once forced to
 * each format in tp_formats[] (so a reader sees inputs its probe would
 * refuse), strict and lenient by turns; each trace that loads goes through
 * the pipeline (tp_load), the kernel table (stats) and the Chrome writer;
 * the output must be valid JSON (tp_json_valid) and valid UTF-8, whatever the input.  A new reader is covered as soon
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_set_input(data, size);
    if (!out_path[0])
        snprintf(out_path, sizeof out_path, "%s/out.json", fuzz_dir);
    bool strict = size && (data[size - 1] & 1);
    load_one(NULL, strict, true);
    for (size_t i = 0; tp_formats[i]; i++)
        load_one(tp_formats[i]->name, !strict, i & 1);
    return 0;
}
