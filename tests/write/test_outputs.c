/* test_outputs.c: outputs are never half-written (issue 10, docs/ERRORS.md).
 *   - a full disk (a size-limited file via `ulimit -f`, SIGXFSZ ignored so
 *     write() returns EFBIG; and a small tmpfs when we are root and may
 *     mount) fails with exit 2, one line, and no partial file; an existing
 *     output is left as it was;
 *   - SIGTERM / SIGINT during a long conversion remove the temporary file;
 *     SIGBUS (a mapped input truncated) too, and exits 2;
 *   - the input is never overwritten (`convert X -o X`, also through another
 *     path, a symlink or a hard link);
 *   - writing over an existing output replaces it atomically (swapped in by
 *     RENAME_EXCHANGE, then the old one unlinked, or renamed over): the old
 *     file is never written in place (a hard link to it keeps the old bytes)
 *     and nothing is left under the temporary name. */
#include "tests/lib/harness.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A synthetic Kineto-like trace of n kernel launches; returns its path. */
static const char *synthetic(const char *name, long n)
{
    const char *path = tp_test_tmp(name);
    if (tp_test_file_exists(path))
        return path;
    FILE *f = fopen(path, "w");
    if (!f)
        return path;
    fputs("{\"traceEvents\":[\n", f);
    for (long i = 0; i < n; i++) {
        long ts = 1000 + i * 10;
        fprintf(f,
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                "\"ts\":%ld,\"dur\":3,\"args\":{\"correlation\":%ld}},\n"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%ld\",\"pid\":0,\"tid\":7,\"ts\":%ld.5,\"dur\":6,"
                "\"args\":{\"correlation\":%ld,\"grid\":[1,2,3]}},\n",
                ts, i, i % 50, ts + 4, i);
    }
    fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}]}\n", f);
    fclose(f);
    return path;
}

static const char *fresh_dir(const char *name)
{
    const char *d = tp_test_tmp(name);
    tp_test_run(NULL, "rm -rf '%s' && mkdir -p '%s'", d, d);
    return d;
}

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(s, f);
        fclose(f);
    }
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* trap_xfsz: ignore SIGXFSZ in the shell (and so in tracepress) as the
 * original tests did; without it tracepress must ignore it itself, as a
 * nightly job under a file-size limit (Slurm propagates RLIMIT_FSIZE) would
 * otherwise be killed by the signal and leave its temporary file behind. */
static void full_disk_case_env(const char *env, const char *out_name, int limit_kb, bool trap_xfsz)
{
    const char *in = synthetic("outputs-30k.json", 30000);
    char dir[1024], out[1200];
    snprintf(dir, sizeof dir, "%s", fresh_dir("full-disk"));
    snprintf(out, sizeof out, "%s/%s", dir, out_name);
    write_file(out, "OLD OUTPUT\n");
    char *err = NULL;
    int rc = tp_test_run(&err, "%sulimit -f %d; %s exec %s convert '%s' -o '%s'", trap_xfsz ? "trap '' XFSZ; " : "",
                         limit_kb, env, tp_test_bin(), in, out);
    CHECK_EQ_INT(rc, 2);
    if (!strstr(err, "cannot write") || !strstr(err, "File too large") || lines(err) != 1)
        tp_test_fail(__FILE__, __LINE__, "%s: expected one 'cannot write ...: File too large' line, got: %s", out_name,
                     err);
    CHECK_STR(tp_test_dir_listing(dir), out_name); /* no temporary file left */
    char *old = tp_test_read_file(out, NULL);
    CHECK_STR(old, "OLD OUTPUT\n"); /* the previous output is intact */
    free(old);
    free(err);
}

static void full_disk_case(const char *out_name, int limit_kb, bool trap_xfsz)
{
    full_disk_case_env("", out_name, limit_kb, trap_xfsz);
}

