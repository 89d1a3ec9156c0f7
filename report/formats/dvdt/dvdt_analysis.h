/* dvdt_analysis.h: the dv/dt (OpenCL) analysis of the seed notebooks, over
 * the model (a pure function of the trace; the result owns its rows):
 *   - per kernel name: pandas describe() of queue wait (start - queued) and
 *     execution (end - start);
 *   - per position: the Nth kernel execution of each repetition (one
 *     repetition = one device process), described across repetitions;
 *   - GEMM kernels (args M, N, K): time and achieved GFLOP/s per (name, M, N, K);
 *   - per repetition: total execution time, CK time_fw_ms, and their mean/std;
 *   - per layer (CK per_layer_info, the "Layers" derived line): the kernels
 *     whose start lies in the layer's window, with a per-kernel breakdown.
 * It reads the args the dv/dt reader always attaches to executions
 * ("queue_wait_ns", "M", "N", "K") and to repetitions ("repetition",
 * "time_fw_ms") and layers ("time_ms"); other traces give empty parts.
 *
 * describe() follows pandas: std with ddof=1 (NaN for one value),
 * quartiles by linear interpolation between closest ranks.  Values are ns,
 * as doubles because means and quartiles fall between integers. */
#ifndef TP_DVDT_ANALYSIS_H
#define TP_DVDT_ANALYSIS_H

#include "convert/model/model.h"

typedef struct tp_describe {
    uint64_t count;
    double mean, std, min, p25, p50, p75, max; /* ns; all NaN when count == 0 */
} tp_describe;

typedef struct tp_dvdt_kernel_row {
    tp_str name;
    tp_describe wait, exec;
    int64_t exec_total_ns;
} tp_dvdt_kernel_row;

typedef struct tp_dvdt_position_row {
    uint32_t position;   /* 0-based: the Nth execution of each repetition */
    tp_str name;         /* kernel at this position in the first repetition */
    bool mixed;          /* repetitions ran different kernels here */
    tp_describe exec;
} tp_dvdt_position_row;

typedef struct tp_dvdt_gemm_row {
    tp_str name;
    uint64_t m, n, k;
    uint64_t count;
    int64_t total_ns;
    double gflop;        /* 2*M*N*K*count / 1e9 */
    double gflops;       /* achieved GFLOP/s: gflop / total seconds */
} tp_dvdt_gemm_row;

typedef struct tp_dvdt_rep_row {
    int repetition;
    uint32_t process;    /* the device process */
    uint64_t kernels;
    int64_t exec_total_ns;
    int64_t time_fw_ns;  /* CK time_fw_ms, or -1 */
} tp_dvdt_rep_row;

typedef struct tp_dvdt_layer_row {
    int repetition;
    tp_str label;
    int64_t ts, dur;     /* window */
    int64_t time_ns;     /* per_layer_info time_ms, or -1 */
    uint64_t kernels;
    int64_t kernel_ns;   /* sum of the execution times of its kernels */
    size_t first_part, nparts; /* its breakdown: parts[first_part ..] */
} tp_dvdt_layer_row;

typedef struct tp_dvdt_layer_part {
    tp_str name;         /* kernel */
    uint64_t count;
    int64_t total_ns;
} tp_dvdt_layer_part;

typedef struct tp_dvdt_analysis {
    tp_dvdt_kernel_row *kernels;     /* by total execution time, largest first, then name */
    size_t nkernels;
    tp_dvdt_position_row *positions;
    size_t npositions;
    tp_dvdt_gemm_row *gemms;         /* by total time, largest first */
    size_t ngemms;
    tp_dvdt_rep_row *reps;
    size_t nreps;
    tp_describe rep_exec;            /* over reps[].exec_total_ns (the bar and its error bar) */
    tp_describe rep_time_fw;         /* over reps with time_fw_ns >= 0 */
    tp_dvdt_layer_row *layers;       /* in repetition, then window order */
    size_t nlayers;
    tp_dvdt_layer_part *parts;       /* per layer, by total time, largest first */
    size_t nparts;
    uint64_t unassigned;             /* kernels of repetitions with layers that fall in no window */
} tp_dvdt_analysis;

void tp_dvdt_analyse(const tp_trace *t, tp_dvdt_analysis *a);
void tp_dvdt_analysis_free(tp_dvdt_analysis *a);

/* pandas describe() of n int64 values (sorted in place). */
void tp_describe_values(int64_t *v, size_t n, tp_describe *d);

#endif
