/* test_reads_diff.c: a cross-vendor diff reads right (issue 36 item 6): both
 * devices named, the op-level change first when kernel names barely overlap,
 * long tables folded into <details>. */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define H100 "external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz"
#define MI250 "external/kineto/hta_amd_mi250_rocm6_2.json.gz"

TEST(cross_vendor_diff_names_devices_and_leads_with_ops)
{
    const char *dir = tp_test_tmp("xv.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), tp_test_shared(H100),
                             tp_test_shared(MI250), dir),
                 0);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "| device | NVIDIA H100 80GB HBM3 | AMD Radeon Graphics | |"));
    const char *lead = md ? strstr(md, "Kernel names barely overlap") : NULL, *ops = md ? strstr(md, "#### Ops") : NULL;
    const char *kern = md ? strstr(md, "#### Top regressions") : NULL;
    CHECK(lead && ops && kern && lead < ops && ops < kern);
    /* the op-level change right under the overview, before the categories and the shapes (it came third, below a
     * line saying it tells the change first) */
    const char *cats = md ? strstr(md, "#### Op categories") : NULL, *over = md ? strstr(md, "| figure |") : NULL;
    CHECK(over && lead && cats && over < lead && ops < cats);
    /* ten kernel rows: folded, the summary saying what is inside */
    CHECK(md && strstr(md, "<details><summary>10 rows: kernel</summary>") && strstr(md, "</details>"));
    free(md);
    if (!tp_test_have("pdftotext"))
        return;
    /* diff.pdf: both names whole when they fit, both devices named */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -l 1 '%s/diff.pdf' -", dir), 0);
    CHECK(out && strstr(out, "tracepress diff: h100_gaunernst_bert-small-uncased__1016001 -> hta_amd_mi250_rocm6_2"));
    CHECK(out && strstr(out, "Base: NVIDIA H100 80GB HBM3 (chrome); candidate: AMD Radeon Graphics (chrome)"));
    /* its first chart leads with the ops too, as diff.md does (it charted new and gone kernels) */
    CHECK(out && strstr(out, "Largest op changes (device time they launched, candidate - base): kernel names barely "
                             "overlap"));
    CHECK(out && !strstr(out, "Largest kernel changes"));
    free(out);
}

/* a diff of a run with itself keeps the kernel-first order (names all match) */
TEST(same_vendor_diff_keeps_kernels_first)
{
    const char *dir = tp_test_tmp("self.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), tp_test_shared(H100),
                             tp_test_shared(H100), dir),
                 0);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && !strstr(md, "barely overlap") && strstr(md, "| device | NVIDIA H100 80GB HBM3 | NVIDIA H100 80GB HBM3 |"));
    free(md);
}

/* One step: aten::softmax launches the softmax kernel, aten::mm a GEMM of the same name in both runs.  The
 * candidate's softmax kernel has another name (MI300's cunn_SoftMaxForwardReg) and runs 146 us, not 300 us. */
#define SOFTMAX_TRACE(KERNEL, DUR)                                                                                \
    "{\"traceEvents\":[\n"                                                                                        \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,\"tid\":101,\"ts\":0,\"dur\":900},\n" \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::softmax\",\"pid\":100,\"tid\":101,\"ts\":10,\"dur\":50},\n"      \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":101,\"ts\":20,\"dur\":5," \
    "\"args\":{\"correlation\":1}},\n"                                                                            \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":100,\"tid\":101,\"ts\":70,\"dur\":30},\n"           \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":101,\"ts\":75,\"dur\":5," \
    "\"args\":{\"correlation\":2}},\n"                                                                            \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void " KERNEL "<float, float, float>(float*, float const*, int)\","  \
    "\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":" DUR ",\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}},\n"         \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":500,\"dur\":40,"            \
    "\"args\":{\"correlation\":2,\"device\":0,\"stream\":7}}\n"                                                   \
    "]}\n"

/* item 6: kernels of different names that the same op launched are one renamed kernel that got faster, not a
 * "gone" and a "new" row (which read as a +146 us regression beside a -300 us improvement) */
TEST(renamed_kernel_paired_by_launching_op)
{
    const char *a = tp_test_write_text("sm_h100.json", SOFTMAX_TRACE("cunn_SoftMaxForward", "300"));
    const char *b = tp_test_write_text("sm_mi300.json", SOFTMAX_TRACE("cunn_SoftMaxForwardReg", "146"));
    const char *dir = tp_test_tmp("sm.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' 2>/dev/null", tp_test_bin(), a, b, dir), 0);
    char *md = tp_test_read_in(dir, "diff.md"), *js = tp_test_read_in(dir, "diff.json");
    CHECK(md && strstr(md, "| `cunn_SoftMaxForward` →<br>`cunn_SoftMaxForwardReg`<br>(both launched by `aten::softmax`) | 1 → 1 |"));
    CHECK(md && strstr(md, "| -154.000 | -51.3% |"));
    CHECK(md && !strstr(md, "| new |") && !strstr(md, "| gone |"));
    CHECK(js && strstr(js, "\"match\":\"op\",\"op\":\"aten::softmax\""));
    free(md);
    free(js);
    if (!tp_test_have("pdftotext"))
        return;
    /* diff.pdf: the one-row steps table shares its page with the kernels and the ops (was a page each) */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -f 3 -l 3 '%s/diff.pdf' - 2>&1", dir), 0);
    CHECK(out && strstr(out, "Steps") && strstr(out, "Kernels") && strstr(out, "Ops (device time launched)"));
    CHECK(out && strstr(out, "op aten::softmax"));
    free(out);
}

/* the devices and the op-level change lead diff.md; memory follows the time sections (an H100 -> MI300X diff
 * opened with 15 rows of cuda:0 / hip:0 memory holders before naming either device) */
TEST(diff_md_memory_after_the_time_sections)
{
    const char *q = tp_test_shared("external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
    const char *dir = tp_test_tmp("diff.memorder");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s'", tp_test_bin(), q, q, dir), 0);
    char *md = tp_test_read_in(dir, "diff.md");
    const char *mem = md ? strstr(md, "**Memory**") : NULL, *dev = md ? strstr(md, "| device | NVIDIA H100") : NULL;
    const char *cats = md ? strstr(md, "#### Op categories") : NULL;
    CHECK(mem && dev && dev < mem);
    CHECK(!cats || cats < mem);
    free(md);
}