/* with no write thread (TP_WRITE_THREAD=0), a plain output goes O_DIRECT
 * from the formatting buffer itself: a refused write is the same clean
 * failure; and with TP_THREADS=1 (the write thread stays) */
TEST(output_full_disk_fails_cleanly_one_thread)
{
    full_disk_case_env("TP_WRITE_THREAD=0", "out.json", 256, false);
    full_disk_case_env("TP_WRITE_THREAD=0", "out.json", 2048, true);
    full_disk_case_env("TP_WRITE_THREAD=0", "out.json.gz", 8, false);
    full_disk_case_env("TP_THREADS=1", "out.json", 2048, true);
}

TEST(output_full_disk_fails_cleanly_json)
{
    full_disk_case("out.json", 256, true);
}

TEST(output_full_disk_fails_cleanly_gzip)
{
    full_disk_case("out.json.gz", 8, true);
}

TEST(output_file_size_limit_is_a_write_error_not_a_signal)
{
    full_disk_case("out.json", 256, false);
    full_disk_case("out.json.gz", 8, false);
}

TEST(output_full_tmpfs_fails_cleanly)
{
    if (geteuid() != 0)
        return; /* mounting needs root: the ulimit -f tests cover the path */
    const char *in = synthetic("outputs-30k.json", 30000);
    char mnt[1024];
    snprintf(mnt, sizeof mnt, "%s", fresh_dir("tmpfs"));
    if (tp_test_run(NULL, "mount -t tmpfs -o size=512k tracepress-test '%s'", mnt) != 0)
        return; /* not allowed here (container): skip */
    char *err = NULL;
    int rc = tp_test_run(&err, "%s convert '%s' -o '%s/out.json'", tp_test_bin(), in, mnt);
    CHECK_EQ_INT(rc, 2);
    if (!strstr(err, "No space left") || lines(err) != 1)
        tp_test_fail(__FILE__, __LINE__, "expected one 'No space left on device' line, got: %s", err);
    CHECK_STR(tp_test_dir_listing(mnt), "");
    free(err);
    CHECK_EQ_INT(tp_test_run(NULL, "umount '%s'", mnt), 0);
}

static bool has_tmp(const char *dir, off_t *size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) {
            char p[2048];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (stat(p, &st) == 0) {
                *size = st.st_size;
                found = true;
            }
        }
    closedir(d);
    return found;
}

/* Start a conversion, wait until its temporary output is being written,
 * send sig.  Returns 1 when caught mid-write, 0 when the conversion ended
 * first (the caller retries with a bigger input), -1 on error. */
static int kill_mid_write(const char *in, const char *dir, int sig, int *status)
{
    char out[1200];
    snprintf(out, sizeof out, "%s/out.json", dir);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        freopen("/dev/null", "w", stderr);
        execl(tp_test_bin(), tp_test_bin(), "convert", in, "-o", out, (char *)NULL);
        _exit(127);
    }
    struct timespec nap = {0, 1000000}; /* 1 ms: polling, not a timing assertion */
    for (;;) {
        off_t size = 0;
        if (has_tmp(dir, &size) && size > 0) {
            kill(pid, sig);
            waitpid(pid, status, 0);
            return 1;
        }
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        nanosleep(&nap, NULL);
    }
}

static void signal_case(int sig)
{
    long n = 100000;
    for (int attempt = 0; attempt < 4; attempt++, n *= 3) {
        char name[64];
        snprintf(name, sizeof name, "outputs-%ld.json", n);
        const char *in = synthetic(name, n);
        const char *dir = fresh_dir("signal");
        int status = 0;
        int k = kill_mid_write(in, dir, sig, &status);
        CHECK(k >= 0);
        if (k == 0)
            continue; /* finished before we saw it writing: try a bigger input */
        if (sig == SIGBUS) /* an input mapping that faults: bad input, exit 2 */
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
        else
            CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
        CHECK_STR(tp_test_dir_listing(dir), ""); /* the temporary file is gone, no output */
        return;
    }
    tp_test_fail(__FILE__, __LINE__, "never caught the conversion while it was writing");
}

