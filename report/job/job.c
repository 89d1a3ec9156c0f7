/* job.c: the reduce over rank summaries (job.h). */
#include "report/job/job.h"
#include "convert/base/strset.h"
#include "convert/model/clock_align.h"
#include "report/comm/collectives.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of n values (sorted in place): the middle one, or the mean of
 * the two middle ones rounded down; -1 when n is 0. */
static int64_t median_of(int64_t *v, size_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof *v, cmp_i64);
    if (n % 2)
        return v[n / 2];
    int64_t a = v[n / 2 - 1], b = v[n / 2];
    return a + (b - a) / 2; /* no overflow: a <= b */
}

static int cmp_rank(const void *a, const void *b)
{
    const tp_job_rank *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* ---- alignment ---- */

static void align(tp_job *j)
{
    tp_sync_point **pts = tp_xcalloc(j->nranks + 1, sizeof *pts);
    size_t *np = tp_xcalloc(j->nranks + 1, sizeof *np);
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        pts[r] = tp_xmalloc((s->ncalls + 1) * sizeof **pts);
        for (size_t i = 0; i < s->ncalls; i++) {
            const tp_rank_call *c = &s->calls[i];
            const tp_rank_coll *k = &s->colls[c->coll];
            pts[r][i] = (tp_sync_point){tp_sync_key(k->kind, k->group, k->ranks, c->seq), c->start_ns + c->dur_ns};
        }
        np[r] = s->ncalls;
    }
    tp_align_result *res = tp_xcalloc(j->nranks + 1, sizeof *res);
    tp_clock_align((const tp_sync_point *const *)pts, np, j->nranks, res);
    for (size_t r = 0; r < j->nranks; r++) {
        j->ranks[r].offset_ns = res[r].offset_ns;
        j->ranks[r].align_method = res[r].method;
        j->ranks[r].align_matched = res[r].matched;
        j->ranks[r].align_spread_ns = res[r].spread_ns;
        free(pts[r]);
    }
    free(res);
    free(pts);
    free(np);
}

/* ---- steps and cells ---- */

static size_t step_index(const tp_job *j, int64_t number)
{
    size_t lo = 0, hi = j->nsteps;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (j->steps[mid].number < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < j->nsteps && j->steps[lo].number == number ? lo : SIZE_MAX;
}

static void build_steps(tp_job *j)
{
    size_t total = 0;
    for (size_t r = 0; r < j->nranks; r++)
        total += j->ranks[r].sum.nsteps;
    int64_t *nums = tp_xmalloc((total + 1) * sizeof *nums);
    size_t n = 0;
    for (size_t r = 0; r < j->nranks; r++)
        for (size_t i = 0; i < j->ranks[r].sum.nsteps; i++)
            nums[n++] = j->ranks[r].sum.steps[i].number;
    qsort(nums, n, sizeof *nums, cmp_i64);
    j->steps = tp_xcalloc(n + 1, sizeof *j->steps);
    for (size_t i = 0; i < n; i++)
        if (!j->nsteps || j->steps[j->nsteps - 1].number != nums[i])
            j->steps[j->nsteps++] = (tp_job_step){.number = nums[i], .straggler = -1};
    free(nums);
    /* the cells: per rank its steps by index, the first of a step number twice on one rank */
    j->cells = tp_xcalloc(total + 1, sizeof *j->cells);
    j->rank_cells = tp_xcalloc(j->nranks + 1, sizeof *j->rank_cells);
    uint64_t *pairs = tp_xmalloc((total + 1) * sizeof *pairs); /* step index << 32 | the rank's step */
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        j->rank_cells[r] = j->ncells;
        for (size_t i = 0; i < s->nsteps; i++)
            pairs[i] = (uint64_t)step_index(j, s->steps[i].number) << 32 | i;
        qsort(pairs, s->nsteps, sizeof *pairs, cmp_u64);
        for (size_t p = 0; p < s->nsteps; p++) {
            size_t k = (size_t)(pairs[p] >> 32), i = (size_t)(pairs[p] & 0xffffffffu);
            if (p && pairs[p - 1] >> 32 == k) /* a step number twice on one rank: the first counts */
                continue;
            const tp_gpu_figs *g = &s->steps[i].gpu;
            j->cells[j->ncells++] = (tp_job_cell){.present = true,
                                                  .rank = (uint32_t)r,
                                                  .step = (uint32_t)k,
                                                  .step_ns = s->steps[i].dur_ns,
                                                  .computation_ns = g->computation_ns,
                                                  .communication_ns = g->communication_ns,
                                                  .exposed_communication_ns = g->exposed_communication_ns,
                                                  .idle_ns = g->idle_ns};
            j->steps[k].ranks++;
        }
    }
    j->rank_cells[j->nranks] = j->ncells;
    free(pairs);
    /* by step, then rank: a counting sort */
    j->step_cells = tp_xcalloc(j->nsteps + 2, sizeof *j->step_cells);
    for (size_t c = 0; c < j->ncells; c++)
        j->step_cells[j->cells[c].step + 1]++;
    for (size_t k = 0; k < j->nsteps; k++)
        j->step_cells[k + 1] += j->step_cells[k];
    size_t *fill = tp_xmalloc((j->nsteps + 1) * sizeof *fill);
    memcpy(fill, j->step_cells, (j->nsteps + 1) * sizeof *fill);
    j->by_step = tp_xmalloc((j->ncells + 1) * sizeof *j->by_step);
    for (size_t c = 0; c < j->ncells; c++)
        j->by_step[fill[j->cells[c].step]++] = (uint32_t)c;
    free(fill);
}

