/* diff_out.c: diff.json (schema tracepress.diff/2) and diff.md (diff.h). */
#include "report/diff/diff_cp.h"
#include "render/charts/axis.h"
#include "report/diff/diff.h"
#include "report/inference/capture_out.h"
#include "report/out/gpu_json.h"
#include "report/out/summary_write.h"
#include "convert/codec/json_write.h"
#include "render/labels/kname.h"
#include "render/text/md_width.h"
#include "render/text/report_text.h"
#include "render/text/textfit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD_TOP 10    /* regressions and improvements listed in diff.md */
#define MD_TOP_OPS 5
#define MD_NAME_CHARS 40 /* a name in diff.md's tables, as summary.md's kernels (issue 36 item 9) */

static void jfrac(tp_buf *b, bool has, double v)
{
    if (has)
        tp_buf_printf(b, "%.6f", v + 0.0);
    else
        tp_buf_puts(b, "null");
}

static void jrun(tp_buf *b, const tp_summary *s, const tp_step_spread *sp)
{
    tp_buf_puts(b, "{\"file\":");
    tp_json_str(b, s->opts.path);
    tp_buf_puts(b, ",\"name\":");
    tp_json_str(b, s->name);
    tp_buf_puts(b, ",\"format\":");
    tp_json_str(b, s->t->format ? s->t->format : "");
    tp_buf_printf(b, ",\"steps\":%zu,\"device_time_ns\":%lld,\"device_events\":%llu", sp->n,
                  (long long)s->kt.total_ns, (unsigned long long)s->kt.instances);
    if (sp->n)
        tp_buf_printf(b,
                      ",\"step_median_ns\":%lld,\"step_min_ns\":%lld,\"step_max_ns\":%lld,\"step_median_of\":%zu,"
                      "\"step_q1_ns\":%lld,\"step_q3_ns\":%lld,\"step_iqr_ns\":%lld",
                      (long long)sp->median, (long long)sp->min, (long long)sp->max, sp->median_of, (long long)sp->q1,
                      (long long)sp->q3, (long long)sp->iqr);
    tp_buf_puts(b, "}");
}

static void jside(tp_buf *b, const tp_diff_row *r, int k)
{
    tp_buf_printf(b, "{\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":%lld}", (unsigned long long)r->count[k],
                  (long long)r->total[k], (long long)r->mean[k]);
}

static void jtable(tp_buf *b, const char *key, const tp_diff_table *t, bool kernels, bool steps)
{
    tp_buf_printf(b, ",\n\"%s\":{\"base_total_ns\":%lld,\"candidate_total_ns\":%lld,\"delta_ns\":%lld,\"rows\":[", key,
                  (long long)t->total[0], (long long)t->total[1], (long long)t->delta);
    for (size_t i = 0; i < t->n; i++) {
        const tp_diff_row *r = &t->rows[i];
        tp_buf_puts(b, i ? ",\n" : "\n");
        if (steps)
            tp_buf_printf(b, "{\"step\":%lld,\"name\":", (long long)r->step);
        else
            tp_buf_puts(b, "{\"name\":");
        tp_json_str(b, r->name);
        if (r->cand_name) {
            tp_buf_puts(b, ",\"candidate_name\":");
            tp_json_str(b, r->cand_name);
        }
        if (!steps) {
            tp_buf_puts(b, ",\"short_name\":");
            tp_json_str(b, r->short_name);
        }
        if (kernels)
            tp_buf_printf(b, ",\"kind\":\"%s\"", tp_kind_name((tp_kind)r->kind));
        tp_buf_printf(b, ",\"match\":\"%s\"", tp_diff_match_name(r->match));
        if (r->op) {
            tp_buf_puts(b, ",\"op\":");
            tp_json_str(b, r->op);
        }
        tp_buf_puts(b, ",\"base\":");
        jside(b, r, 0);
        tp_buf_puts(b, ",\"candidate\":");
        jside(b, r, 1);
        tp_buf_printf(b, ",\"delta_ns\":%lld,\"rel\":", (long long)r->delta);
        jfrac(b, r->has_rel, r->rel);
        tp_buf_puts(b, ",\"share\":");
        jfrac(b, r->has_share, r->share);
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "]}");
}

