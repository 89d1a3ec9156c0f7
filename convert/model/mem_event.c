/* mem_event.c: see mem_event.h */
#include "convert/model/mem_event.h"

#include "convert/codec/json_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tp_mem_reader {
    const tp_trace *t;
    tp_jdoc doc;
    void *cursor;
    tp_buf scratch;
};

tp_str tp_mem_event_name(const tp_trace *t)
{
    return tp_str_find(t, TP_MEM_EVENT_NAME, sizeof TP_MEM_EVENT_NAME - 1);
}

bool tp_mem_event_is(const tp_trace *t, tp_str name_id, const tp_event *e)
{
    (void)t;
    return name_id && e->name == name_id && e->ph == 'i' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED));
}

bool tp_mem_wants_args(const char *name, size_t len)
{
    return len == sizeof TP_MEM_EVENT_NAME - 1 && memcmp(name, TP_MEM_EVENT_NAME, len) == 0;
}

tp_mem_reader *tp_mem_reader_new(const tp_trace *t)
{
    tp_mem_reader *r = tp_xcalloc(1, sizeof *r);
    r->t = t;
    tp_jdoc_init(&r->doc);
    r->cursor = tp_args_cursor_new(t);
    return r;
}

void tp_mem_reader_free(tp_mem_reader *r)
{
    if (!r)
        return;
    tp_buf_free(&r->scratch);
    tp_args_cursor_free(r->t, r->cursor);
    tp_jdoc_free(&r->doc);
    free(r);
}

static bool int_member(const tp_jv *root, const char *key, int64_t *out)
{
    const tp_jv *v = tp_jv_get(root, key);
    return v && v->type == TP_JV_NUMBER && tp_jv_int(v, out) == 0;
}

int tp_mem_event_read(tp_mem_reader *r, const tp_event *e, tp_mem_event *out)
{
    memset(out, 0, sizeof *out);
    if (!e->args)
        return -1;
    const char *args, *extra;
    size_t alen = 0, elen;
    tp_args_split_r(r->t, r->cursor, &r->scratch, e->args, &args, &alen, &extra, &elen);
    const tp_jv *root;
    tp_err err = {0};
    tp_jdoc_reset(&r->doc);
    if (!args || tp_jv_parse_all(&r->doc, args, alen, &root, &err) != 0 || root->type != TP_JV_OBJECT)
        return -1;
    if (!int_member(root, "Device Type", &out->type) || !int_member(root, "Bytes", &out->bytes))
        return -1;
    if (!int_member(root, "Device Id", &out->id))
        out->id = -1; /* the host's events of some versions have none */
    out->has_addr = int_member(root, "Addr", &out->addr);
    out->has_levels = int_member(root, "Total Allocated", &out->allocated) &&
                      int_member(root, "Total Reserved", &out->reserved) && out->allocated >= 0 &&
                      out->reserved >= 0;
    return 0;
}

void tp_mem_device_label(int64_t type, int64_t id, char *buf, size_t n)
{
    /* c10::DeviceType numbers of the devices traces hold */
    static const char *const names[] = {"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga",
                                        "maia", "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu",
                                        "ve", "lazy", "ipu", "mtia"};
    if (type == 0 && id < 0)
        snprintf(buf, n, "cpu");
    else if (type >= 0 && type < (int64_t)(sizeof names / sizeof *names))
        snprintf(buf, n, "%s:%lld", names[type], (long long)id);
    else
        snprintf(buf, n, "type%lld:%lld", (long long)type, (long long)id);
}
