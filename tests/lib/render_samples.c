/* render_samples.c: see render_samples.h. */
#include "tests/lib/render_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tp_sample_kernels[] = {
    "volta_sgemm_128x64_nn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> "
    ">(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, "
    "float)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
    "int, float, 4>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "Memcpy HtoD (Pageable -> Device)",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_"
    "16x4_nn_align4::Params)",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, float const*, int, "
    "int, int, bool const*, int, bool)",
    "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_"
    "g1_tensor16x8x8_execute_kernel_cudnn_infer",
    "void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()"
    "#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
    "at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#4}::operator()"
    "() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
    "Memset (Device)",
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
    "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
    "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
    "triton_poi_fused_add_cos_sin_0",
    "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long, long, long, "
    "int, int, int, int, int, int, int, int, int, int, float*, long*)",
};
const size_t tp_sample_nkernels = sizeof tp_sample_kernels / sizeof tp_sample_kernels[0];

void tp_sample_top_kernels(size_t n, char ***names, int64_t **values)
{
    *names = malloc((n ? n : 1) * sizeof **names);
    *values = malloc((n ? n : 1) * sizeof **values);
    for (size_t i = 0; i < n; i++) {
        char *b = malloc(400);
        if (i < tp_sample_nkernels) {
            snprintf(b, 400, "%s", tp_sample_kernels[i]);
        } else {
            /* ~200 chars, differing only deep inside the template list */
            snprintf(b, 400,
                     "void some::deep::namespace_chain::templated_kernel_impl<%zu, float, "
                     "some::deep::namespace_chain::Functor<float, float, float, some::deep::Op%zu<float> >, "
                     "some::detail::Array<char*, 3> >(int, some::detail::Array<char*, 3>)",
                     i % 7, i);
        }
        (*names)[i] = b;
        /* decreasing, like a sorted top-N: 9 ms down to ~20 us */
        (*values)[i] = (int64_t)(9000000.0 / (1.0 + (double)i * (double)i * 0.07));
    }
}

void tp_sample_free(char **names, int64_t *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(values);
}
