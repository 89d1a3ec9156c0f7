/* cmd_batch.c: `tracepress batch`: many traces in parallel forked workers,
 * incremental by content hash, shards and --merge (batch.h,
 * docs/SCALING.md). */
#include "report/batch/batch.h"
#include "report/analysis/categories.h"
#include "report/findings/findings.h"
#include "report/perf_models/devices.h"
#include "convert/base/cli.h"
#include "convert/io/output.h"
#include "convert/pipeline/pipeline.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *clean(const char *s)
{
    char *c = tp_xstrdup(s ? s : "");
    for (char *p = c; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    return c;
}

/* ---- worker result over a pipe: one tab-separated line -------------------- */

static void send_row(int fd, const tp_batch_row *r)
{
    char *f = clean(r->format), *e = clean(r->error);
    char *line = NULL;
    int n = asprintf(&line, "%s\t%s\t%lld\t%lld\t%lld\t%lld\t%lld\t%s\n", r->status ? r->status : "error", f,
                     (long long)r->events, (long long)r->steps, (long long)r->median_step_ns, (long long)r->device_ns,
                     (long long)r->span_ns, e);
    for (int off = 0; n > 0 && off < n;) {
        ssize_t k = write(fd, line + off, (size_t)(n - off));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (int)k;
    }
    free(line);
    free(f);
    free(e);
}

static void recv_row(int fd, tp_batch_row *r, int status)
{
    tp_buf b = {0};
    char chunk[4096];
    ssize_t k;
    while ((k = read(fd, chunk, sizeof chunk)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        tp_buf_put(&b, chunk, (size_t)k);
    }
    tp_buf_putc(&b, 0);
    char *fld[8] = {0};
    size_t nf = 0;
    char *p = b.data;
    while (nf < 8 && p) {
        fld[nf++] = p;
        char *t = strpbrk(p, "\t\n");
        if (!t)
            break;
        bool last = *t == '\n';
        *t = 0;
        p = last ? NULL : t + 1;
    }
    free(r->status);
    free(r->format);
    free(r->error);
    r->error = NULL;
    if (nf < 8) {
        r->status = tp_xstrdup("error");
        r->format = tp_xstrdup("");
        char msg[600];
        if (WIFSIGNALED(status))
            snprintf(msg, sizeof msg, "%s: the worker died (signal %d: %s)", r->path, WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(msg, sizeof msg, "%s: the worker ended without a result (exit %d)", r->path,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        r->error = tp_xstrdup(msg);
        r->median_step_ns = -1;
    } else {
        r->status = tp_xstrdup(fld[0]);
        r->format = tp_xstrdup(fld[1]);
        r->events = strtoll(fld[2], NULL, 10);
        r->steps = strtoll(fld[3], NULL, 10);
        r->median_step_ns = strtoll(fld[4], NULL, 10);
        r->device_ns = strtoll(fld[5], NULL, 10);
        r->span_ns = strtoll(fld[6], NULL, 10);
        if (strcmp(r->status, "ok") != 0)
            r->error = tp_xstrdup(fld[7]);
    }
    tp_buf_free(&b);
}

/* ---- progress --------------------------------------------------------------- */

typedef struct progress {
    bool tty;
    double t0;
    size_t done, total;
    uint64_t bytes_done, bytes_total;
} progress;

static void progress_show(progress *pg, const tp_batch_row *r, bool last)
{
    double el = now_s() - pg->t0;
    double rate = el > 0 ? (double)pg->bytes_done / el : 0;
    if (pg->tty) {
        char eta[32] = "-";
        if (rate > 0 && pg->bytes_done < pg->bytes_total) {
            double s = (double)(pg->bytes_total - pg->bytes_done) / rate;
            snprintf(eta, sizeof eta, "%d:%02d", (int)(s / 60), (int)s % 60);
        } else if (pg->done == pg->total)
            snprintf(eta, sizeof eta, "0:00");
        fprintf(stderr, "\r\033[K[%zu/%zu] %.1f MB read, %.1f MB/s, ETA %s", pg->done, pg->total,
                (double)pg->bytes_done / 1e6, rate / 1e6, eta);
        if (r && strcmp(r->status, "ok") != 0) {
            fputs("\r\033[Ktracepress: ", stderr);
            tp_put_printable(stderr, r->error ? r->error : r->path);
            fputc('\n', stderr);
        }
        if (last)
            fputc('\n', stderr);
    } else if (r) {
        /* names and error text escaped (tp_put_printable): one line each, whatever a file is called */
        if (strcmp(r->status, "ok") == 0) {
            fprintf(stderr, "tracepress batch: [%zu/%zu] ok ", pg->done, pg->total);
            tp_put_printable(stderr, r->name);
            fprintf(stderr, " (%s, %.1f MB)\n", r->format, (double)r->bytes / 1e6);
        } else {
            fprintf(stderr, "tracepress batch: [%zu/%zu] error: ", pg->done, pg->total);
            tp_put_printable(stderr, r->error ? r->error : r->path);
            fputc('\n', stderr);
        }
    }
}

/* ---- stopping: SIGINT/SIGTERM/SIGHUP to the parent ------------------------ */

/* While workers run, the parent's handler passes the signal on to each of
 * them (whose own handler, tp_out's, removes their temporary files and
 * dies by it) and the run loop reaps them, writes no index and dies by the
 * same signal.  Without it a `kill PID` killed the parent alone and its
 * workers went on writing. */
#define MAX_JOBS 1024
static volatile sig_atomic_t g_stop;
static volatile sig_atomic_t g_workers[MAX_JOBS]; /* running workers' pids; 0: free */

static void on_stop(int sig)
{
    g_stop = sig;
    for (int i = 0; i < MAX_JOBS; i++)
        if (g_workers[i] > 0)
            kill((pid_t)g_workers[i], sig);
}

static void block_stop(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void install_stop_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: waitpid returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* A worker that died by a signal (forwarded, or a crash) left its
 * temporary files (NAME.tmp.PID.XXXXXX) under DIR/<name>: remove them now
 * rather than at the next run that writes the same names. */
static void remove_worker_tmps(const char *dir, const char *name, pid_t pid)
{
    static const char *const sub[] = {"", "/report", "/report/png"};
    char mark[40];
    int ml = snprintf(mark, sizeof mark, ".tmp.%ld.", (long)pid);
    for (size_t s = 0; s < sizeof sub / sizeof *sub; s++) {
        char d[4096];
        snprintf(d, sizeof d, "%s/%s%s", dir, name, sub[s]);
        DIR *dp = opendir(d);
        if (!dp)
            continue;
        struct dirent *de;
        while ((de = readdir(dp))) {
            const char *m = strstr(de->d_name, mark);
            if (m && strlen(m) == (size_t)ml + 6) {
                char f[8192];
                snprintf(f, sizeof f, "%s/%s", d, de->d_name);
                if (!tp_out_protected(f)) /* never an input, whatever its name */
                    (void)unlink(f);
            }
        }
        closedir(dp);
    }
}

/* ---- merge ---------------------------------------------------------------- */

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* `dir` relative to `out` ("" when the same folder, "../x" for a sibling),
 * so the merged index's links survive moving the whole tree; `dir` as
 * given when either cannot be resolved. */
static char *rel_dir(const char *out, const char *dir)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(out, a) || !realpath(dir, b))
        return tp_xstrdup(dir);
    if (strcmp(a, b) == 0)
        return tp_xstrdup("");
    size_t la = strlen(a), lb = strlen(b);
    if (la == 1) /* out is "/" */
        return tp_xstrdup(b + 1);
    /* the common folder: the longest common prefix that ends at a '/' or at
     * the end of one path where the other continues with a '/' */
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i;
    if (la < lb && strncmp(a, b, la) == 0 && b[la] == '/')
        common = la; /* out is an ancestor of dir */
    else if (lb < la && strncmp(a, b, lb) == 0 && (a[lb] == '/' || lb == 1))
        common = lb == 1 ? 0 : lb; /* dir is an ancestor of out */
    tp_buf r = {0};
    for (size_t i = common; i < la; i++) /* one ".." per folder of out below the common part */
        if (a[i] == '/')
            tp_buf_puts(&r, r.len ? "/.." : "..");
    const char *rest = b + common + (b[common] == '/');
    if (*rest) {
        if (r.len)
            tp_buf_putc(&r, '/');
        tp_buf_puts(&r, rest);
    }
    tp_buf_putc(&r, 0);
    return r.data;
}

/* An input (a trace, a file an option names) that one of the index files
 * DIR/STEM.{json,md,pdf} is: refused (1, the line printed) before any work,
 * since the index is written last and not as one set. */
static int index_is_input(const char *dir, const char *stem)
{
    static const char *const index_ext[] = {".json", ".md", ".pdf"};
    for (size_t e = 0; e < 3; e++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s%s", dir, stem, index_ext[e]);
        const char *in = tp_out_protected(p);
        if (in) {
            tp_print_line("%s: is an input of this batch and would be replaced by its index", in);
            return 1;
        }
    }
    return 0;
}

static int merge(char **dirs, int ndirs, const char *out, bool wait)
{
    tp_batch_rows all = {0};
    tp_err err = {0};
    if (index_is_input(out, "index")) /* before the folder and its lock file are made */
        return TP_EXIT_INPUT;
    if (tp_mkdirs(out, &err) < 0) {
        tp_report_error(out, &err);
        return TP_EXIT_INPUT;
    }
    int lockfd = tp_batch_lock(out, 0, 0, wait); /* held until the process ends */
    if (lockfd < 0)
        return TP_EXIT_INPUT;
    size_t not_regular = 0;
    for (int d = 0; d < ndirs; d++) {
        DIR *dp = opendir(dirs[d]);
        if (!dp) {
            tp_print_line("%s: %s", dirs[d], strerror(errno));
            tp_batch_rows_free(&all);
            return TP_EXIT_INPUT;
        }
        tp_strlist files = {0};
        struct dirent *de;
        while ((de = readdir(dp)))
            if (strncmp(de->d_name, "index-", 6) == 0 && strstr(de->d_name, "-of-") &&
                strlen(de->d_name) > 5 && strcmp(de->d_name + strlen(de->d_name) - 5, ".json") == 0)
                tp_strlist_add(&files, de->d_name);
        closedir(dp);
        if (!files.n)
            tp_strlist_add(&files, "index.json");
        qsort(files.v, files.n, sizeof *files.v, cmp_cstr);
        char *prefix = rel_dir(out, dirs[d]);
        size_t skipped_here = 0;
        for (size_t f = 0; f < files.n; f++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dirs[d], files.v[f]);
            size_t before = all.n;
            struct stat st;
            if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && strcmp(files.v[f], "index.json") != 0) {
                not_regular++; /* a FIFO or a device would block the read or never end it */
                if (++skipped_here < files.n)
                    continue;
            }
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || tp_batch_index_read(path, &all, &err) < 0) {
                if (!err.set)
                    tp_fail_at(&err, "", "no batch index here (index.json or index-K-of-N.json)");
                tp_report_error(path, &err);
                free(prefix);
                tp_strlist_free(&files);
                tp_batch_rows_free(&all);
                return TP_EXIT_INPUT;
            }
            for (size_t i = before; i < all.n; i++)
                if (prefix[0]) {
                    char *nd = NULL;
                    if (asprintf(&nd, "%s/%s", prefix, all.v[i].dir) < 0)
                        nd = tp_xstrdup(all.v[i].dir);
                    free(all.v[i].dir);
                    all.v[i].dir = nd;
                }
        }
        free(prefix);
        tp_strlist_free(&files);
    }
    if (not_regular)
        fprintf(stderr, TP_PROG " batch: warning: %zu index-K-of-N.json entr%s not a regular file (a FIFO, a device, a "
                        "folder or a broken link): skipped\n", not_regular, not_regular == 1 ? "y is" : "ies are");
    tp_batch_rows_sort(&all);
    size_t k = 0, failed = 0;
    for (size_t i = 0; i < all.n; i++) {
        if (k && strcmp(all.v[k - 1].path, all.v[i].path) == 0) {
            tp_print_line("%s: in more than one index; keeping %s", all.v[i].path, all.v[k - 1].dir);
            tp_batch_row_free(&all.v[i]);
            continue;
        }
        all.v[k++] = all.v[i];
    }
    all.n = k;
    for (size_t i = 0; i < all.n; i++)
        failed += strcmp(all.v[i].status, "ok") != 0;
    int rc = TP_EXIT_OK;
    if (tp_batch_index_write(&all, out, "index", &err) < 0) {
        tp_report_error(out, &err);
        rc = TP_EXIT_INPUT;
    } else {
        fprintf(stderr, "tracepress batch: merged %zu traces (%zu failed) into %s/index.json\n", all.n, failed, out);
        if (failed)
            rc = TP_EXIT_INPUT;
    }
    tp_batch_rows_free(&all);
    return rc;
}

