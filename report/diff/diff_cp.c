/* diff_cp.c: the critical paths' breakdowns of two runs (diff_cp.h). */
#include "report/diff/diff_cp.h"
#include "report/out/gpu_json.h"
#include "render/text/report_text.h"

#include <stdio.h>

/* the bound types' time over a run's windows, and the windows' time */
static int64_t sums(const tp_summary *s, int64_t *ns)
{
    int64_t len = 0;
    for (int k = 0; k < TP_CPB_COUNT; k++)
        ns[k] = 0;
    for (size_t i = 0; i < s->cp.n; i++) {
        len += s->cp.paths[i].length_ns;
        for (int k = 0; k < TP_CPB_COUNT; k++)
            ns[k] += s->cp.paths[i].bound_ns[k];
    }
    return len;
}

static void side_json(const tp_summary *s, tp_buf *b)
{
    int64_t ns[TP_CPB_COUNT];
    int64_t len = sums(s, ns);
    tp_buf_printf(b, "{\"windows\":%zu,\"length_ns\":%lld,\"bound_ns\":{", s->cp.n, (long long)len);
    for (int k = 0; k < TP_CPB_COUNT; k++)
        tp_buf_printf(b, "%s\"%s\":%lld", k ? "," : "", tp_cp_bound_name(k), (long long)ns[k]);
    tp_buf_puts(b, "},\"bound_share\":{");
    for (int k = 0; k < TP_CPB_COUNT; k++) {
        tp_buf_printf(b, "%s\"%s\":", k ? "," : "", tp_cp_bound_name(k));
        tp_fraction_json(b, ns[k], len);
    }
    tp_buf_puts(b, "}}");
}

void tp_diff_cp_json(const tp_summary *base, const tp_summary *cand, tp_buf *b)
{
    tp_buf_puts(b, "\"critical_path\":{\"base\":");
    side_json(base, b);
    tp_buf_puts(b, ",\"candidate\":");
    side_json(cand, b);
    int64_t a[TP_CPB_COUNT], c[TP_CPB_COUNT];
    sums(base, a);
    sums(cand, c);
    tp_buf_puts(b, ",\"delta_ns\":{");
    for (int k = 0; k < TP_CPB_COUNT; k++)
        tp_buf_printf(b, "%s\"%s\":%lld", k ? "," : "", tp_cp_bound_name(k), (long long)(c[k] - a[k]));
    tp_buf_puts(b, "}}");
}

/* a share as "12.3%", "-" without a path */
static void share(char *buf, size_t n, int64_t part, int64_t whole)
{
    if (whole <= 0)
        snprintf(buf, n, "-");
    else
        tp_fmt_pct(buf, n, part, whole);
}

void tp_diff_cp_md(const tp_summary *base, const tp_summary *cand, tp_buf *b)
{
    int64_t a[TP_CPB_COUNT], c[TP_CPB_COUNT];
    int64_t la = sums(base, a), lc = sums(cand, c);
    if (la <= 0 && lc <= 0)
        return;
    tp_buf_puts(b, "#### Critical path (what the steps waited on; docs/REPORT.md \"Critical path\")\n\n"
                   "| bound by | base | candidate | base share | candidate share | change (points) |\n"
                   "|---|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < TP_CPB_COUNT; k++) {
        if (!a[k] && !c[k])
            continue;
        char da[48], dc[48], sa[32], sc[32];
        tp_md_dur(da, sizeof da, a[k]);
        tp_md_dur(dc, sizeof dc, c[k]);
        share(sa, sizeof sa, a[k], la);
        share(sc, sizeof sc, c[k], lc);
        /* the share's change in tenths of a point, from the integers: 1000 (c/lc - a/la), rounded half away */
        __int128 num = la > 0 && lc > 0 ? (__int128)1000 * ((__int128)c[k] * la - (__int128)a[k] * lc) : 0;
        __int128 den = la > 0 && lc > 0 ? (__int128)la * lc : 1;
        __int128 tenths = (num >= 0 ? num + den / 2 : num - den / 2) / den;
        long long tv = (long long)tenths;
        tp_buf_printf(b, "| %s | %s | %s | %s | %s | %s%lld.%lld |\n", tp_cp_bound_name(k), da, dc, sa, sc,
                      tv > 0 ? "+" : tv < 0 ? "-" : "", (tv < 0 ? -tv : tv) / 10, (tv < 0 ? -tv : tv) % 10);
    }
    tp_buf_puts(b, "\n");
}
