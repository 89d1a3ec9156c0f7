/* diff_find.h: the findings of two runs compared (docs/DIFF.md
 * "Findings"): each rule that fires in either run, new, gone, grown, shrunk
 * or the same, and the `--fail-on-finding ID|SEVERITY` gate over them. */
#ifndef TP_DIFF_FIND_H
#define TP_DIFF_FIND_H

#include "report/findings/findings.h"

/* tp_find_change's statuses (findings.h), shared with the job diff */
enum { TP_DF_NEW = TP_FIND_NEW, TP_DF_GREW = TP_FIND_GREW, TP_DF_GONE = TP_FIND_GONE, TP_DF_SHRANK = TP_FIND_SHRANK,
       TP_DF_SAME = TP_FIND_SAME };

typedef struct tp_diff_finding {
    char *id, *title;
    uint8_t severity;
    int status;              /* TP_DF_* */
    bool fired[2];           /* base, candidate */
    int64_t impact_ns[2];    /* 0 where it did not fire */
    int64_t impact_milli[2]; /* share of the impact base, thousandths of a percent */
    char *impact_base;       /* owned (a measure's base may live in its measure: span_of_devices); a memory
                              * risk's: the base of its value (tp_measure.base) */
    char scope[2][96];       /* where it holds in each run (tp_finding.scope), "" where it did not fire */
    bool risk;               /* a memory risk: impact_milli is its value, not a share of time */
} tp_diff_finding;

typedef struct tp_diff_findings {
    tp_diff_finding *rows;   /* new, grew, gone, shrank, same; then candidate impact desc (base for gone), id */
    size_t n;
} tp_diff_findings;

/* A finding grew (shrank) when its impact share moved by more than the
 * larger of 1 point of its base (TP_FIND_NOISE_MILLI) and a tenth of the
 * base run's share: smaller moves are run-to-run noise. */
void tp_diff_findings_build(const tp_summary *base, const tp_summary *cand, tp_diff_findings *f);
void tp_diff_findings_free(tp_diff_findings *f);
const char *tp_diff_finding_status_name(int status); /* "new", "grew", "gone", "shrank", "same" */
/* --fail-on-finding: the ID of a rule diff runs (built in, or of rules_file:
 * --rules FILE, NULL none) or a severity (high, medium, low: that severity or
 * above).  0 ok, -1 not one, -2 a rule rules_file turns off (severity off: it never fires,
 * so the gate could never trip). */
int tp_diff_finding_gate_check(const char *value, const char *rules_file);
/* Appends one reason line to why per new or grown finding the gate names;
 * returns how many. */
int tp_diff_finding_gate(const tp_diff_findings *f, const char *value, tp_buf *why);

#endif
