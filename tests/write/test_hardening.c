/* test_hardening.c: the output contract under hostile use (docs/ERRORS.md):
 * outputs that are not regular files, inputs of every kind protected by
 * inode, modes from the umask, temporary files of dead runs removed. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#define EXAMPLE "golden/example.pt.trace.json"
#define ED_SAMPLE "external/etdump/executorch_tutorial_etdump.etdp"
#define ED_RECORD "external/etdump/executorch_sample_etrecord.bin"

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

TEST(hardening_output_that_is_a_device_fifo_or_directory)
{
    char *out = NULL;
    /* a character device is written into, never replaced by a regular file */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert -q %s -o /dev/null", tp_test_bin(), EXAMPLE), 0);
    free(out);
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* a FIFO: its reader gets the whole trace */
    const char *fifo = tp_test_tmp("out.fifo"), *got = tp_test_tmp("from_fifo.json");
    CHECK_EQ_INT(tp_test_run(NULL, "mkfifo '%s'", fifo), 0);
    CHECK_EQ_INT(tp_test_run(&out, "(cat '%s' > '%s' &) ; '%s' convert -q %s -o '%s'", fifo, got, tp_test_bin(),
                             EXAMPLE, fifo), 0);
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "sleep 0.2; grep -q traceEvents '%s'", got), 0);
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    /* a directory: one line, exit 2, nothing created beside it */
    const char *dir = tp_test_tmp("a_dir");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s'", dir), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert -q %s -o '%s'", tp_test_bin(), EXAMPLE, dir), 2);
    CHECK(out && strstr(out, "it is a directory") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    CHECK_STR(tp_test_dir_listing(dir), "");
}

TEST(hardening_every_input_is_protected_by_inode)
{
    char *out = NULL;
    const char *rec = tp_test_tmp("rec.bin"), *link = tp_test_tmp("rec_link.bin"), *hard = tp_test_tmp("rec_hard.bin");
    CHECK_EQ_INT(tp_test_run(NULL, "cp '%s' '%s' && ln -sf '%s' '%s' && ln -f '%s' '%s'", tp_test_shared(ED_RECORD),
                             rec, rec, link, rec, hard), 0);
    long size = file_size(rec);
    const char *targets[] = {rec, link, hard};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(tp_test_run(&out, "'%s' convert -q '%s' --etrecord '%s' -o '%s'", tp_test_bin(),
                                 tp_test_shared(ED_SAMPLE), rec, targets[i]), 2);
        CHECK(out && strstr(out, "refusing to overwrite the input file"));
        free(out);
        CHECK_EQ_INT(file_size(rec), size);
    }
    /* the report writes summary.md into its folder: an ETRecord of that name stays */
    const char *d = tp_test_tmp("rep");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s/summary.md'", d, tp_test_shared(ED_RECORD), d), 0);
    char md[4096];
    snprintf(md, sizeof md, "%s/summary.md", d);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --etrecord '%s' -o '%s'", tp_test_bin(), tp_test_shared(ED_SAMPLE),
                             md, d), 2);
    free(out);
    CHECK_EQ_INT(file_size(md), size);
    /* a batch whose input is its own index */
    const char *b = tp_test_tmp("bat");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp %s '%s/index.json'", b, EXAMPLE, b), 0);
    char idx[4096];
    snprintf(idx, sizeof idx, "%s/index.json", b);
    long isz = file_size(idx);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch '%s' -o '%s'", tp_test_bin(), idx, b), 2);
    CHECK(out && strstr(out, "would be replaced by its index"));
    free(out);
    CHECK_EQ_INT(file_size(idx), isz);
}