void tp_diff_json(const tp_diff *d, const tp_diff_gates *g, const tp_buf *why, int tripped, tp_buf *b)
{
    tp_buf_puts(b, "{\"schema\":\"tracepress.diff/2\",\n\"base\":");
    jrun(b, d->s[0], &d->spread[0]);
    tp_buf_puts(b, ",\n\"candidate\":");
    jrun(b, d->s[1], &d->spread[1]);
    tp_buf_printf(b, ",\n\"verdict\":\"%s\",\n\"headline\":{\"metric\":\"%s\",\"base_ns\":%lld,\"candidate_ns\":%lld,"
                     "\"delta_ns\":%lld,\"rel\":",
                  tp_diff_verdict_name(d->verdict), d->headline, (long long)d->head[0], (long long)d->head[1],
                  (long long)(d->head[1] - d->head[0]));
    jfrac(b, d->head_has_rel, d->head_rel);
    tp_buf_puts(b, "},\n\"step_time\":");
    if (!d->has_steps)
        tp_buf_puts(b, "null");
    else {
        tp_buf_printf(b, "{\"median_delta_ns\":%lld,\"median_rel\":", (long long)d->median_delta);
        jfrac(b, d->median_has_rel, d->median_rel);
        tp_buf_printf(b, ",\"noise_ns\":%lld,\"noise_known\":%s,\"noise_from\":", (long long)d->noise,
                      d->noise_known ? "true" : "false");
        if (d->noise_known)
            tp_buf_printf(b, "\"%s\"", tp_diff_noise_from_name(d->noise_from));
        else
            tp_buf_puts(b, "null");
        tp_buf_printf(b, ",\"beyond_noise\":%s}", d->beyond_noise ? "true" : "false");
    }
    jtable(b, "steps", &d->steps, false, true);
    jtable(b, "kernels", &d->kernels, true, false);
    jtable(b, "ops", &d->ops, false, false);
    jtable(b, "categories", &d->categories, false, false);
    tp_buf_puts(b, ",\n");
    tp_diff_eff_json(&d->eff, b);
    tp_buf_puts(b, ",\n");
    tp_diff_cp_json(d->s[0], d->s[1], b);
    tp_buf_puts(b, ",\n\"gpu_time\":{\"base\":{"); /* the whole-trace GPU time model of both runs */
    tp_gpu_figs_json(b, &d->s[0]->gt.whole);
    tp_buf_puts(b, "},\"candidate\":{");
    tp_gpu_figs_json(b, &d->s[1]->gt.whole);
    tp_buf_puts(b, "}}");
    tp_buf_puts(b, ",\n\"findings\":[");
    for (size_t i = 0; i < d->find.n; i++) {
        const tp_diff_finding *x = &d->find.rows[i];
        tp_buf_puts(b, i ? ",\n{\"id\":" : "\n{\"id\":");
        tp_json_str(b, x->id);
        tp_buf_puts(b, ",\"title\":");
        tp_json_str(b, x->title);
        tp_buf_printf(b, ",\"severity\":\"%s\",\"status\":\"%s\",\"impact_base\":\"%s\"",
                      tp_find_severity_name(x->severity), tp_diff_finding_status_name(x->status), x->impact_base);
        static const char *const side[2] = {"base", "candidate"};
        for (int k = 0; k < 2; k++) {
            if (x->fired[k])
                tp_buf_printf(b, ",\"%s_impact_ns\":%lld,\"%s_impact_pct\":%lld.%03lld", side[k],
                              (long long)x->impact_ns[k], side[k], (long long)(x->impact_milli[k] / 1000),
                              (long long)(x->impact_milli[k] % 1000));
            else
                tp_buf_printf(b, ",\"%s_impact_ns\":null,\"%s_impact_pct\":null", side[k], side[k]);
            tp_buf_printf(b, ",\"%s_scope\":", side[k]);
            if (x->fired[k] && x->scope[k][0])
                tp_json_str(b, x->scope[k]);
            else
                tp_buf_puts(b, "null");
        }
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "]");
    tp_buf_puts(b, ",\n");
    tp_diff_mem_json(&d->mem, b);
    tp_buf_puts(b, ",\n\"gates\":{\"fail_if_slower_pct\":");
    if (g->slower)
        tp_buf_printf(b, "%g", g->slower_pct);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"fail_if_kernel_slower_pct\":");
    if (g->kernel_slower)
        tp_buf_printf(b, "%g", g->kernel_pct);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"fail_on_finding\":");
    tp_json_str_or_null(b, g->fail_on_finding);
    tp_buf_puts(b, ",\"fail_if_memory_higher\":");
    if (!g->mem_higher.on)
        tp_buf_puts(b, "null");
    else if (g->mem_higher.is_bytes)
        tp_buf_printf(b, "{\"bytes\":%lld}", (long long)g->mem_higher.bytes);
    else
        tp_buf_printf(b, "{\"pct\":%g}", g->mem_higher.pct);
    tp_buf_printf(b, ",\"kernel_min_share_pct\":%g,\"slower_within_noise\":%s,\"tripped\":%d,\"reasons\":[",
                  g->kernel_min_share_pct, tp_diff_slower_gate(d, g) < 0 ? "true" : "false", tripped);
    size_t start = 0, k = 0;
    for (size_t i = 0; why && i < why->len; i++)
        if (why->data[i] == '\n') {
            if (k++)
                tp_buf_putc(b, ',');
            tp_json_put_string(b, why->data + start, i - start, NULL);
            start = i + 1;
        }
    tp_buf_puts(b, "]}}\n");
}

