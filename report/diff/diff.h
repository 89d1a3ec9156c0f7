/* diff.h: comparing two traces (`tracepress diff BASE CANDIDATE`).
 *
 * Both traces go through tp_load and tp_summary_build (the report's
 * analyses); the diff only matches and subtracts what those computed:
 *   kernels  tp_kernel_table rows (kernels, memcpy, memset) by name, short
 *            name, then by the op that launched them (TP_DM_OP below);
 *   ops      tp_op_kernels top-level ops (device time they launched) by name;
 *   categories  tp_categories rows (device time per op category) by name
 *            (count = activities);
 *   steps    tp_step_figures rows by step number.
 * Matching: exact name first; then rows left unmatched on both sides whose
 * kname base name (render/labels/kname.h rules 1-3) is the same and unique among
 * the unmatched rows of each side (so "void foo<float>(...)" matches
 * "foo<float>" and cross-format names line up); the rest are "added"
 * (candidate only) or "removed" (base only).  Steps left unmatched by number
 * are paired by position when both runs have the same number of steps.
 *
 * For each row: count, total and mean (total / count, rounded) in both;
 *   delta = total_cand - total_base;
 *   rel   = delta / total_base (absent when total_base is 0);
 *   share = delta / (sum of |delta| over the table's rows): the part of
 *           all the change (regressions and improvements together) this
 *           row explains, signed like delta, so shares of a table's rows
 *           add up to 100% in absolute value (absent when nothing changed).
 *           Dividing by the net change instead explodes when regressions
 *           and improvements nearly cancel.
 * Rows are ordered by delta, largest regression first, then by name; the
 * improvements are the same rows read from the end.
 *
 * Step times (host_ns of each step, steps.h), per run: the steps the
 * report's median step is taken over (those with device activity, all when
 * none has any), their median (the report's median step: lower median),
 * quartiles Q1 and Q3 (linear interpolation between closest ranks, numpy's
 * default, rounded half up to the ns) and IQR = Q3 - Q1; min and max over
 * all steps.  The noise rule (docs/DIFF.md), with d = median_cand -
 * median_base:
 *   noise = max(floor(1.5 IQR_base), floor(1.5 IQR_cand), floor(median_base / 100))
 *   a change counts when |d| > noise,
 * known only when both runs have at least 2 such steps.  One function,
 * tp_diff_build's judge(), turns it into the verdict, and --fail-if-slower
 * reads only that verdict (tp_diff_slower_gate), so the text and the exit
 * code cannot disagree. */
#ifndef TP_DIFF_H
#define TP_DIFF_H

#include "report/analysis/summary.h"
#include "report/diff/diff_eff.h"
#include "report/diff/diff_find.h"
#include "report/diff/diff_mem.h"

/* TP_DM_OP (kernels only, issue 36): a base kernel and a candidate kernel of
 * different names, left unmatched by name and short name, that the same
 * top-level op launched (the op with the most of each kernel's time), when
 * that op launched exactly one such kernel of that kind on each side
 * (H100 cunn_SoftMaxForward vs MI300 cunn_SoftMaxForwardReg under softmax). */
enum { TP_DM_NAME = 0, TP_DM_SHORT, TP_DM_ADDED, TP_DM_REMOVED, TP_DM_OP, TP_DM_COUNT };
const char *tp_diff_match_name(int m); /* "name", "short_name", "added", "removed", "op" */

typedef struct tp_diff_row {
    char *name;        /* base name (candidate name for added rows) */
    char *cand_name;   /* candidate's name when matched by short name, else NULL */
    char *short_name;  /* kname base name (the short-name matching key) */
    char *label;       /* display name: tp_kname_shorten over the whole table (unique) */
    char *op;          /* TP_DM_OP: the op that launched both kernels, else NULL */
    uint8_t kind;      /* kernels: TP_KIND_KERNEL/MEMCPY/MEMSET; ops/steps: 0 */
    int match;         /* TP_DM_* */
    int64_t step;      /* steps: step number in base (candidate for added) */
    uint64_t count[2];
    int64_t total[2], mean[2];
    int64_t delta;
    bool has_rel, has_share;
    double rel, share; /* fractions (0.2 = 20%) */
} tp_diff_row;

typedef struct tp_diff_table {
    tp_diff_row *rows;
    size_t n;
    int64_t total[2];
    int64_t delta;
} tp_diff_table;

/* tp_step_spread: report/analysis/steps.h */

/* The verdict on the headline (diff.json "verdict", diff.md, diff.pdf, the
 * stderr line): no_change = headline and device time identical; with a noise
 * estimate within_noise / slower / faster by the rule above; without one
 * (a run with a single step, or no steps: device time compared)
 * no_noise_estimate, never a claim that the change is real. */
typedef enum {
    TP_DV_NO_CHANGE = 0, TP_DV_WITHIN_NOISE, TP_DV_SLOWER, TP_DV_FASTER, TP_DV_NO_ESTIMATE
} tp_diff_verdict;
const char *tp_diff_verdict_name(int v); /* "no change", "within noise", "slower", "faster", "no noise estimate" */

/* Which term of the rule set the noise. */
enum { TP_NOISE_IQR_BASE = 0, TP_NOISE_IQR_CAND, TP_NOISE_FLOOR };
const char *tp_diff_noise_from_name(int f); /* "iqr_base", "iqr_candidate", "floor" */