TEST(hardening_modes_follow_the_umask)
{
    const char *o = tp_test_tmp("private.json");
    CHECK_EQ_INT(tp_test_run(NULL, "umask 077 && '%s' convert -q %s -o '%s'", tp_test_bin(), EXAMPLE, o), 0);
    struct stat st;
    CHECK(stat(o, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK_EQ_INT(tp_test_run(NULL, "umask 022 && '%s' convert -q %s -o '%s'", tp_test_bin(), EXAMPLE, o), 0);
    CHECK(stat(o, &st) == 0 && (st.st_mode & 0777) == 0644);
}

TEST(hardening_temporary_files_of_dead_runs_are_removed)
{
    const char *o = tp_test_tmp("t.json");
    /* a run killed with SIGKILL leaves its temporary file; the next run
     * writing the same output removes it (its process is gone), and leaves
     * one whose process is alive */
    CHECK_EQ_INT(tp_test_run(NULL, "sh -c 'echo x > \"%s.tmp.$$.AbC123\"' && touch '%s.tmp.1.XyZ789'", o, o), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert -q %s -o '%s'", tp_test_bin(), EXAMPLE, o), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "ls -a '%s' | grep -c '^t.json.tmp' || true", tp_test_tmpdir()), 0);
    CHECK_STR(out, "1\n"); /* pid 1 is alive: its file stays */
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "rm -f '%s'.tmp.*", o), 0);
}

/* Out of memory (injected: TP_ALLOC_FAIL_ABOVE, convert/base/common.c):
 * the process exits 2 with one line and removes its temporary output. */
TEST(hardening_out_of_memory_removes_temporary_outputs)
{
    const char *in = tp_test_tmp("big.json"), *o = tp_test_tmp("oom.json");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_kineto --size 4M -q '%s'", in), 0);
    char *out = NULL;
    /* the writer's 4 MB buffers are allocated after the output is opened */
    int rc = tp_test_run(&out, "TP_ALLOC_FAIL_ABOVE=3000000 '%s' convert '%s' -o '%s'", tp_test_bin(), in, o);
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "out of memory"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "ls '%s' | grep -c 'oom.json' || true", tp_test_tmpdir()), 0);
    CHECK_STR(out, "0\n");
    free(out);
}

TEST(hardening_control_characters_cannot_split_lines_or_drive_the_terminal)
{
    /* a file name with a newline and ESC: the error is still one line */
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/bad\nname\x1b[31m.json", tp_test_tmpdir());
    FILE *f = fopen(bad, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"traceEvents\": [ {\"ph\": }", f);
        fclose(f);
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats \"$(printf '%s/bad\\nname\\033[31m.json' '%s')\"", tp_test_bin(), "%s",
                             tp_test_tmpdir()), 2);
    CHECK(out && strchr(out, '\n') == out + strlen(out) - 1 && !strchr(out, 0x1b) && strstr(out, "bad\\nname\\x1b[31m"));
    free(out);
    /* kernel names with ESC and BEL in the stats table */
    const char *t = tp_test_write_text(
        "esc.json", "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u001b]0;pwned\\u0007x\","
                    "\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2}]}");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), t), 0);
    CHECK(out && !strchr(out, 0x1b) && !strchr(out, 0x07) && strstr(out, "k\\x1b]0;pwned\\x07x"));
    free(out);
}

TEST(hardening_double_dash_ends_the_options)
{
    const char *dir = tp_test_tmp("dd");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp golden/example.pt.trace.json '%s/-o'", dir, dir), 0);
    char bin[4096];
    CHECK(realpath(tp_test_bin(), bin) != NULL);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' stats -- -o", dir, bin), 0);
    CHECK(out && strstr(out, "129 events"));
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' convert -q -o out.json -- -o && test -s out.json", dir, bin), 0);
    free(out);
    /* after --, --help is a file name, not a request for help */
    CHECK_EQ_INT(tp_test_run(&out, "cd '%s' && '%s' stats -- --help", dir, bin), 2);
    CHECK(out && strstr(out, "cannot open"));
    free(out);
}

/* --split is all or nothing, and the previous set stays until the new one
 * is complete: step 2 is too big for the file-size limit of the second run,
 * after step 1 was written. */
TEST(hardening_split_failure_keeps_the_previous_set)
{
    tp_buf j = {0};
    tp_buf_puts(&j, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100000}");
    for (int i = 0; i < 4000; i++)
        tp_buf_printf(&j, ",{\"ph\":\"X\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5}", i, 11 + 20 * i);
    tp_buf_puts(&j, "]}");
    const char *in = tp_test_write("steps.json", j.data, j.len);
    tp_buf_free(&j);
    const char *dir = tp_test_tmp("split");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && '%s' convert -q '%s' --split steps -o '%s/t.json'", dir,
                             tp_test_bin(), in, dir), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cat t.step-1.json t.step-2.json > ../split_before", dir), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "ulimit -f 100 && '%s' convert -q '%s' --split steps --min-dur 1ns -o '%s/t.json'",
                             tp_test_bin(), in, dir), 2);
    CHECK(out && strstr(out, "File too large"));
    free(out);
    CHECK_STR(tp_test_dir_listing(dir), "t.step-1.json t.step-2.json");
    CHECK_EQ_INT(tp_test_run(NULL, "cd '%s' && cat t.step-1.json t.step-2.json | cmp -s - ../split_before", dir), 0);
}
