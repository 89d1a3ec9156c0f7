/* fuzz_vendor.c: libFuzzer target for the vendors' profiler readers alone
 * (Nsight Systems SQLite exports and rocpd databases, which share one
 * reader, rocprofv3 JSON): the input bytes are a file
 * forced to each of the two formats, strict and lenient, so every mutation
 * reaches them (fuzz_formats spreads its runs over every reader).  An nsys
 * input is a database file SQLite opens read-only and immutable: a mutated
 * page is a corrupt database, which must be one error, never a crash, a
 * hang beyond the work cap, or a write.  What loads goes through the
 * pipeline and the kernel table.
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"
#include "tests/fuzz/fuzz_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_as(const char *format, bool strict)
{
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format = format;
    lo.read.strict = strict;
    lo.read.keep_args = !strict;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(fuzz_in_path, &lo, &t, &err) == 0) {
        tp_kernel_table kt;
        tp_kernel_table_build(&t, &kt);
        tp_kernel_table_free(&kt);
    } else if (!err.set) {
        fprintf(stderr, "reader %s failed without an error message\n", format);
        abort();
    }
    tp_trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_read_file; /* fuzz_io.h's, for targets that read outputs back */
    fuzz_set_input(data, size);
    bool strict = size && (data[size - 1] & 1);
    load_as("nsys", strict);
    load_as("rocprof", !strict);
    return 0;
}
