/* pftrace_dump.c: schema-aware text dump of a .pftrace (see pftrace_dump.h). */
#include "tests/lib/pftrace_dump.h"
#include "convert/codec/pbwire.h"

#include <inttypes.h>
#include <string.h>

typedef enum kind { K_UINT, K_INT, K_STR, K_MSG, K_DOUBLE, K_FIXED, K_TYPE } kind;

typedef struct field_def {
    uint32_t num;
    const char *name;
    kind k;
    int msg; /* index into msgs for K_MSG */
} field_def;

enum {
    M_TRACE, M_PACKET, M_TRACK_DESC, M_PROCESS, M_THREAD, M_COUNTER, M_EVENT, M_ANNOTATION, M_INTERNED, M_ENTRY,
    M_STRING, M_CLOCKS, M_CLOCK, M_DEFAULTS, M_EVENT_DEFAULTS
};

static const field_def trace_f[] = {{1, "packet", K_MSG, M_PACKET}, {0, NULL, 0, 0}};
static const field_def packet_f[] = {{6, "clock_snapshot", K_MSG, M_CLOCKS},
                                     {8, "timestamp", K_UINT, 0},
                                     {10, "trusted_packet_sequence_id", K_UINT, 0},
                                     {11, "track_event", K_MSG, M_EVENT},
                                     {12, "interned_data", K_MSG, M_INTERNED},
                                     {13, "sequence_flags", K_UINT, 0},
                                     {58, "timestamp_clock_id", K_UINT, 0},
                                     {59, "trace_packet_defaults", K_MSG, M_DEFAULTS},
                                     {60, "track_descriptor", K_MSG, M_TRACK_DESC},
                                     {0, NULL, 0, 0}};
static const field_def clocks_f[] = {{1, "clocks", K_MSG, M_CLOCK}, {0, NULL, 0, 0}};
static const field_def clock_f[] = {
    {1, "clock_id", K_UINT, 0}, {2, "timestamp", K_UINT, 0}, {3, "is_incremental", K_UINT, 0}, {0, NULL, 0, 0}};
static const field_def defaults_f[] = {
    {11, "track_event_defaults", K_MSG, M_EVENT_DEFAULTS}, {58, "timestamp_clock_id", K_UINT, 0}, {0, NULL, 0, 0}};
static const field_def event_defaults_f[] = {{11, "track_uuid", K_UINT, 0}, {0, NULL, 0, 0}};
static const field_def track_f[] = {{1, "uuid", K_UINT, 0},          {2, "name", K_STR, 0},
                                    {3, "process", K_MSG, M_PROCESS}, {4, "thread", K_MSG, M_THREAD},
                                    {5, "parent_uuid", K_UINT, 0},    {8, "counter", K_MSG, M_COUNTER},
                                    {11, "child_ordering", K_UINT, 0}, {12, "sibling_order_rank", K_INT, 0},
                                    {0, NULL, 0, 0}};
static const field_def process_f[] = {{1, "pid", K_INT, 0}, {6, "process_name", K_STR, 0}, {0, NULL, 0, 0}};
static const field_def thread_f[] = {
    {1, "pid", K_INT, 0}, {2, "tid", K_INT, 0}, {5, "thread_name", K_STR, 0}, {0, NULL, 0, 0}};
static const field_def counter_f[] = {{0, NULL, 0, 0}};
static const field_def event_f[] = {{3, "category_iids", K_UINT, 0},
                                    {4, "debug_annotations", K_MSG, M_ANNOTATION},
                                    {9, "type", K_TYPE, 0},
                                    {10, "name_iid", K_UINT, 0},
                                    {11, "track_uuid", K_UINT, 0},
                                    {44, "double_counter_value", K_DOUBLE, 0},
                                    {47, "flow_ids", K_FIXED, 0},
                                    {0, NULL, 0, 0}};
static const field_def annotation_f[] = {{1, "name_iid", K_UINT, 0},     {2, "bool_value", K_UINT, 0},
                                         {4, "int_value", K_INT, 0},     {5, "double_value", K_DOUBLE, 0},
                                         {6, "string_value", K_STR, 0},  {9, "legacy_json_value", K_STR, 0},
                                         {17, "string_value_iid", K_UINT, 0}, {0, NULL, 0, 0}};
