/* diff_mem.h: the memory of two runs compared (docs/DIFF.md "Memory"):
 * per device, peak allocated and reserved, the median step peak and the
 * growth of the end-of-step level; the holders at the peak matched by
 * (device, op, module) that grew; and `--fail-if-memory-higher PCT|BYTES`. */
#ifndef TP_DIFF_MEM_H
#define TP_DIFF_MEM_H

#include "report/analysis/summary.h"

typedef struct tp_diff_mem_dev {
    char label[32];             /* "cuda:0"; the two runs' labels when they differ ("cuda:0 / hip:0") */
    char key[32];               /* what matches the runs' devices: a GPU's "gpu:N" whatever its runtime */
    bool in[2];                 /* has levels in base / candidate */
    int64_t peak[2], reserved[2];
    int64_t step_peak_median[2]; /* -1 without steps */
    int64_t end_growth[2];       /* end of the last step - end of the first; 0 without two steps */
} tp_diff_mem_dev;

typedef struct tp_diff_mem_holder {
    char label[32];
    const char *op, *module;     /* the candidate's (or base's) strings; module NULL when none */
    int64_t bytes[2];
} tp_diff_mem_holder;

typedef struct tp_diff_mem {
    tp_diff_mem_dev *dev;
    size_t ndev;
    tp_diff_mem_holder *grew;    /* holders live at the peak that grew (or are new), growth descending */
    size_t ngrew;
    uint64_t events[2];
} tp_diff_mem;

void tp_diff_mem_build(const tp_summary *base, const tp_summary *cand, tp_diff_mem *m);
void tp_diff_mem_free(tp_diff_mem *m);

/* The gate's threshold: "5" or "5%" percent; "512MiB", "2GB", "1048576B" bytes
 * (B, KB, MB, GB, KiB, MiB, GiB).  0 ok, -1 not one. */
typedef struct tp_mem_gate {
    bool on, is_bytes;
    double pct;
    int64_t bytes;
} tp_mem_gate;
int tp_mem_gate_parse(const char *s, tp_mem_gate *g);
/* One reason line per device whose peak allocated grew by more than the gate; how many. */
int tp_diff_mem_gate(const tp_diff_mem *m, const tp_mem_gate *g, tp_buf *why);

void tp_diff_mem_json(const tp_diff_mem *m, tp_buf *b); /* "memory":{...} */
void tp_diff_mem_md(const tp_diff_mem *m, tp_buf *b);   /* a section; nothing when neither run has memory events */

#endif
