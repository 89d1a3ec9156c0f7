/* findings.h: what holds the trace back, with its evidence, its cost and the
 * next thing to try (docs/REPORT.md "Findings").
 *
 * Two parts.  Measures are code (measures.c): each computes from the summary
 * a value on a named base (a share, in thousandths of a percent), an impact
 * (an upper bound of the time it could save, ns, with how it is bounded),
 * evidence lines (figures and the events that show them) and whether its
 * data is there at all ("cannot tell", said once).  Rules are data
 * (findings.rules, built in; `--rules FILE` adds rules or replaces built-in
 * ones by id): each names a measure, a threshold on its value, a severity, a
 * title and a next step.  A rule fires when its measure's value reaches the
 * threshold and its impact is at least TP_FIND_NOISE_MILLI of the impact's
 * base (below that, what it could save is within run-to-run noise).
 * Findings are ranked by impact (largest first), then id: deterministic. */
#ifndef TP_FINDINGS_H
#define TP_FINDINGS_H

#include "report/analysis/summary.h"

/* 1% of the base, in thousandths of a percent: see above */
#define TP_FIND_NOISE_MILLI 1000
/* rules in all (built-in and a file's): far more than a reader reads, and the ID check stays small */
#define TP_FIND_MAX_RULES 1000

enum { TP_SEV_LOW = 0, TP_SEV_MEDIUM, TP_SEV_HIGH, TP_SEV_OFF /* never fires nor counts: a file's way to disable a rule */ };

typedef struct tp_find_rule {
    char *id;        /* [a-z0-9_], at most 40 bytes */
    char *measure;   /* a name of the measure catalogue */
    int64_t threshold_milli; /* thousandths of a percent of the measure's base */
    uint8_t severity; /* TP_SEV_*; TP_SEV_OFF: disabled */
    char *title;     /* the verdict in plain words */
    char *next;      /* the next step to try */
    bool user;       /* from --rules FILE */
} tp_find_rule;

typedef struct tp_find_rules {
    tp_find_rule *rules; /* built-in order, a file's new ids after; a file's rule replaces a built-in one in place */
    size_t n, cap;
} tp_find_rules;

/* The built-in rules with those of user_file (NULL: none).  0 ok; -1 with a
 * one-line reason in err ("offset 120: line 5: ...") for a bad file. */
int tp_find_rules_load(tp_find_rules *r, const char *user_file, char *err, size_t errn);
void tp_find_rules_free(tp_find_rules *r);
/* As tp_find_rules_load, the file's MEASUREs those known() names (a job's
 * --rules file holds rules of the trace's and the job's measures). */
int tp_find_rules_load_known(tp_find_rules *r, const char *user_file, bool (*known)(const char *name, size_t len),
                             char *err, size_t errn);
int tp_find_rules_for_command_known(const char *file, bool (*known)(const char *name, size_t len), tp_find_rules *r);
/* Rule lines of text added to r (a rule with an id r has replaces it, once),
 * each MEASURE one that known() names: the same format for another table
 * of measures (the job report's, report/job/job_find.c).  0; -1 with err. */
int tp_find_rules_parse(tp_find_rules *r, const char *text, size_t len, bool user,
                        bool (*known)(const char *name, size_t len), char *err, size_t errn);
/* For a command's `--rules FILE` (NULL: the built-in rules): 0, or the
 * one-line error printed ("tracepress: FILE: offset N: line L: ...") and
 * TP_EXIT_INPUT. */
int tp_find_rules_for_command(const char *file, tp_find_rules *r);
#define TP_RULES_HELP                                                                                                 \
    "  --rules FILE        finding rules added to the built-in ones (a rule with a\n"                                 \
    "                      built-in id replaces it): lines ID | MEASURE | THRESHOLD% |\n"                           \
    "                      SEVERITY | TITLE | NEXT STEP (docs/REPORT.md \"Findings\")\n"
/* Whether name is a measure of the catalogue. */
bool tp_find_measure_known(const char *name, size_t len);

