/* iterations.c: iterations, the steady-state window, per-token time and
 * tokens/s (iterations.h). */
#include "report/inference/iterations.h"
#include "report/inference/infer_figs.h"
#include "convert/codec/json_write.h"
#include "report/analysis/attribution.h"
#include "render/text/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits at *p (at most 18): the value, or -1 (and *p unchanged) when none. */
static int64_t num(const char **p)
{
    const char *q = *p;
    int64_t v = 0;
    int n = 0;
    while (*q >= '0' && *q <= '9' && n < 18)
        v = v * 10 + (*q++ - '0'), n++;
    if (n == 0 || (*q >= '0' && *q <= '9'))
        return -1;
    *p = q;
    return v;
}

static bool word(const char **p, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(*p, w, n) != 0)
        return false;
    *p += n;
    return true;
}

/* "(sqAskBsqsqCsqskD)" or "(X)": the query tokens (A or X), -1 malformed */
static int64_t group_tokens(const char **p)
{
    const char *q = *p;
    if (!word(&q, "("))
        return -1;
    int64_t v;
    if (word(&q, "sq")) {
        v = num(&q);
        while (*q && *q != ')')
            q++;
    } else
        v = num(&q);
    if (v < 0 || !word(&q, ")"))
        return -1;
    *p = q;
    return v;
}

/* vLLM: execute_[N_]context_C(..)_generation_G(..) */
static bool vllm(const char *name, tp_iteration *it)
{
    const char *p = strstr(name, "execute_");
    if (!p)
        return false;
    p += 8;
    if (*p >= '0' && *p <= '9') {
        if (num(&p) < 0 || !word(&p, "_"))
            return false;
    }
    int64_t c, g, ct, gt;
    if (!word(&p, "context_") || (c = num(&p)) < 0 || (ct = group_tokens(&p)) < 0 || !word(&p, "_generation_") ||
        (g = num(&p)) < 0 || (gt = group_tokens(&p)) < 0)
        return false;
    it->requests = c + g;
    it->tokens = ct + gt;
    it->phase = c == 0 ? TP_ITER_DECODE : g == 0 ? TP_ITER_PREFILL : TP_ITER_MIXED;
    return true;
}

/* " key=N" inside [b, e): N, -1 absent */
static int64_t member(const char *b, const char *e, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = b; p + n < e; p++)
        if (p > b && p[-1] == ' ' && strncmp(p, key, n) == 0 && p[n] == '=') {
            const char *q = p + n + 1;
            return num(&q);
        }
    return -1;
}

/* SGLang: step[MODE bs=N ...] */
static bool sglang(const char *name, tp_iteration *it)
{
    if (strncmp(name, "step[", 5) != 0)
        return false;
    const char *b = name + 5, *e = strchr(b, ']');
    int phase = strncmp(b, "DECODE", 6) == 0 ? TP_ITER_DECODE
                : strncmp(b, "EXTEND", 6) == 0 ? TP_ITER_PREFILL
                : strncmp(b, "MIXED", 5) == 0  ? TP_ITER_MIXED
                                               : 0;
    int64_t bs = e ? member(b, e, "bs") : -1;
    if (!phase || bs < 0)
        return false;
    int64_t toks = member(b, e, "toks"), csq = member(b, e, "c_sq"), gsq = member(b, e, "g_sq");
    it->requests = bs;
    it->phase = phase;
    it->tokens = toks >= 0 && phase != TP_ITER_DECODE ? toks + (gsq > 0 ? gsq : 0)
                 : csq >= 0 || gsq >= 0             ? (csq > 0 ? csq : 0) + (gsq > 0 ? gsq : 0)
                 : phase == TP_ITER_DECODE          ? bs
                                                    : -1;
    return true;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_iter(const void *pa, const void *pb)
{
    const tp_iteration *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1; /* the outer first */
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int64_t median(int64_t *v, size_t n)
{
    if (n == 0)
        return -1;
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

typedef struct span {
    int64_t a, z;
} span;

static int cmp_span(const void *pa, const void *pb)
{
    const span *x = pa, *y = pb;
    return x->a < y->a ? -1 : x->a > y->a;
}

/* The device time of the window [a, z)'s work: the union of the spans of
 * the device activities launched in it (their launch call starts in it: the
 * device runs behind the host, so a step's kernels may end after its
 * annotation), and of the part in it of those with no launch call; -1 when
 * the trace has no device activity at all.  One pass and a sort. */
static int64_t busy_in(const tp_trace *t, int64_t a, int64_t z)
{
    span *v = NULL;
    size_t n = 0, cap = 0;
    bool any = false;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!tp_is_device_activity(e))
            continue;
        any = true;
        int64_t s = e->ts, f = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
        if (e->link != TP_NONE && e->link < t->nevents) {
            int64_t l = t->events[e->link].ts;
            if (l < a || l >= z)
                continue;
        } else
            s = s > a ? s : a, f = f < z ? f : z;
        if (f <= s)
            continue;
        TP_GROW(v, cap, n + 1);
        v[n++] = (span){s, f};
    }
    if (!any)
        return -1;
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_span);
    int64_t busy = 0, end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t s = v[i].a > end ? v[i].a : end;
        if (v[i].z > s)
            busy += v[i].z - s;
        end = v[i].z > end ? v[i].z : end;
    }
    free(v);
    return busy;
}

