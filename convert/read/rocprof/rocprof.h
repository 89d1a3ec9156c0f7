/* rocprof.h: the rocprofv3 JSON reader's shared state (rocprof_read.c
 * walks the document, rocprof_records.c turns records into events).
 * docs/formats/rocprof.md says what is read and where it goes. */
#ifndef TP_ROCPROF_H
#define TP_ROCPROF_H

#include "convert/codec/json_value.h"
#include "convert/read/formats.h"

#define RP_MAX_BYTES ((uint64_t)16 << 30) /* the document is read whole, up to this */

typedef struct rp_ctx {
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    const char *origin;        /* the document (offsets in errors) */
    int64_t pid;               /* the process entry's metadata.pid */
    bool many_processes;       /* more than one entry: device tids carry the pid */
    const tp_jv *strings;      /* the entry's "strings" object */
    const tp_jv **kind_ops;    /* strings.buffer_records[kind].operations, found once per entry */
    size_t nkind_ops, kind_ops_cap;
    tp_i64map kernel_names;    /* kernel_id -> tp_str */
    tp_i64map agents;          /* agent handle -> device number (GPUs only) */
    uint8_t described[0x10000 / 8]; /* device numbers already in t->devinfo (a bit each) */
    tp_i64map op_names;        /* kind << 32 | operation -> tp_str */
    tp_i64map marker_names;    /* correlation id -> tp_str (strings.marker_api) */
    tp_i64map launches;        /* correlation id -> API call event */
    uint32_t *pending;         /* device events waiting for their launch call (event, corr) */
    uint64_t *pending_corr;
    size_t npending, pending_cap;
    tp_argb ab;
    tp_str cat_kernel, cat_memcpy, cat_runtime, cat_driver, cat_marker;
} rp_ctx;

/* One record of buffer_records[key]: 0, or -1 with err set. */
int rp_record(rp_ctx *c, const char *key, size_t klen, const tp_jv *rec);
/* The entry's agents (GPUs: the device table) and name tables. */
int rp_entry_tables(rp_ctx *c, const tp_jv *agents, const tp_jv *symbols);
/* Device activity bound to its launch call; the entry's maps emptied. */
void rp_entry_done(rp_ctx *c);

#endif