TEST(output_sigterm_removes_temporary_file)
{
    signal_case(SIGTERM);
}

TEST(output_sigint_removes_temporary_file)
{
    signal_case(SIGINT);
}

/* Inputs are memory-mapped: one truncated by another process faults with
 * SIGBUS, which must clean up like any other end (the signal is sent here:
 * truncating at the right moment would be a race). */
TEST(output_bus_error_removes_temporary_file_and_exits_2)
{
    signal_case(SIGBUS);
}

TEST(output_never_overwrites_the_input)
{
    const char *dir = fresh_dir("protect");
    char in[1100], other[1200], slink[1100], hard[1100];
    snprintf(in, sizeof in, "%s/in.json", dir);
    write_file(in, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]\n");
    snprintf(other, sizeof other, "%s/../protect/./in.json", dir);
    snprintf(slink, sizeof slink, "%s/link.json", dir);
    snprintf(hard, sizeof hard, "%s/hard.json", dir);
    CHECK(symlink("in.json", slink) == 0);
    CHECK(link(in, hard) == 0);
    const char *outs[] = {in, other, slink, hard};
    for (int i = 0; i < 4; i++) {
        char *err = NULL;
        int rc = tp_test_run(&err, "%s convert '%s' -o '%s'", tp_test_bin(), in, outs[i]);
        CHECK_EQ_INT(rc, 2);
        if (!strstr(err, "refusing to overwrite the input") || lines(err) != 1)
            tp_test_fail(__FILE__, __LINE__, "-o %s: expected one 'refusing to overwrite' line, got: %s", outs[i], err);
        free(err);
        char *now = tp_test_read_file(in, NULL);
        CHECK_STR(now, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]\n");
        free(now);
    }
    CHECK(strstr(tp_test_dir_listing(dir), ".tmp.") == NULL);
}

/* Large outputs are written with O_DIRECT in whole blocks, the last partial
 * block through the page cache: the bytes are those of the page-cache path
 * and of standard output, to JSON, .json.gz and .pftrace, whatever the
 * length; also with no write thread (TP_WRITE_THREAD=0: staged in the
 * formatting buffer itself) and with TP_THREADS=1. */
TEST(output_direct_io_writes_the_same_bytes)
{
    const char *in = synthetic("direct.json", 60000); /* about 20 MB of output */
    const char *dir = fresh_dir("direct");
    static const char *const ext[] = {"json", "json.gz", "pftrace"};
    for (int k = 0; k < 3; k++) {
        char a[1100], b[1100], c[1100], d[1100];
        snprintf(a, sizeof a, "%s/direct.%s", dir, ext[k]);
        snprintf(b, sizeof b, "%s/cached.%s", dir, ext[k]);
        snprintf(c, sizeof c, "%s/stdout.%s", dir, ext[k]);
        snprintf(d, sizeof d, "%s/one_thread.%s", dir, ext[k]);
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, a), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "TP_DIRECT_IO=0 %s convert -q '%s' -o '%s'", tp_test_bin(), in, b), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s '%s' '%s'", a, b), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "TP_WRITE_THREAD=0 %s convert -q '%s' -o '%s'", tp_test_bin(), in, d), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s '%s' '%s'", d, b), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "TP_THREADS=1 %s convert -q '%s' -o '%s'", tp_test_bin(), in, d), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s '%s' '%s'", d, b), 0);
        if (k == 0) {
            CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o - > '%s'", tp_test_bin(), in, c), 0);
            CHECK_EQ_INT(tp_test_run(NULL, "cmp -s '%s' '%s'", a, c), 0);
            struct stat st;
            CHECK(stat(a, &st) == 0 && st.st_size > (8 << 20) && st.st_size % 4096 != 0); /* a partial last block */
        }
    }
    CHECK(strstr(tp_test_dir_listing(dir), ".tmp.") == NULL);
}