void tp_iterations_build(const tp_trace *t, int64_t tokens_per_iteration, int64_t batch_size, tp_iterations *r)
{
    memset(r, 0, sizeof *r);
    r->decode_median_ns = r->prefill_median_ns = -1;
    size_t cap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->ph != 'X' || (e->flags & (TP_EV_DROPPED | TP_EV_DERIVED)) || e->dur <= 0 ||
            t->tracks[e->track].role != TP_TRACK_HOST)
            continue;
        const char *n = tp_str_get(t, e->name);
        if (n[0] != 'e' && n[0] != 's')
            continue;
        tp_iteration it = {(uint32_t)i, e->ts, e->dur, 0, -1, 0};
        if (!vllm(n, &it) && !sglang(n, &it))
            continue;
        TP_GROW(r->it, cap, r->n + 1);
        r->it[r->n++] = it;
    }
    if (r->n) /* (qsort of NULL: undefined even for 0 items) */
        qsort(r->it, r->n, sizeof *r->it, cmp_iter);
    /* one nested in another (vLLM's execute_... around SGLang's step[...]): the outer one */
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (k && r->it[i].start_ns < r->it[k - 1].start_ns + r->it[k - 1].dur_ns &&
            t->events[r->it[i].ev].track == t->events[r->it[k - 1].ev].track) {
            if (r->it[k - 1].tokens < 0)
                r->it[k - 1].tokens = r->it[i].tokens;
            continue;
        }
        r->it[k++] = r->it[i];
    }
    r->n = k;
    if (r->n == 0)
        return;
    for (size_t i = 0; i < r->n; i++)
        r->requests_max = r->it[i].requests > r->requests_max ? r->it[i].requests : r->requests_max;
    /* the longest run near the largest request count */
    int64_t tol = r->requests_max / 10 > 1 ? r->requests_max / 10 : 1;
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < r->n;) {
        if (llabs(r->it[i].requests - r->requests_max) > tol) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < r->n && llabs(r->it[j].requests - r->requests_max) <= tol)
            j++;
        if (j - i > best_len)
            best = i, best_len = j - i;
        i = j;
    }
    if (best_len >= 6) {
        r->steady = true;
        r->first = best, r->last = best + best_len;
    } else {
        r->first = r->n / 4, r->last = r->n - r->n / 4;
        if (r->last <= r->first)
            r->first = 0, r->last = r->n;
    }
    int64_t *dec = tp_xmalloc(r->n * sizeof *dec), *pre = tp_xmalloc(r->n * sizeof *pre);
    int64_t tokens = 0;
    bool tokens_known = true;
    r->tokens_from = tokens_per_iteration > 0 ? "--tokens" : "annotations";
    for (size_t i = r->first; i < r->last; i++) {
        const tp_iteration *it = &r->it[i];
        if (it->phase == TP_ITER_DECODE)
            dec[r->decode_n++] = it->dur_ns;
        else
            pre[r->prefill_n++] = it->dur_ns;
        int64_t tk = tokens_per_iteration > 0 ? tokens_per_iteration : it->tokens;
        if (tk < 0 && batch_size > 0 && it->phase == TP_ITER_DECODE)
            tk = batch_size, r->tokens_from = "--batch-size";
        if (tk < 0)
            tokens_known = false;
        else
            tokens = tokens > INT64_MAX - tk ? INT64_MAX : tokens + tk;
    }
    r->decode_median_ns = median(dec, r->decode_n);
    r->prefill_median_ns = median(pre, r->prefill_n);
    free(dec), free(pre);
    const tp_iteration *a = &r->it[r->first], *z = &r->it[r->last - 1];
    r->window_ns = z->start_ns + z->dur_ns - a->start_ns;
    r->tokens = tokens_known ? tokens : -1;
    r->busy_ns = busy_in(t, a->start_ns, a->start_ns + r->window_ns);
}

