/* job_run.c: the job report's map and reduce, and its outputs (job_run.h). */
#include "report/job/job_run.h"
#include "render/text/md_fold.h"
#include "convert/io/output.h"
#include "report/job/job_out.h"
#include "report/job/job_pages.h"
#include "report/assemble/report_write.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


int tp_job_rank_load(const char *path, const tp_job_opts *o, tp_rank_sum *r, tp_err *err)
{
    tp_load_opts lo = *o->load;
    lo.read.keep_args = false;
    /* what `report` of the trace reads (the ops' shapes too), so the rank's top finding is its report's */
    lo.read.keep_args_of = tp_summary_wants_args;
    lo.read.flows_as_ids = true; /* analysed, not written */
    lo.no_derive = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_out_protect(path);
    if (tp_load(path, &lo, &t, err) < 0) {
        tp_trace_free(&t);
        return -1;
    }
    tp_print_warnings(path, &t);
    /* the whole analysis of `report`, not a job's reduced one: the rank's top finding is then the one its own
     * report gives (docs/REPORT.md "Jobs"); the rank summary reads its part */
    tp_report_opts ro = {path, o->steps, 0, o->rules, false, o->devices, false, o->find_rules};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    size_t saturated = tp_rank_sum_build(&s, r);
    if (saturated) { /* the summary's range (rank_sum.h): said, and counted with the rank's warnings */
        r->warnings += saturated;
        tp_print_line("%s: warning: %zu times beyond a job summary's range (saturated: durations at "
                      "2^60 ns, starts at +-2^61 ns)", path, saturated);
    }
    tp_summary_free(&s);
    tp_trace_free(&t);
    return 0;
}

/* DIR/ranks/NNNNNN-<name>.rank.json: the name made of [A-Za-z0-9._-]. */
static void rank_file(const char *dir, size_t index, const char *name, char *buf, size_t n)
{
    char safe[128];
    size_t k = 0;
    for (const char *c = name; *c && k + 1 < sizeof safe; c++)
        safe[k++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                            *c == '.' || *c == '_' || *c == '-'
                        ? *c
                        : '_';
    safe[k] = 0;
    snprintf(buf, n, "%s/ranks/%06zu-%s.rank.json", dir, index, safe);
}

static bool is_rank_file(const char *n);

/* Remove the rank summaries a previous run left for this shard's inputs
 * (NNNNNN-...: the inputs whose index this shard takes), so a re-run with
 * other inputs leaves none behind for the merge. */
static void remove_stale(const char *ranks, const tp_job_opts *o)
{
    struct stat st;
    if (lstat(ranks, &st) != 0 || !S_ISDIR(st.st_mode))
        return; /* a link to a folder is not ours to clean (tp_job_check_outputs refuses it) */
    DIR *d = opendir(ranks);
    if (!d)
        return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)) != NULL) {
        char *end;
        unsigned long long i = strtoull(e->d_name, &end, 10);
        if (!is_rank_file(e->d_name) || end == e->d_name || *end != '-')
            continue;
        if (o->shard_n && (int)(i % (unsigned long long)o->shard_n) != o->shard_k - 1)
            continue;
        snprintf(path, sizeof path, "%s/%s", ranks, e->d_name);
        if (!tp_out_protected(path)) /* an input is never removed (tp_job_check_outputs refuses it first) */
            unlink(path);
    }
    closedir(d);
}

int tp_job_check_outputs(const tp_strlist *inputs, const char *dir, const char **failed, tp_err *err)
{
    static char subject[4400];
    char path[4400];
    *failed = subject;
    for (size_t i = 0; inputs && i < inputs->n; i++) /* registered here, so the forked workers know them all */
        tp_out_protect(inputs->v[i]);
    const char *in = tp_report_output_input(dir, path, sizeof path);
    if (in) {
        snprintf(subject, sizeof subject, "%s", path);
        return tp_fail_at(err, "", "refusing to overwrite the input file %s", in);
    }
    if (!inputs)
        return 0;
    char ranks[4096];
    snprintf(ranks, sizeof ranks, "%s/ranks", dir);
    struct stat st;
    if (lstat(ranks, &st) == 0 && S_ISLNK(st.st_mode)) {
        snprintf(subject, sizeof subject, "%s", ranks);
        return tp_fail_at(err, "", "is a symbolic link: the rank summaries are written (and old ones removed) in "
                                   "the output folder itself, never through a link: remove it or give another -o");
    }
    DIR *d = opendir(ranks);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", ranks, e->d_name);
        if ((in = tp_out_protected(path)) != NULL) {
            snprintf(subject, sizeof subject, "%s", path);
            rc = tp_fail_at(err, "", "refusing to overwrite or remove the input file %s (the job report writes and "
                                     "replaces its rank summaries in %s)", in, ranks);
        }
    }
    closedir(d);
    return rc;
}

