/* test_bad_inputs.c: the bad-input corpus (issue 10, docs/ERRORS.md).
 *
 * scripts/gen_bad_corpus writes the corpus into the test tmpdir (truncated
 * samples, gzip cut short or expanding without bound, wrong magic, random
 * bytes, deep nesting, huge strings and numbers, lengths past the end, and
 * the hand-written cases of tests/bad/).  Every case runs through
 * `tracepress convert` and `tracepress stats` (the binary under test: the
 * ASan+UBSan one in the second half of `make test`), and each run must keep
 * the error contract:
 *   - exit 2, or 0 for the lenient cases the manifest lists (with the counted
 *     warning in convert's summary line);
 *   - on exit 2 exactly one line on stderr, "tracepress: FILE: offset N: what"
 *     (or "record N"); nothing else (no sanitizer report, no second line);
 *   - memory bounded: the release binary runs under `ulimit -v` (a floor plus
 *     a small multiple of the input; ASan cannot run under ulimit -v);
 *   - the output directory holds nothing after a failure (no output, no
 *     *.tmp.*), and only the output after a success. */
#include "tests/lib/harness.h"
#include "convert/io/input.h"
#include "convert/codec/json_lex.h"

#include <stdlib.h>
#include <sys/stat.h>

#define FLOOR_KB (320L * 1024) /* address space every run may use, plus 8x the input */

static bool ulimit_works(void)
{
    return tp_test_run(NULL, "(ulimit -v %ld && %s --version; exit $?) >/dev/null 2>&1", FLOOR_KB, tp_test_bin()) == 0;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* "tracepress: PATH: offset N: msg\n" (or record N); with --strict a
 * rejected warning may have no locus. */
static bool error_line_ok(const char *err, const char *path, bool locus_optional)
{
    char prefix[3200];
    snprintf(prefix, sizeof prefix, "tracepress: %s: ", path);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        return false;
    const char *rest = err + strlen(prefix);
    const char *loc = !strncmp(rest, "offset ", 7) ? rest + 7 : !strncmp(rest, "record ", 7) ? rest + 7 : NULL;
    if (loc) {
        const char *q = loc;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q == loc || strncmp(q, ": ", 2) != 0)
            return false;
        rest = q + 2;
    } else if (!locus_optional)
        return false;
    return rest[0] && rest[0] != '\n' && count_lines(err) == 1 && err[strlen(err) - 1] == '\n';
}

typedef struct {
    int cases, runs, skipped;
} tally;