bool tp_iterations_withheld(const tp_iterations *r)
{
    return r->n && r->busy_ns >= 0 && r->window_ns > 0 &&
           (double)r->busy_ns * 1000.0 < (double)r->window_ns * TP_ITER_MIN_BUSY_PERMILLE;
}

void tp_iterations_free(tp_iterations *r)
{
    free(r->it);
    memset(r, 0, sizeof *r);
}

/* tokens/s x 1000, -1 unknown */
static int64_t tokens_per_s_milli(const tp_iterations *r)
{
    if (r->tokens < 0 || r->window_ns <= 0)
        return -1;
    double v = (double)r->tokens * 1e12 / (double)r->window_ns;
    return v < 9e18 ? (int64_t)(v + 0.5) : -1;
}

/* s's iterations: those the report writer built (s->infer), else built into *local */
static const tp_iterations *iterations_of(const tp_summary *s, tp_iterations *local)
{
    if (s->infer)
        return &s->infer->it;
    tp_iterations_build(s->t, s->tokens_per_iteration, s->opts.batch_size, local);
    return local;
}

static void iterations_done(const tp_iterations *r, tp_iterations *local)
{
    if (r == local)
        tp_iterations_free(local);
}

static void iterations_json(const tp_iterations *r, tp_buf *b)
{
    if (r->n == 0)
        return;
    size_t dec_all = 0;
    for (size_t i = 0; i < r->n; i++)
        dec_all += r->it[i].phase == TP_ITER_DECODE;
    tp_buf_printf(b,
                  "\"inference\":{\"iterations\":%zu,\"decode_iterations\":%zu,\"requests_max\":%lld,"
                  "\"window\":{\"first\":%zu,\"iterations\":%zu,\"steady_state\":%s,\"start_ns\":%lld,\"wall_ns\":%lld,"
                  "\"decode_iterations\":%zu,\"prefill_iterations\":%zu,",
                  r->n, dec_all, (long long)r->requests_max, r->first, r->last - r->first, r->steady ? "true" : "false",
                  (long long)r->it[r->first].start_ns, (long long)r->window_ns, r->decode_n, r->prefill_n);
    bool held = tp_iterations_withheld(r);
    tp_buf_puts(b, "\"device_busy_ns\":");
    if (r->busy_ns >= 0)
        tp_buf_printf(b, "%lld", (long long)r->busy_ns);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"per_token_ns\":");
    if (r->decode_median_ns >= 0 && !held)
        tp_buf_printf(b, "%lld", (long long)r->decode_median_ns);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"prefill_iteration_ns\":");
    if (r->prefill_median_ns >= 0)
        tp_buf_printf(b, "%lld", (long long)r->prefill_median_ns);
    else
        tp_buf_puts(b, "null");
    tp_buf_puts(b, ",\"tokens\":");
    if (r->tokens >= 0)
        tp_buf_printf(b, "%lld", (long long)r->tokens);
    else
        tp_buf_puts(b, "null");
    int64_t tps = held ? -1 : tokens_per_s_milli(r);
    tp_buf_puts(b, ",\"tokens_per_s\":");
    if (tps >= 0) {
        char f[48];
        tp_format_fixed(f, tps, 3);
        tp_buf_puts(b, f);
    } else
        tp_buf_puts(b, "null");
    tp_buf_printf(b, ",\"tokens_from\":\"%s\",\"withheld\":", r->tokens >= 0 ? r->tokens_from : "none");
    tp_buf_puts(b, held ? "\"the device was busy under 10% of the window\"}},\n" : "null}},\n");
}

