/* gen_kineto.c: a fast, deterministic generator of synthetic PyTorch
 * profiler (Kineto) Chrome-trace JSON, for benchmarks and tests.
 *
 *   gen_kineto (--size SIZE | --events N) [options] OUT
 *
 * OUT is a file name or '-' for stdout.  SIZE takes K, M, G suffixes in
 * powers of 1000 (Ki, Mi, Gi for powers of 1024); it is the size of the
 * uncompressed JSON, also with --gzip.  The same arguments always give the
 * same bytes (seeded PRNG, no clock, gzip header without a time stamp).
 *
 * What the output imitates (see ../shared/specs/KINETO.md section 1 and the
 * samples in ../shared/external/kineto/):
 *  - modern layout (default, Kineto 2024): {"schemaVersion": 1,
 *    "deviceProperties": [...], "distributedInfo": {...}, "traceEvents": [...],
 *    "traceName", "displayTimeUnit"}; ts/dur in epoch microseconds with three
 *    decimals (ns); Kineto's own line layout and argument spelling.
 *  - every step: a `ProfilerStep#N` user_annotation on the main thread holding
 *    Optimizer.zero_grad, a DataLoader annotation, the host-to-device copies,
 *    a DistributedDataParallel.forward annotation with the forward layers
 *    (cpu_op trees such as aten::linear > aten::addmm with "Input Dims",
 *    "Input type", "Input Strides", "Concrete Inputs", "Sequence number"),
 *    the loss, then the backward pass on the autograd thread
 *    ("autograd::engine::evaluate_function: AddmmBackward0" > AddmmBackward0 >
 *    aten::mm ...) linked to its forward op by a fwdbwd flow, all-reduces
 *    (record_param_comms > nccl:all_reduce, NCCL kernel on stream 20), the
 *    optimizer step and a final aten::item that waits for the GPU.
 *  - every kernel launch: a cuda_runtime cudaLaunchKernel (cbid 211,
 *    correlation) nested in its op, the kernel on GPU pid 0 / stream tid 7
 *    with the same correlation, launch/grid/block/occupancy args, and an ac2g
 *    flow pair ('s' on the launch, 'f' "bp":"e" on the kernel); copies and
 *    fills as cudaMemcpyAsync/cudaMemsetAsync with gpu_memcpy/gpu_memset;
 *    cudaStreamIsCapturing calls with the dangling ac2g 'f' of newer Kineto.
 *  - Kineto's file order: per step, the host section (cpu_op and
 *    user_annotation, parents before children, fwdbwd flows), then the
 *    device section in correlation order (device activity + 'f', then its
 *    runtime call + 's'); a gpu_user_annotation for the step on stream 7;
 *    'M' process/thread metadata, the "PyTorch Profiler (0)" span on string
 *    pid/tid "Spans"/"PyTorch Profiler" and the global instants at the end.
 *  - --old: the PyTorch 1.8 (Dec 2020) layout: a bare top-level array,
 *    categories Operator/Runtime/Kernel/Memcpy/Memset, string tids
 *    ("4093687616", "stream 7") except on the flow 's' (integer tid), flows
 *    cat "async" name "launch", integer microseconds, lower-case
 *    "external id" = the enclosing op's External id, children before parents.
 *
 * Slices nest properly on every host thread and never overlap on a stream
 * (clean input); --quirks adds the breakage real files have.
 *
 * options:
 *   --size SIZE      stop at the first step boundary at or after SIZE bytes
 *                    (the last step is shortened to land close to SIZE)
 *   --events N       stop when at least N trace events were written
 *                    (then steps are small: a few layers each)
 *   --gzip           write gzip (zlib, level --level, default 6)
 *   --level N        gzip level 1-9
 *   --seed N         PRNG seed (default 1)
 *   --old            PyTorch 1.8 layout (see above)
 *   --base-time      Kineto 2024 style: top-level "baseTimeNanoseconds" and
 *                    small relative ts (modern layout only)
 *   --layers N       forward layers per step (default 300)
 *   --kernels N      make the kernel names N-way distinct (suffix _vK), for the
 *                    "a million distinct kernel names" edge case
 *   --quirks         add what real files have wrong: a trailing {} event, a
 *                    runtime call on a negative tid, an integer beyond int64
 *                    in args, an invalid UTF-8 byte in one op name
 *   --summary FILE   write the exact counts of what was generated as JSON
 *   -q               no summary line on stderr
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ------------------------------------------------------------------ output */

#define OUTBUF (1u << 22)
static char *ob;          /* output buffer */
static size_t on;         /* bytes in it */
static uint64_t written;  /* uncompressed bytes so far */
static FILE *ofile;
static bool gz;
static z_stream zs;
static unsigned char *zbuf;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_kineto: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void zwrite(int flush)
{
    do {
        zs.next_out = zbuf;
        zs.avail_out = OUTBUF;
        int r = deflate(&zs, flush);
        if (r == Z_STREAM_ERROR)
            die("deflate failed");
        size_t have = OUTBUF - zs.avail_out;
        if (have && fwrite(zbuf, 1, have, ofile) != have)
            die("write failed: %s", strerror(errno));
    } while (zs.avail_out == 0 || (flush == Z_FINISH && zs.avail_in));
}

static void flush_out(int final)
{
    if (gz) {
        zs.next_in = (unsigned char *)ob;
        zs.avail_in = (uInt)on;
        zwrite(final ? Z_FINISH : Z_NO_FLUSH);
    } else if (on && fwrite(ob, 1, on, ofile) != on) {
        die("write failed: %s", strerror(errno));
    }
    written += on;
    on = 0;
}

/* Make room for n more bytes (every event is far below 64 KiB). */
static inline void room(size_t n)
{
    if (on + n > OUTBUF)
        flush_out(0);
}

static inline void put(const char *s, size_t n)
{
    memcpy(ob + on, s, n);
    on += n;
}
#define LIT(s) put(s, sizeof(s) - 1)
static inline void puts_(const char *s) { put(s, strlen(s)); }
static inline void putc_(char c) { ob[on++] = c; }

static inline void put_u64(uint64_t v)
{
    char t[24];
    int i = 24;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(t + i, (size_t)(24 - i));
}

static inline void put_i64(int64_t v)
{
    if (v < 0) {
        putc_('-');
        put_u64((uint64_t)0 - (uint64_t)v);
    } else {
        put_u64((uint64_t)v);
    }
}

/* v / 10^d printed with exactly d decimals (v >= 0). */
static inline void put_fixed(int64_t v, int d)
{
    static const int64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    put_u64((uint64_t)(v / p10[d]));
    if (d) {
        int64_t f = v % p10[d];
        putc_('.');
        for (int k = d - 1; k >= 0; k--) {
            ob[on + (size_t)k] = (char)('0' + f % 10);
            f /= 10;
        }
        on += (size_t)d;
    }
}

/* ------------------------------------------------------------------- PRNG */

static uint64_t rng_state;
static inline uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline uint32_t rndn(uint32_t n) { return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32); }
static inline int64_t rrange(int64_t lo, int64_t hi) { return lo + (int64_t)rndn((uint32_t)(hi - lo + 1)); }
static inline bool chance(uint32_t percent) { return rndn(100) < percent; }

/* --------------------------------------------------------------- options */

static bool opt_old, opt_base_time, opt_quirks, opt_quiet;
static uint64_t opt_size, opt_events;
static uint64_t opt_seed = 1;
static int opt_layers = 300, opt_level = 6;
static uint32_t opt_kernels;
static int64_t Q = 1; /* time quantum in ns: 1000 for --old (integer us) */

static const int64_t PID = 1102 * 1000 + 41; /* host pid */
#define MAIN_TID 1102041
#define BWD_TID 1102203
#define OLD_MAIN_TID "4093687616"
#define OLD_BWD_TID "2662278912"
#define COMPUTE_STREAM 7
#define NCCL_STREAM 20

/* ------------------------------------------------------------ kernel names */

enum fam {
    F_GEMM, F_EW, F_FILL, F_REDUCE, F_CONV, F_CONVW, F_BN, F_BNB, F_EMB, F_EMBB, F_CAT,
    F_INDEX, F_SOFTMAX, F_SOFTMAXB, F_OPTIM, F_NCCL, F_SORT, NFAM
};

