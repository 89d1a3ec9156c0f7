/* job_run.c: the job report's map and reduce, and its outputs (job_run.h). */
#include "report/job/job_run.h"
#include "convert/io/output.h"
#include "report/job/job_out.h"
#include "report/job/job_pages.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The only args a job reads: the collectives' (kernels, record_param_comms, nccl:* annotations). */
static bool job_wants_args(const char *name, size_t len) { return tp_collectives_want_args(name, len); }

int tp_job_rank_load(const char *path, const tp_job_opts *o, tp_rank_sum *r, tp_err *err)
{
    tp_load_opts lo = *o->load;
    lo.read.keep_args = false;
    lo.read.keep_args_of = job_wants_args;
    lo.no_derive = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_out_protect(path);
    if (tp_load(path, &lo, &t, err) < 0) {
        tp_trace_free(&t);
        return -1;
    }
    tp_print_warnings(path, &t);
    tp_report_opts ro = {path, o->steps, 0, o->rules, true, o->devices, true};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    tp_rank_sum_build(&s, r);
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
        unlink(path);
    }
    closedir(d);
}

/* Map the inputs at positions worker, worker + nworkers, ... of the
 * shard's list.  0, or -1 with err and *failed. */
static int map_part(const tp_strlist *inputs, const tp_job_opts *o, const char *dir, int worker, int nworkers,
                    const char **failed, tp_err *err)
{
    tp_buf b = {0};
    size_t pos = 0;
    for (size_t i = 0; i < inputs->n; i++) {
        if (o->shard_n && (int)(i % (size_t)o->shard_n) != o->shard_k - 1)
            continue;
        if ((int)(pos++ % (size_t)nworkers) != worker)
            continue;
        tp_rank_sum r;
        *failed = inputs->v[i];
        if (tp_job_rank_load(inputs->v[i], o, &r, err) < 0) {
            tp_buf_free(&b);
            return -1;
        }
        r.input_index = i;
        r.inputs = inputs->n;
        b.len = 0;
        tp_rank_sum_json(&r, &b);
        char path[4400];
        rank_file(dir, i, r.name, path, sizeof path);
        tp_rank_sum_free(&r);
        *failed = dir;
        if (tp_out_write_file(NULL, path, b.data, b.len, err) < 0) {
            tp_buf_free(&b);
            return -1;
        }
        tp_timing("rank");
    }
    tp_buf_free(&b);
    return 0;
}

int tp_job_map(const tp_strlist *inputs, const tp_job_opts *o, const char *dir, const char **failed, tp_err *err)
{
    char ranks[4096];
    snprintf(ranks, sizeof ranks, "%s/ranks", dir);
    *failed = dir;
    if (tp_mkdirs(ranks, err) < 0)
        return -1;
    remove_stale(ranks, o);
    size_t mine = 0;
    for (size_t i = 0; i < inputs->n; i++)
        mine += !o->shard_n || (int)(i % (size_t)o->shard_n) == o->shard_k - 1;
    int workers = o->workers > 1 && mine > 1 ? (mine < (size_t)o->workers ? (int)mine : o->workers) : 1;
    if (workers == 1)
        return map_part(inputs, o, dir, 0, 1, failed, err);
    /* forked workers, each a part of the ranks on one thread: two ranks at
     * once use both cores through the single-threaded stretches of a load
     * (link, the merge of the reader's halves) that one rank leaves idle */
    pid_t *pids = tp_xcalloc((size_t)workers, sizeof *pids);
    fflush(NULL);
    int started = 0;
    for (; started < workers; started++) {
        pid_t pid = fork();
        if (pid < 0)
            break;
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* a killed command takes its workers along */
            tp_out_install_signal_cleanup();
            setenv("TP_THREADS", "1", 0);
            const char *f = NULL;
            tp_err e = {0};
            int rc = map_part(inputs, o, dir, started, workers, &f, &e);
            if (rc < 0)
                tp_report_error(f, &e);
            fflush(NULL);
            _exit(rc < 0 ? TP_EXIT_INPUT : 0);
        }
        pids[started] = pid;
    }
    int rc = 0;
    for (int w = 0; w < started; w++) {
        int st = 0;
        while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = -1;
    }
    free(pids);
    if (started < workers && rc == 0) /* fork failed: the rest here */
        for (int w = started; w < workers && rc == 0; w++)
            rc = map_part(inputs, o, dir, w, workers, failed, err);
    else if (rc < 0) {
        *failed = NULL; /* the worker printed its error */
        return -1;
    }
    return rc;
}

int tp_job_collect(const tp_strlist *inputs, const tp_job_opts *o, tp_job *job, const char **failed, tp_err *err)
{
    tp_rank_sum *sums = tp_xcalloc(inputs->n + 1, sizeof *sums);
    size_t n = 0;
    int rc = 0;
    for (; n < inputs->n; n++) {
        *failed = inputs->v[n];
        if ((rc = tp_job_rank_load(inputs->v[n], o, &sums[n], err)) < 0)
            break;
        sums[n].input_index = n;
        sums[n].inputs = inputs->n;
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
    while ((e = readdir(d)) != NULL)
        if (is_rank_file(e->d_name))
            tp_strlist_add(&names, e->d_name);
    closedir(d);
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
        else if (i && sums[i].input_index == sums[i - 1].input_index)
            rc = tp_fail_at(err, "", "input %llu twice (also %s)", (unsigned long long)sums[i].input_index,
                            names.v[i - 1]);
    }
    if (rc == 0 && n != sums[0].inputs) {
        snprintf(failed, nfailed, "%s", ranks);
        size_t miss = 0;
        for (size_t i = 0, k = 0; i < sums[0].inputs; i++) {
            if (k < n && sums[k].input_index == i) {
                k++;
                continue;
            }
            miss = miss ? miss : i + 1;
        }
        rc = tp_fail_at(err, "", "%zu of the job's %llu rank summaries (input %zu is missing: run every shard)", n,
                        (unsigned long long)sums[0].inputs, miss ? miss - 1 : 0);
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
    if (tp_mkdirs(pngdir, err) < 0 || tp_job_pages(job, dir, po, &pngs, err) < 0)
        rc = -1;
    tp_timing("job pages");
    if (rc == 0) {
        tp_job_json(job, &json);
        tp_job_md(job, pngs, &md);
        if (tp_out_write_file(dir, "summary.json", json.data, json.len, err) < 0 ||
            tp_out_write_file(dir, "summary.md", md.data, md.len, err) < 0)
            rc = -1;
    }
    tp_outset_use(prev);
    if (rc < 0)
        tp_outset_abort(set);
    else if (tp_outset_publish(set, err) < 0)
        rc = -1;
    free(pngs);
    tp_buf_free(&json);
    tp_buf_free(&md);
    return rc;
}