/* One measure computed over a summary. */
typedef struct tp_measure {
    const char *name;      /* the catalogue's */
    const char *base;      /* what the value is a share of ("the GPU span"), static */
    int64_t part, whole;   /* value = part / whole; whole 0: nothing to measure (value 0) */
    int64_t value_milli;   /* part / whole in thousandths of a percent */
    int64_t impact_ns;     /* upper bound of the time it could save */
    const char *impact_base; /* what impact_share is of ("the GPU span"), static or span_of_devices */
    char span_of_devices[64]; /* "the GPU span summed over N devices": base and impact_base with several devices */
    int64_t impact_base_ns;
    int64_t impact_milli;  /* impact_ns / impact_base_ns in thousandths of a percent */
    const char *bound;     /* how the impact is bounded, static */
    bool available;        /* false: the trace lacks the data; why says which */
    bool risk;             /* a risk, not time (the memory measures): impact 0 ns, fires on the value alone */
    char why[400];
    char **evidence;       /* lines of plain text (trace names as recorded, cut) */
    size_t nevidence;
    char *confidence;      /* NULL, or why the evidence is partial */
    char scope[64];        /* "whole trace", "steps", ... */
    /* per step (find_steps.c), for the measures that have one: part and whole of
     * each step of s->sf (value_i = step_part[i] / step_whole[i], on the step's
     * share of the same base, and impact = part); NULL: the whole trace only */
    int64_t *step_part, *step_whole;
    size_t nsteps;
    bool steps_scope_only; /* the steps with a part name the scope; the rule is judged on the whole only */
    bool corroborates;     /* a view of a bottleneck other measures name by its cause (the critical path's
                            * bound types): ranked after every finding of those, never the verdict over them */
    const char *pages[2];  /* titles of the report's pages that show it (the overview links those drawn), NULL */
} tp_measure;

typedef struct tp_finding {
    const tp_find_rule *rule;
    const tp_measure *m;
    /* where it holds (find_steps.c, docs/REPORT.md "Scope"): "whole trace", "every step, 6 of 6",
     * "step 3", "steps 3, 7 (2 of 10)", or the measure's own ("rank 3", "job") */
    char scope[96];
    size_t *steps;          /* indexes into s->sf.steps where the rule holds on its own, by step order */
    size_t nsteps, steps_total; /* steps_total 0: no per-step evaluation */
    int64_t step_impact_ns;     /* the median over those steps of the part */
    int64_t step_impact_milli;  /* the median over them of part / the step's time (host span), thousandths of % */
} tp_finding;

typedef struct tp_findings {
    tp_measure *measures;  /* the catalogue's, in its order */
    size_t nmeasures;
    tp_finding *items;     /* ranked: impact desc, then id */
    size_t n;
    size_t nrules;         /* rules tried */
    /* the rules whose measure could not tell: measure index per rule, in rule order */
    const tp_find_rule **unsure;
    const tp_measure **unsure_m;
    size_t nunsure;
    tp_find_rules *own_rules; /* the built-in table when the caller gave none (the rules point into it) */
    const char *subject;   /* what the findings are of, static ("job"); NULL: "trace" */
    const tp_step_figures *s_steps; /* the steps the items' `steps` index (the summary's), NULL: none */
    tp_find_rule *adapted; /* built-in rules' copies in the framework's words (advice.c), owned */
    size_t nadapted;
} tp_findings;

/* The built-in rules' next steps in the words of t's framework (advice.c):
 * an XLA trace's are never torch's, a trace without steps is not told about
 * "the step"; items and unsure then point at f's own copies. */
void tp_findings_adapt(tp_findings *f, const tp_trace *t, bool has_steps);

/* r: NULL for the built-in rules. */
void tp_findings_build(const tp_summary *s, const tp_find_rules *r, tp_findings *f);
void tp_findings_free(tp_findings *f);
/* How a finding changed between a base and a candidate run (diff, job
 * diff: docs/DIFF.md "Findings"): new, gone, or, when both fired, grown
 * (shrunk) when its impact share moved by more than the larger of 1 point
 * of its base (TP_FIND_NOISE_MILLI) and a tenth of the base run's share,
 * else the same.  Neither fired: TP_FIND_SAME. */
enum { TP_FIND_NEW = 0, TP_FIND_GREW, TP_FIND_GONE, TP_FIND_SHRANK, TP_FIND_SAME };
int tp_find_change(bool fired_base, int64_t milli_base, bool fired_cand, int64_t milli_cand);
const char *tp_find_change_name(int status); /* "new", "grew", "gone", "shrank", "same" */

/* The rules r applied over f's computed measures (value_milli and
 * impact_milli set): f's items (ranked) and unsure; for another table of
 * measures (the job's). */
void tp_findings_apply(tp_findings *f, const tp_find_rules *r);
/* find_steps.c: each finding's scope over the steps (the steps where its rule
 * holds on its own, their labels, the median impact per step); called by
 * tp_findings_build after tp_findings_apply. */
void tp_findings_scope(const tp_summary *s, tp_findings *f);
/* Whether the rule holds in step i of m on its own: the step's value reaches the
 * threshold and its part is at least TP_FIND_NOISE_MILLI of the step's base. */
bool tp_find_step_holds(const tp_measure *m, const tp_find_rule *r, size_t i);
/* Whether unsure entries i and j say the same: one measure, or one reason (a
 * partial trace's, shared by the measures that read the idle gaps): said once. */
bool tp_find_unsure_same(const tp_findings *f, size_t i, size_t j);
/* The scope worth naming beside a verdict: NULL for the whole trace. */
const char *tp_find_scope_shown(const tp_finding *x);
/* The scope as the verdict says it: " in step 3", " in every step, 6 of 6",
 * " (rank 3)", or "" for the whole trace. */