static const char *const gemm_names[] = {
    "ampere_sgemm_32x32_sliced1x4_nn", "ampere_sgemm_32x32_sliced1x4_nt", "ampere_sgemm_32x32_sliced1x4_tn",
    "ampere_sgemm_64x32_sliced1x4_nn", "ampere_sgemm_64x32_sliced1x4_tn", "ampere_sgemm_64x64_nn",
    "ampere_sgemm_64x64_nt", "ampere_sgemm_64x64_tn", "ampere_sgemm_128x32_nn", "ampere_sgemm_128x32_tn",
    "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nt", "ampere_sgemm_128x64_tn", "ampere_sgemm_128x128_nn",
    "ampere_sgemm_128x128_nt", "ampere_sgemm_128x128_tn",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4::Params)",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_16x3_nt_align4>(cutlass_80_tensorop_s1688gemm_256x128_16x3_nt_align4::Params)",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)",
    "void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
};
static const char *const ew_functors[] = {
    "AddFunctor<float>", "MulFunctor<float>", "(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}",
    "BinaryFunctor<float, float, float, at::native::binary_internal::DivFunctor<float> >", "CUDAFunctor_add<float>",
    "AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >",
    "BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >",
    "sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}",
    "threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}",
    "neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}",
    "sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}",
    "mse_backward_cuda_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(float, float, float)#1}",
};
static const char *const reduce_ops[] = {
    "MeanOps<float, float, float, float>", "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>",
    "NormTwoOps<float, float, float>", "MaxOps<float>", "ArgMaxOps<float>",
};
static const char *const conv_names[] = {
    "void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
    "void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x64x32_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
    "void cudnn::cnn::conv2d_grouped_direct_kernel<false, true, false, false, 0, 0, int, float, float, float, float, float, float>(cudnn::cnn::GroupedDirectFpropParams, float const*, float const*, float*, float, float*, float const*, float const*, float)",
    "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
    "void cudnn::ops::nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>(cudnn::ops::nhwc2nchw_params_t<float>, float const*, float*)",
};
static const char *const convw_names[] = {
    "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
    "void cudnn::cnn::wgrad_alg0_engine<float, 512, 6, 5, 3, 3, 3, false, 512>(int, int, int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
    "sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
    "sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
    "void cudnn::engines_precompiled::scalePackedTensor_kernel<float, float>(cudnnTensor4dStruct, float*, float)",
};
static const char *const bn_names[] = {
    "void at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, float, float, int>(at::GenericPackedTensorAccessor<float const, 3ul, at::RestrictPtrTraits, int>, float, float, at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, int>)",
    "void at::native::batch_norm_transform_input_kernel<float, float, float, true, int>(at::GenericPackedTensorAccessor<float const, 3ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float, 3ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<std::conditional<true, float, float>::type const, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<std::conditional<true, float, float>::type const, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float const, 1ul, at::RestrictPtrTraits, int>, at::GenericPackedTensorAccessor<float const, 1ul, at::RestrictPtrTraits, int>, float)",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
};
static const char *const bnb_names[] = {
    "void at::native::batch_norm_backward_reduce_kernel<float, float, float, int>(at::GenericPackedTensorAccessor<float const, 3ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float const, 3ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>, at::GenericPackedTensorAccessor<float, 1ul, at::DefaultPtrTraits, int>)",
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, float)",
};
static const char *const emb_names[] = {
    "void at::native::(anonymous namespace)::EmbeddingBag_updateOutputKernel_sum_mean<float, long>(long const*, long const*, float const*, float*, long*, long, long, long, long, long, long, float const*, long, long)",
    "void at::native::(anonymous namespace)::embedding_bag_nbits_rowwise_offsets_kernel<float, long, 4>(at::GenericPackedTensorAccessor<unsigned char const, 2ul, at::RestrictPtrTraits, long>, long const*, long const*, float*)",
    "void at::native::(anonymous namespace)::indexing_backward_kernel<float, 4>(long const*, long const*, float const*, float*, long, long, long, long, bool)",
};
static const char *const embb_names[] = {
    "void at::native::(anonymous namespace)::compute_grad_weight_bags<float, long>(long const*, float const*, long const*, long const*, long const*, long, long, long, long, long, long, float const*, long, long, long const*, float*)",
    "void at::native::(anonymous namespace)::sum_and_scatter<float, long>(long const*, float*, long, float const*, long const*, long const*, long, long const*, long)",
    "void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long const*, long, long)",
    "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, long, int, int>(int*, int*, long*, long*, long const*, long const*, int, int, int)",
};
static const char *const cat_names[] = {
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 2, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
};
static const char *const index_names[] = {
    "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&)::{lambda(int)#1})",
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
};
static const char *const optim_names[] = {
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*>(...)",
};
static const char *const nccl_names[] = {
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
};
static const char *const sort_names[] = {
    "void at_cuda_detail::cub::DeviceRadixSortHistogramKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, int>(int*, long const*, int, int, int)",
    "void at_cuda_detail::cub::DeviceScanKernel<at_cuda_detail::cub::DeviceScanPolicy<int>::Policy600, int*, int*, at_cuda_detail::cub::ScanTileState<int, true>, std::plus<int>, at_cuda_detail::cub::NullType, int>(int*, int*, at_cuda_detail::cub::ScanTileState<int, true>, int, std::plus<int>, at_cuda_detail::cub::NullType, int)",
};

#define MAXK 256
static char *knames[MAXK];    /* every distinct kernel name */
static int64_t kbase[MAXK];   /* its typical duration, ns */
static int16_t kregs[MAXK], kshm[MAXK];
static int nk;
static int fam_first[NFAM], fam_count[NFAM];

static int add_kernel(const char *name, int64_t lo, int64_t hi)
{
    knames[nk] = strdup(name);
    if (!knames[nk])
        die("out of memory");
    /* log-uniform-ish typical duration between lo and hi ns */
    double u = (double)rndn(1000) / 1000.0;
    double v = (double)lo;
    while (u > 0 && v < (double)hi) { /* v * (hi/lo)^u without libm pow */
        v *= 1.0 + u * 0.25;
        u -= 0.05;
    }
    kbase[nk] = (int64_t)v;
    kregs[nk] = (int16_t)(16 + 8 * rndn(12));
    kshm[nk] = (int16_t)(rndn(4) ? 0 : 1024 * rndn(48));
    return nk++;
}

static void add_family(int f, const char *const *names, int n, int64_t lo, int64_t hi)
{
    fam_first[f] = nk;
    for (int i = 0; i < n; i++)
        add_kernel(names[i], lo, hi);
    fam_count[f] = n;
}

static void init_kernels(void)
{
    char b[1024];
    add_family(F_GEMM, gemm_names, (int)(sizeof gemm_names / sizeof *gemm_names), 8000, 900000);
    fam_first[F_EW] = nk;
    for (size_t i = 0; i < sizeof ew_functors / sizeof *ew_functors; i++)
        for (int vec = 0; vec < 2; vec++) {
            if (vec)
                snprintf(b, sizeof b,
                         "void at::native::vectorized_elementwise_kernel<4, at::native::%s, at::detail::Array<char*, 3> >(int, at::native::%s, at::detail::Array<char*, 3>)",
                         ew_functors[i], ew_functors[i]);
            else
                snprintf(b, sizeof b,
                         "void at::native::unrolled_elementwise_kernel<at::native::%s, at::detail::Array<char*, 3>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast>(int, at::native::%s, at::detail::Array<char*, 3>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast)",
                         ew_functors[i], ew_functors[i]);
            add_kernel(b, 1500, 120000);
        }
    fam_count[F_EW] = nk - fam_first[F_EW];
    fam_first[F_FILL] = nk;
    add_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)", 1200, 30000);
    add_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<long>, at::detail::Array<char*, 1>)", 1200, 8000);
    fam_count[F_FILL] = 2;
    fam_first[F_REDUCE] = nk;
    for (size_t i = 0; i < sizeof reduce_ops / sizeof *reduce_ops; i++)
        for (int w = 0; w < 2; w++) {
            snprintf(b, sizeof b,
                     "void at::native::reduce_kernel<%d, %d, at::native::ReduceOp<float, at::native::%s, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::%s, unsigned int, float, 4>)",
                     w ? 128 : 512, w ? 4 : 1, reduce_ops[i], reduce_ops[i]);
            add_kernel(b, 3000, 150000);
        }
    fam_count[F_REDUCE] = nk - fam_first[F_REDUCE];
    add_family(F_CONV, conv_names, (int)(sizeof conv_names / sizeof *conv_names), 20000, 1500000);
    add_family(F_CONVW, convw_names, (int)(sizeof convw_names / sizeof *convw_names), 20000, 2000000);
    add_family(F_BN, bn_names, (int)(sizeof bn_names / sizeof *bn_names), 5000, 300000);
    add_family(F_BNB, bnb_names, (int)(sizeof bnb_names / sizeof *bnb_names), 8000, 400000);
    add_family(F_EMB, emb_names, (int)(sizeof emb_names / sizeof *emb_names), 10000, 800000);
    add_family(F_EMBB, embb_names, (int)(sizeof embb_names / sizeof *embb_names), 5000, 600000);
    add_family(F_CAT, cat_names, (int)(sizeof cat_names / sizeof *cat_names), 2000, 60000);
    add_family(F_INDEX, index_names, (int)(sizeof index_names / sizeof *index_names), 3000, 90000);
    fam_first[F_SOFTMAX] = nk;
    for (int l = 1; l <= 10; l++) {
        snprintf(b, sizeof b,
                 "void (anonymous namespace)::softmax_warp_forward<float, float, float, %d, true, false>(float*, float const*, int, int, int, bool const*, int, bool)", l);
        add_kernel(b, 2000, 100000);
    }
    fam_count[F_SOFTMAX] = 10;
    fam_first[F_SOFTMAXB] = nk;
    for (int l = 1; l <= 10; l++) {
        snprintf(b, sizeof b,
                 "void (anonymous namespace)::softmax_warp_backward<float, float, float, %d, true, false>(float*, float const*, float const*, int, int, int, bool const*)", l);
        add_kernel(b, 2000, 100000);
    }
    fam_count[F_SOFTMAXB] = 10;
    add_family(F_OPTIM, optim_names, (int)(sizeof optim_names / sizeof *optim_names), 20000, 900000);
    add_family(F_NCCL, nccl_names, (int)(sizeof nccl_names / sizeof *nccl_names), 200000, 3000000);
    add_family(F_SORT, sort_names, (int)(sizeof sort_names / sizeof *sort_names), 3000, 40000);
}

