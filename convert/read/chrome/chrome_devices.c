/* chrome_devices.c: the top-level "deviceProperties" array of a Kineto trace
 * into t->devinfo (convert/model/model.h tp_device_info), the description
 * the efficiency analysis matches against its table of device peaks.  The
 * value's text is kept in t->toplevel as well (written back verbatim): this
 * only reads it.  Nothing here is an error: a value that is not an array, an
 * entry that is not an object, or a field of the wrong type is counted in a
 * warning and left out. */
#include "convert/codec/json_value.h"
#include "convert/read/chrome/chrome_read_int.h"

/* An integer field: 0 when absent, -1 (and counted) when not an integer. */
static int int_field(const tp_jv *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const tp_jv *v = tp_jv_get(o, key);
    if (!v)
        return 0;
    int64_t x;
    if (v->type == TP_JV_NULL)
        return 0;
    if (tp_jv_int(v, &x) != 0 || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

void chrome_read_devices(reader *r, const char *v, const char *ve)
{
    tp_trace *t = r->t;
    uint64_t base = off_of(r, v);
    tp_jdoc d;
    tp_jdoc_init(&d);
    const tp_jv *arr;
    tp_err e = {0};
    if (tp_jv_parse_all(&d, v, (size_t)(ve - v), &arr, &e) != 0 || arr->type != TP_JV_ARRAY) {
        tp_warn_at(t, "deviceProperties that is not an array of objects (not read)", 1, base);
        tp_jdoc_free(&d);
        return;
    }
    uint64_t not_obj = 0, bad_field = 0, first_not_obj = 0, first_bad = 0;
    for (uint32_t i = 0; i < arr->n; i++) {
        const tp_jv *o = &arr->items[i];
        if (o->type != TP_JV_OBJECT) {
            if (!not_obj++)
                first_not_obj = base + o->off;
            continue;
        }
        tp_device_info di = {.id = -1};
        int64_t id = -1, mem = 0, sms = 0, maj = 0, min = 0;
        int bad = 0;
        bad |= int_field(o, "id", 0, INT64_MAX, &id);
        bad |= int_field(o, "totalGlobalMem", 0, INT64_MAX, &mem);
        bad |= int_field(o, "numSms", 0, INT32_MAX, &sms);
        bad |= int_field(o, "computeMajor", 0, INT32_MAX, &maj);
        bad |= int_field(o, "computeMinor", 0, INT32_MAX, &min);
        const tp_jv *name = tp_jv_get(o, "name");
        size_t nl;
        const char *ns = name ? tp_jv_str(name, &nl) : NULL;
        if (name && !ns && name->type != TP_JV_NULL)
            bad = -1;
        if (bad && !bad_field++)
            first_bad = base + o->off;
        di.id = id;
        di.memory_bytes = mem;
        di.cores = (int32_t)sms;
        di.cc_major = (int32_t)maj;
        di.cc_minor = (int32_t)min;
        if (ns && nl)
            di.name = tp_intern(t, ns, nl);
        TP_GROW(t->devinfo, t->devinfo_cap, t->ndevinfo + 1);
        t->devinfo[t->ndevinfo++] = di;
    }
    if (not_obj)
        tp_warn_at(t, "deviceProperties entries that are not objects (skipped)", not_obj, first_not_obj);
    if (bad_field)
        tp_warn_at(t, "deviceProperties entries with a field of the wrong type (that field left out)", bad_field,
                   first_bad);
    tp_jdoc_free(&d);
}
