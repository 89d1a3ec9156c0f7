/* pftrace_fields.h: the Perfetto protobuf field numbers the .pftrace writer
 * uses (perfetto's protos/perfetto/trace/ .proto files; the table is in
 * docs/PFTRACE.md).  One list for every file that writes packets. */
#ifndef TP_PFTRACE_FIELDS_H
#define TP_PFTRACE_FIELDS_H

enum {
    TRACE_PACKET = 1,
    TP_CLOCK_SNAPSHOT = 6,
    TP_TIMESTAMP = 8,
    TP_SEQ_ID = 10,
    TP_TRACK_EVENT = 11,
    TP_INTERNED = 12,
    TP_SEQ_FLAGS = 13,
    TP_TIMESTAMP_CLOCK = 58,
    TP_DEFAULTS = 59,
    TP_TRACK_DESC = 60,
    SEQ_CLEARED = 1,
    SEQ_NEEDS = 2,

    CS_CLOCKS = 1,          /* ClockSnapshot.clocks */
    CLK_ID = 1,             /* ClockSnapshot.Clock */
    CLK_TIMESTAMP = 2,
    CLK_INCREMENTAL = 3,
    PF_CLOCK_BOOTTIME = 6,     /* the default trace clock */
    PF_CLOCK_SEQ = 64,         /* the first sequence-scoped clock id */
    DEF_TRACK_EVENT = 11,   /* TracePacketDefaults.track_event_defaults */
    DEF_TIMESTAMP_CLOCK = 58,
    TED_TRACK_UUID = 11,    /* TrackEventDefaults.track_uuid */

    TD_UUID = 1,
    TD_NAME = 2,
    TD_PROCESS = 3,
    TD_THREAD = 4,
    TD_PARENT = 5,
    TD_COUNTER = 8,
    TD_CHILD_ORDERING = 11,
    TD_SIBLING_RANK = 12,
    ORDER_EXPLICIT = 3,
    PD_PID = 1,
    PD_NAME = 6,
    THD_PID = 1,
    THD_TID = 2,
    THD_NAME = 5,

    TE_CATEGORY_IIDS = 3,
    TE_DEBUG_ANNOTATIONS = 4,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK_UUID = 11,
    TE_DOUBLE_COUNTER = 44,
    TE_FLOW_IDS = 47,
    TYPE_BEGIN = 1,
    TYPE_END = 2,
    TYPE_INSTANT = 3,
    TYPE_COUNTER = 4,

    ID_CATEGORIES = 1,
    ID_NAMES = 2,
    ID_ANNOTATION_NAMES = 3,
    ID_ANNOTATION_STRINGS = 29, /* debug_annotation_string_values: InternedString {iid 1, str 2} */
    ENTRY_IID = 1,
    ENTRY_NAME = 2,

    DA_NAME_IID = 1,
    DA_BOOL = 2,
    DA_INT = 4,
    DA_DOUBLE = 5,
    DA_STRING = 6,
    DA_LEGACY_JSON = 9,
    DA_STRING_IID = 17,
};

#endif
