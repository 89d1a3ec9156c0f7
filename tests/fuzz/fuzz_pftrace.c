/* fuzz_pftrace.c: libFuzzer target for the Perfetto protobuf writer.
 *
 * The input is loaded as the commands load a file (format detection, the
 * whole pipeline) and written as .pftrace; the output must be a sequence of
 * TracePacket fields (1, length-delimited), each packet a well-formed
 * message whose TrackEvent and TrackDescriptor fields parse too, whatever
 * the input.  Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "convert/codec/pbwire.h"
#include "convert/pipeline/pipeline.h"
#include "convert/write/pftrace_write.h"
#include "tests/fuzz/fuzz_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out_path[4096];

/* Every field of msg parses; the length-delimited ones named in `nested`
 * are messages and are checked the same way (one level more). */
static void check_message(const uint8_t *p, size_t n, const uint32_t *nested, size_t nn, int depth)
{
    tp_pb r = tp_pb_init(p, n);
    tp_pb_field f;
    tp_err err = {0};
    int k;
    while ((k = tp_pb_next(&r, &f, &err)) > 0) {
        if (f.wt != TP_PB_LEN || depth == 0)
            continue;
        for (size_t i = 0; i < nn; i++)
            if (f.num == nested[i])
                check_message(f.data, f.len, nested, nn, depth - 1);
    }
    if (k < 0) {
        fprintf(stderr, "the .pftrace writer produced a malformed message: %s\n", err.msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_set_input(data, size);
    if (!out_path[0])
        snprintf(out_path, sizeof out_path, "%s/out.pftrace", fuzz_dir);
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.read.keep_args = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(fuzz_in_path, &lo, &t, &err) == 0) {
        tp_out *o = tp_out_open(out_path, NULL, &err);
        tp_pftrace_stats st;
        bool written = false;
        if (o && tp_write_pftrace(&t, o, &st) == 0)
            written = tp_out_commit(o, &err) == 0; /* commit frees o either way */
        else if (o)
            tp_out_abort(o);
        if (written) {
            size_t got = 0;
            uint8_t *b = fuzz_read_file(out_path, &got);
            if (b) {
                tp_pb r = tp_pb_init(b, got);
                tp_pb_field pk;
                int k;
                /* TracePacket: track_event 11, interned_data 12, track_descriptor 60, defaults 59 */
                static const uint32_t nested[] = {11, 12, 59, 60};
                while ((k = tp_pb_next(&r, &pk, &err)) > 0) {
                    if (pk.num != 1 || pk.wt != TP_PB_LEN) {
                        fprintf(stderr, "the .pftrace holds field %u (type %u) at the top level\n", pk.num, pk.wt);
                        abort();
                    }
                    check_message(pk.data, pk.len, nested, 4, 2);
                }
                if (k < 0) {
                    fprintf(stderr, "the .pftrace is not a sequence of packets: %s\n", err.msg);
                    abort();
                }
                free(b);
            }
            unlink(out_path);
        }
    }
    tp_trace_free(&t);
    return 0;
}
