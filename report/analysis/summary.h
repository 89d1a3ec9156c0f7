/* summary.h: every analysis of one report, computed once after loading;
 * the report's outputs are drawn and written from it (report/out,
 * report/pages, report/formats). */
#ifndef TP_SUMMARY_H
#define TP_SUMMARY_H

#include "report/analysis/attribution.h"
#include "report/analysis/categories.h"
#include "report/analysis/classify.h"
#include "report/analysis/efficiency.h"
#include "report/comm/collectives.h"
#include "convert/model/dist_info.h"
#include "report/analysis/gpu_time.h"
#include "report/analysis/hosttree.h"
#include "report/analysis/idle.h"
#include "report/analysis/kernel_table.h"
#include "report/analysis/op_breakdown.h"
#include "report/analysis/overheads.h"
#include "report/analysis/steps.h"
#include "convert/critical/critical.h"
#include "report/memory/memory.h"

typedef struct tp_report_opts {
    const char *path;       /* the input as given */
    const char *steps;      /* --steps text or NULL */
    int64_t batch_size;     /* --batch-size, 0 when not given */
    const tp_cat_rules *rules; /* --categories FILE's rules with the built-in ones; NULL: the built-in ones */
    bool lean;              /* what `stats` prints only: no op breakdown, no CPU overheads */
    const struct tp_device_table *devices; /* --device-spec FILE's devices with the built-in ones; NULL: the built-in ones */
    bool job;               /* what a job's rank summary reads only (report/job/rank_sum.h): steps, the GPU
                             * time model, collectives and the rank's identity; implies lean */
    const struct tp_find_rules *find_rules; /* --rules FILE's rules with the built-in ones; NULL: the built-in ones */
} tp_report_opts;

typedef struct tp_summary {
    const tp_trace *t;
    tp_report_opts opts;
    char name[256];         /* trace base name */
    char date[32];          /* "2024-04-03T18:51:38Z", or "" when unknown */
    char **devices;         /* device names from deviceProperties */
    size_t ndevices;
    uint64_t slices;        /* complete events analysed */
    tp_kernel_table kt;
    tp_host_tree ht;
    tp_op_kernels ob;
    tp_step_figures sf;
    tp_overheads ov;
    tp_attribution at;
    tp_classes cls;         /* the one classification of every device activity (classify.h) */
    tp_categories cat;
    tp_gpu_time gt;
    tp_idle idle;           /* idle attribution and launch statistics per stream */
    tp_efficiency eff;      /* FLOPs, bytes and the roof per op and shape (not with opts.lean) */
    tp_collectives coll;    /* collective calls, sizes and bandwidths (report/comm/collectives.h) */
    tp_dist_info dist;      /* which rank of which job (convert/model/dist_info.h) */
    tp_critical cp;         /* the critical path of each step (convert/critical/critical.h; not for a job's rank) */
    struct tp_cp_lanes *cp_lanes; /* while the summary is built: the critical path's two lanes */
    bool for_stats;         /* tp_summary_build_stats: no op breakdown (ob) and no CPU overheads (ov), which only the
                             * report's pages and summary files show */
    tp_memory mem;          /* device and host memory from the allocator's events (report/memory/memory.h) */
    const tp_cat_rules *rules; /* opts.rules, or own_rules */
    tp_cat_rules own_rules;
    /* Format-specific content (report/formats/format_pages.h): the row for
     * t->format and its analysis, set by tp_format_pages_build; NULL for
     * other formats.  tp_summary_free frees fp_state with fp_free. */
    const struct tp_format_pages *fp;
    void *fp_state;
    void (*fp_free)(void *fp_state);
    /* summary.md only (report/out/summary_write.c), set by the command after tp_summary_build: */
    const char *image_base_url; /* --image-base-url: chart links become URL/png/x.png; NULL: no image links */
    int64_t tokens_per_iteration;           /* --tokens (report/inference/iterations.h), 0 none */
    const struct tp_capture_stats *capture; /* what the graph-capture merge did (convert/pipeline/graph_capture.h);
                                             * NULL: none asked for */
    const char *baseline_md;    /* --baseline: the comparison line (report/diff tp_diff_brief_md); NULL: none */
    /* the findings (report/findings/findings.h), set by whoever writes the outputs after tp_summary_build
     * (report/assemble tp_report_write, `stats`); NULL: the writers build them with the built-in rules */
    const struct tp_findings *findings;
    /* the iterations and graph-replay totals (report/inference/infer_figs.h), set likewise by the report writer;
     * NULL: the writers compute them */
    const struct tp_infer_figs *infer;
} tp_summary;

/* The reader option (formats.h keep_args_of) of the commands that build a
 * summary: the args the efficiency and collectives analyses read. */
bool tp_summary_wants_args(const char *name, size_t len);

void tp_summary_build(const tp_trace *t, const tp_report_opts *o, tp_summary *s);
/* The same for `stats`, less what only a report shows (for_stats): what stats prints and its findings read the same. */
void tp_summary_build_stats(const tp_trace *t, const tp_report_opts *o, tp_summary *s);
void tp_summary_free(tp_summary *s);
/* The critical path of the window NAME[#N] (convert/critical/critical.h
 * tp_cp_windows) in place of the steps'; -1 with err when there is none. */
int tp_summary_critical_window(tp_summary *s, const char *spec, char *err, size_t errn);

/* The base name of a path without .gz/.json/.pt.trace suffixes. */
void tp_trace_basename(const char *path, char *buf, size_t n);

#endif
