/* fuzz_job.c: libFuzzer target for the job report's reduce: the input is
 * split at each "\n#-#-#\n" into up to 8 rank summaries (what `report
 * --merge` reads from DIR/ranks/), each parsed; those that parse are built
 * into a job (or refused as not one job), whose summary.json must parse as
 * JSON and whose summary.md must keep the Markdown guarantees of
 * tests/fuzz/md_oracle.h (its strings come from the files: kinds, groups,
 * dtypes, paths); a job diff of the job with itself is written too.
 * Every summary that parses must also survive the writer: written again,
 * it parses back to the same text (what a run writes, a merge reads). 
 * Built by `make fuzz`. */
#include "convert/codec/json_value.h"
#include "report/job/job_diff.h"
#include "report/job/job_out.h"
#include "tests/fuzz/md_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *why, const tp_buf *b)
{
    fprintf(stderr, "%s: %s\n---\n%.*s\n---\n", what, why, (int)(b->len > 20000 ? 20000 : b->len), b->data);
    abort();
}

static void check_json(const char *what, const tp_buf *b)
{
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root;
    tp_err err = {0};
    if (tp_jv_parse_all(&doc, b->data, b->len, &root, &err) != 0)
        fail(what, err.msg, b);
    tp_jdoc_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sep[] = "\n#-#-#\n";
    tp_rank_sum sums[8];
    size_t n = 0;
    const char *p = (const char *)data, *end = p + size;
    while (p <= end && n < 8) {
        const char *cut = memmem(p, (size_t)(end - p), sep, sizeof sep - 1);
        size_t len = cut ? (size_t)(cut - p) : (size_t)(end - p);
        tp_err err = {0};
        if (tp_rank_sum_parse(p, len, &sums[n], &err) == 0) {
            tp_buf w1 = {0}, w2 = {0};
            tp_rank_sum_json(&sums[n], &w1);
            tp_rank_sum again;
            if (tp_rank_sum_parse(w1.data, w1.len, &again, &err) != 0)
                fail("rank summary written back", err.msg, &w1);
            tp_rank_sum_json(&again, &w2);
            if (w1.len != w2.len || memcmp(w1.data, w2.data, w1.len) != 0)
                fail("rank summary written twice", "not the same text", &w2);
            tp_rank_sum_free(&again);
            tp_buf_free(&w1);
            tp_buf_free(&w2);
            n++;
        }
        if (!cut)
            break;
        p = cut + sizeof sep - 1;
    }
    tp_job job;
    tp_err err = {0};
    int rc = tp_job_build(sums, n, &job, &err);
    for (size_t i = 0; i < n; i++)
        tp_rank_sum_free(&sums[i]);
    if (rc < 0)
        return 0;
    tp_buf json = {0}, md = {0}, dj = {0}, dm = {0}, why = {0};
    tp_job_json(&job, &json);
    check_json("summary.json", &json);
    tp_job_md(&job, NULL, &md);
    const char *bad = tp_md_oracle(md.data, md.len);
    if (bad)
        fail("summary.md", bad, &md);
    tp_job_diff d;
    tp_job_diff_build(&job, &job, &d);
    bool tripped = tp_job_diff_slower(&d, 0, &why);
    tp_job_diff_json(&d, &why, tripped, &dj);
    check_json("diff.json", &dj);
    tp_job_diff_md(&d, &why, tripped, &dm);
    if ((bad = tp_md_oracle(dm.data, dm.len)) != NULL)
        fail("diff.md", bad, &dm);
    tp_job_diff_free(&d);
    tp_job_free(&job);
    tp_buf_free(&json);
    tp_buf_free(&md);
    tp_buf_free(&dj);
    tp_buf_free(&dm);
    tp_buf_free(&why);
    return 0;
}
