/* find_out.c: the findings as summary.json members, summary.md's lead and
 * `stats` text (find_out.h, docs/REPORT.md "Findings"). */
#include "report/out/find_out.h"
#include "convert/codec/json_write.h"
#include "render/text/report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD_TOP_FINDINGS 3

const tp_findings *tp_findings_of(const tp_summary *s, tp_findings *local)
{
    if (s->findings)
        return s->findings;
    tp_findings_build(s, NULL, local);
    return local;
}

/* thousandths of a percent as a JSON number: "15.125" */
static void milli_json(tp_buf *b, int64_t m) { tp_buf_printf(b, "%lld.%03lld", (long long)(m / 1000), (long long)(m % 1000)); }


/* The scope's steps (docs/REPORT.md "Findings", *Scope*): null members without a per-step evaluation. */
static void scope_json(const tp_step_figures *sf, const tp_finding *x, tp_buf *b)
{
    if (!x->steps_total || !sf) {
        tp_buf_puts(b, ",\"scope_steps\":null,\"steps_holding\":null,\"steps_total\":null,"
                       "\"impact_per_step_ns\":null,\"impact_per_step_pct_of_step_time\":null");
        return;
    }
    tp_buf_puts(b, ",\"scope_steps\":[");
    for (size_t k = 0; k < x->nsteps; k++)
        tp_buf_printf(b, "%s%lld", k ? "," : "", (long long)sf->steps[x->steps[k]].step);
    tp_buf_printf(b, "],\"steps_holding\":%zu,\"steps_total\":%zu,\"impact_per_step_ns\":%lld,"
                     "\"impact_per_step_pct_of_step_time\":",
                  x->nsteps, x->steps_total, (long long)x->step_impact_ns);
    milli_json(b, x->step_impact_milli);
}

void tp_findings_json(const tp_findings *f, tp_buf *b)
{
    tp_buf_puts(b, "\"findings\":[");
    for (size_t i = 0; i < f->n; i++) {
        const tp_find_rule *r = f->items[i].rule;
        const tp_measure *m = f->items[i].m;
        tp_buf_puts(b, i ? ",\n{\"id\":" : "\n{\"id\":");
        tp_json_str(b, r->id);
        tp_buf_puts(b, ",\"title\":");
        tp_json_str(b, r->title);
        tp_buf_printf(b, ",\"severity\":\"%s\",\"rule_source\":\"%s\",\"measure\":\"%s\",\"scope\":",
                      tp_find_severity_name(r->severity), r->user ? "file" : "built-in", m->name);
        tp_json_str(b, f->items[i].scope); /* step labels of XPlane name a device */
        scope_json(f->s_steps, &f->items[i], b);
        tp_buf_puts(b, ",\"value_pct\":");
        milli_json(b, m->value_milli);
        tp_buf_puts(b, ",\"threshold_pct\":");
        milli_json(b, r->threshold_milli);
        tp_buf_printf(b, ",\"base\":\"%s\",\"part\":%lld,\"whole\":%lld,\"impact_ns\":%lld,\"impact_pct\":", m->base,
                      (long long)m->part, (long long)m->whole, (long long)m->impact_ns);
        milli_json(b, m->impact_milli);
        tp_buf_printf(b, ",\"impact_base\":\"%s\",\"impact_base_ns\":%lld,\"impact_bound\":", m->impact_base,
                      (long long)m->impact_base_ns);
        tp_json_str(b, m->bound);
        tp_buf_puts(b, ",\"evidence\":[");
        for (size_t k = 0; k < m->nevidence; k++) {
            if (k)
                tp_buf_putc(b, ',');
            tp_json_str(b, m->evidence[k]);
        }
        tp_buf_puts(b, "],\"next_step\":");
        tp_json_str(b, r->next);
        tp_buf_puts(b, ",\"confidence\":");
        tp_json_str_or_null(b, m->confidence);
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "],\n\"findings_unsure\":[");
    for (size_t i = 0; i < f->nunsure; i++) {
        tp_buf_puts(b, i ? ",\n{\"id\":" : "\n{\"id\":");
        tp_json_str(b, f->unsure[i]->id);
        tp_buf_printf(b, ",\"measure\":\"%s\",\"why\":", f->unsure_m[i]->name);
        tp_json_str(b, f->unsure_m[i]->why);
        tp_buf_puts(b, "}");
    }
    tp_buf_puts(b, "]");
}