static const tp_job_cell no_cell; /* present false */

static tp_job_cell *find_cell(tp_job *j, size_t r, size_t k)
{
    size_t lo = j->rank_cells[r], hi = j->rank_cells[r + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->cells[mid].step < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < j->rank_cells[r + 1] && j->cells[lo].step == k ? &j->cells[lo] : NULL;
}

const tp_job_cell *tp_job_cell_at(const tp_job *j, size_t rank_index, size_t step_index)
{
    const tp_job_cell *c = find_cell((tp_job *)j, rank_index, step_index);
    return c ? c : &no_cell;
}

/* Each rank's step windows by start, to find the step of a call. */
typedef struct window {
    int64_t start, end;
    size_t step; /* index into j->steps */
} window;

static int cmp_window(const void *a, const void *b)
{
    const window *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static window **build_windows(const tp_job *j, size_t **nw)
{
    window **w = tp_xcalloc(j->nranks + 1, sizeof *w);
    *nw = tp_xcalloc(j->nranks + 1, sizeof **nw);
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        w[r] = tp_xmalloc((s->nsteps + 1) * sizeof **w);
        for (size_t i = 0; i < s->nsteps; i++)
            w[r][i] = (window){s->steps[i].start_ns, s->steps[i].start_ns + s->steps[i].dur_ns,
                               step_index(j, s->steps[i].number)};
        qsort(w[r], s->nsteps, sizeof **w, cmp_window);
        (*nw)[r] = s->nsteps;
    }
    return w;
}

/* The job step holding a call that starts at `start` on rank r (its own
 * clock): the last of the rank's step windows starting at or before it,
 * when it has not ended; SIZE_MAX when none. */
static size_t step_of_call(const window *w, size_t n, int64_t start)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w[mid].start <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && start < w[lo - 1].end ? w[lo - 1].step : SIZE_MAX;
}

/* ---- instances ---- */

typedef struct callref {
    uint64_t key;       /* kind, group, ranks (no seq) */
    int64_t seq;
    int64_t end;        /* aligned end */
    uint32_t rank, call;
    uint64_t ord;       /* its place among the rank's calls of its key, by (end, call) */
} callref;

/* By key, rank, end, call: to number each rank's calls of a key in order. */
static int cmp_rank_order(const void *pa, const void *pb)
{
    const callref *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return a->call < b->call ? -1 : a->call > b->call;
}

