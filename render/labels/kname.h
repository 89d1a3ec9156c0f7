/* kname.h: the one naming function for displayed kernel and op names: the
 * PDF pages, the PNG charts, summary.md, diff.md and the job report all
 * show the text made here (Markdown only adds its escaping).  Names in
 * converted traces and in summary.json stay as recorded.
 *
 * Rules, applied to each name (docs/REPORT.md "Names" has examples):
 *  0. Mangled names ("_Z...", "__Z...") are demangled first (demangle.h);
 *     one the demangler refuses keeps the last identifier of its nested
 *     name (for a generic wrapper, of its first template argument).
 *     Python frames ("file.py(12): fn", "<string>(1): <module>") and
 *     reprs ("<built-in method cat of type object at 0x7d...>") are kept
 *     whole.
 *  1. Base name: drop every bracketed group at the top level - template
 *     arguments <...>, argument lists (...), lambda/anonymous parts {...}
 *     and [...] - then keep the last "::" component, then its last
 *     space-separated word (this drops "void", other return types such as
 *     "std::enable_if<...>::type", and "const").  "(anonymous namespace)"
 *     disappears with the brackets.  Names without any C++ syntax
 *     ("Memcpy HtoD (Pageable -> Device)") only lose a trailing "(...)"
 *     and keep their words.
 *  2. Generic wrappers (cutlass "Kernel", "Kernel2", "device_kernel",
 *     "kernel") say nothing: the base name of their own first template
 *     argument is used instead (cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4)
 *     when it is not a plain type or number, else the wrapper qualified
 *     by the component before it ("gemvx::kernel").
 *  3. A result without an ASCII letter is replaced by the longest
 *     identifier-like part of the (demangled) full name that has one (an
 *     empty result: by the full name).
 * In a set of names (a table, a chart, a diff), names whose base names are
 * equal are told apart by
 *  4. the base name plus, in <>, the template arguments of its own list
 *     that differ inside the group, each by its "informative" name: its
 *     base name, or for adapters (gpu_kernel_impl, BinaryFunctor, ReduceOp,
 *     ...) the first argument inside that is not a plain type or number, so
 *     "vectorized_elementwise_kernel<tanh_kernel_cuda>",
 *     "reduce_kernel<512,1,WelfordOps>" (dropped when over 60 bytes).
 * Then every label is
 *  5. cut to TP_KNAME_MAX characters: at a break ("_", "::", ",", "<", a
 *     space, ...) in the last half of the room, "…" after; labels of
 *     different full names that a cut made equal keep a third of the room
 *     for their head, then "…" and the part from a break just before where
 *     their uncut labels start to differ (split_embedding_…
 *     unweighted_kernel_cta_per_row_1); those still equal, from where each
 *     differs from its nearest neighbour (sm80_xmma_dgrad_…
 *     tilesize64x128x32_stage5…);
 *  6. labels still shared by different full names get " #k", k numbering
 *     their distinct full names in byte order.
 * Identical full names get identical short names.  Cost: O(total length +
 * n log n) (sorting), never quadratic. */
#ifndef TP_KNAME_H
#define TP_KNAME_H

#include <stddef.h>

#define TP_KNAME_MAX 64 /* characters of a displayed name (rule 5) */

/* The base name of one name (rules 0-3), not cut.  malloc'ed. */
char *tp_kname_base(const char *name);
/* The displayed text of one name alone (rules 0-3 and the cut of rule 5 at
 * max_chars characters; 0: no cut).  malloc'ed. */
char *tp_display_name(const char *full, size_t max_chars);
/* The full name as the appendix shows it: demangled, else as recorded.  malloc'ed. */
char *tp_kname_full(const char *name);
/* Short names for n names (rules 0-6, cut at TP_KNAME_MAX): different
 * full names get different short names.  Returns a malloc'ed array of n
 * malloc'ed strings; free with tp_kname_free. */
char **tp_kname_shorten(const char *const *names, size_t n);
void tp_kname_free(char **shorts, size_t n);

/* s cut to max characters at a break, "…" after (a copy when it fits). */
char *tp_kname_cut(const char *s, size_t max_chars);

#endif