static const field_def interned_f[] = {{1, "event_categories", K_MSG, M_ENTRY},
                                       {2, "event_names", K_MSG, M_ENTRY},
                                       {3, "debug_annotation_names", K_MSG, M_ENTRY},
                                       {29, "debug_annotation_string_values", K_MSG, M_STRING},
                                       {0, NULL, 0, 0}};
static const field_def entry_f[] = {{1, "iid", K_UINT, 0}, {2, "name", K_STR, 0}, {0, NULL, 0, 0}};
static const field_def string_f[] = {{1, "iid", K_UINT, 0}, {2, "str", K_STR, 0}, {0, NULL, 0, 0}};

static const field_def *const msgs[] = {trace_f,   packet_f, track_f,      process_f,  thread_f, counter_f,
                                        event_f,   annotation_f, interned_f, entry_f, string_f, clocks_f,
                                        clock_f,   defaults_f, event_defaults_f};

static void indent(tp_buf *out, int depth)
{
    for (int i = 0; i < depth; i++)
        tp_buf_puts(out, "  ");
}

static void put_quoted(tp_buf *out, const uint8_t *p, size_t n)
{
    tp_buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\')
            tp_buf_printf(out, "\\%c", c);
        else if (c == '\n')
            tp_buf_puts(out, "\\n");
        else if (c < 0x20 || c == 0x7f)
            tp_buf_printf(out, "\\%03o", c);
        else
            tp_buf_putc(out, (char)c);
    }
    tp_buf_putc(out, '"');
}

static const char *type_name(uint64_t v)
{
    static const char *const names[] = {"TYPE_UNSPECIFIED", "TYPE_SLICE_BEGIN", "TYPE_SLICE_END", "TYPE_INSTANT",
                                        "TYPE_COUNTER"};
    return v < 5 ? names[v] : NULL;
}

static int dump_msg(tp_pb *r, int m, int depth, tp_buf *out, tp_err *err)
{
    tp_pb_field f;
    int k;
    while ((k = tp_pb_next(r, &f, err)) == 1) {
        const field_def *d = msgs[m];
        while (d->name && d->num != f.num)
            d++;
        indent(out, depth);
        if (!d->name) { /* unknown: raw */
            tp_buf_printf(out, "%u: ", f.num);
            if (f.wt == TP_PB_LEN)
                put_quoted(out, f.data, f.len);
            else
                tp_buf_printf(out, "%" PRIu64, f.v);
            tp_buf_putc(out, '\n');
            continue;
        }
        if ((d->k == K_MSG || d->k == K_STR) != (f.wt == TP_PB_LEN) ||
            ((d->k == K_DOUBLE || d->k == K_FIXED) && f.wt != TP_PB_I64))
            return tp_fail(err, tp_pb_offset(r), "field %s has wire type %u", d->name, f.wt);
        switch (d->k) {
        case K_MSG: {
            tp_buf_printf(out, "%s {\n", d->name);
            tp_pb sub = tp_pb_sub(r, &f);
            if (dump_msg(&sub, d->msg, depth + 1, out, err) < 0)
                return -1;
            indent(out, depth);
            tp_buf_puts(out, "}\n");
            break;
        }
        case K_STR:
            tp_buf_printf(out, "%s: ", d->name);
            put_quoted(out, f.data, f.len);
            tp_buf_putc(out, '\n');
            break;
        case K_UINT:
            tp_buf_printf(out, "%s: %" PRIu64 "\n", d->name, f.v);
            break;
        case K_INT:
            tp_buf_printf(out, "%s: %" PRId64 "\n", d->name, (int64_t)f.v);
            break;
        case K_DOUBLE:
            tp_buf_printf(out, "%s: %.17g\n", d->name, tp_pb_double(f.v));
            break;
        case K_FIXED:
            tp_buf_printf(out, "%s: %" PRIu64 "\n", d->name, f.v);
            break;
        case K_TYPE:
            if (type_name(f.v))
                tp_buf_printf(out, "%s: %s\n", d->name, type_name(f.v));
            else
                tp_buf_printf(out, "%s: %" PRIu64 "\n", d->name, f.v);
            break;
        }
    }
    return k;
}

int tp_pftrace_dump(const void *data, size_t len, tp_buf *out, tp_err *err)
{
    tp_pb r = tp_pb_init(data, len);
    return dump_msg(&r, M_TRACE, 0, out, err);
}