static int cmp_ref(const void *pa, const void *pb)
{
    const callref *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    bool as = a->seq >= 0, bs = b->seq >= 0;
    if (as != bs)
        return as ? -1 : 1;
    if (as && a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    /* equal ends: the ranks' calls in order (each rank's k-th call of the key
     * beside the others' k-th), not one rank's calls all before the next's */
    if (a->ord != b->ord)
        return a->ord < b->ord ? -1 : 1;
    return a->rank != b->rank ? (a->rank < b->rank ? -1 : 1) : (a->call < b->call ? -1 : a->call > b->call);
}

typedef struct rows {
    window **win;         /* per rank (build_windows) */
    size_t *nwin;
    tp_strset keys;
    size_t cap;
    tp_buf key;
    uint64_t *last_count; /* per row x rank: instances that rank arrived last at */
    int64_t *last_wait;
} rows;

/* The group size of an instance of n ranks: the recorded one, else the
 * world's when every rank of the world took part (all ranks present and
 * in it: an 8-rank job whose traces record no group size), else 0. */
static int64_t group_size_of(const tp_job *j, const tp_rank_coll *k, size_t n, bool *implied)
{
    *implied = false;
    if (k->group_size > 0)
        return k->group_size;
    /* only where busbw depends on it (a broadcast's factor is 1 whatever the group) */
    bool sized = tp_coll_factor(k->kind, 2) != tp_coll_factor(k->kind, 3);
    if (sized && n >= 2 && n == j->nranks && (j->world_size <= 0 || j->world_size == (int64_t)j->nranks)) {
        *implied = true;
        return (int64_t)n;
    }
    return 0;
}

static size_t row_of(tp_job *j, rows *w, const tp_rank_coll *k, uint64_t bytes, size_t n)
{
    bool implied;
    int64_t gsize = group_size_of(j, k, n, &implied);
    w->key.len = 0;
    tp_buf_printf(&w->key, "%s\x1f%s\x1f%s\x1f%s\x1f%lld\x1f%llu", k->kind, k->dtype, k->group, k->ranks,
                  (long long)gsize, (unsigned long long)bytes);
    size_t before = w->keys.n;
    uint32_t id = tp_strset_add(&w->keys, w->key.data, w->key.len);
    if (w->keys.n > before) {
        size_t old = w->cap;
        TP_GROW(j->colls, w->cap, j->ncolls + 1);
        if (w->cap > old) {
            w->last_count = tp_xrealloc(w->last_count, w->cap * j->nranks * sizeof *w->last_count);
            w->last_wait = tp_xrealloc(w->last_wait, w->cap * j->nranks * sizeof *w->last_wait);
        }
        memset(w->last_count + j->ncolls * j->nranks, 0, j->nranks * sizeof *w->last_count);
        memset(w->last_wait + j->ncolls * j->nranks, 0, j->nranks * sizeof *w->last_wait);
        tp_job_coll *c = &j->colls[j->ncolls++];
        *c = (tp_job_coll){tp_xstrdup(k->kind), tp_xstrdup(k->dtype), tp_xstrdup(k->group), tp_xstrdup(k->ranks),
                           gsize, implied, bytes, .factor = tp_coll_factor(k->kind, gsize), .slowest_rank = -1};
    }
    return id - 1;
}

/* The window the last rank (refs[last]) was late in at this instance, on its own clock: from the
 * others' earliest arrival (their calls' starts, aligned) or the end of its previous collective call,
 * whichever is later, to its own call's start (docs/REPORT.md "Jobs", the straggler's evidence). */
static void late_window(const tp_job *j, const callref *refs, size_t n, size_t last, tp_job_cell *cell, int64_t late)
{
    size_t lr = refs[last].rank;
    const tp_rank_sum *ls = &j->ranks[lr].sum;
    const tp_rank_call *lc = &ls->calls[refs[last].call];
    int64_t first = INT64_MAX; /* the others' earliest arrival, on the reference clock */
    for (size_t i = 0; i < n; i++)
        if (i != last) {
            const tp_rank_call *c = &j->ranks[refs[i].rank].sum.calls[refs[i].call];
            int64_t at = tp_sat_add(c->start_ns, j->ranks[refs[i].rank].offset_ns);
            first = at < first ? at : first;
        }
    int64_t from = tp_sat_add(first, -j->ranks[lr].offset_ns), prev = INT64_MIN;
    for (size_t c = refs[last].call; c-- > 0;) /* its previous call: the calls are by start */
        if (ls->calls[c].start_ns < lc->start_ns) {
            prev = tp_sat_add(ls->calls[c].start_ns, ls->calls[c].dur_ns);
            break;
        }
    cell->late_worst_ns = late;
    cell->late_from_prev = prev > from;
    cell->late_from_ns = prev > from ? prev : from;
    cell->late_to_ns = lc->start_ns;
    cell->late_coll = lc->coll;
}

/* One instance: refs[0..n) are calls of distinct ranks. */
static void instance(tp_job *j, rows *w, const callref *refs, size_t n)
{
    int64_t transfer = INT64_MAX;
    size_t last = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_rank_sum *s = &j->ranks[refs[i].rank].sum;
        const tp_rank_call *c = &s->calls[refs[i].call];
        if (c->dur_ns < transfer) { /* ties: the lower rank (refs are by rank within an end) */
            transfer = c->dur_ns;
            last = i;
        }
        if (s->colls[c->coll].bytes > bytes)
            bytes = s->colls[c->coll].bytes;
    }
    const tp_rank_sum *ls = &j->ranks[refs[last].rank].sum;
    const tp_rank_call *lc = &ls->calls[refs[last].call];
    size_t row = row_of(j, w, &ls->colls[lc->coll], bytes, n);
    tp_job_coll *c = &j->colls[row];
    c->instances++;
    c->calls += n;
    c->participants += n;
    c->transfer_ns = tp_sat_add(c->transfer_ns, transfer);
    if (n == 1) {
        j->unmatched_calls++;
        c->single_rank++;
        c->rank_ns = tp_sat_add(c->rank_ns, transfer);
        return;
    }
    j->instances++;
    int64_t wait = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = refs[i].rank;
        const tp_rank_call *rc = &j->ranks[r].sum.calls[refs[i].call];
        int64_t waited = rc->dur_ns - transfer;
        c->rank_ns = tp_sat_add(c->rank_ns, rc->dur_ns);
        wait = tp_sat_add(wait, waited);
        j->ranks[r].waited_ns = tp_sat_add(j->ranks[r].waited_ns, waited);
        size_t k = step_of_call(w->win[r], w->nwin[r], rc->start_ns);
        if (k != SIZE_MAX) {
            tp_job_cell *cell = find_cell(j, r, k);
            if (cell) {
                cell->waited_ns = tp_sat_add(cell->waited_ns, waited);
                cell->instances++;
            }
        }
    }
    c->wait_ns = tp_sat_add(c->wait_ns, wait);
    if (wait <= 0)
        return; /* everyone arrived together: no one was last */
    size_t lr = refs[last].rank;
    j->ranks[lr].wait_caused_ns = tp_sat_add(j->ranks[lr].wait_caused_ns, wait);
    j->ranks[lr].last_arrivals++;
    w->last_count[row * j->nranks + lr]++;
    w->last_wait[row * j->nranks + lr] = tp_sat_add(w->last_wait[row * j->nranks + lr], wait);
    size_t k = step_of_call(w->win[lr], w->nwin[lr], lc->start_ns);
    if (k != SIZE_MAX) {
        tp_job_cell *cell = find_cell(j, lr, k);
        if (cell && wait / (int64_t)(n - 1) > cell->late_worst_ns)
            late_window(j, refs, n, last, cell, wait / (int64_t)(n - 1));
        if (cell) {
            cell->wait_caused_ns = tp_sat_add(cell->wait_caused_ns, wait);
            cell->late_ns = tp_sat_add(cell->late_ns, wait / (int64_t)(n - 1)); /* the sum grows with the ranks; this does not */
            cell->last_arrivals++;
        }
    }
}