/* ------------------------------------------------------------- the events */

enum kind { E_OP, E_ANNOT, E_RUNTIME, E_KERNEL, E_MEMCPY, E_MEMSET, E_GPU_ANNOT };
enum sig { S_NONE, S_EMPTY, S_MM, S_ADDMM, S_EW2, S_EW1, S_CONV, S_BN, S_EMB, S_CAT, S_TO, S_LOSS, S_FOREACH, S_COMM, S_ITEM };

typedef struct ev {
    int64_t ts, dur;        /* ns */
    const char *name;
    int64_t ext;            /* External id (host ops), enclosing op's id (runtime/device) */
    int64_t corr;           /* correlation (runtime and device) */
    int64_t bytes;          /* memcpy/memset size; all-reduce elements */
    int32_t seq;            /* Sequence number, -1 none */
    int32_t flow;           /* fwdbwd flow id: >0 's' here, <0 'f' here, 0 none */
    int32_t dev;            /* runtime: index of its device activity in dev[], -1 none */
    int32_t rf;             /* Record function id */
    int32_t evidx;          /* Ev Idx */
    int32_t parent;         /* index of the parent host event, -1 root */
    int16_t kernel;         /* kernel table index */
    int16_t cbid;
    uint8_t kind, sig, tid, stream; /* tid: 0 main, 1 autograd, 2 negative-tid helper */
    uint16_t b, h, w;       /* shape parameters for args */
    uint32_t variant;       /* --kernels suffix */
} ev;

typedef struct {
    ev *v;
    size_t n, cap;
} evvec;

static int32_t push(evvec *a, ev e)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4096;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v)
            die("out of memory");
    }
    a->v[a->n] = e;
    return (int32_t)a->n++;
}

static evvec host, rt, dev;     /* one step: host ops, runtime calls, device activities */
static int64_t now[3];          /* per host thread: current time, ns */
static int64_t stream_free[32]; /* per stream: when the GPU is idle again */
static int64_t next_ext = 1, next_corr = 60000, next_flow = 1, next_rf = 1;
static int32_t evidx_ctr;
static int32_t seq_ctr = 18000;
static int32_t stack[64];
static int depth;
static uint64_t n_events, n_kernels, n_memcpy, n_memset, n_runtime, n_ops, n_annot, n_flows, n_steps,
    n_gpu_annot, n_meta;
static uint64_t per_kernel_count[MAXK];
static bool quirk_negtid_done, quirk_utf8_done, quirk_bigint_done;

static inline int64_t quant(int64_t ns) /* round to the time quantum, at least one quantum */
{
    int64_t q = ns / Q * Q;
    return q < Q ? Q : q;
}
static inline int64_t tinc(int64_t lo, int64_t hi) { return quant(rrange(lo, hi)); }

/* Open a host event on thread tid at its current time. */
static int32_t open_ev(int kind, int tid, const char *name, int sig)
{
    ev e = {0};
    e.kind = (uint8_t)kind;
    e.tid = (uint8_t)tid;
    e.name = name;
    e.sig = (uint8_t)sig;
    e.ts = now[tid];
    e.ext = next_ext++;
    e.rf = (int32_t)(next_rf++);
    e.evidx = evidx_ctr++;
    e.seq = -1;
    e.dev = -1;
    e.parent = depth ? stack[depth - 1] : -1;
    e.b = (uint16_t)(1u << (5 + rndn(3)));
    e.h = (uint16_t)(64u << rndn(5));
    e.w = (uint16_t)(64u << rndn(5));
    int32_t i = push(&host, e);
    if (depth >= 64)
        die("op nesting too deep");
    stack[depth++] = i;
    now[tid] += tinc(1000, 6000);
    return i;
}

static void close_ev(void)
{
    int32_t i = stack[--depth];
    ev *e = &host.v[i];
    now[e->tid] += tinc(1000, 5000);
    e->dur = now[e->tid] - e->ts;
}

/* A leaf host op (no children): its own short duration. */
static int32_t leaf_op(int tid, const char *name, int sig)
{
    int32_t i = open_ev(E_OP, tid, name, sig);
    now[tid] += tinc(1000, 8000);
    close_ev();
    return i;
}

static int pick_kernel(int fam) { return fam_first[fam] + (int)rndn((uint32_t)fam_count[fam]); }

/* A runtime call from the innermost open op on thread tid; with kernel >= 0
 * (or a copy/fill kind) it starts a device activity on a stream. */
static void runtime_call(int tid, const char *name, int cbid, int devkind, int kernel, int stream, int64_t bytes)
{
    ev r = {0};
    r.kind = E_RUNTIME;
    r.tid = (uint8_t)tid;
    r.name = name;
    r.cbid = (int16_t)cbid;
    r.ts = now[tid];
    r.ext = depth ? host.v[stack[depth - 1]].ext : 0;
    r.corr = next_corr++;
    r.dev = -1;
    r.seq = -1;
    r.parent = depth ? stack[depth - 1] : -1;
    int64_t launch = tinc(2500, 9000);
    r.dur = launch;
    if (opt_quirks && !quirk_negtid_done && cbid == 317) {
        r.tid = 2; /* cudaStreamIsCapturing from a helper thread with a negative tid */
        quirk_negtid_done = true;
    }
    if (devkind >= 0) {
        ev d = {0};
        d.kind = (uint8_t)devkind;
        d.stream = (uint8_t)stream;
        d.corr = r.corr;
        d.ext = r.ext;
        d.seq = -1;
        d.kernel = (int16_t)kernel;
        d.bytes = bytes;
        d.parent = -1;
        d.tid = 0;
        d.variant = opt_kernels ? rndn(opt_kernels) : 0;
        int64_t start = r.ts + tinc(3000, 12000);
        if (start < stream_free[stream])
            start = stream_free[stream] + tinc(500, 3000);
        int64_t dur;
        if (devkind == E_KERNEL) {
            int64_t base = kbase[kernel];
            dur = quant(base * (70 + (int64_t)rndn(61)) / 100);
            d.name = knames[kernel];
            n_kernels++;
            per_kernel_count[kernel]++;
        } else {
            dur = quant(1000 + bytes / (devkind == E_MEMCPY ? 12 : 400)); /* ~12 GB/s copies, ~400 GB/s fills */
            if (devkind == E_MEMCPY)
                n_memcpy++;
            else
                n_memset++;
        }
        d.ts = start;
        d.dur = dur;
        stream_free[stream] = start + dur;
        r.dev = push(&dev, d);
    }
    push(&rt, r);
    n_runtime++;
    now[tid] += launch + tinc(500, 2000);
}

static void launch(int tid, int fam)
{
    if (chance(4))
        runtime_call(tid, "cudaStreamIsCapturing", 317, -1, 0, 0, 0);
    int k = pick_kernel(fam);
    runtime_call(tid, fam == F_NCCL ? "cudaLaunchKernelExC" : "cudaLaunchKernel", fam == F_NCCL ? 430 : 211,
                 E_KERNEL, k, fam == F_NCCL ? NCCL_STREAM : COMPUTE_STREAM, 0);
}

static void empty_op(int tid)
{
    leaf_op(tid, "aten::empty", S_EMPTY);
}

/* ---- forward layer templates: (name, signature, body) ---- */
enum layer { L_LINEAR, L_CONV, L_BN, L_RELU, L_ADD, L_EMB, L_CAT, L_INDEX, L_SOFTMAX, L_SIGMOID, NLAYER };
static const char *const bwd_names[NLAYER] = {
    "AddmmBackward0", "ConvolutionBackward0", "CudnnBatchNormBackward0", "ReluBackward0", "AddBackward0",
    "EmbeddingBagBackward0", "CatBackward0", "IndexBackward0", "SoftmaxBackward0", "SigmoidBackward0",
};