/* What names the job's input list: FNV-1a 64 over the sorted paths. */
static uint64_t inputs_hash(const tp_strlist *inputs)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < inputs->n; i++) {
        for (const char *c = inputs->v[i]; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        h = (h ^ '\n') * 1099511628211ull;
    }
    return h;
}

/* Map one input: analyse it and write its rank summary.  0, or -1 with
 * err and *failed. */
static uint64_t job_inputs_hash; /* inputs_hash of the job's inputs: worked out once, not per rank */

static int map_one(const tp_strlist *inputs, size_t i, const tp_job_opts *o, const char *dir, const char **failed,
                   tp_err *err)
{
    tp_rank_sum r;
    *failed = inputs->v[i];
    if (tp_job_rank_load(inputs->v[i], o, &r, err) < 0)
        return -1;
    r.input_index = i;
    r.inputs = inputs->n;
    r.inputs_hash = job_inputs_hash;
    tp_buf b = {0};
    tp_rank_sum_json(&r, &b);
    char path[4400];
    rank_file(dir, i, r.name, path, sizeof path);
    tp_rank_sum_free(&r);
    *failed = dir;
    int rc = tp_out_write_file(NULL, path, b.data, b.len, err);
    tp_buf_free(&b);
    tp_timing("rank");
    return rc;
}

#define SMALL_RANK_BYTES (1 << 20)

/* A forked child maps input i and exits 0; on an error it writes the
 * error (file, where, message: three NUL-ended strings) to fd and exits 2,
 * so the parent prints one line however many children fail.  What it
 * prints on stderr (the rank's warnings) goes to *out, an anonymous file
 * the parent prints in input order (held_print): ranks that run at once
 * end in any order, their lines must not (-1: no such file, stderr as is). */