static int cmp_colls(const void *pa, const void *pb)
{
    const tp_job_coll *a = pa, *b = pb;
    if (a->wait_ns != b->wait_ns)
        return a->wait_ns > b->wait_ns ? -1 : 1;
    if (a->transfer_ns != b->transfer_ns)
        return a->transfer_ns > b->transfer_ns ? -1 : 1;
    int k = strcmp(a->kind, b->kind);
    if (k)
        return k;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    if ((k = strcmp(a->group, b->group)) != 0)
        return k;
    if ((k = strcmp(a->ranks, b->ranks)) != 0)
        return k;
    return strcmp(a->dtype, b->dtype);
}

static void build_instances(tp_job *j)
{
    size_t total = 0;
    for (size_t r = 0; r < j->nranks; r++)
        total += j->ranks[r].sum.ncalls;
    callref *v = tp_xmalloc((total + 1) * sizeof *v);
    size_t n = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        const tp_rank_sum *s = &j->ranks[r].sum;
        for (size_t i = 0; i < s->ncalls; i++) {
            const tp_rank_call *c = &s->calls[i];
            const tp_rank_coll *k = &s->colls[c->coll];
            v[n++] = (callref){tp_sync_key(k->kind, k->group, k->ranks, -1), c->seq,
                               c->start_ns + c->dur_ns + j->ranks[r].offset_ns, (uint32_t)r, (uint32_t)i, 0};
        }
    }
    qsort(v, n, sizeof *v, cmp_rank_order);
    for (size_t i = 1; i < n; i++)
        if (v[i].key == v[i - 1].key && v[i].rank == v[i - 1].rank)
            v[i].ord = v[i - 1].ord + 1;
    qsort(v, n, sizeof *v, cmp_ref);
    rows w = {0};
    w.win = build_windows(j, &w.nwin);
    bool *in = tp_xcalloc(j->nranks + 1, sizeof *in);
    callref *group = tp_xmalloc((j->nranks + 1) * sizeof *group);
    for (size_t i = 0; i < n;) {
        /* an instance: same key and seq (when known), else ends within the tolerance; one call per rank */
        size_t m = 0, e = i;
        for (; e < n && v[e].key == v[i].key && (v[i].seq >= 0 ? v[e].seq == v[i].seq
                                                                 : v[e].seq < 0 && v[e].end - v[i].end <= TP_ALIGN_TOLERANCE_NS);
             e++) {
            if (in[v[e].rank])
                break;
            in[v[e].rank] = true;
            group[m++] = v[e];
        }
        for (size_t k = 0; k < m; k++)
            in[group[k].rank] = false;
        instance(j, &w, group, m);
        i = e;
    }
    for (size_t c = 0; c < j->ncolls; c++) {
        tp_job_coll *row = &j->colls[c];
        for (size_t r = 0; r < j->nranks; r++) {
            uint64_t cnt = w.last_count[c * j->nranks + r];
            int64_t wt = w.last_wait[c * j->nranks + r];
            if (cnt && (cnt > row->slowest_count || (cnt == row->slowest_count && wt > row->slowest_wait_ns))) {
                row->slowest_rank = j->ranks[r].rank;
                row->slowest_count = cnt;
                row->slowest_wait_ns = wt;
            }
        }
        row->algbw = row->bytes && row->transfer_ns > 0
                         ? (double)row->bytes * (double)row->instances / (double)row->transfer_ns
                         : 0;
        row->busbw = row->algbw * row->factor;
    }
    for (size_t r = 0; r < j->nranks; r++)
        free(w.win[r]);
    free(w.win);
    free(w.nwin);
    free(w.last_count);
    free(w.last_wait);
    tp_strset_free(&w.keys);
    tp_buf_free(&w.key);
    free(in);
    free(group);
    free(v);
}