/* ---- Markdown ------------------------------------------------------------ */

/* diff.md's numbers: summary.md's units (render/text/units.h), a no-break
 * space before the unit so that a cell never wraps inside a value */
static void dur(char *buf, size_t n, int64_t ns) { tp_md_dur(buf, n, ns); }
static void delta(char *buf, size_t n, int64_t ns) { tp_fmt_dur_delta(buf, n, ns, TP_NBSP); }

/* Display names for a table's rows: the rows' labels, the short names the
 * diff's pages show too (kname.h: unique, already cut to TP_KNAME_MAX). */
static char **display_names(const tp_diff_table *t)
{
    char **sh = tp_xcalloc(t->n + 1, sizeof *sh);
    for (size_t i = 0; i < t->n; i++)
        sh[i] = tp_xstrdup(t->rows[i].label);
    return sh;
}

/* The rows md_rows shows: the first `top` of one sign, from the end its
 * direction starts at. */
static size_t md_pick(const tp_diff_table *t, bool regress, size_t top, size_t *pick)
{
    size_t n = 0;
    for (size_t k = 0; k < t->n && n < top; k++) {
        size_t i = regress ? k : t->n - 1 - k;
        if (regress ? t->rows[i].delta <= 0 : t->rows[i].delta >= 0)
            break;
        pick[n++] = i;
    }
    return n;
}

static int64_t mag64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

/* A table of the rows that got slower (regress) or faster, durations in
 * the unit of each column's largest value, named in its header. */
static size_t md_rows_open(tp_buf *b, const char *what, const tp_diff_table *t, char **names, bool regress, size_t top);

/* A table of more than MD_OPEN_ROWS rows folds into <details> (a GitHub comment stays short; the summary line
 * says what is inside); shorter ones stay open. */
#define MD_OPEN_ROWS 5
static size_t md_rows(tp_buf *b, const char *what, const tp_diff_table *t, char **names, bool regress, size_t top)
{
    size_t *pick = tp_xcalloc((top < t->n ? top : t->n) + 1, sizeof *pick);
    size_t n = md_pick(t, regress, top < t->n ? top : t->n, pick);
    free(pick);
    if (n <= MD_OPEN_ROWS)
        return md_rows_open(b, what, t, names, regress, top);
    tp_buf_printf(b, "<details><summary>%zu rows: %s</summary>\n\n", n, what);
    size_t shown = md_rows_open(b, what, t, names, regress, top);
    tp_buf_puts(b, "</details>\n\n");
    return shown;
}

/* "NVIDIA H100 80GB HBM3", "2 x ...", or "not recorded" (the devices a summary names, as summary.md lists them) */
static void md_devices(tp_buf *b, const tp_summary *s)
{
    if (!s->ndevices)
        tp_buf_puts(b, "not recorded");
    tp_md_devices(b, s);
}