void tp_find_scope_phrase(const tp_finding *x, char *buf, size_t n);

const char *tp_find_severity_name(uint8_t sev);
/* thousandths of a percent for people, one decimal rounded half up: "15.1%" */
void tp_find_pct(char *buf, size_t n, int64_t milli);

/* private to the room: the catalogue (measures.c) */
typedef struct tp_find_ctx tp_find_ctx; /* scans shared by the measures, made once */
tp_find_ctx *tp_find_ctx_new(void);
void tp_find_ctx_free(tp_find_ctx *c);
typedef void (*tp_measure_fn)(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
typedef struct tp_measure_def {
    const char *name;
    tp_measure_fn compute;
    const char *pages[2]; /* the pages that show its evidence, by title, most telling first; NULL none */
} tp_measure_def;
extern const tp_measure_def tp_measure_catalogue[];
extern const size_t tp_measure_count;
void tp_measure_evidence(tp_measure *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int64_t tp_find_milli(int64_t part, int64_t whole);

/* measures_more.c: the dataloader's host time (its merged spans, read by
 * the device idle split), fusible chains, GEMM shapes that waste tiles */
typedef struct tp_find_span {
    int64_t s, e;
    uint32_t track; /* the host thread (a synchronisation's: the thread that waits) */
} tp_find_span;
typedef struct tp_find_data {
    tp_find_span *spans; /* host slices named like a dataloader, merged, sorted */
    size_t n;
    int64_t host_ns;     /* their union */
    uint64_t calls;
    tp_str names[3];     /* the names with the most time */
    int64_t names_ns[3];
} tp_find_data;
void tp_find_data_scan(const tp_summary *s, tp_find_data *d);
/* The time of [a, b) the merged sorted spans cover. */
int64_t tp_find_overlap(const tp_find_span *sp, size_t n, int64_t a, int64_t b);
/* Whether an efficiency row is a compute-bound GEMM on tensor cores, under
 * 75% of its roof, with M, N or K not a multiple of its tile need; why says
 * which. */
bool tp_find_gemm_misaligned(const tp_summary *s, const tp_eff_row *r, char *why, size_t n);
void tp_measure_fusible_chains(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
void tp_measure_gemm_tiles(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
/* The critical path's host share and launch-gap share (measures_cp.c). */
void tp_measure_critical_cpu(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
void tp_measure_critical_launch(const tp_summary *s, tp_find_ctx *c, tp_measure *m);

/* Step windows for clipping device idle gaps (find_steps.c): host steps on every
 * device, a device's steps on it, made disjoint in start order per device as the
 * GPU time model does. */
typedef struct tp_find_win {
    uint32_t proc; /* the step's device process, TP_NONE for a host step */
    int64_t s, e;
    uint32_t step; /* index into s->sf.steps */
} tp_find_win;
typedef struct tp_find_wins {
    tp_find_win *w; /* by proc then start */
    size_t n;
} tp_find_wins;
void tp_find_wins_build(const tp_summary *s, tp_find_wins *w);
void tp_find_wins_free(tp_find_wins *w);
/* Adds a device gap [a, b) on device process proc into per-step sums: the part of
 * each step's clip the dataloader spans dl cover into per[data_cls], the rest into
 * per[cls] (cls < 0: the whole gap was the dataloader's). */
void tp_find_wins_add(const tp_find_wins *w, uint32_t proc, int64_t a, int64_t b, const tp_find_data *dl, int cls,
                      int data_cls, int64_t *const *per);
/* step_outliers' evidence: what differs in step `out` against the median step (kernels and
 * top-level host ops with the most extra time); one pass over the events. */
/* "every step, 6 of 6" (n = total), "step 3", "steps 3, 7 (2 of 10)", at most 5 labels then
 * "..."; "whole trace" for n = 0.  idx: indexes into s->sf.steps, in step order. */
void tp_find_steps_scope(const tp_summary *s, const size_t *idx, size_t n, size_t total, char *out, size_t outn);
/* find_partial.c: whether the trace's events were filtered or sampled (holes in
 * Kineto's "Ev Idx" numbering); why gets the sentence.  Reads the args of at
 * most 4,096 host events. */
bool tp_find_partial(const tp_summary *s, char *why, size_t n);
void tp_find_step_diff(const tp_summary *s, size_t out, size_t median, tp_measure *m);
/* measures_mem.c: memory near the device's capacity, reserved far above allocated, growth across steps */
void tp_measure_memory_near_capacity(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
void tp_measure_memory_fragmentation(const tp_summary *s, tp_find_ctx *c, tp_measure *m);
void tp_measure_memory_growth(const tp_summary *s, tp_find_ctx *c, tp_measure *m);

#endif
