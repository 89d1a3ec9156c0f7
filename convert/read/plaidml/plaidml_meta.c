/* plaidml_meta.c: the metadata Anys attached to PlaidML activities, decoded
 * by type URL into kernel references, kernel facts and args.  Facts are
 * stored as args even for stats/report (they are few and small, and the
 * Program Run analysis reads the compilation info from them); sources and
 * program text only with --with-source. */
#include "convert/read/plaidml/plaidml.h"

#include <stdio.h>
#include <string.h>

tp_argb *pml_meta_args(pml_state *s, uint32_t act)
{
    if (s->acts[act].meta == TP_NONE) {
        TP_GROW(s->metas, s->metas_cap, s->nmetas + 1);
        memset(&s->metas[s->nmetas], 0, sizeof s->metas[0]);
        s->acts[act].meta = (uint32_t)s->nmetas++;
    }
    return &s->metas[s->acts[act].meta];
}

static bool is_type(const char *name, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(name, want, n) == 0;
}

/* Walk a message's fields; the body uses `g`.  Stops at a malformed field. */
#define FOR_FIELDS(data, len, g, rc)                                                   \
    for (tp_pb r_##g = tp_pb_init((data), (len)); ((rc) = tp_pb_next_fast(&r_##g, &(g), err)) == 1;)

static int bad(pml_state *s, const char *what, tp_err *err)
{
    char w[64];
    snprintf(w, sizeof w, "%s metadata", what);
    return pml_fail_pb(s, err, w);
}

static int run_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.num != 1)
            continue;
        pml_key k;
        bool none;
        if (pml_key_of(s, &g, false, &k, &none, err) < 0)
            return -1;
        if (!none) {
            uint32_t kern = pml_act_get(s, &k);
            s->acts[act].kernel = kern;
        }
    }
    return rc < 0 ? bad(s, "RunInfo", err) : 0;
}

/* vertexai.tile.lang.proto.KernelInfo: the kernel type and flops/bytes. */
static int lang_kinfo(pml_state *s, pml_kinfo *ki, const uint8_t *d, size_t n, tp_err *err)
{
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.num == 101 && g.wt == TP_PB_VARINT)
            ki->flops = (int64_t)g.v;
        else if (g.num == 102 && g.wt == TP_PB_VARINT)
            ki->bytes = (int64_t)g.v;
        else if (g.wt == TP_PB_LEN && g.num >= 1 && g.num <= 4) {
            const char *type = g.num == 1 ? "element" : g.num == 2 ? "contraction" : g.num == 3 ? "zero" : "special";
            tp_pb_field h;
            int hr;
            FOR_FIELDS(g.data, g.len, h, hr) {
                if (g.num == 3 && h.num == 1 && h.wt == TP_PB_VARINT && h.v)
                    type = "copy";
                else if (g.num == 4 && h.num == 1 && h.wt == TP_PB_LEN && h.len)
                    ki->type = tp_intern(s->t, (const char *)h.data, h.len);
            }
            if (hr < 0)
                return -1;
            if (!(g.num == 4 && ki->type))
                ki->type = tp_intern_cstr(s->t, type);
        }
    }
    return rc;
}

static int kernel_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    pml_kinfo ki = {0, 0, -1, -1};
    const uint8_t *src = NULL;
    size_t src_len = 0;
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.wt != TP_PB_LEN)
            continue;
        if (g.num == 1)
            ki.kname = tp_intern(s->t, (const char *)g.data, g.len);
        else if (g.num == 2)
            src = g.data, src_len = g.len;
        else if (g.num == 3 && lang_kinfo(s, &ki, g.data, g.len, err) < 0)
            return bad(s, "KernelInfo", err);
    }
    if (rc < 0)
        return bad(s, "KernelInfo", err);
    if (s->acts[act].kinfo == TP_NONE) {
        TP_GROW(s->kinfos, s->kinfos_cap, s->nkinfos + 1);
        s->acts[act].kinfo = (uint32_t)s->nkinfos++;
    }
    s->kinfos[s->acts[act].kinfo] = ki;
    tp_argb *b = pml_meta_args(s, act);
    tp_argb_cstr(b, "kernel", tp_str_get(s->t, ki.kname));
    if (ki.type)
        tp_argb_cstr(b, "kernel_type", tp_str_get(s->t, ki.type));
    if (ki.flops >= 0)
        tp_argb_int(b, "flops", ki.flops);
    if (ki.bytes >= 0)
        tp_argb_int(b, "bytes", ki.bytes);
    if (src && tp_plaidml_opts_of(s->o)->with_source)
        tp_argb_str(b, "source", (const char *)src, src_len);
    return 0;
}

