/* fuzz_pftrace_read.c: libFuzzer target for the Perfetto protobuf reader
 * (convert/read/pftrace/) alone: the input bytes are a file forced to the
 * pftrace format, strict and lenient (the last byte chooses), so every
 * mutation reaches it (fuzz_formats spreads its runs over every reader and
 * fuzz_pftrace fuzzes the writer).  What loads goes through the pipeline and
 * the kernel table; a failure must come with its one-line error.  Seeds:
 * the .pftrace files in tests/fuzz/seeds (scripts/gen_fuzz_seeds: the hand-built example
 * of tests/pftrace/pftrace_example.c, plain and compressed, and a Kineto
 * sample converted).
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"
#include "tests/fuzz/fuzz_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_read_file; /* fuzz_io.h's, for targets that read outputs back */
    fuzz_set_input(data, size);
    bool strict = size && (data[size - 1] & 1);
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.format = "pftrace";
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
        fprintf(stderr, "the pftrace reader failed without an error message\n");
        abort();
    }
    tp_trace_free(&t);
    return 0;
}
