/* advice.c: a built-in rule's next step in the words of the trace's
 * framework (issue 36): an XLA (JAX/TF) trace is never told to use
 * torch.compile or torch.profiler, and a trace without steps is not told
 * to move work "off the step".  The rule table (findings.rules) keeps the
 * PyTorch text; this table gives the other words, by rule ID.  A rule from
 * --rules FILE is the user's own text and is never changed. */
#include "report/findings/findings.h"
#include "report/analysis/efficiency.h"

#include <string.h>

typedef struct advice {
    const char *id;
    const char *xla;      /* an XLA trace's next step (no steps assumed), NULL: the rule's */
    const char *no_steps; /* a PyTorch trace without steps, NULL: the rule's */
} advice;

static const advice ADVICE[] = {
    {"host_bound",
     "Give each launch more work (a larger batch; jit the whole loop body so XLA emits fewer, larger kernels) or let "
     "XLA replay the launches as CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer); move the host work named in "
     "the evidence out of the jitted loop",
     "Capture the launches in CUDA graphs (torch.compile mode=\"reduce-overhead\") or give each launch more work (a "
     "larger batch); move the host ops named in the evidence off the path that launches the GPU work"},
    {"sync_stall",
     "Remove the host reads of device values named in the evidence (jax.device_get, np.asarray, float(x), "
     "block_until_ready) from the loop, or do them after the next iteration is dispatched",
     "Remove the .item() / .cpu() / torch.cuda.synchronize() calls named in the evidence from the loop, or move them "
     "after the next launches"},
    {"small_kernels",
     "Let XLA fuse them: jit larger functions (the whole loop body) rather than many small ones, or replay them as "
     "CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer)",
     NULL},
    {"fusion_candidates",
     "Fuse the repeated chains named in the evidence: jit the function that runs them as one computation so XLA "
     "fuses them, or write the chain as one kernel (Pallas)",
     NULL},
    {"exposed_memcpy",
     "Keep the data on the device across iterations (device_put once, outside the loop), or prefetch the next batch "
     "to the device while this one runs (jax.device_put of the next batch, a prefetching input pipeline)",
     NULL},
    {"input_bound",
     "Load batches ahead of the loop: a prefetching input pipeline (tf.data with prefetch and parallel map, or a "
     "background thread that device_puts the next batch), or move decoding and augmentation off the training process",
     "Load batches ahead of the work that waits for them: DataLoader(num_workers=N, pin_memory=True, "
     "prefetch_factor=2, persistent_workers=True), or move decoding and augmentation off the training process"},
    {"cpu_bound_path",
     "Shorten the host work named in the evidence (the longest host stretch first): jit larger functions so XLA "
     "dispatches fewer, larger computations, replay them as CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer), or "
     "dispatch the next iteration before reading this one's results",
     "Shorten the host work named in the evidence (the longest host stretch first): fewer, larger ops, torch.compile, "
     "CUDA graphs for the launch-heavy part, or overlap it with the GPU work launched before it"},
    {"launch_gaps_path",
     "Let XLA replay the launches as CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer), or dispatch earlier "
     "(fewer host reads of device values before the launches named in the evidence)",
     "Capture the launches in CUDA graphs (torch.compile mode=\"reduce-overhead\") or launch earlier (fewer "
     "synchronisations before the launches named in the evidence)"},
    {"memory_near_capacity", NULL,
     "Cut the peak: the holders at the peak are named on the Memory page; activation checkpointing, a smaller "
     "micro-batch, mixed precision, or freeing references the loop keeps"},
    {"memory_fragmentation", NULL,
     "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, or keep tensor sizes fixed from iteration to iteration "
     "(pad variable lengths to a few buckets)"},
    {"gemm_tiles",
     "Pad the dimension named in the evidence to the multiple (vocabulary, hidden or batch size; jnp.pad), or pick "
     "model sizes that are multiples of 64",
     NULL},
};

/* On TPUs XLA has no CUDA graphs to replay (a TPU program is already one dispatch): the XLA words of the rules that
 * name them, without them (a TPU inference trace was told XLA_FLAGS=--xla_gpu_enable_command_buffer). */
static const struct {
    const char *id, *next;
} TPU_ADVICE[] = {
    {"host_bound", "Give each dispatch more work (a larger batch; jit the whole loop body, several steps per call with "
                   "lax.scan or fori_loop) so the TPU runs longer programs; move the host work named in the evidence "
                   "out of the jitted loop"},
    {"small_kernels", "Let XLA fuse them: jit larger functions (the whole loop body) rather than many small ones"},
    {"cpu_bound_path", "Shorten the host work named in the evidence (the longest host stretch first): jit larger "
                       "functions so XLA dispatches fewer, larger computations (several steps per call with lax.scan), "
                       "or dispatch the next iteration before reading this one's results"},
    {"launch_gaps_path", "Dispatch earlier: fewer host reads of device values before the dispatches named in the "
                         "evidence, and larger jitted computations (several steps per call) so the TPU waits on "
                         "fewer dispatches"},
};

/* The trace ran on TPUs: a device it describes is named TPU ("TPU v6 Lite"), or an XProf process is one
 * ("/device:TPU:0"). */
static bool on_tpu(const tp_trace *t)
{
    for (size_t i = 0; i < t->ndevinfo; i++) {
        const char *n = t->devinfo[i].name ? tp_str_get(t, t->devinfo[i].name) : "";
        if (strncmp(n, "TPU", 3) == 0)
            return true;
    }
    for (size_t i = 0; i < t->nprocesses; i++) {
        const char *n = t->processes[i].name ? tp_str_get(t, t->processes[i].name) : "";
        if (strncmp(n, "/device:TPU", 11) == 0)
            return true;
    }
    return false;
}

/* A copy of the rule with the framework's words, owned by f; or the rule. */
static const tp_find_rule *adapt(tp_findings *f, const tp_find_rule *r, bool xla, bool tpu, bool steps)
{
    if (!r || r->user)
        return r;
    for (size_t i = 0; i < sizeof ADVICE / sizeof *ADVICE; i++) {
        if (strcmp(ADVICE[i].id, r->id) != 0)
            continue;
        const char *next = xla ? (ADVICE[i].xla ? ADVICE[i].xla : ADVICE[i].no_steps) : !steps ? ADVICE[i].no_steps : NULL;
        for (size_t k = 0; tpu && k < sizeof TPU_ADVICE / sizeof *TPU_ADVICE; k++)
            if (strcmp(TPU_ADVICE[k].id, r->id) == 0)
                next = TPU_ADVICE[k].next;
        if (!next)
            return r;
        for (size_t k = 0; k < f->nadapted; k++) /* one copy a rule */
            if (strcmp(f->adapted[k].id, r->id) == 0)
                return &f->adapted[k];
        tp_find_rule *c = &f->adapted[f->nadapted++];
        *c = *r;
        c->next = (char *)next; /* static: the copy never frees it (tp_findings_free frees the array only) */
        return c;
    }
    return r;
}

void tp_findings_adapt(tp_findings *f, const tp_trace *t, bool has_steps)
{
    bool xla = t && tp_trace_is_xla(t), tpu = xla && on_tpu(t);
    if (!xla && has_steps)
        return;
    f->adapted = tp_xcalloc(sizeof ADVICE / sizeof *ADVICE, sizeof *f->adapted);
    for (size_t i = 0; i < f->n; i++)
        f->items[i].rule = adapt(f, f->items[i].rule, xla, tpu, has_steps);
    for (size_t i = 0; i < f->nunsure; i++)
        f->unsure[i] = adapt(f, f->unsure[i], xla, tpu, has_steps);
}
