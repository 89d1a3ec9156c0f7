/* infer_figs.c: the inference figures built once for both summary files (infer_figs.h). */
#include "report/inference/infer_figs.h"
#include "convert/pipeline/graph_capture.h"

#include <string.h>

static bool capture_merged(const tp_summary *s) { return s->capture && s->capture->nfiles > 0; }

void tp_infer_figs_build(const tp_summary *s, tp_infer_figs *f)
{
    memset(f, 0, sizeof *f);
    tp_iterations_build(s->t, s->tokens_per_iteration, s->opts.batch_size, &f->it);
    if (!capture_merged(s)) { /* a merged capture's totals are its own (capture_out.c) */
        f->replay_ns = tp_graph_replay_ns(s->t, &f->replay_kernels);
        f->replay_counted = true;
    }
}

void tp_infer_figs_free(tp_infer_figs *f)
{
    tp_iterations_free(&f->it);
    memset(f, 0, sizeof *f);
}

int64_t tp_infer_replay_ns(const tp_summary *s, uint64_t *kernels)
{
    if (s->infer && s->infer->replay_counted) {
        *kernels = s->infer->replay_kernels;
        return s->infer->replay_ns;
    }
    return tp_graph_replay_ns(s->t, kernels);
}