/* The share of both runs' kernel time in rows matched by name or short name (0-1). */
static double matched_share(const tp_diff_table *k)
{
    int64_t all = 0, matched = 0;
    for (size_t i = 0; i < k->n; i++) {
        int64_t t = tp_sat_add(k->rows[i].total[0], k->rows[i].total[1]); /* hostile totals: saturate */
        all = tp_sat_add(all, t);
        if (k->rows[i].match == TP_DM_NAME || k->rows[i].match == TP_DM_SHORT)
            matched = tp_sat_add(matched, t);
    }
    return all > 0 ? (double)matched / (double)all : 1;
}

static size_t md_rows_open(tp_buf *b, const char *what, const tp_diff_table *t, char **names, bool regress, size_t top)
{
    if (top > t->n)
        top = t->n; /* SIZE_MAX: all of them */
    size_t *pick = tp_xcalloc(top + 1, sizeof *pick);
    size_t shown = md_pick(t, regress, top, pick);
    int64_t mt = 0, md = 0;
    for (size_t k = 0; k < shown; k++) {
        const tp_diff_row *r = &t->rows[pick[k]];
        mt = mag64(r->total[0]) > mt ? mag64(r->total[0]) : mt;
        mt = mag64(r->total[1]) > mt ? mag64(r->total[1]) : mt;
        md = mag64(r->delta) > md ? mag64(r->delta) : md;
    }
    /* a comment's column (issue 36 item 9): the shown names cut to MD_NAME_CHARS and kept apart, as summary.md's
     * kernels (a monospace font: width is characters; the full names are in diff.json and diff.pdf) */
    const char **want = tp_xcalloc(shown + 1, sizeof *want);
    double *room = tp_xcalloc(shown + 1, sizeof *room);
    for (size_t k = 0; k < shown; k++) {
        want[k] = names[pick[k]];
        room[k] = tp_text_width(TP_FONT_MONO, 10, "0") * MD_NAME_CHARS;
    }
    char **fit = tp_fit_apart(TP_FONT_MONO, 10, want, shown, room, tp_fit_middle);
    int ut = tp_dur_unit(mt), ud = tp_dur_unit(md);
    if (shown)
        tp_buf_printf(b, "| %s | count | base (%s) | candidate (%s) | change (%s) | change %% | share |\n"
                         "|---|---:|---:|---:|---:|---:|---:|\n",
                      what, tp_dur_unit_name(ut), tp_dur_unit_name(ut), tp_dur_unit_name(ud));
    for (size_t k = 0; k < shown; k++) {
        size_t i = pick[k];
        const tp_diff_row *r = &t->rows[i];
        char c0[40], c1[40], dl[48], rel[32], sh[32], n0[32], n1[32];
        tp_fmt_dur_in(c0, sizeof c0, r->total[0], ut);
        tp_fmt_dur_in(c1, sizeof c1, r->total[1], ut);
        tp_fmt_dur_in(dl + 1, sizeof dl - 1, mag64(r->delta), ud);
        dl[0] = r->delta < 0 ? '-' : '+';
        tp_diff_fmt_rel(rel, sizeof rel, r);
        tp_diff_fmt_share(sh, sizeof sh, r);
        tp_fmt_count(n0, sizeof n0, r->count[0]);
        tp_fmt_count(n1, sizeof n1, r->count[1]);
        tp_buf_puts(b, "| ");
        tp_md_code(b, fit[k], SIZE_MAX);
        if (r->match == TP_DM_SHORT)
            tp_buf_puts(b, " (matched by short name)");
        if (r->match == TP_DM_OP) { /* renamed: say what it became and why they are one row */
            char *cb = tp_kname_base(r->cand_name);
            tp_buf_puts(b, " →<br>"); /* lines of the cell: the column stays a name wide */
            tp_md_code(b, cb, MD_NAME_CHARS);
            tp_buf_puts(b, "<br>(both launched by ");
            tp_md_code(b, r->op, MD_NAME_CHARS);
            tp_buf_puts(b, ")");
            free(cb);
        }
        tp_buf_printf(b, " | %s → %s | %s | %s | %s | %s | %s |\n", n0, n1, r->match == TP_DM_ADDED ? "-" : c0,
                      r->match == TP_DM_REMOVED ? "-" : c1, dl, rel, sh);
    }
    if (shown)
        tp_buf_putc(b, '\n');
    tp_fit_apart_free(fit, shown);
    free(want);
    free(room);
    free(pick);
    return shown;
}

