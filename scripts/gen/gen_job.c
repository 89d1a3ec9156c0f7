/* gen_job.c: a synthetic distributed job (one Kineto JSON trace per rank)
 * with planted truth: a slow rank, clock offsets and collectives of known
 * sizes and bandwidths (issue 21, ../shared/specs/ANALYSIS.md section 4).
 *
 *   gen_job --ranks N --out DIR [--size BYTES] [--steps S] [--slow-rank R]
 *           [--slow-us X] [--offsets-us LIST | --offset-seed SEED]
 *           [--seed SEED] [--base-time] [-q]
 *
 * Writes DIR/rank-K.json (K = 0..N-1) and DIR/planted.json.  The same
 * arguments give the same bytes.  Bad arguments: usage on stderr, exit 2.
 *
 * The time model (integer ns on one true clock; a file's "ts" and "dur" are
 * microseconds with exactly 3 decimals, so the ns survive):
 *  - Steps s = 0..S-1 start at the same true time on every rank.  On the
 *    host (pid 2910249+K, main thread) a "ProfilerStep#s" user_annotation
 *    holds OPS compute ops (8 us apart; aten::linear > aten::addmm, aten::mul,
 *    flash attention ...: names, shapes and kernels taken from the real H100
 *    trace in ../shared/external/tracelens/), each launching one kernel with
 *    cudaLaunchKernel (correlation, External id, an ac2g flow s/f pair).
 *  - The GPU (pid = device = K % 8) runs those kernels back to back on
 *    stream 7 from st + 17.5 us (the host runs ahead: every kernel lasts
 *    longer than 8 us).  Rank R's last kernel of each step lasts X us more
 *    (--slow-rank R, default N-1; --slow-us X, default 2000; -1 or 0: no slow
 *    rank), and every rank's last kernel also has a small jitter: 3 ns x a
 *    per-step permutation of 0..N-1 drawn from --seed (default 1).
 *  - Then the collectives, in this order, each on stream 30, launched by
 *    cudaLaunchKernelExC inside record_param_comms > nccl:NAME on the host,
 *    40 us apart after the compute ops:
 *      allreduce Float 26214400 elements, algbw 100 GB/s (default group)
 *      broadcast BFloat16 4194304 elements, 128 GB/s (the rank's tp pair;
 *                only when N is even and >= 4)
 *      _allgather_base BFloat16 1638400 in, 1638400 x n out, 50 GB/s
 *      allreduce Float 6553600, 80 GB/s
 *      _reduce_scatter_base BFloat16 1638400 x n in, 1638400 out, 40 GB/s
 *      allreduce BFloat16 1048576, 64 GB/s
 *    A rank's collective kernel starts when its own preceding work on the
 *    GPU ends (or its launch ends, if later); all ranks of the group end
 *    together at T_end = (the group's latest start) + transfer, transfer =
 *    S / algbw, S = max(in, out) elements x element size (nccl-tests: the
 *    all-gather's output, the reduce-scatter's input), always a whole number
 *    of ns.  So every kernel lasts T_end - its own start: early ranks wait.
 *    Only the first collective of a step sees different arrivals.
 *  - The host then waits in cudaDeviceSynchronize until 3 us after the
 *    latest collective end of the job; the ProfilerStep ends 2 us later and
 *    the next step starts 25 us after that (host-only idle).
 *  - Rank K's recorded times = true + offset_K (offset_0 = 0; the others
 *    from --offsets-us "a,b,..." (N values with a first 0, or N-1 values for
 *    ranks 1..N-1) or drawn from --offset-seed (default: from --seed): whole
 *    microseconds in +-50 ms).
 *    The true clock starts at 1700000100 s (epoch ns 1.7e18 + 1e11).  With
 *    --base-time each file gets "baseTimeNanoseconds" = 1.7e18 - offset_K and
 *    its ts are true - 1.7e18 + offset_K, so base + ts = true on every rank.
 *  - --size BYTES (K, M, G = powers of 1000; Ki, Mi, Gi = 1024): OPS per
 *    step chosen (by counting the bytes of trial writes of rank 0) so that
 *    each rank file is about BYTES; steps stay S (default 8).  Default OPS 96,
 *    never fewer than 64 (so small sizes give about 1 MB a rank).
 *  - Collective args, on the record_param_comms op and on the kernel (as
 *    PyTorch 2.3+ writes them): "Collective name", "In msg nelems",
 *    "Out msg nelems", "Group size", "dtype" ("Float", "BFloat16"),
 *    "In split size", "Out split size", "Process Group Name" ("0" default,
 *    "1" tp), "Process Group Description" ("default_pg", "tp"; the spelling of
 *    the real 2024 sample), "Process Group Ranks" ("[0, 1, 2, 3]"), "Seq"
 *    (per group, from 1, +1 per collective of that group).
 *
 * planted.json (all times integer ns; "true" = on the true clock):
 *  world_size, step_count, ops_per_step, seed: as generated.
 *  true_start_ns: true time of step 0's start.  base_time: --base-time given;
 *    base_time_ns[K] then = each file's baseTimeNanoseconds.
 *  slow_rank: R (-1: none); slow_extra_ns: X * 1000.
 *  offsets_ns[K]: rank K's recorded time minus true time.
 *  groups[]: {pg_name, pg_desc, ranks}: the default group, then tp pairs.
 *  collectives[] (one per kind/size/group kind): kind (its index, used in
 *    steps[].collectives[]), collective_name, kernel, pg_name, pg_desc,
 *    group_size n, dtype, elem_bytes, in_nelems, out_nelems, bytes (S),
 *    count_per_rank (collectives of this kind each rank ran), instances
 *    (count_per_rank x groups of that kind), transfer_ns (S / algbw: the
 *    duration of the last-arriving rank's kernel), algbw_GBps (S /
 *    transfer_ns, bytes per ns = GB/s, exact), busbw_factor (all-reduce
 *    2(n-1)/n; all-gather, reduce-scatter (n-1)/n; broadcast 1), busbw_GBps.
 *  ranks[]: rank, file, offset_ns, and per step: jitter_ns (added to the
 *    last kernel), compute_busy_ns (sum of the stream-7 kernels' durations),
 *    compute_end_ns (true end of the last compute kernel), comm_ns (sum of
 *    the rank's collective kernel durations, waiting included),
 *    step_collective_wait_ns (comm_ns minus the sum of transfer_ns).
 *  steps[]: step (the N in ProfilerStep#N), start_ns / end_ns (true span of
 *    the ProfilerStep annotation, the same on every rank), last_rank (the
 *    rank whose compute ended last: the straggler; ties: the smallest rank),
 *    wait_ns (sum over the other ranks of last compute end minus theirs: the
 *    waiting in the step's first collective), collectives[]: one per
 *    instance: kind, pg_name, ranks, seq, end_ns (true T_end), last_rank
 *    (the latest start; -1 when all started together), wait_ns (sum over
 *    the group of duration - transfer_ns). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BASE_NS 1700000000000000000LL
#define T0 (BASE_NS + 100000000000LL)
#define OP_GAP 8000         /* host ns between compute ops */
#define GPU_LEAD 17500      /* step start to the first kernel */
#define COLL_GAP 40000      /* host ns between collective launches */
#define COLL_LAUNCH_END 16000
#define STEP_IDLE 25000
#define MAX_RANKS 4096

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_job: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void usage(void)
{
    fputs("usage: gen_job --ranks N --out DIR [--size BYTES] [--steps S] [--slow-rank R] [--slow-us X]\n"
          "               [--offsets-us LIST | --offset-seed SEED] [--seed SEED] [--base-time] [-q]\n",
          stderr);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* ------------------------------------------------------------ output */

#define OBUF (16u << 20)
static char *ob;
static size_t on;
static uint64_t obytes;
static FILE *of; /* NULL: count only (--size trials) */

static void oflush(void)
{
    if (of && on && fwrite(ob, 1, on, of) != on)
        die("write failed: %s", strerror(errno));
    obytes += on;
    on = 0;
}

static inline void room(size_t n)
{
    if (OBUF - on < n)
        oflush();
}

static inline void put(const char *s, size_t n)
{
    memcpy(ob + on, s, n);
    on += n;
}
#define LIT(s) put(s, sizeof(s) - 1)
static inline void puts_(const char *s) { put(s, strlen(s)); }

static inline void put_u(uint64_t v)
{
    char t[24];
    int i = 24;
    do
        t[--i] = (char)('0' + v % 10);
    while (v /= 10);
    put(t + i, (size_t)(24 - i));
}

static inline void put_i(int64_t v)
{
    if (v < 0) {
        ob[on++] = '-';
        put_u((uint64_t)-v);
    } else {
        put_u((uint64_t)v);
    }
}

/* ns as microseconds with exactly three decimals */
static inline void put_us(int64_t ns)
{
    if (ns < 0)
        die("negative time %" PRId64, ns);
    put_u((uint64_t)ns / 1000);
    unsigned f = (unsigned)((uint64_t)ns % 1000);
    char t[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
    put(t, 4);
}

/* ------------------------------------------------------------ vocabulary */

typedef struct {
    const char *outer, *outer_args; /* NULL: no parent op */
    const char *op, *args, *kernel, *ktail;
    int64_t dur; /* kernel ns, > OP_GAP */
} vocab;

#define ELEM_KTAIL(g, r, occ) "\"registers per thread\": " r ", \"shared memory\": 0, \"blocks per SM\": 135.515152, " \
    "\"warps per SM\": 542.060608, \"grid\": [" g ", 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": " occ
static const vocab V[] = {
    {"aten::linear", "\"Concrete Inputs\": [\"\", \"\", \"\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"], "
                     "\"Input Strides\": [[572416, 1024, 1], [1024, 1], [1]], \"Input Dims\": [[16, 559, 1024], [1024, 1024], [1024]]",
     "aten::addmm",
     "\"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], "
     "\"Input Strides\": [[1], [1024, 1], [1, 1024], [], []], \"Input Dims\": [[1024], [8944, 1024], [1024, 1024], [], []]",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "\"registers per thread\": 168, \"shared memory\": 231424, \"blocks per SM\": 0.909091, \"warps per SM\": 10.909091, "
     "\"grid\": [30, 4, 1], \"block\": [384, 1, 1], \"est. achieved occupancy %\": 0",
     84032},
    {NULL, NULL, "aten::mul",
     "\"Concrete Inputs\": [\"\", \"\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[1], [572416, 1024, 1]], "
     "\"Input Dims\": [[1024], [16, 559, 1024]]",
     "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
     "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, "
     "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, "
     "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
     "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
     "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
     ELEM_KTAIL("17888", "18", "100"), 24800},
    {NULL, NULL, "aten::pow",
     "\"Concrete Inputs\": [\"\", \"2\"], \"Input type\": [\"float\", \"Scalar\"], \"Input Strides\": [[572416, 1024, 1], []], "
     "\"Input Dims\": [[16, 559, 1024], []]",
     "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, "
     "float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous "
     "namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, float)::{lambda(float)#1}, std::array<char*, 2ul>)",
     ELEM_KTAIL("17888", "17", "100"), 26400},
    {NULL, NULL, "aten::mean",
     "\"Concrete Inputs\": [\"\", \"[-1]\", \"True\", \"\"], \"Input type\": [\"float\", \"ScalarList\", \"Scalar\", \"\"], "
     "\"Input Strides\": [[572416, 1024, 1], [], [], []], \"Input Dims\": [[16, 559, 1024], [], [], []]",
     "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, "
     "float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
     "\"registers per thread\": 32, \"shared memory\": 16, \"blocks per SM\": 4.234848, \"warps per SM\": 67.757576, "
     "\"grid\": [559, 1, 1], \"block\": [32, 16, 1], \"est. achieved occupancy %\": 100",
     15136},
    {NULL, NULL, "aten::_flash_attention_forward",
     "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"559\", \"559\", \"0.\", \"True\", \"False\", \"0.125\"], "
     "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
     "\"Scalar\", \"Scalar\"], \"Input Strides\": [[572416, 64, 35776, 1], [572416, 64, 35776, 1], [572416, 64, 35776, 1], [], [], [], [], "
     "[], [], [], []], \"Input Dims\": [[16, 559, 16, 64], [16, 559, 16, 64], [16, 559, 16, 64], [], [], [], [], [], [], [], []]",
     "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, "
     "pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, "
     "false>(pytorch_flash::Flash_fwd_params)",
     "\"registers per thread\": 255, \"shared memory\": 49152, \"blocks per SM\": 9.69697, \"warps per SM\": 38.78788, "
     "\"grid\": [5, 16, 16], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 13",
     113503},
    {NULL, NULL, "aten::copy_",
     "\"Concrete Inputs\": [\"\", \"\", \"False\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"], "
     "\"Input Strides\": [[572416, 35776, 64, 1], [572416, 64, 1024, 1], []], \"Input Dims\": [[16, 16, 559, 64], [16, 16, 559, 64], []]",
     "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
     "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() "
     "const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
     "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>("
     "at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
     "const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})",
     ELEM_KTAIL("17888", "18", "100"), 29023},
    {NULL, NULL, "aten::silu",
     "\"Concrete Inputs\": [\"\"], \"Input type\": [\"c10::BFloat16\"], \"Input Strides\": [[1574144, 2816, 1]], \"Input Dims\": [[16, 559, 2816]]",
     "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}"
     "::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, "
     "at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() "
     "const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
     ELEM_KTAIL("49192", "24", "100"), 38464},
    {NULL, NULL, "aten::cat",
     "\"Concrete Inputs\": [\"\", \"-1\"], \"Input type\": [\"TensorList\", \"Scalar\"], "
     "\"Input Strides\": [[[286208, 32, 512, 1], [572416, 64, 1024, 1]], []], \"Input Dims\": [[[16, 16, 559, 32], [16, 16, 559, 32]], []]",
     "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, "
     "64>(at::native::(anonymous namespace)::OpaqueType<2u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<"
     "at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned "
     "int, 4u>, int, unsigned int)",
     "\"registers per thread\": 25, \"shared memory\": 0, \"blocks per SM\": 4.0, \"warps per SM\": 64.0, \"grid\": [264, 2, 1], "
     "\"block\": [512, 1, 1], \"est. achieved occupancy %\": 100",
     42047},
};
#define NV ((int)(sizeof V / sizeof V[0]))

