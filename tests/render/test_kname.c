/* The naming function (render/labels/kname.h): demangling, the known bad
 * cases of issue 22 (a name of "!", "&&", mangled names, equal short
 * names), the cut, and every shared sample's names: distinct and lettered. */
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "render/labels/demangle.h"
#include "render/labels/kname.h"
#include "render/text/textfit.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int lettered(const char *s)
{
    for (; *s; s++)
        if (isalpha((unsigned char)*s))
            return 1;
    return 0;
}

#define BASE_IS(name, want)                                                                                            \
    do {                                                                                                               \
        char *b_ = tp_kname_base(name);                                                                                \
        CHECK_STR(b_, want);                                                                                           \
        free(b_);                                                                                                      \
    } while (0)
#define FULL_IS(name, want)                                                                                            \
    do {                                                                                                               \
        char *f_ = tp_kname_full(name);                                                                                \
        CHECK_STR(f_, want);                                                                                           \
        free(f_);                                                                                                      \
    } while (0)

/* Real names from ../shared/external/hta/trace_filter_sampled_rank-0.json.gz (cut after the template list). */
static const char *const GEMVX =
    "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, "
    "true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)";
static const char *const GEMVX_6 =
    "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, "
    "true, false, 6, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float "
    "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)";
/* ../shared/external/kineto/hta_amd_mi250_rocm6_2.json.gz */
static const char *const CLAMP =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar("
    "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
    "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2>)";

TEST(kname_issue22_bad_cases)
{
    /* "!" before: the first template list of the name was enable_if's */
    BASE_IS(GEMVX, "gemvx::kernel");
    BASE_IS("std::enable_if<!(false),void>::type …gemvx::kernel", "…gemvx::kernel"); /* the issue's text */
    BASE_IS("std::enable_if<!(false), void>::type foo<int>(int)", "foo");
    /* lambdas: the function they live in, never "&&" or "" */
    BASE_IS(CLAMP, "vectorized_elementwise_kernel");
    BASE_IS("at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&)::{lambda()#1}::operator()"
            "() const::{lambda(float&&)#1}::operator()(float&&) const",
            "launch_clamp_scalar");
    BASE_IS("void foo::{lambda(auto:1&&)#1}::operator()<float&&>(float&&) const", "foo");
    BASE_IS("{lambda(float&&)#1}::operator()(float&&) const", "{lambda(float&&)#1}::operator()(float&&) const");
    /* no letter after the rules: the longest identifier-like part */
    BASE_IS("void <&&>(&&)", "void");
    BASE_IS("&&", "&&"); /* nothing better exists */
    /* Python frames and reprs stay whole */
    BASE_IS("<string>(1): <module>", "<string>(1): <module>");
    BASE_IS("torch/_ops.py(1002): <lambda>", "torch/_ops.py(1002): <lambda>");
    BASE_IS("<built-in method cat of type object at 0x7d6b7761df60>",
            "<built-in method cat of type object at 0x7d6b7761df60>");
    /* two gemvx kernels stay apart by the template argument that differs */
    const char *names[] = {GEMVX, GEMVX_6};
    char **s = tp_kname_shorten(names, 2);
    CHECK_STR(s[0], "gemvx::kernel<7>");
    CHECK_STR(s[1], "gemvx::kernel<6>");
    tp_kname_free(s, 2);
}

TEST(kname_demangle_exact)
{
    FULL_IS("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, "
            "1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
    BASE_IS("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
            "vectorized_elementwise_kernel");
    FULL_IS("__Z3fooi", "foo(int)"); /* the extra underscore of Mach-O symbols */
    FULL_IS("_Z3fooi.kd", "foo(int) [clone .kd]");
    BASE_IS("_Z3fooi.kd", "foo");
    FULL_IS("_ZN7cutlass6KernelE", "cutlass::Kernel");
    BASE_IS("_ZN7cutlass6KernelE", "cutlass::Kernel"); /* a wrapper without arguments: qualified */
    FULL_IS("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const");
    FULL_IS("volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn"); /* not mangled: as recorded */
    FULL_IS("_Zoops", "_Zoops");
    char *d = tp_demangle("_Zoops");
    CHECK(d == NULL);
    free(d);
    /* a refused mangled name (the nvcc cutlass_cudnn names of the capcats sample): its nested identifier */
    BASE_IS("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22Implicit",
            "ImplicitGemmConvolution");
}

TEST(kname_cut_at_a_break)
{
    const char *xmma = "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
                       "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer";
    char *c = tp_kname_cut(xmma, TP_KNAME_MAX);
    CHECK_STR(c, "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_…");
    free(c);
    c = tp_display_name(xmma, 20);
    CHECK_STR(c, "sm80_xmma_fprop_…");
    free(c);
    c = tp_display_name("short_kernel", 20);
    CHECK_STR(c, "short_kernel");
    free(c);
    /* two names equal up to the cut keep where they differ */
    const char *names[] = {
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1",
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1",
        "split_embedding_backward_codegen_rowwise_adagrad_weighted_kernel_cta_per_row_1",
        "sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_"
        "tensor16x8x8_execute_kernel_cudnn_infer",
        "sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_stage5_warpsize2x2x1_g1_"
        "tensor16x8x8_execute_kernel_cudnn_infer"};
    char **s = tp_kname_shorten(names, 5);
    CHECK_STR(s[0], "split_embedding_…rowwise_adagrad_unweighted_kernel_cta_per_row_1");
    CHECK_STR(s[1], "split_embedding_…adagrad_unweighted_kernel_warp_per_row_1");
    CHECK_STR(s[2], "split_embedding_backward_codegen_rowwise_adagrad_weighted_…"); /* no clash after the cut */
    CHECK_STR(s[3], "sm80_xmma_dgrad_…tilesize128x128x16_stage4_warpsize2x2x1_g1_…");
    CHECK_STR(s[4], "sm80_xmma_dgrad_…tilesize64x128x32_stage5_warpsize2x2x1_g1_…");
    tp_kname_free(s, 5);
}

/* XLA ops and other plain names that share a base stay apart. */
TEST(kname_plain_names_stay_distinct)
{
    const char *names[] = {"jit(f)/jit(main)/dot_general(precision=None)", "jit(f)/jit(main)/dot_general(precision=HIGH)",
                           "fusion.1", "fusion.2", "jit(f)/jit(main)/dot_general(precision=None)"};
    char **s = tp_kname_shorten(names, 5);
    CHECK_STR(s[0], "jit(f)/jit(main)/dot_general #2"); /* "...=HIGH" < "...=None" in byte order */
    CHECK_STR(s[1], "jit(f)/jit(main)/dot_general #1");
    CHECK_STR(s[2], "fusion.1");
    CHECK_STR(s[3], "fusion.2");
    CHECK_STR(s[4], s[0]);
    tp_kname_free(s, 5);
}

/* Distinct and lettered over a set of names; returns the number of names. */
static size_t check_set(const char **names, size_t n, const char *what)
{
    char **s = tp_kname_shorten(names, n);
    /* sort indexes by short name, then neighbours must have equal full names when their short names are equal */
    size_t bad_letter = 0, clashes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!lettered(s[i]) && lettered(names[i]))
            bad_letter++;
        char *d = tp_display_name(names[i], TP_KNAME_MAX);
        if (!lettered(d) && lettered(names[i]))
            bad_letter++;
        free(d);
    }
    /* n is at most a few thousand: a quadratic check is fine in a test */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(s[i], s[j]) == 0 && strcmp(names[i], names[j]) != 0) {
                if (clashes++ < 3)
                    fprintf(stderr, "  %s: \"%s\" for both\n    %s\n    %s\n", what, s[i], names[i], names[j]);
            }
    CHECK_EQ_INT(bad_letter, 0);
    CHECK_EQ_INT(clashes, 0);
    tp_kname_free(s, n);
    return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Distinct names of device activity (kernels, copies, fills) or of host ops. */
