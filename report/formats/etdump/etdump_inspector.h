/* etdump_inspector.h: the ExecuTorch Inspector's view of an ETDump, computed
 * the way devtools/inspector/_inspector.py does (../shared/specs/ETDUMP.md
 * section 4): events of a run grouped into instruction events by
 * (instruction id, chain, delegate ids), one signature per profile event,
 * runs with identical signatures merged into one event block whose events
 * have one sample per merged run; per event count/p10/p50/p90/avg/min/max
 * (numpy linear percentiles).  The result owns all its rows. */
#ifndef TP_ETDUMP_INSPECTOR_H
#define TP_ETDUMP_INSPECTOR_H

#include "convert/read/etdump/etdump.h"

struct tp_etrecord;

typedef struct tp_insp_event {
    char *name;             /* Inspector event name (delegate id for delegated events) */
    int32_t instruction_id; /* -1 = none */
    int64_t chain_index;
    char *delegate_id;      /* text of the delegate debug id, NULL when not delegated */
    bool delegate_id_int;   /* the id was delegate_debug_id_int */
    bool delegated;         /* is_delegated_op */
    bool framework;         /* reserved framework event (Method::execute ...) */
    bool excluded;          /* name contains OPERATOR_CALL: hidden by print_data_tabular */
    bool debug_only;        /* no profile event: debug data only */
    uint32_t debug_values;  /* debug events in the first run of the block */
    uint32_t metadata_samples; /* samples that carried delegate_debug_metadata */
    /* From the ETRecord (NULL without one). */
    char *op_types;         /* JSON array text */
    char *module;           /* innermost module */
    char *module_hierarchy;
    char *backend;          /* delegate_backend_name */
    /* perf data in ns (one sample per merged run), stats in centi-ns (exact
     * for linear interpolation) so output in ms is exact decimal text. */
    size_t n;
    int64_t *raw_ns;
    int64_t min_ns, max_ns;
    int64_t p10_cns, p50_cns, p90_cns, avg_cns;
} tp_insp_event;

typedef struct tp_insp_block {
    char *name;
    int32_t bundled_input_index; /* -1 = none */
    size_t nruns;
    uint32_t *runs;              /* RunData indexes merged into this block */
    size_t nevents;
    tp_insp_event *events;
    bool has_tax;
    int64_t framework_tax_cns;   /* avg over runs of Method::execute - instruction calls */
    uint32_t outputs;            /* program-output debug events in the first run */
} tp_insp_block;

typedef struct tp_insp_module {
    char *name;
    int64_t total_ns; /* sum over samples of the events under it (OPERATOR_CALL and framework excluded) */
    uint32_t events;
} tp_insp_module;

typedef struct tp_inspector {
    tp_insp_block *blocks;
    size_t nblocks;
    tp_insp_module *modules; /* with an ETRecord: time per module, largest first */
    size_t nmodules;
    const char *unit;        /* source time unit (static) */
    uint64_t nruns, nprofile, ndebug, noutputs, nalloc_skipped;
    uint64_t nwraparound, nbad_time; /* wrapped uint32 times; end < start beyond the rule (0 used) */
} tp_inspector;

int tp_etdump_inspect(const tp_etdump *d, const struct tp_etrecord *rec, const tp_ed_scale *sc, tp_inspector *out,
                      tp_err *err);
void tp_inspector_free(tp_inspector *in);

/* The Inspector as a JSON object (for `stats --json`), times in ms. */
void tp_inspector_json(const tp_inspector *in, tp_buf *out);
/* Decimal text of cns / 1e8 (ms) without trailing zeros. */
size_t tp_insp_ms(char *out, int64_t cns);

#endif