static size_t changed(const tp_diff_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->rows[i].delta != 0;
    return n;
}

bool tp_diff_ops_lead(const tp_diff *d, double *share)
{
    double ms = matched_share(&d->kernels);
    if (share)
        *share = ms;
    return ms < 0.5 && changed(&d->ops);
}

/* "Median step time 12.346 ms → 13.101 ms (+755.000 us, +6.1%)" */
static void headline_md(const tp_diff *d, tp_buf *b)
{
    char h0[48], h1[48], hd[48];
    dur(h0, sizeof h0, d->head[0]);
    dur(h1, sizeof h1, d->head[1]);
    delta(hd, sizeof hd, d->head[1] - d->head[0]);
    tp_buf_printf(b, "%s %s → %s (%s", d->has_steps ? "Median step time" : "Total device time", h0, h1, hd);
    if (d->head_has_rel)
        tp_buf_printf(b, ", %+.1f%%", d->head_rel * 100.0 + 0.0);
    tp_buf_puts(b, ")");
}

void tp_diff_brief_md(const tp_diff *d, tp_buf *b)
{
    tp_buf_printf(b, "**Against the baseline** ");
    tp_md_text(b, d->s[0]->name, 120);
    tp_buf_printf(b, ": %s. ", tp_diff_verdict_name(d->verdict));
    headline_md(d, b);
    char why[200];
    tp_diff_noise_text(d, why, sizeof why);
    tp_buf_printf(b, "; %s", why);
    /* the kernels that moved most, either way: the ends of the delta order */
    const tp_diff_table *t = &d->kernels;
    size_t lo = 0, hi = t->n, shown = 0;
    char **names = display_names(t);
    while (shown < 3 && lo < hi) {
        const tp_diff_row *a = &t->rows[lo], *z = &t->rows[hi - 1];
        int64_t da = a->delta < 0 ? -a->delta : a->delta, dz = z->delta < 0 ? -z->delta : z->delta;
        size_t i = da >= dz ? lo++ : --hi;
        if (!t->rows[i].delta)
            break;
        char dl[48], rel[32];
        delta(dl, sizeof dl, t->rows[i].delta);
        tp_diff_fmt_rel(rel, sizeof rel, &t->rows[i]);
        tp_buf_puts(b, shown ? ", " : "; most changed kernels: ");
        tp_md_code(b, names[i], SIZE_MAX); /* as diff.md shows it: display names are cut already */
        tp_buf_printf(b, " %s (%s)", dl, rel);
        shown++;
    }
    tp_kname_free(names, t->n);
    tp_buf_puts(b, shown ? "." : "; no kernel's total time changed.");
}

