/* mem_out.h: the memory model's text outputs (report/memory/memory.h):
 * summary.json's `memory` member (also `stats --json`), summary.md's memory
 * line and the `stats` text lines.  docs/REPORT.md "Memory". */
#ifndef TP_MEM_OUT_H
#define TP_MEM_OUT_H

#include "report/analysis/summary.h"

#include <stdio.h>

void tp_memory_json(const tp_summary *s, tp_buf *b); /* "memory":{...} */
void tp_memory_md(const tp_summary *s, tp_buf *b);   /* one line, nothing without memory events */
void tp_memory_text(const tp_summary *s, FILE *f);   /* stats: a few lines, or the one line that says none */
/* What the memory events lacked, one sentence (empty when nothing): said once by every output. */
void tp_memory_caveats(const tp_memory *m, char *buf, size_t n);

#endif