static size_t names_of(const tp_trace *t, int device, const char ***out)
{
    const char **v = malloc((t->nevents + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        int dev = e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET;
        if (dev == device)
            v[n++] = tp_str_get(t, e->name);
    }
    qsort(v, n, sizeof *v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(v[i], v[k - 1]) != 0)
            v[k++] = v[i];
    *out = v;
    return k;
}

TEST(kname_every_shared_sample_distinct_and_lettered)
{
    static const char *const dirs[] = {"external/hta", "external/kineto", "external/tracelens", "external/xplane",
                                       "external/plaidml", "external/dvdt"};
    size_t files = 0, kernels = 0, ops = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", tp_test_shared(dirs[d]));
        DIR *dh = opendir(dir);
        if (!dh)
            continue;
        struct dirent *de;
        while ((de = readdir(dh))) {
            const char *nm = de->d_name;
            size_t l = strlen(nm);
            if (nm[0] == '.' || strcmp(nm, "SOURCES.md") == 0 || (l > 4 && strcmp(nm + l - 4, "csvs") == 0))
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            tp_trace t;
            if (tp_test_load(path, &t) == 0) {
                files++;
                const char **v;
                size_t n = names_of(&t, 1, &v);
                kernels += check_set(v, n, nm);
                free(v);
                n = names_of(&t, 0, &v);
                ops += check_set(v, n, nm);
                free(v);
            }
            tp_trace_free(&t);
        }
        closedir(dh);
    }
    fprintf(stderr, "  %zu samples: %zu kernel names, %zu op names\n", files, kernels, ops);
    CHECK(files >= 18);
    CHECK(kernels >= 900);
}

