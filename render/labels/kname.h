/* kname.h: short display names for long (C++) kernel names.
 *
 * Rules, applied to each name (docs/RENDER.md has examples):
 *  1. Base name: drop every bracketed group at the top level - template
 *     arguments <...>, argument lists (...), lambda/anonymous parts {...}
 *     and [...] - then keep the last "::" component, then its last
 *     space-separated word (this drops "void", other return types and
 *     "const").  "(anonymous namespace)" disappears with the brackets.
 *     Names without any C++ syntax ("Memcpy HtoD (Pageable -> Device)")
 *     only lose a trailing "(...)" and keep their words.
 *  2. Generic wrappers (cutlass "Kernel", "Kernel2", "device_kernel",
 *     "kernel") say nothing: the first template argument's base name is
 *     used instead (cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4).
 *  3. Mangled names (_Z...) are kept as they are (not demangled).
 * Collisions: names whose base names are equal are told apart by
 *  4. the base name plus, in <>, the template arguments that differ
 *     inside the group, each by its "informative" name: its base name, or
 *     for adapters (gpu_kernel_impl, BinaryFunctor, ReduceOp, ...) the
 *     first argument inside that is not a plain type or number, so
 *     "vectorized_elementwise_kernel<tanh_kernel_cuda>",
 *     "reduce_kernel<512,1,WelfordOps>" (dropped when over 60 bytes);
 *  5. names still sharing a label get " #k", k numbering their distinct
 *     full names in byte order.
 * Identical full names get identical short names.  Cost: O(total length +
 * n log n) (sorting), never quadratic. */
#ifndef TP_KNAME_H
#define TP_KNAME_H

#include <stddef.h>

/* The base name of one kernel name (rules 1-3).  malloc'ed. */
char *tp_kname_base(const char *name);
/* Short names for n names (rules 1-5).  Returns a malloc'ed array of n
 * malloc'ed strings; free with tp_kname_free. */
char **tp_kname_shorten(const char *const *names, size_t n);
void tp_kname_free(char **shorts, size_t n);

#endif