static pid_t start_child(const tp_strlist *inputs, size_t i, const tp_job_opts *o, const char *dir, bool one_thread,
                         int *fd, int *out)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    *out = memfd_create("tracepress-rank-stderr", MFD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) {
        close(p[1]);
        if (pid < 0) {
            close(p[0]);
            if (*out >= 0)
                close(*out);
            *out = -1;
        }
        *fd = p[0];
        return pid;
    }
    close(p[0]);
    if (*out >= 0 && dup2(*out, STDERR_FILENO) >= 0) /* (dup2's copy is not close-on-exec; no exec follows anyway) */
        close(*out);
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a killed command takes its workers along */
    tp_out_install_signal_cleanup();
    /* a small rank on one thread too: starting threads costs more than they
     * save there (3,000 one-step ranks: 0.35 ms a rank) */
    struct stat st;
    if (one_thread || (stat(inputs->v[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size < SMALL_RANK_BYTES))
        setenv("TP_THREADS", "1", 0);
    const char *f = NULL;
    tp_err e = {0};
    int rc = map_one(inputs, i, o, dir, &f, &e);
    if (rc < 0) { /* at most ~5 KB: the pipe holds it without a reader */
        tp_buf b = {0};
        tp_buf_put(&b, f ? f : "", strlen(f ? f : "") + 1);
        tp_buf_put(&b, e.where, strlen(e.where) + 1);
        tp_buf_put(&b, e.msg, strlen(e.msg) + 1);
        if (write(p[1], b.data, b.len) < 0)
            tp_report_error(f ? f : "", &e);
        tp_buf_free(&b);
    }
    close(p[1]);
    fflush(NULL);
    _exit(rc < 0 ? TP_EXIT_INPUT : 0);
}

typedef struct child {
    pid_t pid;
    int fd;
    int out; /* its stderr (start_child), or -1 */
    size_t input;
} child;

/* The ranks' stderr, printed in input order: held until every input before
 * is printed.  At most HELD_MAX bytes a rank (a rank prints a few lines). */
#define HELD_MAX (1u << 20)
typedef struct held {
    tp_buf *text; /* per input */
    bool *done;
    size_t n, next;
} held;

static void held_take(held *h, size_t input, int fd)
{
    h->done[input] = true;
    if (fd < 0)
        return;
    char buf[8192];
    ssize_t k;
    if (lseek(fd, 0, SEEK_SET) == 0)
        while (h->text[input].len < HELD_MAX && (k = read(fd, buf, sizeof buf)) > 0)
            tp_buf_put(&h->text[input], buf, (size_t)k);
    close(fd);
}

static void held_print(held *h)
{
    for (; h->next < h->n && h->done[h->next]; h->next++) {
        tp_buf *b = &h->text[h->next];
        if (b->len && fwrite(b->data, 1, b->len, stderr) != b->len)
            break;
        tp_buf_free(b);
    }
}

/* The failure of the lowest input wins (the same line whichever child ends first). */
typedef struct failure {
    size_t input, count;
    char path[4400];
    tp_err err;
} failure;

static void reap(child *c, int st, failure *fl)
{
    char buf[8192];
    ssize_t n = read(c->fd, buf, sizeof buf - 1);
    close(c->fd);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return;
    fl->count++;
    if (fl->count > 1 && c->input > fl->input)
        return;
    fl->input = c->input;
    memset(&fl->err, 0, sizeof fl->err);
    buf[n > 0 ? n : 0] = 0;
    const char *f = buf, *w = f + strlen(f) + 1, *m = w < buf + (n > 0 ? n : 0) ? w + strlen(w) + 1 : "";
    if (n <= 0 || m >= buf + n) { /* killed, or no message */
        snprintf(fl->path, sizeof fl->path, "%s", "job");
        snprintf(fl->err.msg, sizeof fl->err.msg, "the worker for input %zu ended without a result (%s %d)", c->input,
                 WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        return;
    }
    snprintf(fl->path, sizeof fl->path, "%.4399s", f);
    snprintf(fl->err.where, sizeof fl->err.where, "%.47s", w);
    snprintf(fl->err.msg, sizeof fl->err.msg, "%.399s", m);
    fl->err.set = true;
}

int tp_job_map(const tp_strlist *inputs, const tp_job_opts *o, const char *dir, const char **failed, tp_err *err)
{
    char ranks[4096];
    snprintf(ranks, sizeof ranks, "%s/ranks", dir);
    *failed = dir;
    if (tp_mkdirs(ranks, err) < 0)
        return -1;
    remove_stale(ranks, o);
    tp_out_sweep_dir(ranks);
    job_inputs_hash = inputs_hash(inputs);
    /* each rank in a forked child of its own: its memory goes back to the
     * system when it ends, so the peak is `workers` ranks' whatever the
     * number of ranks (in one process, allocator arenas grew 30% from 8 to
     * 64 ranks); with two or more at once, one thread each (they share the
     * cores).  After a failure no new child starts; those running finish. */
    int workers = o->workers > 1 ? o->workers : 1;
    child *run = tp_xcalloc((size_t)workers, sizeof *run);
    int nrun = 0;
    static failure fl;
    memset(&fl, 0, sizeof fl);
    held h = {tp_xcalloc(inputs->n + 1, sizeof *h.text), tp_xcalloc(inputs->n + 1, sizeof *h.done), inputs->n, 0};
    for (size_t i = 0; i < inputs->n || nrun;) {
        bool start = i < inputs->n && !fl.count && nrun < workers;
        if (start && o->shard_n && (int)(i % (size_t)o->shard_n) != o->shard_k - 1) {
            held_take(&h, i, -1); /* another shard's: nothing to print */
            i++;
            continue;
        }
        if (start) {
            int fd = -1, out = -1;
            pid_t pid = start_child(inputs, i, o, dir, workers > 1, &fd, &out);
            if (pid < 0) { /* no fork: here (its lines printed as they come) */
                if (map_one(inputs, i, o, dir, failed, err) < 0) {
                    fl.count++;
                    fl.input = i;
                    snprintf(fl.path, sizeof fl.path, "%.4399s", *failed ? *failed : "");
                    fl.err = *err;
                }
                held_take(&h, i, -1);
            } else
                run[nrun++] = (child){pid, fd, out, i};
            i++;
            continue;
        }
        if (!nrun) {
            if (fl.count)
                break;
            continue;
        }
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int w = 0; w < nrun; w++)
            if (run[w].pid == pid) {
                reap(&run[w], st, &fl);
                held_take(&h, run[w].input, run[w].out);
                held_print(&h);
                run[w] = run[--nrun];
                break;
            }
        if (fl.count && !nrun)
            break;
    }
    /* after a failure, what the ranks that ran printed, in order (those never started print nothing) */
    for (size_t k = h.next; k < h.n; k++)
        if (!h.done[k])
            held_take(&h, k, -1);
    held_print(&h);
    for (size_t k = 0; k < h.n; k++)
        tp_buf_free(&h.text[k]);
    free(h.text);
    free(h.done);
    free(run);
    if (!fl.count)
        return 0;
    *failed = fl.path;
    *err = fl.err;
    if (fl.count > 1) {
        size_t l = strlen(err->msg);
        snprintf(err->msg + l, sizeof err->msg - l, " (and %zu more input%s failed)", fl.count - 1,
                 fl.count == 2 ? "" : "s");
    }
    return -1;
}

int tp_job_collect(const tp_strlist *inputs, const tp_job_opts *o, tp_job *job, const char **failed, tp_err *err)
{
    tp_rank_sum *sums = tp_xcalloc(inputs->n + 1, sizeof *sums);
    size_t n = 0;
    int rc = 0;
    uint64_t hash = inputs_hash(inputs);
    for (; n < inputs->n; n++) {
        *failed = inputs->v[n];
        if ((rc = tp_job_rank_load(inputs->v[n], o, &sums[n], err)) < 0)
            break;
        sums[n].input_index = n;
        sums[n].inputs = inputs->n;
        sums[n].inputs_hash = hash;
    }
    if (rc == 0) {
        *failed = inputs->n ? inputs->v[0] : "";
        rc = tp_job_build(sums, n, job, err);
    }
    for (size_t i = 0; i < n; i++)
        tp_rank_sum_free(&sums[i]);
    free(sums);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_rank_file(const char *n)
{
    size_t len = strlen(n);
    return len > 10 && strcmp(n + len - 10, ".rank.json") == 0 && n[0] != '.';
}

#define RANK_FILE_LIMIT (1u << 30) /* a rank's calls: 1 GiB of text is ~25 M calls */

int tp_job_read_ranks(const char *dir, tp_job *job, char *failed, size_t nfailed, tp_err *err)
{
    char ranks[4096];
    snprintf(ranks, sizeof ranks, "%s/ranks", dir);
    snprintf(failed, nfailed, "%s", ranks);
    DIR *d = opendir(ranks);
    if (!d)
        return tp_fail_at(err, "", "%s (run the shards first: report --shard K/N ... -o %s)", strerror(errno), dir);
    tp_strlist names = {0};
    struct dirent *e;
    size_t not_regular = 0;
    while ((e = readdir(d)) != NULL) {
        if (!is_rank_file(e->d_name))
            continue;
        /* a FIFO or a device would block the read or never end it: skipped and counted (a link to a
         * summary is followed) */
        struct stat st;
        snprintf(failed, nfailed, "%s/%s", ranks, e->d_name);
        if (stat(failed, &st) != 0 || !S_ISREG(st.st_mode))
            not_regular++;
        else
            tp_strlist_add(&names, e->d_name);
    }
    closedir(d);
    snprintf(failed, nfailed, "%s", ranks);
    if (not_regular)
        tp_print_line("%s: warning: %zu *.rank.json entr%s not a regular file (a FIFO, a device, a "
                      "folder or a broken link): skipped", ranks, not_regular, not_regular == 1 ? "y is" : "ies are");
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, cmp_names);
    tp_rank_sum *sums = tp_xcalloc(names.n + 1, sizeof *sums);
    size_t n = 0;
    int rc = 0;
    tp_buf b = {0};
    char msg[256];
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        snprintf(failed, nfailed, "%s/%s", ranks, names.v[i]);
        b.len = 0;
        if (tp_read_small_file(failed, RANK_FILE_LIMIT, "rank summary", &b, msg, sizeof msg) < 0)
            rc = tp_fail_at(err, "", "%s", msg);
        else if ((rc = tp_rank_sum_parse(b.data, b.len, &sums[n], err)) == 0)
            n++;
    }
    tp_buf_free(&b);
    /* every input of the job once: no shard missing, none from another job */
    if (rc == 0 && n == 0)
        rc = tp_fail_at(err, "", "no rank summary (*.rank.json) in %s", ranks);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        snprintf(failed, nfailed, "%s/%s", ranks, names.v[i]);
        if (sums[i].inputs != sums[0].inputs)
            rc = tp_fail_at(err, "", "a rank summary of a job of %llu inputs beside one of %llu (%s): not one run",
                            (unsigned long long)sums[i].inputs, (unsigned long long)sums[0].inputs, names.v[0]);
        else if (sums[i].inputs_hash != sums[0].inputs_hash)
            rc = tp_fail_at(err, "", "made from another list of inputs than %s: not one run (give every shard the "
                            "same inputs, or use a fresh folder)", names.v[0]);
        else if (i && sums[i].input_index == sums[i - 1].input_index)
            rc = tp_fail_at(err, "", "input %llu twice (also %s)", (unsigned long long)sums[i].input_index,
                            names.v[i - 1]);
    }
    if (rc == 0) {
        snprintf(failed, nfailed, "%s", ranks);
        /* over the sorted indices: a repeat anywhere (not only between neighbouring names, as a summary
         * edited by hand has it) and the first index not present (this was a loop to "inputs": minutes
         * for a summary edited to claim 7e10 inputs) */
        uint64_t *idx = tp_xcalloc(n + 1, sizeof *idx), miss = 0, twice = UINT64_MAX;
        for (size_t i = 0; i < n; i++)
            idx[i] = sums[i].input_index;
        qsort(idx, n, sizeof *idx, cmp_u64);
        for (size_t i = 0; i < n; i++) {
            if (i && idx[i] == idx[i - 1] && twice == UINT64_MAX)
                twice = idx[i];
            if (idx[i] == miss)
                miss++;
        }
        free(idx);
        if (twice != UINT64_MAX)
            rc = tp_fail_at(err, "", "input %llu twice among the rank summaries", (unsigned long long)twice);
        else if (miss < sums[0].inputs)
            rc = tp_fail_at(err, "", "%zu of the job's %llu rank summaries (input %llu is missing: run every shard)",
                            n, (unsigned long long)sums[0].inputs, (unsigned long long)miss);
    }
    if (rc == 0) {
        snprintf(failed, nfailed, "%s", ranks);
        rc = tp_job_build(sums, n, job, err);
    }
    for (size_t i = 0; i < n; i++)
        tp_rank_sum_free(&sums[i]);
    free(sums);
    tp_strlist_free(&names);
    return rc;
}

