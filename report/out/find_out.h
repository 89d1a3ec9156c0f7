/* find_out.h: the findings (report/findings/findings.h) as summary.json's
 * `findings` and `findings_unsure` members, summary.md's lead and `stats`
 * text (docs/REPORT.md "Findings"). */
#ifndef TP_FIND_OUT_H
#define TP_FIND_OUT_H

#include "report/findings/findings.h"

#include <stdio.h>

/* s->findings when the command set them, else built into local with the
 * built-in rules (the caller frees local when the result is local). */
const tp_findings *tp_findings_of(const tp_summary *s, tp_findings *local);
/* "findings":[...],\n"findings_unsure":[...] (no comma around). */
void tp_findings_json(const tp_findings *f, tp_buf *b);
/* summary.md's lead: the top finding's verdict line (under 200 characters),
 * then the top 3 findings with one evidence line each, the rules that
 * could not tell; or "No finding" in words. */
void tp_findings_md(const tp_findings *f, tp_buf *b);
/* `stats` text: every finding with all its evidence. */
void tp_findings_text(const tp_findings *f, FILE *out);

#endif
