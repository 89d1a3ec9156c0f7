/* Kernel name shortening, kernel families, axis ticks/units, text fitting
 * and the palette: known answers from real Kineto kernel names. */
#include "render/charts/axis.h"
#include "tests/lib/harness.h"
#include "render/labels/kname.h"
#include "render/charts/palette.h"
#include "render/text/textfit.h"

#include <math.h>
#include <stdlib.h>

/* Real names from the Kineto samples in ../shared/external/kineto. */
static const char *const VEC_ADD =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)";
static const char *const VEC_TANH =
    "void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, "
    "2> >(int, at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)";
static const char *const CUTLASS = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"
                                   "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)";
static const char *const SOFTMAX = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, "
                                   "false>(float*, float const*, int, int, int, bool const*, int, bool)";
static const char *const NCCL_A = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
static const char *const NCCL_B = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
static const char *const WELFORD =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::WelfordOps<float, float, int, float, thrust::pair<float, float> >, "
    "unsigned int, float, 2> >(at::native::ReduceOp<float, at::native::WelfordOps<float, "
    "float, int, float, thrust::pair<float, float> >, unsigned int, float, 2>)";
static const char *const MEAN =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> "
    ">(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
    "int, float, 4>)";

#define BASE_IS(name, want)                                                                                            \
    do {                                                                                                               \
        char *b_ = tp_kname_base(name);                                                                                \
        CHECK_STR(b_, want);                                                                                           \
        free(b_);                                                                                                      \
    } while (0)

TEST(render_kname_base_rules)
{
    BASE_IS(VEC_ADD, "vectorized_elementwise_kernel");
    BASE_IS(VEC_TANH, "vectorized_elementwise_kernel");
    BASE_IS(CUTLASS, "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4");
    BASE_IS(SOFTMAX, "softmax_warp_forward");
    BASE_IS(NCCL_A, "ncclKernel_AllReduce_RING_LL_Sum_float");
    BASE_IS("volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn");
    BASE_IS("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD");
    BASE_IS("_ZN7cutlass6KernelE", "cutlass::Kernel"); /* demangled (test_kname.c has more) */
    BASE_IS("", "");
    BASE_IS("void foo<", "foo"); /* truncated */
    BASE_IS("a::b::operator<<(int)", "operator<<");
}

TEST(render_kname_collisions)
{
    const char *names[] = {VEC_ADD,
                           VEC_TANH,
                           NCCL_A,
                           NCCL_B,
                           WELFORD,
                           MEAN,
                           "volta_sgemm_128x64_nn",
                           VEC_ADD,
                           "Memcpy HtoD (Pageable -> Device)",
                           "Memcpy HtoD (Pinned -> Device)"};
    size_t n = sizeof names / sizeof names[0];
    char **s = tp_kname_shorten(names, n);
    CHECK_STR(s[0], "vectorized_elementwise_kernel<CUDAFunctor_add>");
    CHECK_STR(s[1], "vectorized_elementwise_kernel<tanh_kernel_cuda>");
    CHECK_STR(s[2], "ncclKernel_AllReduce_RING_LL_Sum_float #1"); /* "(ncclDevComm*..." < "(ncclWorkElem)" */
    CHECK_STR(s[3], "ncclKernel_AllReduce_RING_LL_Sum_float #2");
    CHECK_STR(s[4], "reduce_kernel<WelfordOps>");
    CHECK_STR(s[5], "reduce_kernel<MeanOps>");
    CHECK_STR(s[6], "volta_sgemm_128x64_nn");
    CHECK_STR(s[7], s[0]); /* same full name, same short name */
    CHECK_STR(s[8], "Memcpy HtoD #1");
    CHECK_STR(s[9], "Memcpy HtoD #2");
    /* all distinct full names got distinct short names */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) != 0)
                CHECK(strcmp(s[i], s[j]) != 0);
    tp_kname_free(s, n);
}

