/* mem_gen.h: a generated Kineto trace with allocator events ("[memory]"
 * instants, as profile_memory=True records them) whose answer is known: the
 * memory tests (tests/memory/) plant a leak, a large temporary and an extra
 * allocation and check the report finds exactly those.
 *
 * Per step s (0 .. steps-1; ProfilerStep#s at 1000 + 1000 s us, 900 us long)
 * on pid 1 tid 1, inside "nn.Module: Net_0":
 *   aten::linear > aten::empty allocates ACT (1 MiB) at +100, freed at +800 by aten::relu;
 *   cudaLaunchKernel at +150 of gemm_kernel (GPU 0 stream 7, +160, 500 us);
 *   leaky_op (nn.Module: Cache_0) allocates `leak` bytes at +200, never freed;
 *   in step `temp_step` only: big_temp_op allocates `temp` at +300, frees it at +400;
 *   in step 1 only: extra_op allocates `extra` at +250, never freed.
 * The allocator holds `held` bytes before the trace; one free of an address
 * never allocated (made before the trace, 4096 bytes, at +850 of step 0)
 * and one CPU allocation pair (16 bytes) are there too.  Reserved: the
 * highest level so far rounded up to 64 MiB. */
#ifndef TP_TEST_MEM_GEN_H
#define TP_TEST_MEM_GEN_H

#include <stdint.h>
#include <stdbool.h>

#define MG_ACT (1 << 20)
#define MG_UNMATCHED 4096

typedef struct mg_opts {
    int steps;
    int64_t held, leak, temp, extra;
    int temp_step;
    bool h100;     /* deviceProperties: an H100 80 GB (capacity 85045870592) */
} mg_opts;

/* Writes tp_test_tmp(file); its path. */
const char *mg_write(const char *file, const mg_opts *o);
/* What the model must find: the highest level, and the level at the end of step s. */
int64_t mg_peak(const mg_opts *o);
int64_t mg_step_end(const mg_opts *o, int s);
/* Checks (harness CHECKs) the counter tracks `convert` wrote into js (its
 * JSON output of mg_write's trace): per step the activation in and out and
 * the leak, one unmatched free, the CPU pair; the first GPU sample's levels. */
void mg_check_counters(const char *js, const mg_opts *o);

#endif