/* ---- the run -------------------------------------------------------------- */

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? tp_xstrdup(s) : NULL;
}

/* The options that change outputs, as given, go into *opts (freed by the caller). */
static int batch_main(int argc, char **argv, tp_buf *opts, tp_cat_rules *rules, tp_device_table *devices,
                      tp_find_rules *frules)
{
    const char *dir = NULL, *jobs = NULL, *shard = NULL, *steps = NULL, *batch = NULL, *cats = NULL,
               *devspec = NULL, *findrules = NULL;
    bool force = false, merging = false, wait = false;
    tp_load_opts lo = {0};
    char **ins = tp_xcalloc((size_t)argc + 1, sizeof *ins);
    int nin = 0;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        if ((k = tp_opt_value(argc, argv, &i, "-o", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--output", &dir)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "-j", &jobs)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--jobs", &jobs)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--shard", &shard)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--steps", &steps)) != 0 ||
            (k = tp_opt_value(argc, argv, &i, "--batch-size", &batch)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--categories", &cats)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--rules", &findrules)) != 0 ||
            (k = tp_opt_file(argc, argv, &i, "--device-spec", &devspec)) != 0) {
            if (k < 0) {
                free(ins);
                return TP_EXIT_USAGE;
            }
        } else if ((k = tp_parse_load_option(argc, argv, &(int){i}, &(tp_load_opts){0})) != 0) {
            /* checked on a scratch copy first, so the text recorded is exactly what is applied */
            int i0 = i;
            if (k < 0 || tp_parse_load_option(argc, argv, &i, &lo) < 0) {
                free(ins);
                return TP_EXIT_USAGE;
            }
            for (int a = i0; a <= i; a++)
                tp_buf_printf(opts, ";%s", argv[a]);
        } else if (strncmp(argv[i], "-j", 2) == 0 && argv[i][2] >= '0' && argv[i][2] <= '9')
            jobs = argv[i] + 2; /* -j4 */
        else if (tp_opt_flag(argv, i, "--force"))
            force = true;
        else if (tp_opt_flag(argv, i, "--merge"))
            merging = true;
        else if (tp_opt_flag(argv, i, "--wait"))
            wait = true;
        else if (tp_opt_flag(argv, i, "--help") || tp_opt_flag(argv, i, "-h")) {
            free(ins);
            return tp_print_help(argv[0]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(ins);
            return tp_usage_error(argv[0], "unknown option %s", argv[i]);
        } else
            ins[nin++] = argv[i];
    }
    /* the options that change outputs (as given), and the version that made them */
    tp_buf_printf(opts, ";tracepress %s;steps=%s;batch-size=%s", TP_VERSION, steps ? steps : "",
                  batch ? batch : "");
    for (size_t k = 0; k < lo.read.nside_inputs; k++) { /* --etrecord ...: its bytes, not only its name */
        uint64_t eh = 0, es = 0;
        tp_err ee = {0};
        if (tp_hash64_file(lo.read.side_inputs[k], &eh, &es, &ee) == 0)
            tp_buf_printf(opts, ";side=%016llx:%llu", (unsigned long long)eh, (unsigned long long)es);
    }
    for (size_t k = 0; k < lo.ncaptures; k++) { /* --graph-capture FILE: its bytes too (a discovered
                                                 * capture_traces/ folder: in each row's key) */
        uint64_t gh = 0, gsz = 0;
        tp_err ge = {0};
        if (tp_hash64_file(lo.captures[k], &gh, &gsz, &ge) == 0)
            tp_buf_printf(opts, ";capture=%016llx:%llu", (unsigned long long)gh, (unsigned long long)gsz);
    }
    if (cats) { /* the rules' bytes, not only the file's name */
        uint64_t ch = 0, cs = 0;
        tp_err ce = {0};
        if (tp_hash64_file(cats, &ch, &cs, &ce) == 0)
            tp_buf_printf(opts, ";categories=%016llx:%llu", (unsigned long long)ch, (unsigned long long)cs);
    }
    if (findrules) { /* the finding rules' bytes too: they change summary.md, summary.json and the overview */
        uint64_t fh = 0, fs = 0;
        tp_err fe = {0};
        if (tp_hash64_file(findrules, &fh, &fs, &fe) == 0)
            tp_buf_printf(opts, ";rules=%016llx:%llu", (unsigned long long)fh, (unsigned long long)fs);
    }
    if (devspec) { /* the table's bytes, like the rules' */
        uint64_t dh = 0, ds = 0;
        tp_err de = {0};
        if (tp_hash64_file(devspec, &dh, &ds, &de) == 0)
            tp_buf_printf(opts, ";device-spec=%016llx:%llu", (unsigned long long)dh, (unsigned long long)ds);
    }
    uint64_t opthash = tp_hash64_bytes(opts->data, opts->len);
    tp_buf_putc(opts, 0);
    int rc = TP_EXIT_OK;
    if (merging) {
        if (!nin)
            rc = tp_usage_error(argv[0], "--merge needs the shard folders");
        else
            rc = merge(ins, nin, dir ? dir : ins[0], wait);
        free(ins);
        return rc;
    }
    if (!nin || !dir) {
        free(ins);
        return tp_usage_error(argv[0], !nin ? "no inputs" : "-o DIR is required");
    }
    long njobs = sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs) {
        char *end;
        njobs = strtol(jobs, &end, 10);
        if (!*jobs || *end || njobs < 1 || njobs > 1024) {
            free(ins);
            return tp_usage_error(argv[0], "-j takes a number from 1 to 1024 (got '%s')", jobs);
        }
    }
    if (njobs < 1)
        njobs = 1;
    int sk = 1, sn = 1;
    if (shard) {
        if (tp_parse_shard(shard, &sk, &sn) < 0) {
            free(ins);
            return tp_usage_error(argv[0], "--shard takes K/N with 1 <= K <= N <= 2147483647 (got '%s')", shard);
        }
    }
    tp_batch_opts bo = {steps, 0, &lo, opts->data, rules, devices, frules};
    if (steps) {
        int64_t a, b;
        if (tp_parse_steps(steps, &a, &b) != 0) {
            free(ins);
            return tp_usage_error(argv[0], "--steps takes A:B, A:, :B or N (got '%s')", steps);
        }
    }
    if (batch) {
        char *end;
        long long v = strtoll(batch, &end, 10);
        if (!*batch || *end || v <= 0 || v > 1000000000LL) {
            free(ins);
            return tp_usage_error(argv[0], "--batch-size takes a positive whole number (got '%s')", batch);
        }
        bo.batch_size = v;
    }
    if (tp_cat_rules_for_command(cats, rules) != 0 || /* loaded once, before any work */
        tp_find_rules_for_command(findrules, frules) != 0 || tp_device_table_for_command(devspec, devices) != 0) {
        free(ins);
        return TP_EXIT_INPUT;
    }

    char out_real[PATH_MAX], in_real[PATH_MAX];
    /* the walk skips the output folder (batch's own files): every trace in it would vanish, exit 0 */
    for (int i = 0; i < nin; i++)
        if (realpath(dir, out_real) && realpath(ins[i], in_real) && strcmp(out_real, in_real) == 0) {
            tp_print_line("%s: the output folder is the input folder: give another -o", dir);
            free(ins);
            return TP_EXIT_USAGE;
        }
    tp_err err = {0};
    /* the inputs first: one that is missing leaves nothing behind (no folder, no lock) */
    tp_strlist paths = {0}, names = {0}, captures = {0};
    size_t not_traces = 0;
    if (tp_inputs_expand(ins, nin, dir, &paths, &not_traces, &err) < 0) {
        fputs(TP_PROG ": ", stderr);
        tp_put_printable(stderr, err.msg); /* it names the input as given: one escaped line */
        fputc('\n', stderr);
        free(ins);
        tp_strlist_free(&paths);
        return TP_EXIT_INPUT;
    }
    free(ins);
    tp_batch_split_captures(&paths, &captures); /* a replay's capture_traces/: its input, not a trace */
    size_t ncaptures = captures.n;
    for (size_t i = 0; i < captures.n; i++) /* inputs too: never replaced by an output */
        tp_out_protect(captures.v[i]);
    tp_strlist_free(&captures);
    if (tp_mkdirs(dir, &err) < 0) {
        tp_report_error(dir, &err);
        tp_strlist_free(&paths);
        return TP_EXIT_INPUT;
    }
    /* one run per folder (per shard): two at once made an index of one of them */
    int lockfd = tp_batch_lock(dir, shard ? sk : 0, shard ? sn : 0, wait);
    if (lockfd < 0) {
        tp_strlist_free(&paths);
        return TP_EXIT_INPUT;
    }
    tp_out_install_signal_cleanup();
    for (size_t i = 0; i < paths.n; i++) /* the index and the reports must never replace an input */
        tp_out_protect(paths.v[i]);
    tp_batch_names(&paths, &names);
    char stem[64] = "index";
    if (shard)
        snprintf(stem, sizeof stem, "index-%d-of-%d", sk, sn);
    if (index_is_input(dir, stem)) { /* refused now, not after every trace was done */
        tp_strlist_free(&paths);
        tp_strlist_free(&names);
        tp_dir_unlock(lockfd, true);
        return TP_EXIT_INPUT;
    }
    char ipath[4096];
    snprintf(ipath, sizeof ipath, "%s/%s.json", dir, stem);
    tp_batch_rows prev = {0}, rows = {0};
    if (tp_batch_index_read(ipath, &prev, &err) < 0) {
        tp_print_line("%s: %s (ignored: everything is redone)", ipath, err.msg);
        tp_batch_rows_free(&prev);
        memset(&err, 0, sizeof err);
    }
    tp_batch_rows_sort(&prev);

    /* rows for this shard; reuse what has not changed */
    size_t *todo = tp_xcalloc(paths.n + 1, sizeof *todo), ntodo = 0, skipped = 0;
    progress pg = {isatty(STDERR_FILENO) == 1, now_s(), 0, 0, 0, 0};
    for (size_t i = 0; i < paths.n; i++) {
        if (!tp_batch_in_shard(paths.v[i], sk, sn))
            continue;
        TP_GROW(rows.v, rows.cap, rows.n + 1);
        tp_batch_row *r = &rows.v[rows.n++];
        memset(r, 0, sizeof *r);
        r->path = tp_xstrdup(paths.v[i]);
        r->name = tp_xstrdup(names.v[i]);
        r->dir = tp_xstrdup(names.v[i]);
        r->format = tp_xstrdup("");
        r->options = opthash;
        r->median_step_ns = -1;
        tp_err herr = {0};
        if (tp_hash64_file(r->path, &r->hash, &r->bytes, &herr) < 0) {
            r->status = tp_xstrdup("error");
            char m[600];
            snprintf(m, sizeof m, "%s: %s", r->path, herr.msg);
            r->error = tp_xstrdup(m);
            continue;
        }
        if (lo.ncaptures == 0) /* the capture traces beside it change its report too */
            r->options = tp_batch_capture_key(r->path, opthash);
        tp_batch_row *old = NULL;
        for (size_t a = 0, hi = prev.n; a < hi;) {
            size_t mid = (a + hi) / 2;
            int c = strcmp(prev.v[mid].path, r->path);
            if (c == 0) {
                old = &prev.v[mid];
                break;
            }
            if (c < 0)
                a = mid + 1;
            else
                hi = mid;
        }
        /* ok: the trace's own record says what made its outputs (a run
         * killed with other options left none, or another); error rows
         * have no outputs: the previous index's row, as before */
        bool same = false;
        if (!force && old && old->hash == r->hash && old->options == r->options && old->bytes == r->bytes &&
            strcmp(old->name, r->name) == 0 && strcmp(old->status, "ok") != 0) {
            same = true;
            set_str(&r->format, old->format);
            r->status = tp_xstrdup(old->status);
            set_str(&r->error, old->error);
            r->events = old->events;
            r->steps = old->steps;
            r->median_step_ns = old->median_step_ns;
            r->device_ns = old->device_ns;
            r->span_ns = old->span_ns;
        } else if (!force)
            same = tp_batch_record_matches(dir, r);
        if (same) {
            skipped++;
            continue;
        }
        todo[ntodo++] = rows.n - 1;
        pg.bytes_total += r->bytes;
    }
    tp_batch_rows_free(&prev);
    for (size_t k = 0; k < ntodo; k++) { /* an input one of the rows would replace: refused before any work */
        char clash[4400];
        const char *in = tp_batch_row_output_input(dir, rows.v[todo[k]].name, clash, sizeof clash);
        if (in) {
            tp_print_line("%s: refusing to overwrite the input file %s", clash, in);
            free(todo);
            tp_batch_rows_free(&rows);
            tp_strlist_free(&paths);
            tp_strlist_free(&names);
            tp_dir_unlock(lockfd, true);
            return TP_EXIT_INPUT;
        }
    }
    pg.total = ntodo;
    fprintf(stderr, "tracepress batch: %zu traces%s, %zu unchanged (skipped), %zu to do with %ld workers\n",
            rows.n, shard ? " in this shard" : "", skipped, ntodo, njobs);
    tp_inputs_warn_not_traces("batch", not_traces);
    if (ncaptures)
        fprintf(stderr,
                "tracepress batch: %zu files in capture_traces/ folders beside the traces used as their graph "
                "captures (not reported on their own)\n",
                ncaptures);
    tp_inputs_warn_not_regular("batch");

    /* the workers: one forked process per trace, at most njobs at once */
    typedef struct job {
        pid_t pid;
        int fd;
        size_t row;
    } job;
    job *run = tp_xcalloc((size_t)njobs, sizeof *run);
    size_t next = 0, nrun = 0;
    sigset_t oldmask;
    install_stop_handler();
    while ((next < ntodo && !g_stop) || nrun) {
        while (nrun < (size_t)njobs && next < ntodo && !g_stop) {
            size_t ri = todo[next];
            int p[2];
            if (pipe(p) != 0) {
                fprintf(stderr, TP_PROG ": pipe: %s\n", strerror(errno));
                exit(TP_EXIT_INPUT);
            }
            fflush(NULL);
            block_stop(&oldmask); /* a signal now sees the new worker in g_workers */
            if (g_stop) {
                sigprocmask(SIG_SETMASK, &oldmask, NULL);
                close(p[0]);
                close(p[1]);
                break;
            }
            next++;
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, TP_PROG ": fork: %s\n", strerror(errno));
                exit(TP_EXIT_INPUT);
            }
            if (pid == 0) {
                tp_out_install_signal_cleanup(); /* the worker's own: remove its temporaries, die */
                sigprocmask(SIG_SETMASK, &oldmask, NULL);
                close(p[0]);
                close(lockfd); /* not inherited anyway (POSIX locks); nothing to keep */
                if (njobs > 1) /* the workers already use the cores: one thread each */
                    setenv("TP_THREADS", "1", 0);
                tp_batch_row *r = &rows.v[ri];
                tp_batch_work(r->path, dir, r->name, &bo, r);
                send_row(p[1], r);
                close(p[1]);
                _exit(0);
            }
            for (int w = 0; w < MAX_JOBS; w++)
                if (!g_workers[w]) {
                    g_workers[w] = pid;
                    break;
                }
            sigprocmask(SIG_SETMASK, &oldmask, NULL);
            close(p[1]);
            run[nrun++] = (job){pid, p[0], ri};
        }
        if (!nrun)
            break;
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        block_stop(&oldmask);
        for (int w = 0; w < MAX_JOBS; w++)
            if (g_workers[w] == pid)
                g_workers[w] = 0;
        sigprocmask(SIG_SETMASK, &oldmask, NULL);
        for (size_t j = 0; j < nrun; j++)
            if (run[j].pid == pid) {
                tp_batch_row *r = &rows.v[run[j].row];
                recv_row(run[j].fd, r, st);
                close(run[j].fd);
                if (WIFSIGNALED(st))
                    remove_worker_tmps(dir, r->name, pid);
                run[j] = run[--nrun];
                if (g_stop)
                    break;
                pg.done++;
                pg.bytes_done += r->bytes;
                progress_show(&pg, r, false);
                break;
            }
    }
    if (pg.tty && ntodo && !g_stop)
        progress_show(&pg, NULL, true);
    free(run);
    free(todo);

    /* stopped: no index (the previous one stays as it was), and the
     * signal's own end, as a shell or a scheduler expects */
    block_stop(&oldmask);
    if (g_stop) {
        int sig = g_stop;
        if (pg.tty)
            fputc('\n', stderr);
        fprintf(stderr, "tracepress batch: stopped by %s; the workers were stopped, the index was not written\n",
                strsignal(sig));
        tp_batch_rows_free(&rows);
        tp_strlist_free(&paths);
        tp_strlist_free(&names);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    /* the index: a signal from here on is tp_out's again (its temporaries removed) */
    tp_out_install_signal_cleanup();
    sigprocmask(SIG_SETMASK, &oldmask, NULL);

    size_t failed = 0;
    for (size_t i = 0; i < rows.n; i++)
        failed += strcmp(rows.v[i].status, "ok") != 0;
    tp_batch_rows_sort(&rows);
    if (tp_batch_index_write(&rows, dir, stem, &err) < 0) {
        tp_report_error(dir, &err);
        rc = TP_EXIT_INPUT;
    } else {
        fprintf(stderr, "tracepress batch: %zu ok, %zu failed; index: %s/%s.md\n", rows.n - failed, failed, dir,
                stem);
        if (failed)
            rc = TP_EXIT_INPUT;
    }
    tp_batch_rows_free(&rows);
    tp_strlist_free(&paths);
    tp_strlist_free(&names);
    tp_dir_unlock(lockfd, false);
    return rc;
}