/* ---- steps: medians, noise, flags ---- */

static void flag_steps(tp_job *j)
{
    int64_t *a = tp_xmalloc((j->nranks + 1) * sizeof *a), *b = tp_xmalloc((j->nranks + 1) * sizeof *b);
    int64_t *meds = tp_xmalloc((j->nsteps + 1) * sizeof *meds);
    size_t nmeds = 0;
    for (size_t k = 0; k < j->nsteps; k++) {
        tp_job_step *st = &j->steps[k];
        size_t n = 0;
        const uint32_t *in_step = j->by_step + j->step_cells[k];
        size_t m = j->step_cells[k + 1] - j->step_cells[k];
        for (size_t i = 0; i < m; i++) {
            const tp_job_cell *c = &j->cells[in_step[i]];
            a[n] = c->step_ns;
            b[n++] = c->computation_ns;
        }
        st->median_step_ns = median_of(a, n);
        st->median_computation_ns = median_of(b, n);
        if (n)
            meds[nmeds++] = st->median_step_ns;
        /* noise: 3 x the median absolute deviation of computation, at least 0.1% of the step and 10 us
         * (ranks of a synthetic job can be alike to the nanosecond) */
        for (size_t i = 0; i < n; i++)
            b[i] = llabs(b[i] - st->median_computation_ns);
        int64_t mad = median_of(b, n);
        int64_t noise = 3 * (mad > 0 ? mad : 0);
        if (noise < st->median_step_ns / 1000)
            noise = st->median_step_ns / 1000;
        if (noise < 10000)
            noise = 10000;
        st->noise_ns = noise;
        /* lateness: 1% of the step, at least 10 us (with two ranks the spread of computation is their
         * difference, which would hide any straggler) */
        st->wait_threshold_ns = st->median_step_ns / 100 > 10000 ? st->median_step_ns / 100 : 10000;
        /* the step's straggler: the rank whose late arrivals cost the most waiting */
        tp_job_cell *late_cell = NULL;
        for (size_t i = 0; i < m; i++) {
            tp_job_cell *c = &j->cells[in_step[i]];
            if (c->wait_caused_ns > st->wait_ns) {
                st->wait_ns = c->wait_caused_ns;
                st->straggler = j->ranks[c->rank].rank;
                late_cell = c;
            }
            if (n >= 2 && c->computation_ns > st->median_computation_ns + noise)
                c->flags |= TP_JOB_FLAG_COMPUTE;
            if (n >= 2 && c->step_ns > st->median_step_ns + noise)
                c->flags |= TP_JOB_FLAG_STEP;
        }
        int64_t late = late_cell ? late_cell->late_ns : 0;
        if (st->straggler >= 0 && late_cell && late > st->wait_threshold_ns)
            late_cell->flags |= TP_JOB_FLAG_ARRIVAL;
        else
            st->straggler = -1;
    }
    j->median_step_ns = median_of(meds, nmeds);
    free(meds);
    free(a);
    free(b);
    size_t cap = 0;
    for (size_t k = 0; k < j->nsteps; k++)
        for (size_t i = j->step_cells[k]; i < j->step_cells[k + 1]; i++) {
            const tp_job_cell *c = &j->cells[j->by_step[i]];
            size_t r = c->rank;
            if (!c->flags)
                continue;
            j->ranks[r].flags |= c->flags;
            TP_GROW(j->stragglers, cap, j->nstragglers + 1);
            j->stragglers[j->nstragglers++] = (tp_job_straggler){
                j->steps[k].number, j->ranks[r].rank, c->flags, c->computation_ns,
                j->steps[k].median_computation_ns, c->step_ns, j->steps[k].median_step_ns, c->wait_caused_ns,
                c->late_ns, c->last_arrivals, c->instances, j->steps[k].noise_ns, j->steps[k].wait_threshold_ns};
        }
}

