/* job_run.h: the job report as map and reduce (docs/SCALING.md "Jobs").
 *
 * Map: each input of the shard is loaded, analysed and freed in turn (one
 * rank in memory at a time), leaving DIR/ranks/NNNNNN-<name>.rank.json
 * (rank_sum.h; NNNNNN its place among all the job's inputs, sorted).
 * Reduce: every DIR/ranks/<...>.rank.json is read back and the job built
 * (job.h); the outputs are written as one set: DIR/summary.json,
 * DIR/summary.md, DIR/report.pdf, DIR/png/.  A one-process run is the map
 * of every input and the reduce, so its outputs are the bytes a sharded
 * run's merge gives. */
#ifndef TP_JOB_RUN_H
#define TP_JOB_RUN_H

#include "convert/pipeline/inputs.h"
#include "convert/pipeline/pipeline.h"
#include "report/job/job.h"
#include "report/pages/fpage.h"

typedef struct tp_job_opts {
    const tp_load_opts *load;      /* the command's load options */
    const char *steps;             /* --steps text, or NULL */
    const tp_cat_rules *rules;
    const struct tp_device_table *devices;
    int shard_k, shard_n;          /* shard K of N (input i when i % N == K - 1); 0, 0 all */
    int workers;                   /* ranks analysed at once by tp_job_map (forked, one thread each); <= 1: one */
    const tp_find_rules *find_rules; /* --rules FILE (tp_job_rules_for_command): each rank's own findings read its
                                      * rules of a trace's measures, the job's findings those of the job's; NULL:
                                      * the built-in ones */
} tp_job_opts;

/* Before a job report writes anything in DIR (no folder, no lock yet):
 * registers the inputs as protected (tp_out_protect: the forked workers
 * inherit them), then refuses (-1, err, *failed the input or DIR/ranks) an
 * input or a file an option names that is one of the report's files, an
 * input in DIR/ranks (the map replaces and removes rank summaries there),
 * and a DIR/ranks that is a symbolic link.  inputs NULL (--merge): the
 * report's files only.  0 when none. */
int tp_job_check_outputs(const tp_strlist *inputs, const char *dir, const char **failed, tp_err *err);
/* 0; or -1 with err and *failed the path (an input, or an output) the error
 * is about (the lowest input's when several fail; the message counts the
 * others). */
int tp_job_map(const tp_strlist *inputs, const tp_job_opts *o, const char *dir, const char **failed, tp_err *err);
/* Read the rank summaries of DIR/ranks: 0, or -1 with err and *failed the file. */
int tp_job_read_ranks(const char *dir, tp_job *job, char *failed, size_t nfailed, tp_err *err);
/* The outputs, as one set; 0 or -1 with err naming the file. */
int tp_job_write(const tp_job *job, const tp_page_opts *po, const char *dir, tp_err *err);

/* The map and reduce in memory, no file written (`stats` of a job): 0, or
 * -1 with err and *failed the input. */
int tp_job_collect(const tp_strlist *inputs, const tp_job_opts *o, tp_job *job, const char **failed, tp_err *err);

/* One rank: load, analyse, summarise, free the trace.  0, or -1 with err
 * (about the input). */
int tp_job_rank_load(const char *path, const tp_job_opts *o, tp_rank_sum *r, tp_err *err);

/* What the straggler (tp_job_late_rank) ran in the windows it was late in, its two latest steps: its
 * trace read again (late_window.c), j->late filled and the job's findings rebuilt under o's rules.  0
 * (also when there is no straggler); -1 when its trace cannot be read (j->late_unread: the findings
 * keep the window before its first collective, from its rank summary, and say so). */
int tp_job_late_read(tp_job *j, const tp_job_opts *o);

#endif