int tp_job_write(const tp_job *job, const tp_page_opts *po, const char *dir, tp_err *err)
{
    tp_buf json = {0}, md = {0};
    const char **pngs = NULL;
    char pngdir[4096];
    snprintf(pngdir, sizeof pngdir, "%s/png", dir);
    int rc = 0;
    /* the PDF, the PNGs, summary.json and summary.md as one set: renamed together at the end */
    tp_outset *set = tp_outset_new(), *prev = tp_outset_use(set);
    tp_report_replaces(set, dir);
    if (tp_mkdirs(pngdir, err) < 0 || tp_job_pages(job, dir, po, &pngs, err) < 0)
        rc = -1;
    tp_timing("job pages");
    if (rc == 0) {
        tp_job_json(job, &json);
        tp_job_md(job, pngs, &md);
        tp_md_fold(&md, TP_MD_HEAD_LINES); /* summary.md is a pull-request comment (issue 36 item 9); stats prints it whole */
        if (tp_out_write_file(dir, "summary.json", json.data, json.len, err) < 0 ||
            tp_out_write_file(dir, "summary.md", md.data, md.len, err) < 0)
            rc = -1;
    }
    rc = tp_outset_finish(set, prev, rc, err) < 0 ? -1 : 0;
    free(pngs);
    tp_buf_free(&json);
    tp_buf_free(&md);
    return rc;
}