/* ---- per rank headline figures and their spread ---- */

static void rank_figures(tp_job *j)
{
    int64_t *v = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        tp_job_rank *x = &j->ranks[r];
        const tp_rank_sum *s = &x->sum;
        TP_GROW(v, cap, s->nsteps + 1);
        for (size_t i = 0; i < s->nsteps; i++)
            v[i] = s->steps[i].dur_ns;
        x->median_step_ns = median_of(v, s->nsteps);
        x->computation_ns = s->whole.computation_ns;
        x->communication_ns = s->whole.communication_ns;
        x->exposed_communication_ns = s->whole.exposed_communication_ns;
        x->idle_ns = s->whole.idle_ns;
        x->span_ns = s->whole.span_ns;
        x->overlap_milli_pct = tp_gpu_overlap_milli_pct(&s->whole);
    }
    free(v);
    static const char *names[TP_JOB_SPREADS] = {"median_step_ns", "gpu_span_computation_ns",
                                                "gpu_span_communication_ns", "gpu_span_exposed_communication_ns",
                                                "gpu_span_idle_ns", "wait_caused_ns"};
    int64_t *vals = tp_xmalloc((j->nranks + 1) * sizeof *vals);
    for (int f = 0; f < TP_JOB_SPREADS; f++) {
        tp_job_spread *sp = &j->spread[f];
        *sp = (tp_job_spread){names[f], -1, -1, -1, -1, -1, 0};
        size_t n = 0;
        for (size_t r = 0; r < j->nranks; r++) {
            const tp_job_rank *x = &j->ranks[r];
            int64_t val = f == 0 ? x->median_step_ns : f == 1 ? x->computation_ns : f == 2 ? x->communication_ns
                          : f == 3 ? x->exposed_communication_ns : f == 4 ? x->idle_ns : x->wait_caused_ns;
            if (val < 0)
                continue;
            if (!n || val < sp->min) { /* ties: the lower rank (ranks are in order) */
                sp->min = val;
                sp->min_rank = x->rank;
            }
            if (!n || val > sp->max) {
                sp->max = val;
                sp->max_rank = x->rank;
            }
            vals[n++] = val;
        }
        sp->ranks = (uint32_t)n;
        sp->median = median_of(vals, n);
    }
    free(vals);
}