static int tp_cmd_batch(int argc, char **argv)
{
    tp_buf opts = {0};
    tp_cat_rules rules = {0}; /* batch_main loads them; freed here whatever way it returns */
    tp_device_table devices = {0};
    tp_find_rules frules = {0};
    int rc = batch_main(argc, argv, &opts, &rules, &devices, &frules);
    tp_buf_free(&opts);
    tp_cat_rules_free(&rules);
    tp_find_rules_free(&frules);
    tp_device_table_free(&devices);
    return rc;
}

/* The command's row in the command table (commands.c): name, summary, help. */
const tp_command tp_command_batch = {"batch", "convert and report many traces in parallel, incrementally, with an index",
    "usage: tracepress batch INPUT... -o DIR [-j N] [--force] [--wait] [--shard K/N] [options]\n"
    "       tracepress batch --merge DIR... [-o OUT] [--wait]\n"
    "\n"
    "INPUT is a file, a folder (walked recursively; files no reader recognises\n"
    "are ignored; a capture_traces/ folder beside a trace is that trace's graph\n"
    "capture, not traces of their own), a glob pattern or @list.txt (one input\n"
    "per line).  For each trace: DIR/<name>/trace.json.gz (as `convert`) and\n"
    "DIR/<name>/report/ (as `report`).  DIR/index.md, index.pdf and index.json\n"
    "(schema tracepress.batch/1) list every trace with its format, steps, median\n"
    "step, device time, status and links.  A bad trace becomes an error row; the\n"
    "others go on.  Each trace's\n"
    "DIR/<name>/made-by.json (written after its outputs) records the input's size,\n"
    "mtime and content hash, the options and the version; re-runs skip a trace\n"
    "whose record matches.  Every file is written to a temporary name and renamed;\n"
    "the index is written last.  One run per folder: a second one on DIR refuses\n"
    "(exit 2) or, with --wait, waits; shards of DIR run at once.  SIGINT, SIGTERM or\n"
    "SIGHUP to this process stop its workers too; no index is written then.\n"
    "docs/SCALING.md has recipes for GNU parallel, Slurm and Kubernetes.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR    output folder (required)\n"
    "  -j, --jobs N        traces at once, one worker process each (default: cores)\n"
    "  --force             redo every trace\n"
    "  --wait              wait for another run on DIR to end instead of refusing\n"
    "  --shard K/N         only the K-th of N deterministic parts of the inputs;\n"
    "                      the index is DIR/index-K-of-N.*\n"
    "  --merge DIR...      join the shard indexes found in the folders into\n"
    "                      OUT/index.* (OUT: -o, default the first folder)\n"
    "  --batch-size N      samples per step, for throughput in the reports\n"
    TP_CATEGORIES_HELP TP_RULES_HELP TP_DEVICE_SPEC_HELP
    "load options (applied to every trace; part of the options hash):\n" TP_LOAD_OPTIONS_HELP
    "\n"
    "Exit codes: 0 every trace ok, 1 usage error, 2 at least one trace failed (or\n"
    "an output could not be written).\n"
    "\nexample: tracepress batch nightly/ -o site -j 8\n",
    tp_cmd_batch, true};