static void run_case(const char *dir, const char *file, const char *expect, const char *args, const char *pattern,
                     bool limit, int n, tally *tl)
{
    char path[3100], outdir[1200], errf[1300], ulim[64] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct stat st;
    if (stat(path, &st) != 0) {
        tp_test_fail(__FILE__, __LINE__, "corpus case %s is missing", file);
        return;
    }
    if (limit)
        snprintf(ulim, sizeof ulim, "ulimit -v %ld; ", FLOOR_KB + 8 * (long)(st.st_size / 1024));
    const char *a = strcmp(args, "-") ? args : "";
    bool strict = strstr(a, "--strict") != NULL;
    tl->cases++;
    for (int cmd = 0; cmd < 2; cmd++) {
        snprintf(outdir, sizeof outdir, "%s/out-%d-%d", tp_test_tmpdir(), n, cmd);
        snprintf(errf, sizeof errf, "%s.stderr", outdir);
        mkdir(outdir, 0755);
        int rc;
        if (cmd == 0)
            rc = tp_test_run(NULL, "%sulimit -c 0; exec %s convert %s '%s' -o '%s/out.json' 2>'%s' >/dev/null", ulim,
                             tp_test_bin(), a, path, outdir, errf);
        else
            rc = tp_test_run(NULL, "%sulimit -c 0; exec %s stats %s '%s' 2>'%s' >/dev/null", ulim,
                             tp_test_bin(), a, path, errf);
        char *err = tp_test_read_file(errf, NULL);
        if (!err)
            err = strdup("");
        const char *what = cmd == 0 ? "convert" : "stats";
        tl->runs++;
        if (strstr(err, "unknown format '")) { /* a reader not merged yet */
            tl->skipped++;
            free(err);
            continue;
        }
        /* "C/S": convert expects C, stats expects S (stats skips what only convert writes) */
        char want[16];
        const char *slash = strchr(expect, '/');
        if (slash && cmd == 0)
            snprintf(want, sizeof want, "%.*s", (int)(slash - expect), expect);
        else
            snprintf(want, sizeof want, "%s", slash ? slash + 1 : expect);
        bool ok_code = (rc == 2 && strstr(want, "2")) || (rc == 0 && strstr(want, "0"));
        if (!ok_code)
            tp_test_fail(__FILE__, __LINE__, "%s %s %s: exit %d, expected %s; stderr: %.600s", what, a, file, rc, want,
                         err);
        if (strstr(err, "Sanitizer") || strstr(err, "runtime error") || strstr(err, "out of memory"))
            tp_test_fail(__FILE__, __LINE__, "%s %s %s: sanitizer or memory failure: %.600s", what, a, file, err);
        const char *listing = tp_test_dir_listing(outdir);
        if (rc == 2) {
            if (!error_line_ok(err, path, strict))
                tp_test_fail(__FILE__, __LINE__, "%s %s %s: not one 'tracepress: FILE: offset N: what' line: %.600s",
                             what, a, file, err);
            if (strcmp(pattern, "-") && !strstr(err, pattern))
                tp_test_fail(__FILE__, __LINE__, "%s %s %s: error does not mention '%s': %.600s", what, a, file,
                             pattern, err);
            if (listing[0])
                tp_test_fail(__FILE__, __LINE__, "%s %s %s: left files behind after failing: %s", what, a, file,
                             listing);
        } else if (rc == 0) {
            if (cmd == 0) {
                if (strcmp(listing, "out.json") != 0)
                    tp_test_fail(__FILE__, __LINE__, "convert %s %s: output directory holds '%s', expected out.json",
                                 a, file, listing);
                if (count_lines(err) != 1 || strncmp(err, "tracepress: ", 12) != 0)
                    tp_test_fail(__FILE__, __LINE__, "convert %s %s: expected one summary line: %.600s", a, file, err);
                if (strcmp(pattern, "-") && !strstr(err, pattern))
                    tp_test_fail(__FILE__, __LINE__, "convert %s %s: summary does not count '%s': %.600s", a, file,
                                 pattern, err);
                /* whatever came in, what goes out is valid JSON */
                char outp[1300];
                snprintf(outp, sizeof outp, "%s/out.json", outdir);
                size_t olen = 0;
                char *o = tp_test_read_file(outp, &olen);
                if (!o || !tp_json_valid(o, olen))
                    tp_test_fail(__FILE__, __LINE__, "convert %s %s: the output is not valid JSON", a, file);
                free(o);
            } else { /* stats: its output, and on stderr only the reader's warnings, one line each */
                for (const char *l = err; *l;) {
                    const char *nl = strchr(l, '\n');
                    size_t ll = nl ? (size_t)(nl - l) : strlen(l);
                    char *line = strndup(l, ll);
                    if (strncmp(line, "tracepress: ", 12) != 0 || !strstr(line, ": warning: "))
                        tp_test_fail(__FILE__, __LINE__, "stats %s %s: succeeded but wrote to stderr: %.600s", a, file,
                                     line);
                    free(line);
                    l += ll + (nl != NULL);
                }
            }
        }
        free(err);
        tp_test_run(NULL, "rm -rf '%s' '%s'", outdir, errf);
    }
}

