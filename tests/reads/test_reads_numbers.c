/* test_reads_numbers.c: numbers and labels that read right (issue 36 item 8). */
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

#define QWEN "external/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"

/* the opportunities table is numbered 1, 2, 3 in its own order; the shape's # (its row above and its roofline
 * mark) is a column of its own */
TEST(opportunities_numbered_in_order)
{
    if (!tp_test_have("pdftotext"))
        return;
    const char *dir = tp_test_tmp("qwen.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(QWEN), dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - | grep -A12 '^Opportunities:' | "
                                   "grep -E '^ *[0-9]+ ' | awk '{print $1}' | tr '\\n' ' '",
                             dir),
                 0);
    CHECK(out && strncmp(out, "1 2 3 4 5 6 7 8 ", 16) == 0);
    free(out);
}