static tp_str device_name(pml_state *s, uint32_t act)
{
    for (size_t i = 0; i < s->ndevices; i++)
        if (s->devices[i].act == act)
            return s->devices[i].name;
    return 0;
}

static int build_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    tp_argb *b = pml_meta_args(s, act);
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.num == 1 && g.wt == TP_PB_LEN) {
            pml_key k;
            bool none;
            if (pml_key_of(s, &g, false, &k, &none, err) < 0)
                return -1;
            tp_str dn = none ? 0 : device_name(s, pml_act_get(s, &k));
            b = pml_meta_args(s, act); /* pml_act_get may have moved things */
            if (dn)
                tp_argb_cstr(b, "device", tp_str_get(s->t, dn));
        } else if (g.num == 2 && g.wt == TP_PB_LEN && tp_plaidml_opts_of(s->o)->with_source) {
            tp_argb_str(b, "source", (const char *)g.data, g.len);
        } else if (g.num == 3 && g.wt == TP_PB_VARINT) {
            tp_argb_int(b, "cl_build_status", (int32_t)(uint32_t)g.v);
        } else if (g.num == 4 && g.wt == TP_PB_LEN && g.len) {
            tp_argb_str(b, "build_log", (const char *)g.data, g.len);
        }
    }
    return rc < 0 ? bad(s, "BuildInfo", err) : 0;
}

static int device_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    tp_argb *b = pml_meta_args(s, act);
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.wt == TP_PB_LEN && (g.num == 68 || g.num == 69 || g.num == 70)) {
            const char *key = g.num == 68 ? "device_name" : g.num == 69 ? "device_vendor" : "driver_version";
            tp_argb_str(b, key, (const char *)g.data, g.len);
            if (g.num == 68) {
                TP_GROW(s->devices, s->devices_cap, s->ndevices + 1);
                s->devices[s->ndevices].act = act;
                s->devices[s->ndevices++].name = tp_intern(s->t, (const char *)g.data, g.len);
            }
        } else if (g.wt == TP_PB_VARINT && (g.num == 3 || g.num == 20 || g.num == 88 || g.num == 54)) {
            const char *key = g.num == 3    ? "max_compute_units"
                              : g.num == 20 ? "max_clock_frequency_mhz"
                              : g.num == 88 ? "global_mem_size"
                                            : "profiling_timer_resolution_ns";
            tp_argb_uint(b, key, g.v);
        }
    }
    return rc < 0 ? bad(s, "DeviceInfo", err) : 0;
}

static int platform_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    tp_argb *b = pml_meta_args(s, act);
    tp_pb_field g;
    int rc;
    uint64_t extensions = 0;
    FOR_FIELDS(d, n, g, rc) {
        if (g.wt == TP_PB_LEN && g.num >= 1 && g.num <= 4) {
            static const char *const keys[] = {"", "platform_profile", "platform_version", "platform_name",
                                               "platform_vendor"};
            tp_argb_str(b, keys[g.num], (const char *)g.data, g.len);
        } else if (g.num == 5) {
            extensions++;
        } else if (g.num == 6 && g.wt == TP_PB_VARINT) {
            tp_argb_uint(b, "host_timer_resolution_ns", g.v);
        }
    }
    if (rc < 0)
        return bad(s, "PlatformInfo", err);
    tp_argb_uint(b, "platform_extensions", extensions);
    return 0;
}

/* map<uint64,uint64> entries as a JSON array of [size, count] pairs. */
static int size_map(const uint8_t *d, size_t n, tp_buf *out, tp_err *err)
{
    uint64_t key = 0, value = 0;
    tp_pb_field g;
    int rc;
    FOR_FIELDS(d, n, g, rc) {
        if (g.num == 1 && g.wt == TP_PB_VARINT)
            key = g.v;
        else if (g.num == 2 && g.wt == TP_PB_VARINT)
            value = g.v;
    }
    if (rc < 0)
        return -1;
    tp_buf_printf(out, "%s[%llu,%llu]", out->len > 1 ? "," : "", (unsigned long long)key,
                  (unsigned long long)value);
    return 0;
}