static void forward_layer(int l, int tid)
{
    switch (l) {
    case L_LINEAR:
        open_ev(E_OP, tid, "aten::linear", S_ADDMM);
        open_ev(E_OP, tid, "aten::t", S_EW1);
        leaf_op(tid, "aten::transpose", S_EW1);
        close_ev();
        open_ev(E_OP, tid, "aten::addmm", S_ADDMM);
        launch(tid, F_GEMM);
        if (chance(20))
            launch(tid, F_GEMM); /* split-K reduce and friends */
        close_ev();
        close_ev();
        break;
    case L_CONV:
        open_ev(E_OP, tid, "aten::conv2d", S_CONV);
        open_ev(E_OP, tid, "aten::convolution", S_CONV);
        open_ev(E_OP, tid, "aten::_convolution", S_CONV);
        open_ev(E_OP, tid, "aten::cudnn_convolution", S_CONV);
        empty_op(tid);
        launch(tid, F_CONV);
        if (chance(50))
            launch(tid, F_CONV);
        close_ev();
        close_ev();
        close_ev();
        close_ev();
        break;
    case L_BN:
        open_ev(E_OP, tid, "aten::batch_norm", S_BN);
        open_ev(E_OP, tid, "aten::_batch_norm_impl_index", S_BN);
        open_ev(E_OP, tid, "aten::cudnn_batch_norm", S_BN);
        empty_op(tid);
        empty_op(tid);
        launch(tid, F_BN);
        close_ev();
        close_ev();
        close_ev();
        break;
    case L_RELU:
        open_ev(E_OP, tid, "aten::relu_", S_EW1);
        open_ev(E_OP, tid, "aten::clamp_min_", S_EW1);
        launch(tid, F_EW);
        close_ev();
        close_ev();
        break;
    case L_ADD:
        open_ev(E_OP, tid, "aten::add", S_EW2);
        launch(tid, F_EW);
        close_ev();
        break;
    case L_EMB:
        open_ev(E_OP, tid, "aten::embedding_bag", S_EMB);
        open_ev(E_OP, tid, "aten::_embedding_bag", S_EMB);
        empty_op(tid);
        runtime_call(tid, "cudaMemsetAsync", 51, E_MEMSET, 0, COMPUTE_STREAM, 4096 << rndn(8));
        launch(tid, F_EMB);
        close_ev();
        close_ev();
        break;
    case L_CAT:
        open_ev(E_OP, tid, "aten::cat", S_CAT);
        launch(tid, F_CAT);
        close_ev();
        break;
    case L_INDEX:
        open_ev(E_OP, tid, "aten::index", S_EMB);
        leaf_op(tid, "aten::empty_strided", S_EMPTY);
        launch(tid, F_INDEX);
        close_ev();
        break;
    case L_SOFTMAX:
        open_ev(E_OP, tid, "aten::softmax", S_EW1);
        open_ev(E_OP, tid, "aten::_softmax", S_EW1);
        launch(tid, F_SOFTMAX);
        close_ev();
        close_ev();
        break;
    default:
        open_ev(E_OP, tid, "aten::sigmoid", S_EW1);
        launch(tid, F_EW);
        close_ev();
        break;
    }
}

static void backward_layer(int l, int tid)
{
    switch (l) {
    case L_LINEAR:
        open_ev(E_OP, tid, "aten::mm", S_MM);
        launch(tid, F_GEMM);
        close_ev();
        open_ev(E_OP, tid, "aten::mm", S_MM);
        launch(tid, F_GEMM);
        close_ev();
        open_ev(E_OP, tid, "aten::sum", S_EW1);
        launch(tid, F_REDUCE);
        close_ev();
        break;
    case L_CONV:
        open_ev(E_OP, tid, "aten::convolution_backward", S_CONV);
        empty_op(tid);
        launch(tid, F_CONVW);
        launch(tid, F_CONVW);
        if (chance(40))
            launch(tid, F_CONV);
        close_ev();
        break;
    case L_BN:
        open_ev(E_OP, tid, "aten::cudnn_batch_norm_backward", S_BN);
        empty_op(tid);
        launch(tid, F_BNB);
        close_ev();
        break;
    case L_EMB:
        open_ev(E_OP, tid, "aten::_embedding_bag_backward", S_EMB);
        open_ev(E_OP, tid, "aten::_embedding_bag_dense_backward", S_EMB);
        runtime_call(tid, "cudaMemsetAsync", 51, E_MEMSET, 0, COMPUTE_STREAM, 4096 << rndn(10));
        launch(tid, F_SORT);
        launch(tid, F_EMBB);
        launch(tid, F_EMBB);
        close_ev();
        close_ev();
        break;
    case L_SOFTMAX:
        open_ev(E_OP, tid, "aten::_softmax_backward_data", S_EW2);
        launch(tid, F_SOFTMAXB);
        close_ev();
        break;
    case L_CAT:
        open_ev(E_OP, tid, "aten::narrow", S_EW1);
        leaf_op(tid, "aten::slice", S_EW1);
        close_ev();
        break;
    default:
        open_ev(E_OP, tid, "aten::threshold_backward", S_EW2);
        launch(tid, F_EW);
        close_ev();
        break;
    }
}

static int pick_layer(void)
{
    static const uint8_t mix[] = {L_LINEAR, L_LINEAR, L_LINEAR, L_CONV, L_CONV, L_CONV, L_BN, L_BN, L_RELU,
                                  L_RELU, L_RELU, L_ADD, L_ADD, L_EMB, L_EMB, L_CAT, L_INDEX, L_SOFTMAX,
                                  L_SIGMOID};
    return mix[rndn(sizeof mix)];
}

static void copy_to_device(int tid, int64_t bytes)
{
    open_ev(E_OP, tid, "aten::to", S_TO);
    open_ev(E_OP, tid, "aten::_to_copy", S_TO);
    leaf_op(tid, "aten::empty_strided", S_EMPTY);
    open_ev(E_OP, tid, "aten::copy_", S_TO);
    runtime_call(tid, "cudaMemcpyAsync", 41, E_MEMCPY, 0, COMPUTE_STREAM, bytes);
    close_ev();
    close_ev();
    close_ev();
}