typedef struct tp_diff {
    const tp_summary *s[2]; /* base, candidate */
    tp_diff_table kernels, ops, steps, categories;
    tp_diff_eff eff;         /* efficiency rows matched per shape (diff_eff.h) */
    tp_diff_findings find;   /* the findings of both runs compared (diff_find.h) */
    tp_diff_mem mem;         /* memory of both runs compared (diff_mem.h) */
    tp_step_spread spread[2];
    bool has_steps;          /* both runs have steps */
    int64_t median_delta;
    bool median_has_rel;
    double median_rel;
    bool noise_known;
    int64_t noise;
    int noise_from;          /* TP_NOISE_*, when noise_known */
    bool beyond_noise;
    int verdict;             /* tp_diff_verdict */
    /* the figure --fail-if-slower looks at */
    const char *headline;    /* "median_step_time" or "total_device_time" */
    int64_t head[2];
    bool head_has_rel;
    double head_rel;
} tp_diff;

void tp_diff_build(const tp_summary *base, const tp_summary *cand, tp_diff *d);
void tp_diff_free(tp_diff *d);

/* Gates.  kernel_min_share: a kernel is gated only when its total is at
 * least this fraction of the run's total device time (in base or in
 * candidate).  Returns the number of gates tripped; each reason is one line
 * appended to `why`. */
typedef struct tp_diff_gates {
    bool slower, kernel_slower;
    double slower_pct, kernel_pct, kernel_min_share_pct;
    const char *fail_on_finding; /* --fail-on-finding ID|SEVERITY, NULL none (diff_find.h) */
    tp_mem_gate mem_higher;      /* --fail-if-memory-higher PCT|BYTES (diff_mem.h) */
} tp_diff_gates;
int tp_diff_check(const tp_diff *d, const tp_diff_gates *g, tp_buf *why);
/* --fail-if-slower alone: 1 trips (verdict slower, or no noise estimate and
 * the headline grew by more than PCT%), 0 does not, -1 the headline grew by
 * more than PCT% but the verdict is "within noise", so it does not trip. */
int tp_diff_slower_gate(const tp_diff *d, const tp_diff_gates *g);

/* Q1 and Q3 of n >= 1 values sorted ascending: linear interpolation at
 * (n-1)/4 and 3(n-1)/4 (numpy's default), rounded half up to the ns. */
void tp_diff_quartiles(const int64_t *sorted, size_t n, int64_t *q1, int64_t *q3);

/* diff.json (schema "tracepress.diff/2", docs/DIFF.md) and diff.md. */
void tp_diff_json(const tp_diff *d, const tp_diff_gates *g, const tp_buf *why, int tripped, tp_buf *b);
/* The baseline line of `report --baseline`'s summary.md: the headline
 * change with its verdict, then the three kernels whose total time changed
 * most.  One paragraph, no newline at the end. */
void tp_diff_brief_md(const tp_diff *d, tp_buf *b);
/* image_base_url: where png/ is published (checked by tp_md_url_check);
 * NULL: the chart files are named, not linked (a relative image is dead in
 * a pull-request comment). */
void tp_diff_md(const tp_diff *d, const tp_diff_gates *g, const tp_buf *why, int tripped, const char *image_base_url,
                const char *const *pngs, tp_buf *b);

/* The clause after the headline that says why the verdict is what it is
 * (the noise and where it comes from, or why there is no estimate); plain
 * UTF-8 without names, for diff.md, diff.pdf and the stderr line. */
void tp_diff_noise_text(const tp_diff *d, char *buf, size_t n);

/* Whether the op-level change leads (diff.md's tables, diff.pdf's first chart): kernel names barely overlap (under
 * half of both runs' kernel time in kernels matched by name or short name: another vendor's library) and some op's
 * time changed; *share (may be NULL) gets that matched share (0-1). */
bool tp_diff_ops_lead(const tp_diff *d, double *share);

/* "+12.3%", "-4.0%", "new"/"-" style relative change text. */
void tp_diff_fmt_rel(char *buf, size_t n, const tp_diff_row *r);
/* A row's share of the gross change, "12.3%" (one decimal; a share that rounds to zero is "0.0%", never "-0.0%"),
 * "-" without one. */
void tp_diff_fmt_share(char *buf, size_t n, const tp_diff_row *r);
/* "+1.234 ms" signed duration, 3 significant digits. */
void tp_diff_fmt_delta(char *buf, size_t n, int64_t ns);

/* PDF and PNGs (report/diff/diff_pages.c): DIR/diff.pdf, DIR/png/changes.png,
 * DIR/png/steps.png.  *pngs: NULL-terminated malloc'ed array of static names. */
int tp_diff_pages(const tp_diff *d, const char *dir, double png_scale, const char ***pngs, tp_err *err);
/* One PNG chart's page on any canvas (tests draw it on the recording one):
 * which 0 = png/changes.png (800 pt wide, as high as its rows need),
 * 1 = png/steps.png (800 x 480 pt, the first 20 steps of each run).  Text
 * is 12 pt: 12 px where GitHub shows the 2 px/pt image at 800 px. */
struct tp_canvas;
void tp_diff_png_page(struct tp_canvas *cv, const tp_diff *d, int which);

#endif