TEST(bad_inputs_corpus_keeps_the_error_contract)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bad", tp_test_tmpdir());
    char *out = NULL;
    int rc = tp_test_run(&out, "scripts/gen_bad_corpus '%s'", dir);
    if (rc != 0) {
        tp_test_fail(__FILE__, __LINE__, "scripts/gen_bad_corpus failed (%d): %s", rc, out ? out : "");
        free(out);
        return;
    }
    free(out);
    char man[1100];
    snprintf(man, sizeof man, "%s/MANIFEST", dir);
    FILE *f = fopen(man, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    bool limit = ulimit_works();
    tally tl = {0};
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *file = strtok(line, "\t"), *expect = strtok(NULL, "\t"), *args = strtok(NULL, "\t"),
             *pattern = strtok(NULL, "\t");
        if (!file || !expect || !args || !pattern) {
            tp_test_fail(__FILE__, __LINE__, "malformed MANIFEST line %d", n + 1);
            continue;
        }
        run_case(dir, file, expect, args, pattern, limit, n++, &tl);
    }
    fclose(f);
    CHECK(tl.cases > 150); /* the generator really produced the corpus */
    if (getenv("TP_VERBOSE"))
        fprintf(stderr, "  bad inputs: %d cases, %d runs (%d skipped: format not built in), memory limit %s\n",
                tl.cases, tl.runs, tl.skipped, limit ? "on" : "off (ASan)");
    tp_test_run(NULL, "rm -rf '%s'", dir);
}

/* Readers that need the whole input (binary formats) use tp_input_slurp:
 * gzip data that expands without bound must be refused there, whatever
 * limit the reader passed (0 = none). */
#include "convert/io/input.h"

TEST(slurp_refuses_a_gzip_bomb_and_reads_honest_gzip)
{
    const char *bomb = tp_test_tmp("slurp-bomb.gz"), *ok = tp_test_tmp("slurp-ok.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "head -c 16777216 /dev/zero | gzip -c > '%s.m' && cat '%s.m' '%s.m' '%s.m' '%s.m' "
                                   "'%s.m' > '%s' && rm '%s.m'",
                             bomb, bomb, bomb, bomb, bomb, bomb, bomb, bomb),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "head -c 300000 /dev/zero | tr '\\0' x | gzip -c > '%s'", ok), 0);
    tp_err err = {0};
    tp_input *in = tp_input_open(bomb, &err);
    CHECK(in != NULL);
    size_t len = 0;
    char *data = in ? tp_input_slurp(in, &len, 0, &err) : NULL;
    CHECK(data == NULL);
    CHECK(err.set && strstr(err.msg, "gzip bomb") != NULL);
    free(data);
    tp_input_close(in);
    tp_err err2 = {0};
    in = tp_input_open(ok, &err2);
    CHECK(in != NULL);
    data = in ? tp_input_slurp(in, &len, 0, &err2) : NULL; /* 300000 bytes, about 700-fold: under the 64 MB floor */
    CHECK(data != NULL && len == 300000 && !err2.set);
    free(data);
    tp_input_close(in);
}

TEST(json_valid_checks_the_grammar)
{
    const char *good[] = {"0", "-0.5e+3", "1E9", "\"a\\n\\u00e9\"", "true", " null ", "[]", "{}", "[1,[2,{}]]",
                          "{\"a\":{\"b\":[false]}}", "\"raw \x01 and \xff are repaired later\""};
    const char *bad[] = {"", "tru", "01", "1.", ".5", "1e", "-", "+1", "[1,]", "[,1]", "[1,,2]", "{\"a\" 1}",
                         "{\"a\":}", "{a:1}", "{\"a\":1,}", "[1 2]", "\"\\x\"", "\"\\u12\"", "\"open",
                         "[1}", "{\"a\":1]", "1 2", "NaN", "[[", "]"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (!tp_json_valid(good[i], strlen(good[i])))
            tp_test_fail(__FILE__, __LINE__, "valid JSON refused: %s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (tp_json_valid(bad[i], strlen(bad[i])))
            tp_test_fail(__FILE__, __LINE__, "invalid JSON accepted: %s", bad[i]);
    char deep[1200];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    CHECK(!tp_json_valid(deep, 1200)); /* deeper than 512: refused, no recursion */
    CHECK(tp_json_valid(deep + 100, 1000));
    CHECK(tp_json_valid_members("", 0));
    CHECK(tp_json_valid_members(",\"k\":1,\"l\":[2]", 14));
    CHECK(tp_json_valid_members("\"k\":1", 5));
    CHECK(!tp_json_valid_members(",\"k\":tru", 8));
    CHECK(!tp_json_valid_members("\"k\":1}", 6));
    CHECK(!tp_json_valid_members("\"k\":1,", 6));
}