TEST(output_over_an_existing_file_is_replaced_by_rename)
{
    const char *dir = fresh_dir("replace");
    char in[1100], out[1100], keep[1100], bad[1100];
    snprintf(in, sizeof in, "%s/in.json", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(keep, sizeof keep, "%s/keep.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    write_file(in, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]\n");
    write_file(bad, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,");
    write_file(out, "OLD OUTPUT\n");
    CHECK(link(out, keep) == 0); /* a second name for the old file */
    /* a failed conversion leaves the existing output as it was */
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s'", tp_test_bin(), bad, out), 2);
    char *now = tp_test_read_file(out, NULL);
    CHECK_STR(now, "OLD OUTPUT\n");
    free(now);
    /* a successful one replaces it by rename: the old inode keeps its bytes */
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, out), 0);
    now = tp_test_read_file(out, NULL);
    CHECK(now && strstr(now, "\"name\":\"a\"") != NULL);
    free(now);
    char *old = tp_test_read_file(keep, NULL);
    CHECK_STR(old, "OLD OUTPUT\n");
    free(old);
    struct stat a, b;
    CHECK(stat(out, &a) == 0 && stat(keep, &b) == 0 && a.st_ino != b.st_ino);
    CHECK(strstr(tp_test_dir_listing(dir), ".tmp.") == NULL);
}

TEST(output_to_a_missing_directory_or_a_directory_fails_cleanly)
{
    const char *dir = fresh_dir("baddir");
    char in[1100];
    snprintf(in, sizeof in, "%s/in.json", dir);
    write_file(in, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]\n");
    char *err = NULL;
    CHECK_EQ_INT(tp_test_run(&err, "%s convert '%s' -o '%s/nope/out.json'", tp_test_bin(), in, dir), 2);
    CHECK(strstr(err, "cannot create") != NULL && lines(err) == 1);
    free(err);
    char sub[1200];
    snprintf(sub, sizeof sub, "%s/isdir", dir);
    mkdir(sub, 0755);
    CHECK_EQ_INT(tp_test_run(&err, "%s convert '%s' -o '%s'", tp_test_bin(), in, sub), 2);
    if (!strstr(err, "it is a directory") || lines(err) != 1) /* refused before anything is written */
        tp_test_fail(__FILE__, __LINE__, "expected one 'it is a directory' line, got: %s", err);
    free(err);
    CHECK(strstr(tp_test_dir_listing(dir), ".tmp.") == NULL);
    CHECK_STR(tp_test_dir_listing(sub), "");
}

/* report and diff write several files (PDF, PNGs, Markdown, JSON): a signal
 * while any of them is open removes its temporary file too.  inotify tells
 * us when a temporary file appears; we stop the process, check the file is
 * still there (it may have been renamed meanwhile), and only then send sig. */
/* One attempt: 1 when the signal was sent while a temporary file existed,
 * 0 when the command ended first, -1 on error; *status is its wait status. */
static int signal_on_tmp(char *const argv[], const char *dir, int sig, int *status)
{
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        freopen("/dev/null", "w", stderr);
        freopen("/dev/null", "w", stdout);
        execv(argv[0], argv);
        _exit(127);
    }
    bool sent = false, ended = false;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (!sent && !ended) {
        struct pollfd pf = {fd, POLLIN, 0};
        poll(&pf, 1, 10);
        ssize_t n = read(fd, buf, sizeof buf);
        for (char *q = buf; n > 0 && q < buf + n && !sent && !ended;) {
            struct inotify_event *e = (struct inotify_event *)q;
            q += sizeof *e + e->len;
            if (!e->len || !strstr(e->name, ".tmp."))
                continue;
            kill(pid, SIGSTOP);
            int st;
            if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
                *status = st;
                ended = true; /* it ended first */
                break;
            }
            char p[2048];
            snprintf(p, sizeof p, "%s/%s", dir, e->name);
            if (access(p, F_OK) == 0) {
                kill(pid, sig);
                sent = true;
            }
            kill(pid, SIGCONT);
        }
        if (!sent && !ended && waitpid(pid, status, WNOHANG) == pid)
            ended = true;
    }
    close(fd);
    if (!ended)
        waitpid(pid, status, 0);
    return sent ? 1 : 0;
}