/* The converter keeps recorded names: demangling is for displayed labels only. */
TEST(kname_convert_keeps_mangled_names)
{
    const char *in = tp_test_write_text(
        "mangled.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"_Z3fooi\",\"pid\":0,\"tid\":7,"
                        "\"ts\":1,\"dur\":2}]}");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert %s -o %s", tp_test_bin(), in, tp_test_tmp("mangled_out.json")), 0);
    free(out);
    char *conv = tp_test_read_file(tp_test_tmp("mangled_out.json"), NULL);
    CHECK(conv && strstr(conv, "\"_Z3fooi\"") && !strstr(conv, "foo(int)"));
    free(conv);
}

/* Charts fit short names to their width keeping what tells them apart
 * (render/text/textfit.h tp_fit_name): the part after a "…" stays. */
TEST(kname_fit_keeps_the_distinguishing_part)
{
    const char *a = "split_embedding_…rowwise_adagrad_unweighted_kernel_cta_per_row_1";
    const char *b = "split_embedding_…rowwise_adagrad_weighted_kernel_cta_per_row_1";
    double w = tp_text_width(TP_FONT_MONO, 7, "split_…rowwise_adagrad_unweighted_kernel_cta_per_row_1");
    char *fa = tp_fit_name(TP_FONT_MONO, 7, a, w), *fb = tp_fit_name(TP_FONT_MONO, 7, b, w);
    CHECK_STR(fa, "split_…rowwise_adagrad_unweighted_kernel_cta_per_row_1");
    CHECK_STR(fb, "split_em…rowwise_adagrad_weighted_kernel_cta_per_row_1");
    free(fa);
    free(fb);
    /* a numbered name keeps its number; one without "…" is fitted in the middle as before */
    fa = tp_fit_name(TP_FONT_MONO, 7, "very_long_kernel_name_that_does_not_fit… #2",
                     tp_text_width(TP_FONT_MONO, 7, "very_long… #2"));
    CHECK_STR(fa, "very_long… #2");
    free(fa);
    fa = tp_fit_name(TP_FONT_MONO, 7, "abcdefghijklmnopqrstuvwxyz", tp_text_width(TP_FONT_MONO, 7, "abcd…wxyz"));
    fb = tp_fit_middle(TP_FONT_MONO, 7, "abcdefghijklmnopqrstuvwxyz", tp_text_width(TP_FONT_MONO, 7, "abcd…wxyz"));
    CHECK_STR(fa, fb);
    free(fa);
    free(fb);
}