int tp_job_build(tp_rank_sum *sums, size_t n, tp_job *job, tp_err *err)
{
    memset(job, 0, sizeof *job);
    job->world_size = -1;
    if (!n)
        return tp_fail_at(err, "", "a job of no rank");
    tp_dist_info *d = tp_xcalloc(n + 1, sizeof *d);
    tp_pg_info *pg = tp_xcalloc(n + 1, sizeof *pg);
    const char **paths = tp_xcalloc(n + 1, sizeof *paths);
    int64_t *rank = tp_xcalloc(n + 1, sizeof *rank);
    int *from = tp_xcalloc(n + 1, sizeof *from);
    for (size_t i = 0; i < n; i++) {
        tp_rank_sum_dist(&sums[i], &d[i], &pg[i]);
        paths[i] = sums[i].path;
        if (sums[i].world_size >= 1)
            job->world_size = sums[i].world_size;
    }
    int rc = tp_job_assign_ranks(d, paths, n, rank, from, err);
    free(d);
    free(pg);
    free(paths);
    if (rc < 0) {
        free(rank);
        free(from);
        return -1;
    }
    job->ranks = tp_xcalloc(n + 1, sizeof *job->ranks);
    job->nranks = n;
    for (size_t i = 0; i < n; i++) {
        job->ranks[i] = (tp_job_rank){.sum = sums[i], .rank = rank[i], .rank_from = from[i]};
        memset(&sums[i], 0, sizeof sums[i]);
    }
    free(rank);
    free(from);
    if (n > 1)
        qsort(job->ranks, n, sizeof *job->ranks, cmp_rank);
    align(job);
    build_steps(job);
    build_instances(job);
    if (job->ncolls > 1)
        qsort(job->colls, job->ncolls, sizeof *job->colls, cmp_colls);
    flag_steps(job);
    rank_figures(job);
    tp_job_findings_build(job, &job->findings);
    return 0;
}

void tp_job_free(tp_job *job)
{
    for (size_t r = 0; r < job->nranks; r++)
        tp_rank_sum_free(&job->ranks[r].sum);
    free(job->ranks);
    free(job->steps);
    free(job->cells);
    free(job->rank_cells);
    free(job->by_step);
    free(job->step_cells);
    for (size_t i = 0; i < job->ncolls; i++) {
        free(job->colls[i].kind);
        free(job->colls[i].dtype);
        free(job->colls[i].group);
        free(job->colls[i].ranks);
    }
    free(job->colls);
    free(job->stragglers);
    tp_findings_free(&job->findings);
    for (size_t i = 0; i < job->nlate; i++)
        for (int q = 0; q < TP_RANK_BEFORE_TOP; q++) {
            free(job->late[i].kernels[q].name);
            free(job->late[i].ops[q].name);
        }
    memset(job, 0, sizeof *job);
}

int64_t tp_job_top_straggler(const tp_job *j, size_t *steps_out, int64_t *wait_out)
{
    int64_t best = -1, best_wait = 0;
    size_t best_steps = 0;
    for (size_t r = 0; r < j->nranks; r++) {
        size_t steps = 0;
        for (size_t i = j->rank_cells[r]; i < j->rank_cells[r + 1]; i++)
            steps += (j->cells[i].flags & TP_JOB_FLAG_ARRIVAL) != 0;
        if (steps > best_steps || (steps == best_steps && steps && j->ranks[r].wait_caused_ns > best_wait)) {
            best = j->ranks[r].rank;
            best_steps = steps;
            best_wait = j->ranks[r].wait_caused_ns;
        }
    }
    *steps_out = best_steps;
    *wait_out = best_wait;
    return best;
}

bool tp_job_missing_ranks(const tp_job *j, char *buf, size_t n)
{
    if (j->world_size <= 0 || (int64_t)j->nranks >= j->world_size)
        return false;
    snprintf(buf, n, "only %zu of the world's %lld ranks are in these traces: the last to arrive of the ranks present "
                     "may itself have waited for an absent rank, so who straggles, the waiting, and the collectives' "
                     "transfer times (hence algbw and busbw, which may include waiting) are over the ranks present",
             j->nranks, (long long)j->world_size);
    return true;
}