/* The measures that could not tell, each reason once, with the rules that read them. */
static void unsure_md(const tp_findings *f, tp_buf *b)
{
    for (size_t i = 0; i < f->nunsure; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= !tp_find_unsure_same(f, i, j);
        if (!first)
            continue;
        tp_buf_puts(b, "- cannot tell (");
        for (size_t j = i, k = 0; j < f->nunsure; j++)
            if (tp_find_unsure_same(f, i, j)) {
                tp_buf_puts(b, k++ ? ", `" : "`");
                tp_buf_puts(b, f->unsure[j]->id); /* ids are [a-z0-9_] */
                tp_buf_puts(b, "`");
            }
        tp_buf_puts(b, "): ");
        tp_md_text(b, f->unsure_m[i]->why, SIZE_MAX);
        tp_buf_puts(b, "\n");
    }
}

/* Characters (UTF-8 code points) in b: what a reader counts. */
static size_t utf8_chars(const tp_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += ((unsigned char)b->data[i] & 0xC0) != 0x80;
    return n;
}

/* A finding's scope beside its verdict ("... in step 3", "... in every step, 6 of 6", "... (rank 3)");
 * nothing for the whole trace.  Step labels of a device's steps name it: escaped. */
static void scope_md(const tp_finding *x, tp_buf *b)
{
    char ph[128];
    tp_find_scope_phrase(x, ph, sizeof ph);
    tp_md_text(b, ph, 120);
}

/* "; per step (median of the 6): 1.200 ms, 40.0% of the step's time" */
static void step_impact_md(const tp_finding *x, tp_buf *b)
{
    if (!x->nsteps)
        return;
    char d[48], p[32];
    tp_fmt_dur(d, sizeof d, x->step_impact_ns);
    tp_find_pct(p, sizeof p, x->step_impact_milli);
    if (x->nsteps == 1)
        tp_buf_printf(b, "; in that step %s, %s of the step's time", d, p);
    else
        tp_buf_printf(b, "; per step (median of the %zu) %s, %s of the step's time", x->nsteps, d, p);
}

void tp_findings_md(const tp_findings *f, tp_buf *b)
{
    if (!f->n) {
        tp_buf_printf(b, "**No finding**: none of the %zu rules reached its threshold on this %s.\n\n", f->nrules,
                      f->subject ? f->subject : "trace");
        if (f->nunsure) {
            unsure_md(f, b);
            tp_buf_puts(b, "\n");
        }
        return;
    }
    /* the first line: the top finding's verdict and impact, under 200 characters (title cut at 100) */
    const tp_finding *top = &f->items[0];
    char d[48], p[32];
    tp_fmt_dur(d, sizeof d, top->m->impact_ns);
    tp_find_pct(p, sizeof p, top->m->impact_milli);
    tp_buf tail = {0}, title = {0};
    scope_md(top, &tail); /* " (rank 3)": counted with the tail, written after the title */
    if (top->m->risk) { /* a memory risk: its value, no time */
        tp_find_pct(p, sizeof p, top->m->value_milli);
        tp_buf_printf(&tail, "**: a memory risk, %s of %s (`%s`).", p, top->m->base, top->rule->id);
    } else
        tp_buf_printf(&tail, "**: up to %s to gain, %s of %s (`%s`).", d, p, top->m->impact_base, top->rule->id);
    /* a --rules title may be 200 bytes and its escapes longer ("@" is written "@&#8203;"), the ID 40:
     * the title is cut further until the line is under 200 characters */
    for (size_t max = 100;; max--) {
        title.len = 0;
        tp_md_text(&title, top->rule->title, max);
        if (max == 0 || 2 + utf8_chars(&title) + utf8_chars(&tail) < 200)
            break;
    }
    tp_buf_puts(b, "**");
    tp_buf_put(b, title.data, title.len);
    tp_buf_put(b, tail.data, tail.len); /* the scope, then the impact */
    tp_buf_puts(b, "\n\n");
    tp_buf_free(&tail);
    tp_buf_free(&title);
    for (size_t i = 0; i < f->n && i < MD_TOP_FINDINGS; i++) {
        const tp_finding *x = &f->items[i];
        tp_fmt_dur(d, sizeof d, x->m->impact_ns);
        tp_find_pct(p, sizeof p, x->m->impact_milli);
        tp_buf_printf(b, "%zu. **", i + 1);
        tp_md_text(b, x->rule->title, 200);
        scope_md(x, b);
        if (x->m->risk) {
            tp_find_pct(p, sizeof p, x->m->value_milli);
            tp_buf_printf(b, "** (`%s`, %s): a memory risk, %s of %s.", x->rule->id,
                          tp_find_severity_name(x->rule->severity), p, x->m->base);
        } else {
            tp_buf_printf(b, "** (`%s`, %s): up to %s, %s of %s", x->rule->id, tp_find_severity_name(x->rule->severity),
                          d, p, x->m->impact_base);
            step_impact_md(x, b);
            tp_buf_puts(b, ".");
        }
        if (x->m->nevidence) {
            tp_buf_puts(b, " Evidence: ");
            tp_md_text(b, x->m->evidence[0], 300);
            tp_buf_puts(b, ".");
        }
        if (x->m->confidence) { /* the impact may be far from what can be gained: say so where it is read */
            tp_buf_puts(b, " Partial evidence: ");
            tp_md_text(b, x->m->confidence, 400);
            tp_buf_puts(b, ".");
        }
        tp_buf_puts(b, " Next: ");
        tp_md_text(b, x->rule->next, 400);
        tp_buf_puts(b, "\n");
    }
    if (f->n > MD_TOP_FINDINGS)
        tp_buf_printf(b, "\n%zu more findings: summary.json `findings` has each with all its evidence.\n",
                      f->n - MD_TOP_FINDINGS);
    if (f->nunsure) {
        tp_buf_puts(b, "\n");
        unsure_md(f, b);
    }
    tp_buf_puts(b, "\n");
}

