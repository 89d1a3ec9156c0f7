/* xplane_costs.c: what the efficiency analysis needs from an XSpace.
 *
 * Devices: each /device:GPU:N or /device:TPU:N plane with events or
 * device-cap stats becomes a tp_device_info (t->devinfo, in plane order):
 * its ordinal, device_type_string (TPU: "TPU v6 Lite"), device_vendor,
 * memory_size, core_count, compute_cap_major/minor and the peaks the
 * profiler wrote (peak_teraflops_per_second, peak_hbm_bw_gigabytes_per_second:
 * TPU planes).  GPU planes carry no model name.
 *
 * Op costs: XLA op executions (kernels on device lines, not async) whose
 * stats (their metadata's, or their own) hold both `flops` and
 * `bytes_accessed` give t->costs, keyed by the events' name.  Each
 * (plane, event metadata) is looked at once, again only when one of its
 * events differs; a name whose op events do not all carry the same two
 * numbers (two metadata of one name, or some without) keeps no cost and
 * counts a warning: a cost is never guessed. */
#include "convert/read/xplane/xplane_read_int.h"

#include <stdlib.h>

static bool stat_is(const xp_stat *s, const char *name)
{
    size_t n = strlen(name);
    return s->kn && s->kl == n && memcmp(s->kn, name, n) == 0;
}

static bool stat_real(const xp_stat *s, double *v)
{
    if (s->type == XS_DOUBLE) {
        *v = tp_pb_double(s->v);
        return true;
    }
    if (s->type == XS_UINT) {
        *v = (double)s->v;
        return true;
    }
    if (s->type == XS_INT) {
        *v = (double)(int64_t)s->v;
        return true;
    }
    return false;
}

/* "/device:GPU:<digits>" or "/device:TPU:<digits>" exactly (not "... SparseCore 0"). */
static bool device_ordinal(const uint8_t *n, size_t len, int64_t *ord)
{
    if (!has_prefix(n, len, "/device:GPU:") && !has_prefix(n, len, "/device:TPU:"))
        return false;
    size_t i = 12;
    if (i == len || len - i > 9)
        return false;
    int64_t d = 0;
    for (; i < len; i++) {
        if (n[i] < '0' || n[i] > '9')
            return false;
        d = d * 10 + (n[i] - '0');
    }
    *ord = d;
    return true;
}

void xp_device_begin(xp_reader *r)
{
    tp_device_info *d = &r->dev;
    memset(d, 0, sizeof *d);
    d->id = -1;
    r->dev_caps = false;
    r->dev_plane = device_ordinal(r->plane_name, r->plane_name_len, &d->id);
    if (!r->dev_plane)
        return;
    for (size_t i = 0; i < r->st.n; i++) {
        const xp_stat *s = &r->st.v[i];
        int64_t v;
        double x;
        bool cap = true;
        if (stat_is(s, "device_type_string") && stat_text(s))
            d->name = tp_intern(r->t, (const char *)s->s, s->len);
        else if (stat_is(s, "device_vendor") && stat_text(s))
            d->vendor = tp_intern(r->t, (const char *)s->s, s->len);
        else if (stat_is(s, "memory_size") && stat_int(s, &v))
            d->memory_bytes = v;
        else if (stat_is(s, "core_count") && stat_int(s, &v) && v >= 0 && v <= INT32_MAX)
            d->cores = (int32_t)v;
        else if (stat_is(s, "compute_cap_major") && stat_int(s, &v) && v >= 0 && v <= INT32_MAX)
            d->cc_major = (int32_t)v;
        else if (stat_is(s, "compute_cap_minor") && stat_int(s, &v) && v >= 0 && v <= INT32_MAX)
            d->cc_minor = (int32_t)v;
        else if (stat_is(s, "peak_teraflops_per_second") && stat_real(s, &x) && x > 0)
            d->peak_tflops = x;
        else if (stat_is(s, "peak_hbm_bw_gigabytes_per_second") && stat_real(s, &x) && x > 0)
            d->peak_mem_gbps = x;
        else
            cap = stat_is(s, "clock_rate") || stat_is(s, "memory_bandwidth"); /* caps not kept */
        r->dev_caps |= cap;
    }
}

void xp_device_end(xp_reader *r)
{
    if (r->dev_plane && (r->plane_events || r->dev_caps))
        tp_devinfo_add(r->t, &r->dev);
}

static int raw_cmp(const void *a, const void *b)
{
    const xp_cost *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->has != y->has)
        return x->has < y->has ? -1 : 1;
    if (x->flops != y->flops)
        return x->flops < y->flops ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

void xp_costs_finish(xp_reader *r)
{
    if (!r->ncosts)
        return;
    qsort(r->costs, r->ncosts, sizeof *r->costs, raw_cmp);
    tp_name_cost *keep = tp_xmalloc(r->ncosts * sizeof *keep);
    size_t nkeep = 0;
    uint64_t disagree = 0;
    for (size_t i = 0, j; i < r->ncosts; i = j) {
        const xp_cost *c = &r->costs[i];
        bool same = true, any = false;
        for (j = i; j < r->ncosts && r->costs[j].name == c->name; j++) {
            any |= r->costs[j].has;
            same = same && r->costs[j].has == c->has && r->costs[j].flops == c->flops &&
                   r->costs[j].bytes == c->bytes;
        }
        if (same && c->has)
            keep[nkeep++] = (tp_name_cost){c->name, c->flops, c->bytes};
        else if (any) /* (all without: nothing recorded, nothing to say) */
            disagree++;
    }
    if (disagree)
        tp_warn(r->t, "XPlane ops of one name with different flops/bytes_accessed (no cost kept)", disagree);
    tp_costs_add(r->t, keep, nkeep, NULL);
    free(keep);
    r->ncosts = 0;
}