void tp_diff_md(const tp_diff *d, const tp_diff_gates *g, const tp_buf *why, int tripped, const char *image_base_url,
                const char *const *pngs, tp_buf *b)
{
    const tp_summary *s0 = d->s[0], *s1 = d->s[1];
    tp_buf_puts(b, "### tracepress diff: ");
    tp_md_text(b, s0->name, SIZE_MAX);
    tp_buf_puts(b, " → ");
    tp_md_text(b, s1->name, SIZE_MAX);
    tp_buf_puts(b, "\n\n");

    const char *v = tp_diff_verdict_name(d->verdict);
    char h0[40], h1[40], hd[48];
    dur(h0, sizeof h0, d->head[0]);
    dur(h1, sizeof h1, d->head[1]);
    delta(hd, sizeof hd, d->head[1] - d->head[0]);
    bool steps = d->has_steps;
    tp_buf_printf(b, "**Verdict: %s.** %s %s → %s (%s", v, steps ? "Median step time" : "Total device time", h0, h1,
                  hd);
    if (d->head_has_rel)
        tp_buf_printf(b, ", %+.1f%%", d->head_rel * 100.0 + 0.0);
    tp_buf_puts(b, ")");
    char why_noise[200];
    tp_diff_noise_text(d, why_noise, sizeof why_noise);
    tp_buf_printf(b, "; %s.\n\n", why_noise);
    tp_capture_diff_md(s0, s1, b); /* which side's graph replays have ops (nothing without a capture) */
    int held = tp_diff_slower_gate(d, g) < 0;
    if (tripped) {
        tp_buf_printf(b, "**Gate failed** (%d):\n\n", tripped);
        size_t start = 0;
        for (size_t i = 0; i < why->len; i++)
            if (why->data[i] == '\n') {
                tp_buf_puts(b, "- ");
                char *line = tp_xstrndup(why->data + start, i - start);
                tp_md_text(b, line, SIZE_MAX);
                free(line);
                tp_buf_putc(b, '\n');
                start = i + 1;
            }
        tp_buf_putc(b, '\n');
    } else if (g->slower || g->kernel_slower || g->fail_on_finding || g->mem_higher.on)
        tp_buf_puts(b, "Gates passed.\n\n");
    if (held)
        tp_buf_printf(b, "`--fail-if-slower %g%%` did not trip: the %s grew by %+.1f%%, but within the noise.\n\n",
                      g->slower_pct, steps ? "median step time" : "total device time", d->head_rel * 100.0);

    /* The findings that changed (docs/DIFF.md "Findings"): new and grown first */
    size_t shown = 0;
    for (size_t i = 0; i < d->find.n; i++) {
        const tp_diff_finding *x = &d->find.rows[i];
        if (x->status == TP_DF_SAME)
            continue;
        if (!shown++)
            tp_buf_puts(b, "**Findings**:\n\n");
        char a[32], c[32];
        tp_find_pct(a, sizeof a, x->impact_milli[0]);
        tp_find_pct(c, sizeof c, x->impact_milli[1]);
        tp_buf_printf(b, "- %s: ", tp_diff_finding_status_name(x->status));
        tp_md_text(b, x->title, 200);
        const char *sc = x->scope[x->status == TP_DF_GONE ? 0 : 1]; /* where it holds: "in step 3" */
        if (sc[0] && strcmp(sc, "whole trace") != 0) {
            tp_buf_puts(b, strncmp(sc, "step", 4) == 0 || strncmp(sc, "every step", 10) == 0 ? " in " : " (");
            tp_md_text(b, sc, 100);
            if (!(strncmp(sc, "step", 4) == 0 || strncmp(sc, "every step", 10) == 0))
                tp_buf_puts(b, ")");
        }
        if (x->fired[0] && x->fired[1] && strcmp(x->scope[0], x->scope[1]) != 0) {
            /* it moved (step 0 -> every step): "grew" alone would hide where it held before */
            tp_buf_puts(b, " (in the base: ");
            tp_md_text(b, x->scope[0][0] ? x->scope[0] : "whole trace", 100);
            tp_buf_puts(b, ")");
        }
        tp_buf_printf(b, " (`%s`, %s): %s", x->id, tp_find_severity_name(x->severity),
                      x->risk ? "a memory risk, " : "");
        if (x->status == TP_DF_NEW)
            tp_buf_printf(b, "%s of %s (not found in the base)\n", c, x->impact_base);
        else if (x->status == TP_DF_GONE)
            tp_buf_printf(b, "was %s of %s, not found in the candidate\n", a, x->impact_base);
        else
            tp_buf_printf(b, "from %s to %s of %s\n", a, c, x->impact_base);
    }
    if (shown)
        tp_buf_puts(b, "\n");

    /* Overview table. */
    tp_buf_puts(b, "| figure | base | candidate | change |\n|---|---:|---:|---:|\n");
    /* the traces' names are the heading's; here their formats only (the names made this table 1,000-1,200 px
     * wide, over a comment column's ~700) */
    tp_buf_printf(b, "| format | %s | %s | |\n", s0->t->format ? s0->t->format : "?", s1->t->format ? s1->t->format : "?");
    tp_buf_puts(b, "| device | "); /* both sides named: a cross-vendor diff says so where it starts */
    md_devices(b, s0);
    tp_buf_puts(b, " | ");
    md_devices(b, s1);
    tp_buf_puts(b, " | |\n");
    tp_buf_printf(b, "| steps | %zu | %zu | |\n", d->spread[0].n, d->spread[1].n);
    if (steps) {
        char a[40], c[40], e[40];
        const tp_step_spread *p = d->spread;
        dur(a, sizeof a, p[0].median);
        dur(c, sizeof c, p[1].median);
        delta(e, sizeof e, d->median_delta);
        tp_buf_printf(b, "| median step | %s | %s | %s |\n", a, c, e);
    }
    /* one step a side: its min, max and quartiles are the median again (the verdict says there is no spread), and
     * those rows made the overview about 770 px on an H100 -> MI300X diff, over a comment column's ~700 */
    if (steps && (d->spread[0].n > 1 || d->spread[1].n > 1)) {
        char a[40], c[40], e[40], f2[40];
        const tp_step_spread *p = d->spread;
        dur(a, sizeof a, p[0].min);
        dur(c, sizeof c, p[0].max);
        dur(e, sizeof e, p[1].min);
        dur(f2, sizeof f2, p[1].max);
        tp_buf_printf(b, "| min – max step | %s – %s | %s – %s | |\n", a, c, e, f2);
        char i0[40], i1[40];
        dur(i0, sizeof i0, p[0].iqr);
        dur(i1, sizeof i1, p[1].iqr);
        dur(a, sizeof a, p[0].q1);
        dur(c, sizeof c, p[0].q3);
        dur(e, sizeof e, p[1].q1);
        dur(f2, sizeof f2, p[1].q3);
        /* the IQR and its quartiles on rows of their own: on one row a cell held three durations (764 px) */
        tp_buf_printf(b, "| step IQR | %s | %s | |\n", i0, i1);
        tp_buf_printf(b, "| step Q1 – Q3 | %s – %s | %s – %s | |\n", a, c, e, f2);
    }
    {
        char a[40], c[40], e[48], r[32] = "";
        dur(a, sizeof a, s0->kt.total_ns);
        dur(c, sizeof c, s1->kt.total_ns);
        delta(e, sizeof e, s1->kt.total_ns - s0->kt.total_ns);
        if (s0->kt.total_ns)
            snprintf(r, sizeof r, " (%+.1f%%)",
                     (double)(s1->kt.total_ns - s0->kt.total_ns) * 100.0 / (double)s0->kt.total_ns + 0.0);
        tp_buf_printf(b, "| device time | %s | %s | %s%s |\n", a, c, e, r);
        tp_buf_printf(b, "| distinct kernels | %zu | %zu | |\n", s0->kt.n, s1->kt.n);
        /* the GPU time model (docs/REPORT.md), whole trace: where the time went */
        const tp_gpu_figs *f[2] = {&s0->gt.whole, &s1->gt.whole};
        const struct {
            const char *label;
            int64_t v[2];
        } gr[] = {{"GPU span", {f[0]->span_ns, f[1]->span_ns}},
                  {"GPU busy", {f[0]->busy_ns, f[1]->busy_ns}},
                  {"computation", {f[0]->computation_ns, f[1]->computation_ns}},
                  {"exposed communication", {f[0]->exposed_communication_ns, f[1]->exposed_communication_ns}},
                  {"exposed memcpy", {f[0]->exposed_memcpy_ns, f[1]->exposed_memcpy_ns}},
                  {"GPU idle", {f[0]->idle_ns, f[1]->idle_ns}}};
        for (size_t i = 0; i < sizeof gr / sizeof gr[0]; i++) {
            if (i && !gr[i].v[0] && !gr[i].v[1])
                continue;
            dur(a, sizeof a, gr[i].v[0]);
            dur(c, sizeof c, gr[i].v[1]);
            delta(e, sizeof e, gr[i].v[1] - gr[i].v[0]);
            r[0] = 0;
            if (gr[i].v[0])
                snprintf(r, sizeof r, " (%+.1f%%)",
                         (double)(gr[i].v[1] - gr[i].v[0]) * 100.0 / (double)gr[i].v[0] + 0.0);
            tp_buf_printf(b, "| %s | %s | %s | %s%s |\n", gr[i].label, a, c, e, r);
        }
        tp_buf_putc(b, '\n');
    }

    /* kernel names that barely overlap (another vendor's library, another compiler): the op-level change leads,
     * right under the overview (it came third, after the categories and the shapes' TFLOPS/s, below a line saying
     * it tells the change first), the kernel tables follow as the detail */
    double ms = 1;
    bool ops_lead = tp_diff_ops_lead(d, &ms);
    if (ops_lead) {
        tp_buf_printf(b, "Kernel names barely overlap: %.0f%% of both runs' kernel time is in kernels of the same name, "
                         "so the ops that launched them tell the change first.\n\n", ms * 100.0);
        char **on = display_names(&d->ops);
        tp_buf_puts(b, "#### Ops (device time they launched)\n\n");
        md_rows(b, "op (slower)", &d->ops, on, true, MD_TOP_OPS);
        md_rows(b, "op (faster)", &d->ops, on, false, MD_TOP_OPS);
        tp_kname_free(on, d->ops.n);
    }
    if (changed(&d->categories)) { /* every category: there are a dozen, and where the time moved is the story */
        char **cn = display_names(&d->categories);
        tp_buf_puts(b, "#### Op categories (device time)\n\n");
        md_rows(b, "category (slower)", &d->categories, cn, true, SIZE_MAX);
        md_rows(b, "category (faster)", &d->categories, cn, false, SIZE_MAX);
        tp_kname_free(cn, d->categories.n);
    }
    tp_diff_eff_md(&d->eff, MD_TOP_OPS, b);
    tp_diff_cp_md(d->s[0], d->s[1], b);
    char **kn = display_names(&d->kernels);
    if (!changed(&d->kernels))
        tp_buf_puts(b, "No kernel's total time changed.\n\n");
    else {
        tp_buf_puts(b, "#### Top regressions\n\n");
        if (!md_rows(b, "kernel", &d->kernels, kn, true, MD_TOP))
            tp_buf_puts(b, "None.\n\n");
        tp_buf_puts(b, "#### Top improvements\n\n");
        if (!md_rows(b, "kernel", &d->kernels, kn, false, MD_TOP))
            tp_buf_puts(b, "None.\n\n");
    }
    tp_kname_free(kn, d->kernels.n);
    if (changed(&d->ops) && !ops_lead) {
        char **on = display_names(&d->ops);
        tp_buf_puts(b, "#### Ops (device time they launched)\n\n");
        md_rows(b, "op (slower)", &d->ops, on, true, MD_TOP_OPS);
        md_rows(b, "op (faster)", &d->ops, on, false, MD_TOP_OPS);
        tp_kname_free(on, d->ops.n);
    }
    /* memory after the time: the devices and the op-level change lead (issue 36 item 6; an H100 -> MI300X diff
     * opened with 15 rows of cuda:0 / hip:0 holders before naming either device) */
    tp_diff_mem_md(&d->mem, b);
    size_t ul = image_base_url ? strlen(image_base_url) : 0;
    for (size_t i = 0; ul && pngs && pngs[i]; i++)
        tp_buf_printf(b, "![%s](%s%s%s)\n\n", strstr(pngs[i], "steps") ? "step times" : "largest changes",
                      image_base_url, image_base_url[ul - 1] == '/' ? "" : "/", pngs[i]);
    if (!ul && pngs && pngs[0]) { /* a relative image is dead in a pull-request comment: say where they are */
        tp_buf_puts(b, "**Charts**: ");
        for (size_t i = 0; pngs[i]; i++)
            tp_buf_printf(b, "%s`%s`", i ? ", " : "", pngs[i]);
        tp_buf_puts(b, " next to this file; give `--image-base-url URL` to show them here.\n\n");
    }
    size_t m[TP_DM_COUNT] = {0};
    for (size_t i = 0; i < d->kernels.n; i++)
        m[d->kernels.rows[i].match]++;
    if (m[TP_DM_OP])
        tp_buf_printf(b, "<sub>Kernels of different names paired by the op that launched them: %zu.</sub>\n", m[TP_DM_OP]);
    tp_buf_printf(b,
                  "<sub>Kernels matched by name: %zu, by short name: %zu; new: %zu; gone: %zu. "
                  "Share = part of all kernel time change (regressions and improvements together). Full tables: diff.json, diff.pdf.</sub>\n",
                  m[TP_DM_NAME], m[TP_DM_SHORT], m[TP_DM_ADDED], m[TP_DM_REMOVED]);
    tp_md_narrow(b, TP_MD_COMMENT_PX); /* diff.md is a pull-request comment too: tables split to fit its column */
}