void tp_findings_text(const tp_findings *f, FILE *out)
{
    if (!f->n)
        fprintf(out, "\nNo finding: none of the %zu rules reached its threshold.\n", f->nrules);
    else
        fprintf(out, "\nFindings (%zu of %zu rules; by impact, an upper bound of the time each could save):\n", f->n,
                f->nrules);
    for (size_t i = 0; i < f->n; i++) {
        const tp_finding *x = &f->items[i];
        char d[48], p[32], v[32], t[32];
        tp_fmt_us(d, sizeof d, x->m->impact_ns);
        tp_find_pct(p, sizeof p, x->m->impact_milli);
        tp_find_pct(v, sizeof v, x->m->value_milli);
        tp_find_pct(t, sizeof t, x->rule->threshold_milli);
        fprintf(out, "%2zu. %s [%s] ", i + 1, x->rule->id, tp_find_severity_name(x->rule->severity));
        tp_put_printable(out, x->rule->title); /* a --rules file's text, printed as trace text is */
        fputs("\n    scope: ", out);
        tp_put_printable(out, x->scope);
        fputc('\n', out);
        fprintf(out, "    %s: %s of %s (threshold %s)\n", x->m->name, v, x->m->base, t);
        if (x->m->risk)
            fprintf(out, "    impact: no time (%s)\n", x->m->bound);
        else
            fprintf(out, "    impact: up to %s, %s of %s (%s)\n", d, p, x->m->impact_base, x->m->bound);
        if (x->nsteps && !x->m->risk) {
            char sd[48], sp[32];
            tp_fmt_us(sd, sizeof sd, x->step_impact_ns);
            tp_find_pct(sp, sizeof sp, x->step_impact_milli);
            fprintf(out, "    impact per step (median over the %zu step%s it holds in): %s, %s of the step's time\n",
                    x->nsteps, x->nsteps == 1 ? "" : "s", sd, sp);
        }
        for (size_t k = 0; k < x->m->nevidence; k++) { /* they hold trace names */
            fputs("    - ", out);
            tp_put_printable(out, x->m->evidence[k]);
            fputc('\n', out);
        }
        if (x->m->confidence)
            fprintf(out, "    confidence: %s\n", x->m->confidence);
        fputs("    next: ", out);
        tp_put_printable(out, x->rule->next);
        fputc('\n', out);
    }
    for (size_t i = 0; i < f->nunsure; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= !tp_find_unsure_same(f, i, j);
        if (!first)
            continue;
        fputs("Cannot tell (", out);
        for (size_t j = i, k = 0; j < f->nunsure; j++)
            if (tp_find_unsure_same(f, i, j) && (j == i || f->unsure_m[j] != f->unsure_m[i]))
                fprintf(out, "%s%s", k++ ? ", " : "", f->unsure_m[j]->name);
        fprintf(out, "): %s\n", f->unsure_m[i]->why);
    }
}
