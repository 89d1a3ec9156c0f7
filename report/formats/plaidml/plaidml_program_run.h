/* plaidml_program_run.h: the "Program Run" analysis of a PlaidML trace:
 * the timeline of one plaidml::invoker::ScheduleInvocation (with all its
 * descendants and the buffer-mapping activities that follow it before the
 * next invocation), and the temporary memory of the highest-mean and
 * highest-total kernels from their program's compilation info.
 * A pure function of the model; the result owns its arrays (free with
 * tp_pml_program_run_free).  Works on a trace loaded by the PlaidML reader:
 * cat = verb, parent = `link` (device execution) or `op` (everything else),
 * compilation facts in the args of tile::local_machine::Compile. */
#ifndef TP_PLAIDML_PROGRAM_RUN_H
#define TP_PLAIDML_PROGRAM_RUN_H

#include "convert/model/model.h"

#define TP_PML_DEFAULT_INVOCATION 11 /* the analysis notebook showed the eleventh */

enum { TP_PML_ITEM_INVOCATION = 0, TP_PML_ITEM_DESCENDANT, TP_PML_ITEM_MAPPING };

typedef struct tp_pml_run_item {
    uint32_t event;  /* index into trace->events */
    uint32_t depth;  /* hops below the invocation (0 for it); mapping items: below their root */
    uint32_t row;    /* drawing row: below its parent's row, never overlapping in a row */
    uint8_t role;    /* TP_PML_ITEM_* */
} tp_pml_run_item;

typedef struct tp_pml_size_count {
    uint64_t size, count;
} tp_pml_size_count;

typedef struct tp_pml_kernel_mem {
    tp_str kernel;          /* 0 when the trace has no kernels */
    uint64_t runs;
    int64_t total_ns, mean_ns;
    char program[128];      /* program id of the Compile that built it, "" if not found */
    uint32_t compile_event; /* that Compile event, or TP_NONE */
    tp_pml_size_count *tmp, *alloc; /* tmp_sizes / alloc_sizes: bytes -> how many */
    size_t ntmp, nalloc;
    uint64_t tmp_bytes, alloc_bytes; /* sum of size * count */
    uint64_t tmp_count, alloc_count; /* sum of count */
} tp_pml_kernel_mem;

typedef struct tp_pml_program_run {
    size_t ninvocations;      /* ScheduleInvocation activities in the trace */
    size_t invocation;        /* which one (1-based), 0 if none */
    uint32_t event;           /* its event, or TP_NONE */
    int64_t t0, t1;           /* time span of all items */
    tp_pml_run_item *items;   /* by start time, then depth, then event index */
    size_t nitems;
    size_t nrows;             /* rows used by items[].row */
    size_t ndescendants, nmapping, nexecutions;
    tp_pml_kernel_mem top_mean, top_total;
} tp_pml_program_run;

/* `invocation` is 1-based.  If the trace has fewer, `clamp` picks the last
 * one (for the default), else it is an error.  A trace without invocations
 * gives an empty result (invocation 0), not an error.  0 or -1 (err set). */
int tp_pml_program_run_analyze(const tp_trace *t, size_t invocation, bool clamp, tp_pml_program_run *out, tp_err *err);
void tp_pml_program_run_free(tp_pml_program_run *r);

#endif
