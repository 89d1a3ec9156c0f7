/* etdump.h: an ExecuTorch ETDump decoded from its flatbuffer, before it is
 * mapped to the trace model (etdump_read.c) or grouped the way the
 * ExecuTorch Inspector does (report/formats/etdump/etdump_inspector.c).  The struct owns
 * the file bytes; names are (pos, len) slices of them.  tp_etdump_free
 * releases everything. */
#ifndef TP_ETDUMP_H
#define TP_ETDUMP_H

#include "convert/base/common.h"

enum { TP_ED_PROFILE = 1, TP_ED_DEBUG = 2, TP_ED_ALLOC = 3 };

/* ExecuTorch ValueType (etdump schema). */
enum { TP_ED_VAL_NULL = 0, TP_ED_VAL_INT, TP_ED_VAL_BOOL, TP_ED_VAL_FLOAT, TP_ED_VAL_DOUBLE, TP_ED_VAL_TENSOR,
       TP_ED_VAL_TENSOR_LIST, TP_ED_VAL_STRING };

#define TP_ED_MAX_DIMS 8   /* tensor dims kept for the summary (ndim is exact) */
#define TP_ED_MAX_TEXT 1024 /* names longer than this are cut (bounds work on hostile files) */

typedef struct tp_ed_slice {
    uint32_t pos, len; /* bytes [pos, pos+len) of tp_etdump.data; len 0 = absent */
} tp_ed_slice;

typedef struct tp_ed_tensor {
    uint8_t scalar_type;
    uint8_t ndim_kept;
    uint32_t ndim;
    int64_t offset;
    int64_t sizes[TP_ED_MAX_DIMS];
} tp_ed_tensor;

typedef struct tp_ed_event {
    uint8_t type;         /* TP_ED_* */
    uint8_t val_type;     /* debug: TP_ED_VAL_* */
    bool output;          /* debug: Value.output.bool_val (a program output) */
    bool has_name;        /* profile: name present (a delegate event may have none) */
    int32_t instruction_id; /* default -1 */
    int32_t delegate_int;   /* default -1 */
    int64_t chain_index;    /* profile int32 / debug uint64, default 0 */
    tp_ed_slice name;
    tp_ed_slice delegate_str;
    tp_ed_slice metadata;   /* profile: delegate_debug_metadata */
    uint64_t start, end;    /* profile: raw ticks; alloc: start = allocator id, end = size */
    union {
        int64_t i;          /* INT, BOOL */
        double d;           /* FLOAT, DOUBLE */
        uint32_t tensor;    /* TENSOR / TENSOR_LIST: index into tensors (first tensor), or UINT32_MAX */
    } v;
    uint32_t list_len;      /* TENSOR_LIST: number of tensors */
} tp_ed_event;

typedef struct tp_ed_run {
    tp_ed_slice name;
    int32_t bundled_input_index; /* default -1 */
    uint32_t nallocators;
    size_t first, n;             /* events [first, first+n) */
} tp_ed_run;

typedef struct tp_etdump {
    uint8_t *data;   /* the whole file (owned) */
    size_t len;
    uint32_t fb_base; /* 4 when size-prefixed, else 0 */
    uint32_t version;
    tp_ed_run *runs;
    size_t nruns;
    tp_ed_event *events;
    size_t nevents;
    tp_ed_tensor *tensors;
    size_t ntensors;
    uint64_t nprofile, ndebug, nalloc, nempty, ncut;
    uint64_t trailing; /* bytes after the size-prefixed buffer (ignored) */
} tp_etdump;

/* Does this look like an ETDump (plain or size-prefixed "ED00")? 0 or 100. */
int tp_etdump_probe(const unsigned char *head, size_t n);

/* Decode data[0..len) (ownership of the malloc'ed data passes to d, also on
 * failure).  Returns 0, or -1 with err filled (file offsets). */
int tp_etdump_parse(uint8_t *data, size_t len, tp_etdump *d, tp_err *err);
/* Read a file (plain or gzip) and decode it. */
int tp_etdump_load(const char *path, tp_etdump *d, tp_err *err);
void tp_etdump_free(tp_etdump *d);

static inline const char *tp_ed_text(const tp_etdump *d, tp_ed_slice s) { return (const char *)d->data + s.pos; }

/* Ticks -> ns, from --time-scale ("ns" default, "us", "ms", "s", "cycles:HZ"). */
typedef struct tp_ed_scale {
    uint64_t num, den; /* ns = ticks * num / den */
    const char *unit;  /* canonical name for output */
} tp_ed_scale;
int tp_ed_scale_parse(const char *s, tp_ed_scale *sc, tp_err *err);
/* Inspector's elapsed(): end - start, or the uint32 wraparound rule when end
 * < start and both fit in 32 bits (off by one as upstream: 2^32-1 - start + end).
 * Returns false when end < start does not fit that rule. */
bool tp_ed_elapsed(uint64_t start, uint64_t end, uint64_t *ticks);
/* ticks -> ns, saturating at INT64_MAX. */
int64_t tp_ed_ns(const tp_ed_scale *sc, uint64_t ticks);

/* Reserved framework events (Inspector RESERVED_FRAMEWORK_EVENT_NAMES). */
bool tp_ed_is_framework(const char *s, size_t n);

/* Map a decoded ETDump into t (the reader's second half; tests call it on
 * synthetic buffers).  rec may be NULL. */
struct tp_trace;
struct tp_read_opts;
struct tp_etrecord;
int tp_etdump_to_trace(const tp_etdump *d, const struct tp_etrecord *rec, const struct tp_read_opts *o,
                       struct tp_trace *t, tp_err *err);

#endif