/* A million names, many colliding: must finish (sorting, not pairwise). */
TEST(render_kname_million_names)
{
    size_t n = 1000000;
    char **names = malloc(n * sizeof *names);
    for (size_t i = 0; i < n; i++) {
        names[i] = malloc(80);
        snprintf(names[i], 80, "void ns::kern_%zu<%zu, float>(int)", i % 1000, i % 3000);
    }
    char **s = tp_kname_shorten((const char *const *)names, n);
    CHECK_STR(s[0], "kern_0<0>");
    CHECK_STR(s[1000], "kern_0<1000>");
    CHECK_STR(s[3000], s[0]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    tp_kname_free(s, n);
}

TEST(render_axis_units_and_ticks)
{
    char b[32];
    tp_format_duration(b, sizeof b, 0);
    CHECK_STR(b, "0 ns");
    tp_format_duration(b, sizeof b, 1);
    CHECK_STR(b, "1 ns");
    tp_format_duration(b, sizeof b, 999);
    CHECK_STR(b, "999 ns");
    tp_format_duration(b, sizeof b, 1500);
    CHECK_STR(b, "1.5 us");
    tp_format_duration(b, sizeof b, 12345678);
    CHECK_STR(b, "12.3 ms");
    tp_format_duration(b, sizeof b, 999999);
    CHECK_STR(b, "1 ms");
    tp_format_duration(b, sizeof b, 10e9);
    CHECK_STR(b, "10 s");
    tp_ticks t;
    tp_ticks_linear(7300000, 5, &t); /* 7.3 ms: step 2 ms, top 8 ms */
    CHECK_EQ_INT(t.n, 5);
    CHECK_STR(t.label[0], "0");
    CHECK_STR(t.label[1], "2 ms");
    CHECK_STR(t.label[4], "8 ms");
    tp_ticks_linear(1250, 5, &t); /* step 500 ns -> "0.5 us" */
    CHECK_STR(t.label[1], "0.5 us");
    CHECK_STR(t.label[3], "1.5 us");
    tp_ticks_linear(3, 5, &t); /* tiny: integer ns steps only */
    CHECK_STR(t.label[1], "1 ns");
    CHECK_EQ_INT(t.n, 4);
    tp_ticks_linear(0, 5, &t); /* no data: still an axis */
    CHECK(t.n >= 2);
    tp_ticks_log(1, 10e9, &t); /* 1 ns .. 10 s: 11 decades */
    CHECK_EQ_INT(t.n, 11);
    CHECK_STR(t.label[0], "1 ns");
    CHECK_STR(t.label[3], "1 us");
    CHECK_STR(t.label[10], "10 s");
    CHECK(fabs(tp_ticks_pos(&t, 1e6) - 0.6) < 1e-9);
    tp_ticks_log(5000, 5000, &t); /* identical values: one decade around them */
    CHECK_EQ_INT(t.n, 2);
    CHECK_STR(t.label[0], "1 us");
}

TEST(render_textfit)
{
    char *s = tp_fit_end(TP_FONT_REGULAR, 10, "short", 100);
    CHECK_STR(s, "short");
    free(s);
    s = tp_fit_end(TP_FONT_REGULAR, 10, "a rather long text that will not fit", 60);
    CHECK(tp_text_width(TP_FONT_REGULAR, 10, s) <= 60);
    CHECK(strncmp(s, "a rather", 8) == 0 && strstr(s, "\xE2\x80\xA6"));
    free(s);
    s = tp_fit_middle(TP_FONT_REGULAR, 10, "at::native::vectorized_elementwise_kernel_end", 90);
    CHECK(tp_text_width(TP_FONT_REGULAR, 10, s) <= 90);
    CHECK(strncmp(s, "at::", 4) == 0 && strstr(s, "_end") && strstr(s, "\xE2\x80\xA6"));
    free(s);
    s = tp_fit_middle(TP_FONT_REGULAR, 10, "xxxxxxxx", 1); /* not even the ellipsis */
    CHECK_STR(s, "");
    free(s);
    s = tp_fit_end(TP_FONT_REGULAR, 10, "ééééééééééééééé", 30); /* never cut inside a code point */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        CHECK(*p < 0x80 || *p == 0xC3 || *p == 0xA9 || *p == 0xE2 || *p == 0x80 || *p == 0xA6);
    free(s);
    char **lines;
    size_t n = tp_wrap(TP_FONT_REGULAR, 10, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>", 80,
                       10, &lines);
    CHECK(n >= 3);
    for (size_t i = 0; i < n; i++)
        CHECK(tp_text_width(TP_FONT_REGULAR, 10, lines[i]) <= 80);
    CHECK_STR(lines[0], "void at::native::");
    tp_wrap_free(lines, n);
    n = tp_wrap(TP_FONT_REGULAR, 10, "one two three four five six seven eight", 40, 2, &lines);
    CHECK_EQ_INT(n, 2);
    CHECK(strstr(lines[1], "\xE2\x80\xA6") != NULL);
    tp_wrap_free(lines, n);
}

TEST(render_palette)
{
    CHECK_EQ_INT(tp_palette(0), 0x0072B2);
    CHECK_EQ_INT(tp_palette(TP_PALETTE_SIZE), tp_palette(0));
    CHECK_EQ_INT(tp_palette_key("GEMM"), 0x0072B2);
    CHECK_EQ_INT(tp_palette_key("other"), TP_COLOR_OTHER);
    CHECK_EQ_INT(tp_palette_key("some category"), tp_palette_key("some category"));
    /* the 24 slots are pairwise distinct, and so are the built-in categories' */
    for (int i = 0; i < TP_PALETTE_SIZE; i++)
        for (int j = i + 1; j < TP_PALETTE_SIZE; j++)
            CHECK(tp_palette((size_t)i) != tp_palette((size_t)j));
    const char *fam[] = {"GEMM",      "CONV",     "attention", "normalisation", "softmax", "elementwise",
                         "reduce",    "rotary",   "MoE",       "embedding",     "optimizer", "compiled",
                         "communication", "memcpy", "memset", "other"};
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
        for (size_t j = i + 1; j < sizeof fam / sizeof fam[0]; j++)
            CHECK(tp_palette_key(fam[i]) != tp_palette_key(fam[j]));
    CHECK_EQ_INT(tp_text_color_on(0xF0E442), 0x000000); /* yellow: black text */
    CHECK_EQ_INT(tp_text_color_on(0x0072B2), 0xFFFFFF); /* blue: white text */
}