static int64_t op_dur(int64_t i) { return V[i % NV].dur + (i * 37 % 13) * 64; }

/* ------------------------------------------------------------ collectives */

typedef struct {
    const char *cname, *ann, *kernel, *dtype;
    int esize, tp;
    int64_t nel, algbw; /* base elements; bytes per ns */
} ckind;

enum { K_AR0, K_BC, K_AG, K_AR1, K_RS, K_AR2, NK };
static const ckind CK[NK] = {
    {"allreduce", "nccl:all_reduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "Float", 4, 0, 26214400, 100},
    {"broadcast", "nccl:broadcast", "ncclDevKernel_Broadcast_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "BFloat16", 2,
     1, 4194304, 128},
    {"_allgather_base", "nccl:_all_gather_base", "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "BFloat16", 2, 0, 1638400, 50},
    {"allreduce", "nccl:all_reduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "Float", 4, 0, 6553600, 80},
    {"_reduce_scatter_base", "nccl:_reduce_scatter_base",
     "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "BFloat16", 2, 0, 1638400, 40},
    {"allreduce", "nccl:all_reduce", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     "BFloat16", 2, 0, 1048576, 64},
};

typedef struct {
    int64_t in_nel, out_nel, bytes, transfer;
    int n;
} csize;

/* ------------------------------------------------------------ the job */

static int N, S = 8, slow_rank = -1, nk; /* nk: kinds per step */
static int64_t slow_ns = 2000000, nops = 96;
static uint64_t seed = 1;
static bool tp, base_time, quiet;
static int64_t *offs;                 /* [N] */
static int kinds[NK];                 /* the step's sequence */
static csize CS[NK];
static int64_t base_busy;             /* sum of op_dur over a step */
static int64_t *jit;                  /* [S][N] */
static int64_t *cend, *kst, *ken;     /* [S][N] compute end; [S][N][NK] collective start, end */
static int64_t *st_start, *st_end;    /* [S] */
static char *pg_ranks_default, **pg_ranks_tp;

#define IX(s, k) ((size_t)(s) * (size_t)N + (size_t)(k))
#define CX(s, k, j) (IX(s, k) * NK + (size_t)(j))

static int64_t extra(int k) { return k == slow_rank ? slow_ns : 0; }

static int64_t coll_launch_end(int64_t st, int j)
{
    return st + 10000 + nops * OP_GAP + 5000 + (int64_t)j * COLL_GAP + COLL_LAUNCH_END;
}

static void model(void)
{
    base_busy = 0;
    for (int64_t i = 0; i < nops; i++)
        base_busy += op_dur(i);
    int64_t st = T0;
    for (int s = 0; s < S; s++) {
        st_start[s] = st;
        int64_t *prev = xmalloc((size_t)N * sizeof *prev);
        for (int k = 0; k < N; k++)
            prev[k] = cend[IX(s, k)] = st + GPU_LEAD + base_busy + extra(k) + jit[IX(s, k)];
        for (int j = 0; j < nk; j++) {
            int kind = kinds[j], gsize = CS[kind].n;
            int64_t le = coll_launch_end(st, j);
            for (int g0 = 0; g0 < N; g0 += gsize) {
                int64_t last = 0;
                for (int k = g0; k < g0 + gsize; k++) {
                    int64_t a = prev[k] > le ? prev[k] : le;
                    kst[CX(s, k, kind)] = a;
                    if (a > last)
                        last = a;
                }
                for (int k = g0; k < g0 + gsize; k++)
                    prev[k] = ken[CX(s, k, kind)] = last + CS[kind].transfer;
            }
        }
        int64_t last = coll_launch_end(st, nk) - COLL_LAUNCH_END;
        for (int k = 0; k < N; k++)
            if (prev[k] > last)
                last = prev[k];
        free(prev);
        st_end[s] = last + 3000 + 2000;
        st = st_end[s] + STEP_IDLE;
    }
}

/* ------------------------------------------------------------ one rank */

static int R; /* the rank being written */
static int64_t ext_id, corr;

static inline int64_t rec(int64_t t) { return t - (base_time ? BASE_NS : 0) + offs[R]; }

static bool ev_first;

static inline void ev_begin(void)
{
    room(1 << 16);
    if (ev_first)
        LIT("\n  {");
    else
        LIT(",\n  {");
    ev_first = false;
}

/* A host slice up to its args' opening brace; num >= 0 is appended to the name. */
static void host_x(const char *cat, const char *name, int64_t num, int64_t ts, int64_t dur)
{
    ev_begin();
    LIT("\"ph\": \"X\", \"cat\": \"");
    puts_(cat);
    LIT("\", \"name\": \"");
    puts_(name);
    if (num >= 0)
        put_i(num);
    LIT("\", \"pid\": ");
    put_i(2910249 + R);
    LIT(", \"tid\": ");
    put_i(2910249 + R);
    LIT(", \"ts\": ");
    put_us(rec(ts));
    LIT(", \"dur\": ");
    put_us(dur);
    LIT(", \"args\": {");
}

static void flow_s(int64_t ts)
{
    ev_begin();
    LIT("\"ph\": \"s\", \"id\": ");
    put_i(corr);
    LIT(", \"pid\": ");
    put_i(2910249 + R);
    LIT(", \"tid\": ");
    put_i(2910249 + R);
    LIT(", \"ts\": ");
    put_us(rec(ts));
    LIT(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
}

static void launch(const char *name, int cbid, int64_t ext, int64_t ts, int64_t dur)
{
    host_x("cuda_runtime", name, -1, ts, dur);
    LIT("\"External id\": ");
    put_i(ext);
    LIT(", \"cbid\": ");
    put_i(cbid);
    LIT(", \"correlation\": ");
    put_i(corr);
    LIT("}}");
    flow_s(ts);
}

static void kernel_head(const char *name, int stream, int64_t ext, int64_t ts, int64_t dur)
{
    ev_begin();
    LIT("\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"");
    puts_(name);
    LIT("\", \"pid\": ");
    put_i(R % 8);
    LIT(", \"tid\": ");
    put_i(stream);
    LIT(", \"ts\": ");
    put_us(rec(ts));
    LIT(", \"dur\": ");
    put_us(dur);
    LIT(", \"args\": {\"External id\": ");
    put_i(ext);
    LIT(", \"queued\": 0, \"device\": ");
    put_i(R % 8);
    LIT(", \"context\": 1, \"stream\": ");
    put_i(stream);
    LIT(", \"correlation\": ");
    put_i(corr);
    LIT(", ");
}

static void flow_f(int stream, int64_t ts)
{
    ev_begin();
    LIT("\"ph\": \"f\", \"id\": ");
    put_i(corr);
    LIT(", \"pid\": ");
    put_i(R % 8);
    LIT(", \"tid\": ");
    put_i(stream);
    LIT(", \"ts\": ");
    put_us(rec(ts));
    LIT(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
}

static void coll_args(int kind, int seq)
{
    const ckind *c = &CK[kind];
    const csize *z = &CS[kind];
    LIT("\"Collective name\": \"");
    puts_(c->cname);
    LIT("\", \"In msg nelems\": ");
    put_i(z->in_nel);
    LIT(", \"Out msg nelems\": ");
    put_i(z->out_nel);
    LIT(", \"Group size\": ");
    put_i(z->n);
    LIT(", \"dtype\": \"");
    puts_(c->dtype);
    LIT("\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"");
    put(c->tp ? "1" : "0", 1);
    LIT("\", \"Process Group Description\": \"");
    puts_(c->tp ? "tp" : "default_pg");
    LIT("\", \"Process Group Ranks\": \"");
    puts_(c->tp ? pg_ranks_tp[R / 2] : pg_ranks_default);
    LIT("\", \"Seq\": ");
    put_i(seq);
}

static void write_header(void)
{
    LIT("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    for (int g = 0; g < 8; g++) {
        LIT("    {\"id\": ");
        put_i(g);
        LIT(", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85018279936, \"computeMajor\": 9, \"computeMinor\": 0, "
            "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, \"warpSize\": 32, "
            "\"sharedMemPerBlock\": 49152, \"numSms\": 132, \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
            "\"sharedMemPerMultiprocessor\": 233472}");
        if (g < 7)
            LIT(",\n");
    }
    LIT("\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
    put_i(R);
    LIT(", \"world_size\": ");
    put_i(N);
    LIT(", \"pg_count\": ");
    put_i(tp ? 2 : 1);
    LIT(", \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": ");
    put_i(N);
    LIT(", \"ranks\": ");
    room(strlen(pg_ranks_default) + 4096);
    puts_(pg_ranks_default);
    LIT("}");
    if (tp) {
        LIT(", {\"pg_name\": \"1\", \"pg_desc\": \"tp\", \"backend_config\": \"cuda:nccl\", \"pg_size\": 2, \"ranks\": ");
        puts_(pg_ranks_tp[R / 2]);
        LIT("}");
    }
    LIT("], \"nccl_version\": \"2.20.5\"},\n  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"profile_memory\": 0,\n"
        "  \"traceEvents\": [");
}

static void write_meta(void)
{
    static const char *const names[] = {"process_name", "process_labels", "process_sort_index"};
    for (int gpu = 0; gpu < 2; gpu++)
        for (int i = 0; i < 3; i++) {
            ev_begin();
            LIT("\"name\": \"");
            puts_(names[i]);
            LIT("\", \"ph\": \"M\", \"ts\": ");
            put_us(rec(T0));
            LIT(", \"pid\": ");
            put_i(gpu ? R % 8 : 2910249 + R);
            LIT(", \"tid\": 0, \"args\": {");
            if (i == 0)
                LIT("\"name\": \"python3\"}}");
            else if (i == 1 && gpu) {
                LIT("\"labels\": \"GPU ");
                put_i(R % 8);
                LIT("\"}}");
            } else if (i == 1)
                LIT("\"labels\": \"CPU\"}}");
            else {
                LIT("\"sort_index\": ");
                put_i(gpu ? 5000000 + R % 8 : 2910249 + R);
                LIT("}}");
            }
        }
}

/* Writes rank R's trace (or only counts its bytes when of is NULL). */
static uint64_t write_rank(void)
{
    obytes = on = 0;
    ext_id = 1;
    corr = 600000;
    write_header();
    int seq[2] = {1, 1};
    ev_first = true;
    for (int s = 0; s < S; s++) {
        int64_t st = st_start[s];
        host_x("user_annotation", "ProfilerStep#", s, st, st_end[s] - st);
        LIT("\"External id\": ");
        put_i(ext_id++);
        LIT(", \"Record function id\": 0}}");
        int64_t k = st + GPU_LEAD;
        for (int64_t i = 0; i < nops; i++) {
            const vocab *v = &V[i % NV];
            int64_t h = st + 10000 + i * OP_GAP, e = ext_id;
            if (v->outer) {
                host_x("cpu_op", v->outer, -1, h, 7000);
                LIT("\"External id\": ");
                put_i(ext_id++);
                LIT(", \"Record function id\": 0, ");
                puts_(v->outer_args);
                LIT("}}");
                e = ext_id;
                host_x("cpu_op", v->op, -1, h + 500, 6000);
            } else {
                host_x("cpu_op", v->op, -1, h, 7000);
            }
            LIT("\"External id\": ");
            put_i(ext_id++);
            LIT(", \"Record function id\": 0, ");
            puts_(v->args);
            LIT("}}");
            launch("cudaLaunchKernel", 211, e, h + 1500, 4000);
            int64_t d = op_dur(i) + (i == nops - 1 ? extra(R) + jit[IX(s, R)] : 0);
            kernel_head(v->kernel, 7, e, k, d);
            puts_(v->ktail);
            LIT("}}");
            flow_f(7, k);
            corr++;
            k += d;
        }
        for (int j = 0; j < nk; j++) {
            int kind = kinds[j];
            int64_t h = coll_launch_end(st, j) - COLL_LAUNCH_END, e = ext_id;
            int q = seq[CK[kind].tp]++;
            host_x("cpu_op", "record_param_comms", -1, h, 30000);
            LIT("\"External id\": ");
            put_i(ext_id++);
            LIT(", \"Record function id\": 0, ");
            coll_args(kind, q);
            LIT("}}");
            host_x("user_annotation", CK[kind].ann, -1, h + 2000, 26000);
            LIT("\"External id\": ");
            put_i(ext_id++);
            LIT(", \"Record function id\": 0}}");
            launch("cudaLaunchKernelExC", 430, e, h + 10000, 6000);
            int64_t a = kst[CX(s, R, kind)], b = ken[CX(s, R, kind)];
            kernel_head(CK[kind].kernel, 30, e, a, b - a);
            LIT("\"registers per thread\": 96, \"shared memory\": 87568, \"blocks per SM\": 0.121212, \"warps per SM\": "
                "2.060606, \"grid\": [16, 1, 1], \"block\": [544, 1, 1], \"est. achieved occupancy %\": 0, ");
            coll_args(kind, q);
            LIT("}}");
            flow_f(30, a);
            corr++;
        }
        int64_t h = coll_launch_end(st, nk) - COLL_LAUNCH_END;
        host_x("cuda_runtime", "cudaDeviceSynchronize", -1, h, st_end[s] - 2000 - h);
        LIT("\"cbid\": 165, \"correlation\": ");
        put_i(corr++);
        LIT("}}");
    }
    write_meta();
    LIT("\n  ],\n  \"traceName\": \"rank-");
    put_i(R);
    LIT(".json\",\n  \"displayTimeUnit\": \"ms\"");
    if (base_time) {
        LIT(",\n  \"baseTimeNanoseconds\": ");
        put_i(BASE_NS - offs[R]);
    }
    LIT("\n}\n");
    oflush();
    return obytes;
}

/* ------------------------------------------------------------ planted.json */

/* nccl-tests' bus bandwidth factor, numerator over n */
static int64_t factor_num(int kind, int n) { return CK[kind].cname[0] == 'a' ? 2 * (n - 1) : kind == K_BC ? n : n - 1; }

static void ilist(FILE *f, const int64_t *v, size_t n, size_t stride)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", v[i * stride]);
    fputc(']', f);
}

static void write_planted(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/planted.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "{\n  \"generator\": \"gen_job\",\n  \"world_size\": %d,\n  \"step_count\": %d,\n  \"ops_per_step\": %" PRId64
               ",\n  \"seed\": %" PRIu64 ",\n  \"true_start_ns\": %lld,\n  \"base_time\": %s,\n",
            N, S, nops, seed, T0, base_time ? "true" : "false");
    if (base_time) {
        fputs("  \"base_time_ns\": [", f);
        for (int k = 0; k < N; k++)
            fprintf(f, "%s%lld", k ? ", " : "", BASE_NS - (long long)offs[k]);
        fputs("],\n", f);
    }
    fprintf(f, "  \"slow_rank\": %d,\n  \"slow_extra_ns\": %" PRId64 ",\n  \"offsets_ns\": ", slow_rank,
            slow_rank >= 0 ? slow_ns : 0);
    ilist(f, offs, (size_t)N, 1);
    fprintf(f, ",\n  \"groups\": [\n    {\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"ranks\": %s}", pg_ranks_default);
    for (int j = 0; tp && j < N / 2; j++)
        fprintf(f, ",\n    {\"pg_name\": \"1\", \"pg_desc\": \"tp\", \"ranks\": %s}", pg_ranks_tp[j]);
    fputs("\n  ],\n  \"collectives\": [", f);
    for (int j = 0; j < nk; j++) {
        int kind = kinds[j], n = CS[kind].n;
        int64_t fn = factor_num(kind, n), fd = n;
        fprintf(f,
                "%s\n    {\"kind\": %d, \"collective_name\": \"%s\", \"kernel\": \"%s\", \"pg_name\": \"%s\", "
                "\"pg_desc\": \"%s\", \"group_size\": %d, \"dtype\": \"%s\", \"elem_bytes\": %d, \"in_nelems\": %" PRId64
                ", \"out_nelems\": %" PRId64 ", \"bytes\": %" PRId64 ", \"count_per_rank\": %d, \"instances\": %d, "
                "\"transfer_ns\": %" PRId64 ", \"algbw_GBps\": %" PRId64 ", \"busbw_factor\": %.6f, \"busbw_GBps\": %.6f}",
                j ? "," : "", kind, CK[kind].cname, CK[kind].kernel, CK[kind].tp ? "1" : "0",
                CK[kind].tp ? "tp" : "default_pg", n, CK[kind].dtype, CK[kind].esize, CS[kind].in_nel, CS[kind].out_nel,
                CS[kind].bytes, S, S * (N / n), CS[kind].transfer, CK[kind].algbw, (double)fn / (double)fd,
                (double)(CK[kind].algbw * fn) / (double)fd);
    }
    fputs("\n  ],\n  \"ranks\": [", f);
    int64_t *busy = xmalloc((size_t)S * sizeof *busy), *comm = xmalloc((size_t)S * sizeof *comm),
            *wait = xmalloc((size_t)S * sizeof *wait);
    for (int k = 0; k < N; k++) {
        for (int s = 0; s < S; s++) {
            busy[s] = base_busy + extra(k) + jit[IX(s, k)];
            comm[s] = wait[s] = 0;
            for (int j = 0; j < nk; j++) {
                int kind = kinds[j];
                int64_t d = ken[CX(s, k, kind)] - kst[CX(s, k, kind)];
                comm[s] += d;
                wait[s] += d - CS[kind].transfer;
            }
        }
        fprintf(f, "%s\n    {\"rank\": %d, \"file\": \"rank-%d.json\", \"offset_ns\": %" PRId64 ",\n     \"jitter_ns\": ",
                k ? "," : "", k, k, offs[k]);
        ilist(f, &jit[IX(0, k)], (size_t)S, (size_t)N);
        fputs(",\n     \"compute_busy_ns\": ", f);
        ilist(f, busy, (size_t)S, 1);
        fputs(",\n     \"compute_end_ns\": ", f);
        ilist(f, &cend[IX(0, k)], (size_t)S, (size_t)N);
        fputs(",\n     \"comm_ns\": ", f);
        ilist(f, comm, (size_t)S, 1);
        fputs(",\n     \"step_collective_wait_ns\": ", f);
        ilist(f, wait, (size_t)S, 1);
        fputs("}", f);
    }
    free(busy);
    free(comm);
    free(wait);
    fputs("\n  ],\n  \"steps\": [", f);
    for (int s = 0; s < S; s++) {
        int last = 0;
        for (int k = 1; k < N; k++)
            if (cend[IX(s, k)] > cend[IX(s, last)])
                last = k;
        int64_t w = 0;
        for (int k = 0; k < N; k++)
            w += cend[IX(s, last)] - cend[IX(s, k)];
        fprintf(f,
                "%s\n    {\"step\": %d, \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"last_rank\": %d, \"wait_ns\": %" PRId64
                ", \"collectives\": [",
                s ? "," : "", s, st_start[s], st_end[s], last, w);
        int seq[2] = {1 + s * (nk - (tp ? 1 : 0)), 1 + s};
        for (int j = 0; j < nk; j++) {
            int kind = kinds[j], n = CS[kind].n, q = seq[CK[kind].tp]++;
            for (int g0 = 0; g0 < N; g0 += n) {
                int lr = g0;
                bool same = true;
                int64_t gw = 0;
                for (int k = g0; k < g0 + n; k++) {
                    if (kst[CX(s, k, kind)] > kst[CX(s, lr, kind)])
                        lr = k;
                    same &= kst[CX(s, k, kind)] == kst[CX(s, g0, kind)];
                    gw += ken[CX(s, k, kind)] - kst[CX(s, k, kind)] - CS[kind].transfer;
                }
                fprintf(f, "%s\n      {\"kind\": %d, \"pg_name\": \"%s\", \"ranks\": %s, \"seq\": %d, \"end_ns\": %" PRId64
                           ", \"last_rank\": %d, \"wait_ns\": %" PRId64 "}",
                        j || g0 ? "," : "", kind, CK[kind].tp ? "1" : "0",
                        CK[kind].tp ? pg_ranks_tp[g0 / 2] : pg_ranks_default, q, ken[CX(s, g0, kind)], same ? -1 : lr, gw);
            }
        }
        fputs("\n    ]}", f);
    }
    fputs("\n  ]\n}\n", f);
    if (fclose(f) != 0)
        die("cannot write '%s'", path);
}

/* ------------------------------------------------------------ main */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t gcd(uint64_t a, uint64_t b) { return b ? gcd(b, a % b) : a; }

static int64_t num_arg(const char *s, int64_t lo, int64_t hi, const char *what)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "gen_job: bad %s '%s' (%lld..%lld)\n", what, s, (long long)lo, (long long)hi);
        usage();
    }
    return v;
}

static uint64_t parse_size(const char *s)
{
    char *end;
    double n = strtod(s, &end), m = 1;
    if (!strcmp(end, "Ki") || !strcmp(end, "ki"))
        m = 1024;
    else if (!strcmp(end, "K") || !strcmp(end, "k"))
        m = 1e3;
    else if (!strcmp(end, "Mi"))
        m = 1048576;
    else if (!strcmp(end, "M") || !strcmp(end, "m"))
        m = 1e6;
    else if (!strcmp(end, "Gi"))
        m = 1073741824.0;
    else if (!strcmp(end, "G") || !strcmp(end, "g"))
        m = 1e9;
    else if (*end || end == s)
        m = -1;
    if (m < 0 || !(n > 0) || n * m > 1e13) {
        fprintf(stderr, "gen_job: bad size '%s'\n", s);
        usage();
    }
    return (uint64_t)(n * m);
}

static char *ranks_str(int a, int n)
{
    char *p = xmalloc((size_t)n * 7 + 4), *q = p;
    *q++ = '[';
    for (int k = a; k < a + n; k++)
        q += sprintf(q, "%s%d", k > a ? ", " : "", k);
    strcpy(q, "]");
    return p;
}

static void setup(void)
{
    free(cend), free(kst), free(ken);
    cend = xmalloc((size_t)S * (size_t)N * sizeof *cend);
    kst = xmalloc((size_t)S * (size_t)N * NK * sizeof *kst);
    ken = xmalloc((size_t)S * (size_t)N * NK * sizeof *ken);
    model();
}

int main(int argc, char **argv)
{
    const char *out = NULL, *offsets = NULL;
    uint64_t size = 0, oseed = 0;
    bool have_oseed = false, have_slow = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG() (i + 1 < argc ? argv[++i] : (usage(), ""))
        if (!strcmp(a, "--ranks"))
            N = (int)num_arg(ARG(), 2, MAX_RANKS, "--ranks");
        else if (!strcmp(a, "--out"))
            out = ARG();
        else if (!strcmp(a, "--size"))
            size = parse_size(ARG());
        else if (!strcmp(a, "--steps"))
            S = (int)num_arg(ARG(), 1, 100000, "--steps");
        else if (!strcmp(a, "--slow-rank"))
            slow_rank = (int)num_arg(ARG(), -1, MAX_RANKS, "--slow-rank"), have_slow = true;
        else if (!strcmp(a, "--slow-us"))
            slow_ns = num_arg(ARG(), 0, 10000000, "--slow-us") * 1000;
        else if (!strcmp(a, "--offsets-us"))
            offsets = ARG();
        else if (!strcmp(a, "--offset-seed"))
            oseed = (uint64_t)num_arg(ARG(), 0, INT64_MAX, "--offset-seed"), have_oseed = true;
        else if (!strcmp(a, "--seed"))
            seed = (uint64_t)num_arg(ARG(), 0, INT64_MAX, "--seed");
        else if (!strcmp(a, "--base-time"))
            base_time = true;
        else if (!strcmp(a, "-q"))
            quiet = true;
        else
            usage();
#undef ARG
    }
    if (!N || !out || (offsets && have_oseed))
        usage();
    if (!have_slow)
        slow_rank = N - 1;
    if (slow_ns == 0)
        slow_rank = -1;
    if (slow_rank >= N) {
        fprintf(stderr, "gen_job: --slow-rank %d is not below --ranks %d\n", slow_rank, N);
        usage();
    }
    offs = xmalloc((size_t)N * sizeof *offs);
    if (offsets) {
        int64_t v[MAX_RANKS + 1];
        int n = 0;
        char *buf = strdup(offsets), *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (n > MAX_RANKS)
                usage();
            v[n++] = num_arg(t, -50000, 50000, "offset (us)") * 1000;
        }
        free(buf);
        if (n == N && v[0] == 0)
            memcpy(offs, v, (size_t)N * sizeof *offs);
        else if (n == N - 1)
            memcpy(offs + 1, v, (size_t)n * sizeof *offs);
        else {
            fprintf(stderr, "gen_job: --offsets-us needs %d values starting with 0, or %d values\n", N, N - 1);
            usage();
        }
    } else {
        uint64_t x = have_oseed ? oseed : seed ^ 0x5eedULL;
        for (int k = 1; k < N; k++)
            offs[k] = ((int64_t)(splitmix(&x) % 100001) - 50000) * 1000;
    }
    tp = N >= 4 && N % 2 == 0;
    for (int kind = 0; kind < NK; kind++) {
        if (CK[kind].tp && !tp)
            continue;
        kinds[nk++] = kind;
        csize *z = &CS[kind];
        z->n = CK[kind].tp ? 2 : N;
        z->in_nel = z->out_nel = CK[kind].nel;
        if (kind == K_AG)
            z->out_nel *= z->n;
        if (kind == K_RS)
            z->in_nel *= z->n;
        z->bytes = (z->in_nel > z->out_nel ? z->in_nel : z->out_nel) * CK[kind].esize;
        if (z->bytes % CK[kind].algbw)
            die("internal: %s size not a multiple of its algbw", CK[kind].cname);
        z->transfer = z->bytes / CK[kind].algbw;
    }
    /* the jitter: 3 ns x a per-step permutation of the ranks */
    jit = xmalloc((size_t)S * (size_t)N * sizeof *jit);
    uint64_t x = seed;
    uint64_t mult = 7919 + 2 * (splitmix(&x) % 1000);
    while (gcd(mult, (uint64_t)N) != 1)
        mult += 2;
    for (int s = 0; s < S; s++)
        for (int k = 0; k < N; k++)
            jit[IX(s, k)] = 3 * (int64_t)(((uint64_t)k * mult + (uint64_t)s * 7 + seed) % (uint64_t)N);
    pg_ranks_default = ranks_str(0, N);
    if (tp) {
        pg_ranks_tp = xmalloc((size_t)(N / 2) * sizeof *pg_ranks_tp);
        for (int j = 0; j < N / 2; j++)
            pg_ranks_tp[j] = ranks_str(2 * j, 2);
    }
    st_start = xmalloc((size_t)S * sizeof *st_start);
    st_end = xmalloc((size_t)S * sizeof *st_end);
    ob = xmalloc(OBUF);
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        die("cannot create '%s': %s", out, strerror(errno));

    if (size) { /* the bytes grow linearly with the ops: two trials, then one correction */
        R = 0;
        nops = 64, setup();
        uint64_t s1 = write_rank();
        nops = 128, setup();
        uint64_t s2 = write_rank();
        double per = (double)(s2 - s1) / 64, fixed = (double)s1 - 64 * per;
        nops = (int64_t)(((double)size - fixed) / per + 0.5);
        if (nops < 64)
            nops = 64;
        setup();
        uint64_t s3 = write_rank();
        nops += (int64_t)(((double)size - (double)s3) / per);
        if (nops < 64)
            nops = 64;
    }
    setup();
    uint64_t total = 0;
    for (R = 0; R < N; R++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rank-%d.json", out, R);
        of = fopen(path, "wb");
        if (!of)
            die("cannot write '%s': %s", path, strerror(errno));
        total += write_rank();
        if (fclose(of) != 0)
            die("cannot write '%s': %s", path, strerror(errno));
        of = NULL;
    }
    write_planted(out);
    if (!quiet)
        fprintf(stderr, "gen_job: %s: %d ranks, %d steps, %" PRId64 " ops a step, %.1f MB\n", out, N, S, nops,
                (double)total / 1e6);
    return 0;
}
