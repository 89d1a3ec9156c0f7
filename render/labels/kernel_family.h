/* kernel_family.h: a short family for a device kernel name, for legends
 * and breakdown charts ("gemm", "elementwise", "nccl", ...).
 *
 * Rules (first match wins), tested on the lower-cased base name (kname.h
 * rule 1-2) and, where noted, on the whole lower-cased name:
 *   memcpy / memset   name starts with "memcpy" / "memset" (Kineto's
 *                     "Memcpy HtoD (Pageable -> Device)", "Memset (Device)")
 *   nccl              "nccl", "rccl", all_reduce/allreduce, all_gather/
 *                     allgather, reduce_scatter/reducescatter, alltoall,
 *                     sendrecv (collective communication)
 *   triton            starts with "triton" (torch.compile kernels)
 *   embedding bwd/fwd "embedding" (bwd if it also says backward/bwd/grad)
 *   softmax           "softmax"
 *   norm              batch/layer/group/instance/rms norm, cudnn bn_fw/bn_bw
 *   conv              conv (not as in "convert"), fprop, dgrad, wgrad, winograd, scudnn,
 *                     implicit_gemm, fft2d/fft, im2col; or "cudnn" anywhere
 *                     in the whole name (cudnn/cask helpers of convolutions)
 *   gemv              "gemv"
 *   gemm              "gemm" (sgemm, s1688gemm, gemmk1...), "matmul",
 *                     AMD Tensile "Cijk_..." kernels,
 *                     splitkreduce (second pass of a split-K GEMM), or
 *                     "cublas" anywhere in the whole name
 *   cat               catarray, "concat", starts with "cat_"
 *   index             index, gather, scatter, "take_"
 *   pool              pool (max_pool, adaptive_average_pool)
 *   transpose         transpose, permute, nchwtonhwc, nhwctonchw
 *   optimizer         multi_tensor_apply, adam, sgd_
 *   sort              sort, topk
 *   random            dropout, distribution_, philox, curand
 *   reduce            reduce, "sum", "mean", argmax/argmin, welford
 *   elementwise       elementwise, pointwise, vectorized, unrolled,
 *                     "fill", "copy", "convert"; XLA loop fusions
 *                     (starts with "loop_", has "fusion")
 *   other             everything else */
#ifndef TP_KERNEL_FAMILY_H
#define TP_KERNEL_FAMILY_H

/* A static string: one of the family names above. */
const char *tp_kernel_family(const char *name);
/* Display order of families in stacked bars and legends (gemm first,
 * "other" last); unknown family names sort after the known ones. */
int tp_kernel_family_rank(const char *family);

#endif