void tp_iterations_json(const tp_summary *s, tp_buf *b)
{
    tp_iterations local;
    const tp_iterations *r = iterations_of(s, &local);
    iterations_json(r, b);
    iterations_done(r, &local);
}

/* A rate given x 1000 to three significant digits, a summary's figure (issue 36 item 8): 13285737 -> "13300",
 * 4186290 -> "4190", 80000 -> "80.0", 1234 -> "1.23"; summary.json keeps it to the thousandth. */
static void sig3_milli(char *buf, size_t n, int64_t milli)
{
    int digits = 0; /* of the integer part */
    for (int64_t v = milli / 1000; v > 0; v /= 10)
        digits++;
    int decimals = digits >= 3 ? 0 : 3 - digits;
    int64_t step = 1; /* rounding unit, in thousandths */
    for (int k = 0; k < 3 - decimals; k++)
        step *= 10;
    for (int k = 3; k < digits; k++)
        step *= 10;
    int64_t r = milli > INT64_MAX - step / 2 ? milli : (milli + step / 2) / step * step;
    char whole[48];
    tp_format_fixed(whole, r, 3); /* "13300.000" */
    char *dot = strchr(whole, '.');
    if (dot)
        *(decimals ? dot + 1 + decimals : dot) = 0;
    snprintf(buf, n, "%s", whole);
}

static void iterations_md(const tp_iterations *r, tp_buf *b)
{
    if (r->n == 0)
        return;
    char u[64], v[64];
    tp_fmt_dur(u, sizeof u, r->window_ns);
    tp_buf_printf(b, "**Inference**: %zu iteration%s; %s window of %zu (%s)", r->n, r->n == 1 ? "" : "s",
                  r->steady ? "steady-state" : "no steady state found: the middle", r->last - r->first, u);
    if (tp_iterations_withheld(r)) {
        /* the window's time is mostly not the model's step: no per-token figure from it (iterations.h) */
        tp_buf_printf(b,
                      "; per-token time and tokens/s withheld: the device was busy %.1f%% of the window (under %d%%: "
                      "the iterations' time is mostly something else, such as the profiler's wait inside the "
                      "annotation)\n\n",
                      100.0 * (double)r->busy_ns / (double)r->window_ns, TP_ITER_MIN_BUSY_PERMILLE / 10);
        return;
    }
    if (r->decode_median_ns >= 0) {
        tp_fmt_dur(v, sizeof v, r->decode_median_ns);
        tp_buf_printf(b, "; per output token (median decode iteration) %s", v);
    }
    if (r->prefill_median_ns >= 0) {
        tp_fmt_dur(v, sizeof v, r->prefill_median_ns);
        tp_buf_printf(b, "; median iteration with prefill %s", v);
    }
    int64_t tps = tokens_per_s_milli(r);
    if (tps >= 0) {
        char f[48];
        sig3_milli(f, sizeof f, tps);
        tp_buf_printf(b, "; %s tokens/s (%lld tokens, from the %s)", f, (long long)r->tokens, r->tokens_from);
    } else
        tp_buf_puts(b, "; tokens/s unknown: give --tokens N (per iteration) or --batch-size B");
    tp_buf_puts(b, "\n\n");
}

void tp_iterations_md(const tp_summary *s, tp_buf *b)
{
    tp_iterations local;
    const tp_iterations *r = iterations_of(s, &local);
    iterations_md(r, b);
    iterations_done(r, &local);
}