/* Build one step into host/rt/dev.  Returns nothing; counts are global. */
static void build_step(int64_t step_no, int layers)
{
    host.n = rt.n = dev.n = 0;
    depth = 0;
    evidx_ctr = 0;
    int M = 0, B = 1;
    if (now[B] > now[M])
        now[M] = now[B];
    now[M] += tinc(20000, 80000);
    char *stepname = malloc(48);
    if (!stepname)
        die("out of memory");
    snprintf(stepname, 48, "ProfilerStep#%" PRId64, step_no);
    int32_t step_ev = open_ev(E_ANNOT, M, stepname, S_NONE);
    /* the step annotation's name is freed after the step is written */

    open_ev(E_ANNOT, M, "Optimizer.zero_grad#SGD.zero_grad", S_NONE);
    for (int i = 0; i < 3; i++) {
        open_ev(E_OP, M, "aten::zero_", S_EW1);
        open_ev(E_OP, M, "aten::fill_", S_EW1);
        launch(M, F_FILL);
        close_ev();
        close_ev();
    }
    close_ev();
    open_ev(E_ANNOT, M, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", S_NONE);
    for (int i = 0; i < 4; i++) {
        empty_op(M);
        leaf_op(M, "aten::stack", S_CAT);
    }
    now[M] += tinc(200000, 900000); /* Python collate time */
    close_ev();
    copy_to_device(M, 3 * 224 * 224 * 4 * 64);
    copy_to_device(M, 64 * 8);

    /* forward */
    uint8_t *lay = malloc((size_t)layers);
    int32_t *fwd = malloc((size_t)layers * sizeof *fwd);
    if (!lay || !fwd)
        die("out of memory");
    open_ev(E_ANNOT, M, "DistributedDataParallel.forward", S_NONE);
    for (int i = 0; i < layers; i++) {
        lay[i] = (uint8_t)pick_layer();
        size_t before = host.n;
        forward_layer(lay[i], M);
        fwd[i] = (int32_t)before;
        host.v[before].seq = seq_ctr++;
    }
    close_ev();
    open_ev(E_OP, M, "aten::mse_loss", S_LOSS);
    launch(M, F_EW);
    launch(M, F_REDUCE);
    close_ev();
    open_ev(E_OP, M, "aten::ones_like", S_EW1);
    launch(M, F_FILL);
    close_ev();

    /* backward on the autograd thread while the main thread waits */
    now[B] = now[M] + tinc(5000, 20000);
    for (int i = layers - 1; i >= 0; i--) {
        int32_t fseq = host.v[fwd[i]].seq;
        open_ev(E_OP, B, NULL, S_NONE); /* evaluate_function wrapper, named at write time */
        int32_t w = stack[depth - 1];
        host.v[w].seq = fseq;
        host.v[w].kernel = (int16_t)(-1 - lay[i]); /* marks the wrapper: name from bwd_names */
        int32_t b = open_ev(E_OP, B, bwd_names[lay[i]], S_NONE);
        host.v[b].seq = fseq;
        int32_t id = (int32_t)next_flow++;
        host.v[fwd[i]].flow = id;
        host.v[b].flow = -id;
        backward_layer(lay[i], B);
        close_ev();
        close_ev();
        if (i % 40 == 0) { /* a gradient bucket is ready: all-reduce it */
            int32_t c = open_ev(E_OP, B, "record_param_comms", S_COMM);
            host.v[c].bytes = 262144 * (1 + rndn(32));
            open_ev(E_ANNOT, B, "nccl:all_reduce", S_NONE);
            launch(B, F_NCCL);
            close_ev();
            close_ev();
        }
    }
    now[M] = now[B] + tinc(5000, 20000);

    open_ev(E_ANNOT, M, "Optimizer.step#SGD.step", S_NONE);
    for (int i = 0; i < 2; i++) {
        open_ev(E_OP, M, "aten::_foreach_add_", S_FOREACH);
        int nk_ = 1 + (int)rndn(4);
        for (int k = 0; k < nk_; k++)
            launch(M, F_OPTIM);
        close_ev();
    }
    close_ev();
    /* loss.item(): copies the result back and waits for the GPU */
    open_ev(E_OP, M, "aten::item", S_ITEM);
    open_ev(E_OP, M, "aten::_local_scalar_dense", S_ITEM);
    int64_t gpu_end = 0;
    for (int s = 0; s < 32; s++)
        if (stream_free[s] > gpu_end)
            gpu_end = stream_free[s];
    runtime_call(M, "cudaMemcpyAsync", 41, E_MEMCPY, 0, COMPUTE_STREAM, 4);
    ev *last_rt = &rt.v[rt.n - 1];
    ev *last_dev = &dev.v[last_rt->dev];
    if (last_dev->ts < gpu_end) { /* the copy waits for everything queued */
        last_dev->ts = gpu_end + Q;
        stream_free[COMPUTE_STREAM] = last_dev->ts + last_dev->dur;
    }
    int64_t done = last_dev->ts + last_dev->dur + tinc(2000, 6000);
    if (done > last_rt->ts + last_rt->dur) {
        last_rt->dur = quant(done - last_rt->ts);
        now[M] = last_rt->ts + last_rt->dur + tinc(500, 2000);
    }
    runtime_call(M, "cudaStreamSynchronize", 131, -1, 0, 0, 0);
    close_ev();
    close_ev();
    close_ev(); /* ProfilerStep */
    (void)step_ev;

    if (!opt_old) { /* the step projected on the compute stream */
        int64_t lo = INT64_MAX, hi = 0;
        for (size_t i = 0; i < dev.n; i++) {
            if (dev.v[i].stream != COMPUTE_STREAM)
                continue;
            if (dev.v[i].ts < lo)
                lo = dev.v[i].ts;
            if (dev.v[i].ts + dev.v[i].dur > hi)
                hi = dev.v[i].ts + dev.v[i].dur;
        }
        ev g = {0};
        g.kind = E_GPU_ANNOT;
        g.name = stepname;
        g.ts = lo;
        g.dur = hi - lo;
        g.stream = COMPUTE_STREAM;
        g.ext = host.v[step_ev].ext;
        g.corr = 0;
        g.dev = -1;
        push(&dev, g);
    }
    free(lay);
    free(fwd);
}

/* ------------------------------------------------------------- writing */

static int64_t t_origin; /* added to every ns time before printing */

static inline void put_time(int64_t ns)
{
    ns += t_origin;
    if (opt_old)
        put_u64((uint64_t)(ns / 1000));
    else
        put_fixed(ns, 3);
}

static void put_host_tid(int tid, bool as_string)
{
    if (opt_old) {
        const char *s = tid == 1 ? OLD_BWD_TID : OLD_MAIN_TID;
        if (as_string) {
            putc_('"');
            puts_(s);
            putc_('"');
        } else {
            puts_(s);
        }
    } else {
        put_i64(tid == 0 ? MAIN_TID : tid == 1 ? BWD_TID : -247463936);
    }
}

static void begin_event(void)
{
    room(65536);
    if (n_events)
        LIT(",\n  {\n");
    else
        LIT("\n  {\n");
    n_events++;
}

/* Input Dims / Input type / Input Strides / Concrete Inputs for a signature. */
typedef struct {
    int n;
    uint32_t d[6][4];
    int nd[6];
    const char *type[6];
    const char *conc[6];
} shapes;

static void make_shapes(const ev *e, shapes *s)
{
    memset(s, 0, sizeof *s);
    uint32_t B = e->b, H = e->h, W = e->w;
#define T(i, t, ...)                                                     \
    do {                                                                 \
        uint32_t v_[] = {__VA_ARGS__};                                   \
        s->type[i] = t;                                                  \
        s->nd[i] = (int)(sizeof v_ / sizeof *v_) - 1;                    \
        for (int k_ = 1; k_ <= s->nd[i]; k_++)                           \
            s->d[i][k_ - 1] = v_[k_];                                    \
        s->conc[i] = "";                                                 \
    } while (0)
    switch (e->sig) {
    case S_EMPTY:
        s->n = 6;
        T(0, "", 0);
        T(1, "Scalar", 0);
        s->conc[1] = "6";
        T(2, "", 0);
        T(3, "", 0);
        T(4, "Scalar", 0);
        s->conc[4] = "False";
        T(5, "", 0);
        break;
    case S_MM:
        s->n = 2;
        T(0, "float", 0, B, H);
        T(1, "float", 0, H, W);
        break;
    case S_ADDMM:
        s->n = 5;
        T(0, "float", 0, W);
        T(1, "float", 0, B, H);
        T(2, "float", 0, H, W);
        T(3, "Scalar", 0);
        s->conc[3] = "1";
        T(4, "Scalar", 0);
        s->conc[4] = "1";
        break;
    case S_EW2:
        s->n = 3;
        T(0, "float", 0, B, H);
        T(1, "float", 0, B, H);
        T(2, "Scalar", 0);
        s->conc[2] = "1";
        break;
    case S_EW1:
    case S_LOSS:
        s->n = 1;
        T(0, "float", 0, B, H);
        break;
    case S_CONV:
        s->n = 4;
        T(0, "float", 0, B, H / 8, 28, 28);
        T(1, "float", 0, W / 8, H / 8, 3, 3);
        T(2, "", 0);
        T(3, "ScalarList", 0, 2);
        s->conc[3] = "[1, 1]";
        break;
    case S_BN:
        s->n = 5;
        T(0, "float", 0, B, H / 8, 28, 28);
        T(1, "float", 0, H / 8);
        T(2, "float", 0, H / 8);
        T(3, "float", 0, H / 8);
        T(4, "float", 0, H / 8);
        break;
    case S_EMB:
        s->n = 3;
        T(0, "float", 0, 1000000, 64);
        T(1, "long int", 0, B * 20u);
        T(2, "long int", 0, B);
        break;
    case S_CAT:
        s->n = 2;
        T(0, "TensorList", 0);
        T(1, "Scalar", 0);
        s->conc[1] = "1";
        break;
    case S_TO:
        s->n = 5;
        T(0, "float", 0, B, 3, 224, 224);
        T(1, "Scalar", 0);
        s->conc[1] = "6";
        T(2, "", 0);
        T(3, "Device", 0);
        T(4, "Scalar", 0);
        s->conc[4] = "False";
        break;
    case S_FOREACH:
        s->n = 2;
        T(0, "TensorList", 0);
        T(1, "TensorList", 0);
        break;
    case S_ITEM:
        s->n = 1;
        T(0, "float", 0);
        break;
    default:
        s->n = 0;
        break;
    }
#undef T
}

static void put_dims_list(const shapes *s, bool strides)
{
    putc_('[');
    for (int i = 0; i < s->n; i++) {
        if (i)
            LIT(", ");
        putc_('[');
        for (int k = 0; k < s->nd[i]; k++) {
            if (k)
                LIT(", ");
            if (strides) {
                uint64_t p = 1;
                for (int j = k + 1; j < s->nd[i]; j++)
                    p *= s->d[i][j];
                put_u64(p);
            } else {
                put_u64(s->d[i][k]);
            }
        }
        putc_(']');
    }
    putc_(']');
}

static void put_str_list(const shapes *s, bool conc)
{
    putc_('[');
    for (int i = 0; i < s->n; i++) {
        if (i)
            LIT(", ");
        putc_('"');
        puts_(conc ? s->conc[i] : s->type[i]);
        putc_('"');
    }
    putc_(']');
}

static void put_name(const ev *e)
{
    if (e->kind == E_OP && e->kernel < 0) {
        LIT("autograd::engine::evaluate_function: ");
        puts_(bwd_names[-1 - e->kernel]);
    } else {
        puts_(e->name);
        if (opt_kernels && e->kind == E_KERNEL) {
            LIT("_v");
            put_u64(e->variant);
        }
    }
}

static void write_host_event(const ev *e)
{
    begin_event();
    bool annot = e->kind == E_ANNOT;
    if (opt_old) {
        LIT("    \"ph\": \"X\", \"cat\": \"Operator\", \n    \"name\": \"");
        put_name(e);
        LIT("\", \"pid\": ");
        put_i64(PID);
        LIT(", \"tid\": ");
        put_host_tid(e->tid, true);
        LIT(",\n    \"ts\": ");
        put_time(e->ts);
        LIT(", \"dur\": ");
        put_u64((uint64_t)(e->dur / 1000));
        LIT(",\n    \"args\": {\n       \"Input dims\": ");
        shapes s;
        make_shapes(e, &s);
        put_dims_list(&s, false);
        LIT(", \"Input type\": ");
        put_str_list(&s, false);
        LIT(", \"Input names\": [],\n       \"Output dims\": [], \"Output type\": [], \"Output names\": [],\n"
            "       \"Device\": 0, \"External id\": ");
        put_i64(e->ext);
        LIT(", \"Extra arguments\": [],\n       \"Trace name\": \"PyTorch Profiler\", \"Trace iteration\": 0\n    }\n  }");
        if (annot)
            n_annot++;
        else
            n_ops++;
        return;
    }
    LIT("    \"ph\": \"X\", \"cat\": \"");
    if (annot)
        LIT("user_annotation");
    else
        LIT("cpu_op");
    LIT("\", \"name\": \"");
    put_name(e);
    if (opt_quirks && !quirk_utf8_done && !annot && e->tid == 1) {
        LIT("\xff"); /* one invalid UTF-8 byte */
        quirk_utf8_done = true;
    }
    LIT("\", \"pid\": ");
    put_i64(PID);
    LIT(", \"tid\": ");
    put_host_tid(e->tid, false);
    LIT(",\n    \"ts\": ");
    put_time(e->ts);
    LIT(", \"dur\": ");
    put_fixed(e->dur, 3);
    LIT(",\n    \"args\": {\n      \"External id\": ");
    put_i64(e->ext);
    if (e->seq >= 0) {
        LIT(",\"Sequence number\": ");
        put_i64(e->seq);
        LIT(", \"Fwd thread id\": ");
        put_u64(e->tid == 1 ? 1 : 0);
    }
    LIT(", \"Record function id\": ");
    put_i64(e->rf);
    if (e->sig == S_COMM) {
        LIT(", \"Process Group Name\": \"0\", \"Global rank stride\": 1, \"Out msg nelems\": ");
        put_i64(e->bytes);
        LIT(", \"Process Group Ranks\": \"[0, 1]\", \"Group size\": 2, \"Global rank start\": 0, \"In msg nelems\": ");
        put_i64(e->bytes);
        LIT(", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"dtype\": \"Float\", \"Process Group Description\": \"default_pg\", \"Collective name\": \"allreduce\"");
    } else if (!annot && e->sig != S_NONE) {
        shapes s;
        make_shapes(e, &s);
        LIT(", \"Concrete Inputs\": ");
        put_str_list(&s, true);
        LIT(", \"Input type\": ");
        put_str_list(&s, false);
        LIT(", \"Input Strides\": ");
        put_dims_list(&s, true);
        LIT(", \"Input Dims\": ");
        put_dims_list(&s, false);
    }
    if (opt_quirks && !quirk_bigint_done && e->sig == S_COMM) {
        LIT(", \"Total bytes\": 18446744073709551616"); /* beyond int64 */
        quirk_bigint_done = true;
    }
    LIT(", \"Ev Idx\": ");
    put_i64(e->evidx);
    LIT("\n    }\n  }");
    if (e->kind == E_ANNOT)
        n_annot++;
    else
        n_ops++;
    if (e->flow) { /* fwdbwd: 's' on the forward op, 'f' on the backward node */
        begin_event();
        LIT("    \"ph\": \"");
        putc_(e->flow > 0 ? 's' : 'f');
        LIT("\", \"id\": ");
        put_i64(e->flow > 0 ? e->flow : -e->flow);
        LIT(", \"pid\": ");
        put_i64(PID);
        LIT(", \"tid\": ");
        put_host_tid(e->tid, false);
        LIT(", \"ts\": ");
        put_time(e->ts);
        LIT(",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"");
        if (e->flow < 0)
            LIT(", \"bp\": \"e\"");
        LIT("\n  }");
        n_flows++;
    }
}

static void put_stream_tid(int stream, bool as_string)
{
    if (opt_old && as_string) {
        LIT("\"stream ");
        put_u64((uint64_t)stream);
        putc_('"');
    } else {
        put_u64((uint64_t)stream);
    }
}

static void put_bandwidth(int64_t bytes, int64_t dur_ns)
{
    char b[40];
    int n = snprintf(b, sizeof b, "%.15g", (double)bytes / (double)(dur_ns ? dur_ns : 1));
    put(b, (size_t)n);
}

static void write_flow(char ph, int64_t id, bool device, int stream_or_tid, int64_t ts)
{
    begin_event();
    LIT("    \"ph\": \"");
    putc_(ph);
    LIT("\", \"id\": ");
    put_i64(id);
    LIT(", \"pid\": ");
    if (device) {
        LIT("0, \"tid\": ");
        put_stream_tid(stream_or_tid, true);
    } else {
        put_i64(PID);
        LIT(", \"tid\": ");
        put_host_tid(stream_or_tid, false); /* old files: integer tid on the 's' */
    }
    LIT(", \"ts\": ");
    put_time(ts);
    if (opt_old)
        LIT(",\n    \"cat\": \"async\", \"name\": \"launch\"");
    else
        LIT(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
    if (ph == 'f')
        LIT(", \"bp\": \"e\"");
    LIT("\n  }");
    n_flows++;
}

static void write_device_event(const ev *d)
{
    begin_event();
    static const char *const cats_new[] = {[E_KERNEL] = "kernel", [E_MEMCPY] = "gpu_memcpy",
                                           [E_MEMSET] = "gpu_memset", [E_GPU_ANNOT] = "gpu_user_annotation"};
    static const char *const cats_old[] = {[E_KERNEL] = "Kernel", [E_MEMCPY] = "Memcpy", [E_MEMSET] = "Memset",
                                           [E_GPU_ANNOT] = "Kernel"};
    const char *name = d->name;
    if (d->kind == E_MEMCPY)
        name = d->bytes <= 8 ? "Memcpy DtoH (Device -> Pageable)" : "Memcpy HtoD (Pageable -> Device)";
    else if (d->kind == E_MEMSET)
        name = "Memset (Device)";
    LIT("    \"ph\": \"X\", \"cat\": \"");
    puts_(opt_old ? cats_old[d->kind] : cats_new[d->kind]);
    if (opt_old)
        LIT("\", \n    \"name\": \"");
    else
        LIT("\", \"name\": \"");
    if (d->kind == E_KERNEL)
        put_name(d);
    else
        puts_(name);
    LIT("\", \"pid\": 0, \"tid\": ");
    put_stream_tid(d->stream, true);
    LIT(",\n    \"ts\": ");
    put_time(d->ts);
    LIT(", \"dur\": ");
    if (opt_old)
        put_u64((uint64_t)(d->dur / 1000));
    else
        put_fixed(d->dur, 3);
    if (d->kind == E_GPU_ANNOT) {
        LIT(",\n    \"args\": {\n      \"External id\": ");
        put_i64(d->ext);
        LIT(", \"device\": 0\n    }\n  }");
        n_gpu_annot++;
        return;
    }
    LIT(",\n    \"args\": {\n");
    if (opt_old) {
        if (d->kind == E_KERNEL)
            LIT("      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": ");
        else
            LIT("      \"device\": 0, \"context\": 1,\n      \"stream\": ");
        put_u64(d->stream);
        LIT(", \"correlation\": ");
        put_i64(d->corr);
        LIT(", \"external id\": ");
        put_i64(d->ext);
        if (d->kind == E_KERNEL) {
            LIT(",\n      \"registers per thread\": ");
            put_u64((uint64_t)kregs[d->kernel]);
            LIT(",\n      \"shared memory\": ");
            put_u64((uint64_t)kshm[d->kernel]);
            LIT(",\n      \"warps per SM\": ");
            put_fixed(64 + (d->corr % 97) * 5, 1);
            LIT(",\n      \"grid\": [");
            put_u64(1 + (uint64_t)(d->corr % 256));
            LIT(", 1, 1],\n      \"block\": [");
            put_u64(d->corr & 1 ? 256 : 128);
            LIT(", 1, 1]\n    }\n  }");
        } else {
            LIT(",\n      \"bytes\": ");
            put_i64(d->bytes);
            LIT(", \"memory bandwidth (GB/s)\": ");
            put_bandwidth(d->bytes, d->dur);
            LIT("\n    }\n  }");
        }
        return;
    }
    LIT("      \"External id\": ");
    put_i64(d->ext);
    if (d->kind == E_KERNEL)
        LIT(",      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": ");
    else
        LIT(",      \"device\": 0, \"context\": 1,      \"stream\": ");
    put_u64(d->stream);
    LIT(", \"correlation\": ");
    put_i64(d->corr);
    if (d->kind == E_KERNEL) {
        uint64_t g = 1 + (uint64_t)(d->corr % 211), blk = d->corr & 1 ? 256 : 128;
        LIT(",      \"registers per thread\": ");
        put_u64((uint64_t)kregs[d->kernel]);
        LIT(",      \"shared memory\": ");
        put_u64((uint64_t)kshm[d->kernel]);
        LIT(",      \"blocks per SM\": ");
        put_fixed((int64_t)(g * 1000000 / 80), 6);
        LIT(",      \"warps per SM\": ");
        put_fixed((int64_t)(g * blk / 32 * 1000000 / 80), 6);
        LIT(",      \"grid\": [");
        put_u64(g);
        LIT(", 1, 1],      \"block\": [");
        put_u64(blk);
        LIT(", 1, 1],      \"est. achieved occupancy %\": ");
        put_u64(g * blk / 32 * 100 / 80 / 64 > 100 ? 100 : g * blk / 32 * 100 / 80 / 64);
        if (d->stream == NCCL_STREAM)
            LIT(", \"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"Group size\": 2");
    } else {
        LIT(", \"bytes\": ");
        put_i64(d->bytes);
        LIT(", \"memory bandwidth (GB/s)\": ");
        put_bandwidth(d->bytes, d->dur);
    }
    LIT("\n    }\n  }");
}

static void write_runtime_event(const ev *r)
{
    begin_event();
    if (opt_old) {
        LIT("    \"ph\": \"X\", \"cat\": \"Runtime\", \n    \"name\": \"");
        puts_(r->name);
        LIT("\", \"pid\": ");
        put_i64(PID);
        LIT(", \"tid\": ");
        put_host_tid(r->tid, true);
        LIT(",\n    \"ts\": ");
        put_time(r->ts);
        LIT(", \"dur\": ");
        put_u64((uint64_t)(r->dur / 1000));
        LIT(",\n    \"args\": {\n      \"cbid\": ");
        put_i64(r->cbid);
        LIT(", \"correlation\": ");
        put_i64(r->corr);
        LIT(",\n      \"external id\": ");
        put_i64(r->ext);
        LIT(", \"external ts\": ");
        put_time(r->parent >= 0 ? host.v[r->parent].ts : r->ts);
        LIT("\n    }\n  }");
    } else {
        LIT("    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"");
        puts_(r->name);
        LIT("\", \"pid\": ");
        put_i64(PID);
        LIT(", \"tid\": ");
        put_host_tid(r->tid, false);
        LIT(",\n    \"ts\": ");
        put_time(r->ts);
        LIT(", \"dur\": ");
        put_fixed(r->dur, 3);
        LIT(",\n    \"args\": {\n      \"External id\": ");
        put_i64(r->ext);
        LIT(",      \"cbid\": ");
        put_i64(r->cbid);
        LIT(", \"correlation\": ");
        put_i64(r->corr);
        LIT("\n    }\n  }");
    }
}

/* Children before parents (old files): post-order of the host tree. */
static int32_t *kids_first, *kids_next;

static void write_post(int32_t i)
{
    for (int32_t c = kids_first[i]; c >= 0; c = kids_next[c])
        write_post(c);
    write_host_event(&host.v[i]);
}

static void write_step(void)
{
    /* host section */
    if (opt_old) {
        kids_first = malloc(host.n * sizeof *kids_first);
        kids_next = malloc(host.n * sizeof *kids_next);
        int32_t *last = malloc(host.n * sizeof *last);
        if (!kids_first || !kids_next || !last)
            die("out of memory");
        for (size_t i = 0; i < host.n; i++)
            kids_first[i] = kids_next[i] = last[i] = -1;
        for (size_t i = 0; i < host.n; i++) {
            int32_t p = host.v[i].parent;
            if (p < 0)
                continue;
            if (last[p] < 0)
                kids_first[p] = (int32_t)i;
            else
                kids_next[last[p]] = (int32_t)i;
            last[p] = (int32_t)i;
        }
        for (size_t i = 0; i < host.n; i++)
            if (host.v[i].parent < 0)
                write_post((int32_t)i);
        free(kids_first);
        free(kids_next);
        free(last);
    } else {
        for (size_t i = 0; i < host.n; i++)
            write_host_event(&host.v[i]);
    }
    /* device section, in correlation order */
    for (size_t i = 0; i < rt.n; i++) {
        const ev *r = &rt.v[i];
        if (r->dev >= 0) {
            const ev *d = &dev.v[r->dev];
            write_device_event(d);
            write_flow('f', d->corr, true, d->stream, d->ts);
            write_runtime_event(r);
            write_flow('s', r->corr, false, r->tid, r->ts);
        } else {
            write_runtime_event(r);
            if (!opt_old)
                write_flow('f', r->corr, false, r->tid, r->ts); /* newer Kineto's dangling 'f' */
        }
    }
    for (size_t i = 0; i < dev.n; i++)
        if (dev.v[i].kind == E_GPU_ANNOT)
            write_device_event(&dev.v[i]);
}

static void write_meta(const char *name, int64_t pid, const char *tid_str, int64_t tid, const char *key,
                       const char *sval, int64_t ival, int64_t ts)
{
    begin_event();
    LIT("    \"name\": \"");
    puts_(name);
    LIT("\", \"ph\": \"M\", \"ts\": ");
    put_time(ts);
    LIT(", \"pid\": ");
    put_i64(pid);
    LIT(", \"tid\": ");
    if (tid_str) {
        putc_('"');
        puts_(tid_str);
        putc_('"');
    } else {
        put_i64(tid);
    }
    LIT(",\n    \"args\": {\n      \"");
    puts_(key);
    LIT("\": ");
    if (sval) {
        putc_('"');
        puts_(sval);
        putc_('"');
    } else {
        put_i64(ival);
    }
    LIT("\n    }\n  }");
    n_meta++;
}

static void write_trailer(int64_t t_start, int64_t t_end)
{
    int64_t ts = t_start + 1000 * Q;
    const char *proc = opt_old ? "python" : "penv#native-main#platform-runtime#python#py_version_3_10";
    int ngpu = opt_old ? 8 : 2;
    write_meta("process_name", PID, NULL, 0, "name", proc, 0, ts);
    write_meta("process_labels", PID, NULL, 0, "labels", "CPU", 0, ts);
    if (!opt_old)
        write_meta("process_sort_index", PID, NULL, 0, "sort_index", NULL, PID, ts);
    for (int g = 0; g < ngpu; g++) {
        char lab[16];
        snprintf(lab, sizeof lab, "GPU %d", g);
        write_meta("process_name", g, NULL, 0, "name", proc, 0, ts);
        write_meta("process_labels", g, NULL, 0, "labels", lab, 0, ts);
        if (!opt_old)
            write_meta("process_sort_index", g, NULL, 0, "sort_index", NULL, 16777216 + g, ts);
    }
    if (opt_old) {
        write_meta("thread_name", PID, OLD_BWD_TID, 0, "name", "thread 0 (python)", 0, ts);
        write_meta("thread_name", PID, OLD_MAIN_TID, 0, "name", "thread 1 (python)", 0, ts);
    } else {
        char b[64];
        write_meta("thread_name", 0, NULL, COMPUTE_STREAM, "name", "stream 7 ", 0, ts);
        write_meta("thread_name", 0, NULL, NCCL_STREAM, "name", "stream 20 ", 0, ts);
        snprintf(b, sizeof b, "thread %d (pt_main_thread)", MAIN_TID);
        write_meta("thread_name", PID, NULL, MAIN_TID, "name", b, 0, ts);
        write_meta("thread_sort_index", PID, NULL, MAIN_TID, "sort_index", NULL, MAIN_TID, ts);
        snprintf(b, sizeof b, "thread %d (pt_autograd_0)", BWD_TID);
        write_meta("thread_name", PID, NULL, BWD_TID, "name", b, 0, ts);
        write_meta("thread_sort_index", PID, NULL, BWD_TID, "sort_index", NULL, BWD_TID, ts);
    }
    /* the profiler span and the global instants */
    begin_event();
    LIT("    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    put_time(t_start);
    LIT(", \"dur\": ");
    if (opt_old)
        put_u64((uint64_t)((t_end - t_start) / 1000));
    else
        put_fixed(t_end - t_start, 3);
    if (opt_old)
        LIT(",\n    \"pid\": \"Traces\", \"tid\": \"PyTorch Profiler\",\n");
    else
        LIT(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n");
    LIT("    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }\n  }");
    if (!opt_old) {
        begin_event();
        LIT("    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
        put_time(t_start);
        LIT(",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  }");
        n_meta++;
    }
    begin_event();
    LIT("    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
        "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    put_time(t_start);
    LIT("\n  }");
    if (!opt_old) {
        begin_event();
        LIT("    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
        put_time(t_end);
        LIT("\n  }");
    }
    if (opt_quirks) { /* JAX-style trailing empty event */
        room(64);
        LIT(",\n  {}");
        n_events++;
    }
}

static void write_header(void)
{
    room(65536);
    if (opt_old) {
        LIT("[\n");
        return;
    }
    LIT("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
    for (int g = 0; g < 2; g++) {
        LIT("    {\n      \"id\": ");
        put_u64((uint64_t)g);
        LIT(", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
            "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
            "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
            "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
            "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 167936,\n"
            "      \"numSms\": 108, \"sharedMemPerBlockOptin\": 166912\n    }");
        if (g == 0)
            LIT(",\n");
        else
            LIT("\n");
    }
    LIT("  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2, \"pg_count\": 1, "
        "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
        "\"pg_size\": 2, \"ranks\": [0, 1]}], \"nccl_version\": \"2.20.5\"},\n"
        "  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"profile_memory\": 0,\n"
        "  \"cupti_version\": 18,\n  \"cuda_runtime_version\": 12010,\n  \"cuda_driver_version\": 12020,\n"
        "  \"trace_id\": \"5D6F0C1E2A9B4C7D8E0F1A2B3C4D5E6F\",\n"
        "  \"traceEvents\": [");
}

static void write_footer(void)
{
    room(65536);
    if (opt_old) {
        LIT("\n]\n");
        return;
    }
    LIT("\n  ],\n  \"traceName\": \"/tmp/libkineto_activities_1102041.json\",\n  \"displayTimeUnit\": \"ms\"");
    if (opt_base_time) {
        LIT(",\n  \"baseTimeNanoseconds\": ");
        put_u64(1711964646000000000ULL);
    }
    LIT("\n}\n");
}

/* ---------------------------------------------------------------- main */

static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        die("bad size '%s'", s);
    double m = 1;
    if (*end == 'K' || *end == 'k')
        m = end[1] == 'i' ? 1024.0 : 1e3;
    else if (*end == 'M' || *end == 'm')
        m = end[1] == 'i' ? 1048576.0 : 1e6;
    else if (*end == 'G' || *end == 'g')
        m = end[1] == 'i' ? 1073741824.0 : 1e9;
    else if (*end)
        die("bad size suffix in '%s' (K, M, G, Ki, Mi, Gi)", s);
    return (uint64_t)(v * m);
}

static void usage(void)
{
    fputs("usage: gen_kineto (--size SIZE | --events N) [--gzip] [--level N] [--seed N] [--old]\n"
          "                  [--base-time] [--layers N] [--kernels N] [--quirks] [--summary FILE] [-q] OUT\n"
          "Writes a synthetic PyTorch profiler (Kineto) trace; see the comment at the top of\n"
          "scripts/gen/gen_kineto.c.  SIZE: 100M, 1G, 1.5G, 512Mi ... (uncompressed JSON bytes).\n",
          stderr);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *summary = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG() (i + 1 < argc ? argv[++i] : (usage(), ""))
        if (!strcmp(a, "--size"))
            opt_size = parse_size(ARG());
        else if (!strcmp(a, "--events"))
            opt_events = strtoull(ARG(), NULL, 10);
        else if (!strcmp(a, "--gzip"))
            gz = true;
        else if (!strcmp(a, "--level"))
            opt_level = atoi(ARG());
        else if (!strcmp(a, "--seed"))
            opt_seed = strtoull(ARG(), NULL, 10);
        else if (!strcmp(a, "--old"))
            opt_old = true;
        else if (!strcmp(a, "--base-time"))
            opt_base_time = true;
        else if (!strcmp(a, "--layers"))
            opt_layers = atoi(ARG());
        else if (!strcmp(a, "--kernels"))
            opt_kernels = (uint32_t)strtoul(ARG(), NULL, 10);
        else if (!strcmp(a, "--quirks"))
            opt_quirks = true;
        else if (!strcmp(a, "--summary"))
            summary = ARG();
        else if (!strcmp(a, "-q"))
            opt_quiet = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            usage();
        else if (a[0] == '-' && a[1])
            die("unknown option '%s'", a);
        else if (!out)
            out = a;
        else
            usage();
#undef ARG
    }
    if (!out || (!opt_size && !opt_events))
        usage();
    if (opt_layers < 1 || opt_layers > 100000)
        die("--layers must be 1..100000");
    if (opt_level < 1 || opt_level > 9)
        die("--level must be 1..9");
    if (opt_old && opt_base_time)
        die("--base-time is a modern-layout option");
    if (opt_old)
        Q = 1000;

    rng_state = opt_seed * 0x2545F4914F6CDD1DULL + 12345;
    init_kernels();
    /* epoch origin: like the samples; relative small ts with --base-time */
    if (opt_old)
        t_origin = 1606910596288000000LL;
    else if (opt_base_time)
        t_origin = 4458676000000000LL;
    else
        t_origin = 1712195495400000000LL + (int64_t)rndn(1000000) * 1000;

    ob = malloc(OUTBUF);
    if (!ob)
        die("out of memory");
    if (!strcmp(out, "-"))
        ofile = stdout;
    else if (!(ofile = fopen(out, "wb")))
        die("cannot write '%s': %s", out, strerror(errno));
    if (gz) {
        zbuf = malloc(OUTBUF);
        if (!zbuf || deflateInit2(&zs, opt_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            die("zlib init failed");
    }

    write_header();
    int64_t t_start = 0;
    now[0] = now[1] = 1000000; /* 1 ms after the profiler started */
    int64_t step_no = 1;
    double bytes_per_layer = 0, events_per_layer = 0;
    for (;;) {
        uint64_t done_bytes = written + on, done_events = n_events;
        int layers = opt_layers;
        if (opt_events && !opt_size) {
            uint64_t left = opt_events > done_events ? opt_events - done_events : 0;
            double per = events_per_layer > 0 ? events_per_layer : 20;
            if ((double)left < per * (opt_layers + 10))
                layers = (int)((double)left / per) - 10;
            if (opt_events <= 2000 && layers > 4)
                layers = 4; /* tiny traces: several small steps */
        } else {
            uint64_t left = opt_size > done_bytes ? opt_size - done_bytes : 0;
            double per = bytes_per_layer > 0 ? bytes_per_layer : 7000;
            if ((double)left < per * (opt_layers + 20))
                layers = (int)((double)left / per) - 20;
        }
        if (layers < 1)
            layers = 1;
        build_step(step_no, layers);
        write_step();
        free((void *)host.v[0].name); /* the ProfilerStep#N name */
        uint64_t step_bytes = written + on - done_bytes, step_events = n_events - done_events;
        bytes_per_layer = (double)step_bytes / (layers + 20);
        events_per_layer = (double)step_events / (layers + 10);
        n_steps++;
        step_no++;
        if (opt_size && written + on + 4096 >= opt_size)
            break;
        if (!opt_size && n_events >= opt_events)
            break;
    }
    int64_t t_end = now[0] + 1000000;
    write_trailer(t_start, t_end);
    write_footer();
    flush_out(1);
    if (gz)
        deflateEnd(&zs);
    if (ofile != stdout && fclose(ofile) != 0)
        die("write failed: %s", strerror(errno));

    uint64_t distinct = 0;
    for (int k = 0; k < nk; k++)
        distinct += per_kernel_count[k] != 0;
    if (summary) {
        FILE *f = fopen(summary, "w");
        if (!f)
            die("cannot write '%s'", summary);
        fprintf(f,
                "{\"bytes\": %" PRIu64 ", \"trace_events\": %" PRIu64 ", \"steps\": %" PRIu64
                ", \"cpu_ops\": %" PRIu64 ", \"user_annotations\": %" PRIu64 ", \"runtime\": %" PRIu64
                ", \"kernels\": %" PRIu64 ", \"memcpy\": %" PRIu64 ", \"memset\": %" PRIu64
                ", \"gpu_user_annotations\": %" PRIu64 ", \"flows\": %" PRIu64 ", \"metadata\": %" PRIu64
                ", \"distinct_kernel_names\": %" PRIu64 ", \"layout\": \"%s\"}\n",
                written, n_events, n_steps, n_ops, n_annot, n_runtime, n_kernels, n_memcpy, n_memset, n_gpu_annot,
                n_flows, n_meta, opt_kernels ? 0 : distinct, opt_old ? "pytorch-1.8" : "kineto-2024");
        fclose(f);
    }
    if (!opt_quiet)
        fprintf(stderr,
                "gen_kineto: %" PRIu64 " bytes of JSON, %" PRIu64 " events, %" PRIu64 " steps, %" PRIu64
                " kernels, %" PRIu64 " memcpy, %" PRIu64 " memset, %" PRIu64 " runtime calls\n",
                written, n_events, n_steps, n_kernels, n_memcpy, n_memset, n_runtime);
    return 0;
}
