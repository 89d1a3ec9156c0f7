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