static void signal_while_writing(const char *what, char *const argv[], const char *dir, int sig)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        tp_test_run(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
        int status = 0;
        int k = signal_on_tmp(argv, dir, sig, &status);
        if (k < 0) {
            tp_test_fail(__FILE__, __LINE__, "%s: inotify or fork failed", what);
            return;
        }
        if (k == 0)
            continue; /* every temporary file was renamed before it stopped: again */
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
        for (int sub = 0; sub < 2; sub++) {
            char d[1100];
            snprintf(d, sizeof d, "%s%s", dir, sub ? "/png" : "");
            const char *listing = tp_test_dir_listing(d);
            if (strstr(listing, ".tmp."))
                tp_test_fail(__FILE__, __LINE__, "%s: %s left temporary files in %s: %s", what, strsignal(sig), d,
                             listing);
        }
        return;
    }
    tp_test_fail(__FILE__, __LINE__, "%s: never caught it while a temporary file was open", what);
}

TEST(output_signal_during_report_or_diff_removes_temporary_files)
{
    const char *in = synthetic("outputs-30k.json", 30000);
    char *bin = (char *)tp_test_bin();
    for (int s = 0; s < 2; s++) {
        int sig = s ? SIGINT : SIGTERM;
        const char *rdir = fresh_dir("signal-report");
        char *rargv[] = {bin, "report", (char *)in, "-o", (char *)rdir, NULL};
        signal_while_writing("report", rargv, rdir, sig);
        const char *ddir = fresh_dir("signal-diff");
        char *dargv[] = {bin, "diff", (char *)in, (char *)in, "-o", (char *)ddir, NULL};
        signal_while_writing("diff", dargv, ddir, sig);
    }
}

/* report, diff and batch write fixed names (summary.json, diff.json, ...):
 * an input that has one of those names in the output folder is refused,
 * never overwritten. */
TEST(output_report_and_diff_never_overwrite_their_input)
{
    static const char *const cases[][2] = {{"report", "summary.json"}, {"report", "summary.md"},
                                           {"diff", "diff.json"}, {"diff", "diff.md"}};
    for (int i = 0; i < 4; i++) {
        const char *dir = fresh_dir("protect-fixed");
        char in[1200];
        snprintf(in, sizeof in, "%s/%s", dir, cases[i][1]);
        CHECK_EQ_INT(tp_test_run(NULL, "cp golden/example.pt.trace.json '%s'", in), 0);
        char *before = tp_test_read_file(in, NULL), *err = NULL;
        int rc = !strcmp(cases[i][0], "report")
                     ? tp_test_run(&err, "%s report '%s' -o '%s'", tp_test_bin(), in, dir)
                     : tp_test_run(&err, "%s diff golden/example.pt.trace.json '%s' -o '%s' -q", tp_test_bin(), in, dir);
        CHECK_EQ_INT(rc, 2);
        if (!err || !strstr(err, "refusing to overwrite the input") || lines(err) != 1)
            tp_test_fail(__FILE__, __LINE__, "%s -> %s: expected one 'refusing to overwrite' line, got: %s",
                         cases[i][0], cases[i][1], err ? err : "");
        char *now = tp_test_read_file(in, NULL);
        if (!before || !now || strcmp(before, now) != 0)
            tp_test_fail(__FILE__, __LINE__, "%s overwrote its input %s", cases[i][0], cases[i][1]);
        CHECK(strstr(tp_test_dir_listing(dir), ".tmp.") == NULL);
        free(before);
        free(now);
        free(err);
    }
}