static int compilation_info(pml_state *s, uint32_t act, const uint8_t *d, size_t n, tp_err *err)
{
    tp_buf tmp = {0}, alloc = {0}, kernels = {0};
    tp_buf_putc(&tmp, '[');
    tp_buf_putc(&alloc, '[');
    tp_buf_putc(&kernels, '[');
    const uint8_t *pid = NULL, *dev = NULL, *code = NULL;
    size_t pid_len = 0, dev_len = 0, code_len = 0;
    tp_pb_field g, h;
    int rc, hr = 0;
    FOR_FIELDS(d, n, g, rc) {
        if (g.wt != TP_PB_LEN)
            continue;
        if (g.num == 1) { /* tile.proto.Program {1 id, 2 dev_id, 3 code} */
            FOR_FIELDS(g.data, g.len, h, hr) {
                if (h.wt != TP_PB_LEN)
                    continue;
                if (h.num == 1)
                    pid = h.data, pid_len = h.len;
                else if (h.num == 2)
                    dev = h.data, dev_len = h.len;
                else if (h.num == 3)
                    code = h.data, code_len = h.len;
            }
        } else if (g.num == 2 || g.num == 3) {
            hr = size_map(g.data, g.len, g.num == 2 ? &tmp : &alloc, err);
        } else if (g.num == 4) { /* map<string, KernelInfo>: keep the names */
            FOR_FIELDS(g.data, g.len, h, hr) {
                if (h.num == 1 && h.wt == TP_PB_LEN) {
                    if (kernels.len > 1)
                        tp_buf_putc(&kernels, ',');
                    tp_argb kb = {0};
                    tp_argb_str(&kb, "k", (const char *)h.data, h.len);
                    tp_buf_put(&kernels, kb.buf.data + 5, kb.buf.len - 5); /* {"k":VALUE -> VALUE */
                    tp_argb_free(&kb);
                }
            }
        }
        if (hr < 0)
            break;
    }
    if (rc == 0 && hr == 0) {
        tp_buf_putc(&tmp, ']');
        tp_buf_putc(&alloc, ']');
        tp_buf_putc(&kernels, ']');
        tp_argb *b = pml_meta_args(s, act);
        if (pid)
            tp_argb_str(b, "program", (const char *)pid, pid_len);
        if (dev)
            tp_argb_str(b, "program_device", (const char *)dev, dev_len);
        tp_argb_raw(b, "tmp_sizes", tmp.data, tmp.len);
        tp_argb_raw(b, "alloc_sizes", alloc.data, alloc.len);
        tp_argb_raw(b, "kernels", kernels.data, kernels.len);
        if (code && tp_plaidml_opts_of(s->o)->with_source)
            tp_argb_str(b, "program_code", (const char *)code, code_len);
    }
    tp_buf_free(&tmp);
    tp_buf_free(&alloc);
    tp_buf_free(&kernels);
    return (rc < 0 || hr < 0) ? bad(s, "CompilationInfo", err) : 0;
}

int pml_meta(pml_state *s, uint32_t act, const tp_pb *ev, const tp_pb_field *any, tp_err *err)
{
    (void)ev;
    if (any->wt != TP_PB_LEN)
        return tp_fail_at(err, pml_where(s), "metadata field is not a message");
    const char *url = "";
    size_t url_len = 0;
    const uint8_t *val = (const uint8_t *)"";
    size_t val_len = 0;
    tp_pb_field g;
    int rc;
    FOR_FIELDS(any->data, any->len, g, rc) {
        if (g.num == 1 && g.wt == TP_PB_LEN)
            url = (const char *)g.data, url_len = g.len;
        else if (g.num == 2 && g.wt == TP_PB_LEN)
            val = g.data, val_len = g.len;
    }
    if (rc < 0)
        return bad(s, "Any", err);
    /* the message name is what follows the last '/' ("type.vertex.ai/NAME") */
    const char *slash = url_len ? memrchr(url, '/', url_len) : NULL;
    const char *name = slash ? slash + 1 : url;
    size_t n = url_len - (size_t)(name - url);
    if (is_type(name, n, "vertexai.tile.hal.opencl.proto.RunInfo"))
        return run_info(s, act, val, val_len, err);
    if (is_type(name, n, "vertexai.tile.hal.opencl.proto.KernelInfo"))
        return kernel_info(s, act, val, val_len, err);
    if (is_type(name, n, "vertexai.tile.hal.opencl.proto.BuildInfo"))
        return build_info(s, act, val, val_len, err);
    if (is_type(name, n, "vertexai.tile.hal.opencl.proto.DeviceInfo"))
        return device_info(s, act, val, val_len, err);
    if (is_type(name, n, "vertexai.tile.hal.opencl.proto.PlatformInfo"))
        return platform_info(s, act, val, val_len, err);
    if (is_type(name, n, "vertexai.tile.hal.proto.CompilationInfo"))
        return compilation_info(s, act, val, val_len, err);
    /* unknown (or not needed): keep its type name and size */
    tp_argb *b = pml_meta_args(s, act);
    char key[160];
    size_t k = n < sizeof key - 1 ? n : sizeof key - 1;
    memcpy(key, name, k);
    key[k] = 0;
    if (!k)
        strcpy(key, "metadata");
    tp_argb_uint(b, key, val_len);
    return 0;
}
