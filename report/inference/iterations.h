/* iterations.h: inference figures from the iteration annotations vLLM and
 * SGLang write around each engine step (docs/REPORT.md "Inference figures").
 *
 * An iteration is a host slice named as vLLM's
 * "execute_N_context_C(sq..sk..sqsq..sqsk..)_generation_G(...)" or
 * "execute_context_C(X)_generation_G(Y)", or SGLang's "step[DECODE|EXTEND|MIXED
 * bs=N ...]" (one nested in another on its thread is the same iteration: the
 * outer one counts).  Each has its requests (context + generation), the
 * tokens it processed (query tokens: prefill tokens + one per decoding
 * request), its phase (decode only, prefill only, mixed) and its wall time
 * (the slice's duration).
 *
 * The steady-state window (as TraceLens's splitter finds it): the longest
 * run of at least 6 consecutive iterations whose request count is within
 * max(1, 10%) of the largest; without one, the middle half of the
 * iterations.  In the window: the median time of a decode-only iteration
 * (per output token: each decoding request gets one token per iteration)
 * and of an iteration with prefill (per request prefilled), and tokens/s
 * (the window's tokens over its wall time, first start to last end).  The
 * tokens come from the annotations; --tokens N says N per iteration instead,
 * and --batch-size B gives B per decode-only iteration to annotations that
 * carry no count. */
#ifndef TP_ITERATIONS_H
#define TP_ITERATIONS_H

#include "report/analysis/summary.h"

enum { TP_ITER_DECODE = 1, TP_ITER_PREFILL = 2, TP_ITER_MIXED = 3 };

typedef struct tp_iteration {
    uint32_t ev;
    int64_t start_ns, dur_ns;
    int64_t requests, tokens; /* tokens -1: the annotation says none */
    int phase;
} tp_iteration;

typedef struct tp_iterations {
    tp_iteration *it;
    size_t n;
    size_t first, last;       /* the window: it[first .. last) */
    bool steady;              /* a steady-state run was found (else the middle half) */
    int64_t requests_max;
    size_t decode_n, prefill_n; /* in the window */
    int64_t decode_median_ns, prefill_median_ns; /* -1 none */
    int64_t window_ns, tokens; /* tokens -1: not known */
    const char *tokens_from;  /* "annotations", "--tokens", "--batch-size" */
    int64_t busy_ns;          /* the device time of the window's work: the union of the spans of the
                               * activities launched in it (iterations.c busy_in); -1: the trace has
                               * no device activity (a host-only trace: nothing to judge by) */
} tp_iterations;

/* The per-token time and tokens/s are withheld when the window's device
 * time (busy_ns) is under this share (per mille) of its wall time: the
 * window is then mostly not the model's step (SGLang's decode sample: the
 * one annotation holds the profiler's wait, 465.7 ms of which the GPU ran
 * 2.1%; TraceLens's vLLM decode sample: 445%, the device running behind the
 * host; a host-bound step whose kernels fill a tenth of it is still shown).
 * Under 10%, over 90% of the figure would be time no kernel of the window
 * ran. */
#define TP_ITER_MIN_BUSY_PERMILLE 100
/* Whether the window's figures are withheld (TP_ITER_MIN_BUSY_PERMILLE). */
bool tp_iterations_withheld(const tp_iterations *r);

/* tokens_per_iteration: --tokens (0 none); batch_size: --batch-size (0 none). */
void tp_iterations_build(const tp_trace *t, int64_t tokens_per_iteration, int64_t batch_size, tp_iterations *r);
void tp_iterations_free(tp_iterations *r);

/* summary.json `"inference":{...},\n` and a summary.md line; nothing without iterations. */
void tp_iterations_json(const tp_summary *s, tp_buf *b);
void tp_iterations_md(const tp_summary *s, tp_buf *b);

#endif
