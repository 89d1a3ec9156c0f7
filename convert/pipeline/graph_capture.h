/* graph_capture.h: the ops of a CUDA/HIP graph replay, from a trace recorded
 * while the graph was captured (docs/REPORT.md "Graph capture").
 *
 * vLLM, SGLang and xDiT run their models as graph replays: the replay trace
 * has the kernels (linked to one cudaGraphLaunch/hipGraphLaunch each) but
 * no op or shape.  A capture trace, recorded while the graphs were captured
 * (torch.cuda.graph, stream capture), has the ops, their recorded shapes and
 * the launch calls each op made (captured, not run: the launch calls name
 * their kernel in args "kernel").
 *
 * The merge, after the replay is loaded and linked:
 *   1. each capture trace is loaded; its captured graphs are the launch
 *      calls (kernel launches, async memcpy and memset calls) between a
 *      StreamBeginCapture and the next StreamEndCapture call of a thread,
 *      in call order (a trace with no capture call at all: all its launch
 *      calls, one graph);
 *   2. each replayed graph launch's device activities (kernels, memcpys,
 *      memsets linked to it), per stream in time order, are matched to the
 *      captured graph that maps most of them (ties: the first capture given,
 *      then the first graph in it), if it maps more than half of them and
 *      more than half of its calls (else the launch stays unmatched); the choice is made once per distinct
 *      kernel sequence (by a 64-bit hash of its kernel names and streams);
 *   3. within the graph, by kernel sequence, not by name alone: the captured
 *      calls are taken in call order and each is matched to the stream whose
 *      next unmatched activity has its kernel name (a memcpy/memset call to
 *      a memcpy/memset); when several streams' next activities match, the
 *      one whose following activities match the following calls longest
 *      (looking TP_CAPTURE_LOOKAHEAD ahead; then the stream whose activity
 *      started first); when none does, an activity at most
 *      TP_CAPTURE_LOOKAHEAD further on a stream that matches is taken and
 *      the activities skipped on that stream stay unmapped; a call that
 *      matches nothing is counted as captured but not replayed; activities
 *      left at the end stay unmapped.  Work per graph launch is bounded by
 *      calls x streams x TP_CAPTURE_LOOKAHEAD;
 *   4. the captured op that made each mapped call (the innermost host op
 *      around it) and its enclosing ops and nn.Module scopes are copied into
 *      the replay trace as events flagged TP_EV_CAPTURED | TP_EV_DROPPED
 *      (never written nor drawn, on no timeline; `link` holds the copied
 *      parent, TP_NONE at the top), each copied once, with its args; and the
 *      mapped activity's `op` becomes the copied op; the allocations
 *      (aten::empty, aten::empty_strided) made directly inside a copied op
 *      are copied too, linked to it (the sizes of the buffers it writes).  The activity keeps its
 *      link to the graph launch, so the GPU time model, idle attribution and
 *      steps are unchanged.
 * Nothing is guessed: an activity that maps to no captured call keeps no op
 * and is counted.
 *
 * Discovery: a folder `capture_traces/` beside the replay holds the capture
 * traces; its `execution_details.json` (a list of {"file", "batch_size",
 * "mode"}) names them in order, else every *.json and *.json.gz file in it
 * (name order). */
#ifndef TP_GRAPH_CAPTURE_H
#define TP_GRAPH_CAPTURE_H

#include "convert/pipeline/pipeline.h"

#define TP_CAPTURE_MAX_FILES 16
#define TP_CAPTURE_LOOKAHEAD 64
/* The matching's work bound: comparisons per captured call and replayed activity (docs/ERRORS.md) */
#define TP_CAPTURE_WORK_PER_ITEM 4096

typedef struct tp_capture_file {
    char path[1024];
    int64_t batch_size;      /* execution_details.json "batch_size", 0 unknown */
    char mode[16];           /* its "mode" (FULL, PIECEWISE), "" unknown */
    uint32_t graphs;         /* captured graphs found in it */
    uint64_t calls;          /* captured launch calls */
} tp_capture_file;

typedef struct tp_capture_stats {
    size_t nfiles;                            /* capture traces merged (0: none given or found) */
    tp_capture_file files[TP_CAPTURE_MAX_FILES];
    bool discovered;                          /* found in capture_traces/ beside the replay */
    uint64_t graph_launches;                  /* the replay's graph launch calls with device activity */
    uint64_t launches_matched;                /* of them, matched to a captured graph */
    uint64_t activities;                      /* device activities the graph launches ran */
    uint64_t mapped;                          /* of them, mapped to a captured op */
    int64_t activities_ns, mapped_ns;         /* their device time */
    uint64_t not_replayed;                    /* captured calls matched to no activity of a matched launch */
    uint64_t ops_copied;                      /* captured ops and scopes copied into the replay trace */
    uint64_t over_bound;                      /* graph launches left unmatched: past the work bound */
    uint32_t details_ignored;                 /* execution_details.json members ignored (a batch_size not
                                               * positive, a mode over 15 characters ...) */
    char details_note[160];                   /* the first of them, named ("" none) */
} tp_capture_stats;

/* The capture traces of the replay at `replay_path`: files of a
 * capture_traces/ folder beside it (execution_details.json's order, else
 * name order).  0 files when there is no such folder; -1 with err when the
 * folder or its execution_details.json is unreadable or names a file that
 * is not there. */
int tp_graph_capture_discover(const char *replay_path, tp_capture_stats *st, tp_err *err);

/* The capture traces discovery would find beside the replay, protected
 * from the outputs (tp_out_protect) before any output is made: they are
 * inputs too. */
void tp_graph_capture_protect(const char *replay_path);

/* The batch size and mode of files given by name, from an execution_details.json
 * beside each that lists it (nothing when there is none, or it does not). */
void tp_graph_capture_details(tp_capture_stats *st);

/* Merge st->files into t (loaded with links).  0, or -1 with err (a capture
 * trace that does not load; its path is in the message). */
int tp_graph_capture_merge(tp_trace *t, const tp_load_opts *lo, tp_capture_stats *st, tp_err *err);

/* Device time of t that graph launches ran: what a capture trace would give
 * ops to (for the line that says so when none was given). */
int64_t tp_graph_replay_ns(const tp_trace *t, uint64_t *activities);

#endif
