/* clock_align.c: a job's clock offsets from collective ends (clock_align.h). */
#include "convert/model/clock_align.h"
#include "convert/base/sort.h"

#include <stdlib.h>
#include <string.h>

#define VOTERS 64
#define CANDIDATES 8
#define MAX_VOTES (1u << 20) /* differences collected per rank, at most (8 MB) */
#define MIN_MATCHED 2

uint64_t tp_sync_key(const char *kind, const char *group, const char *ranks, int64_t seq)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the fields, 0x1f between */
    const char *parts[3] = {kind, group, ranks};
    for (int p = 0; p < 3; p++) {
        for (const char *s = parts[p] ? parts[p] : ""; *s; s++)
            h = (h ^ (unsigned char)*s) * 1099511628211ull;
        h = (h ^ 0x1f) * 1099511628211ull;
    }
    for (int i = 0; i < 8; i++)
        h = (h ^ (uint8_t)((uint64_t)seq >> (8 * i))) * 1099511628211ull;
    return h;
}

const char *tp_align_method_name(int method)
{
    return method == TP_ALIGN_REFERENCE ? "reference" : method == TP_ALIGN_COLLECTIVES ? "collectives" : "recorded";
}

static inline bool pt_before(const tp_sync_point *a, const tp_sync_point *b, void *c)
{
    (void)c;
    return a->key != b->key ? a->key < b->key : a->end_ns < b->end_ns;
}
TP_SORT_DEFINE(sort_points, tp_sync_point, void *, pt_before)
static inline bool i64_before(const int64_t *a, const int64_t *b, void *c)
{
    (void)c;
    return *a < *b;
}
TP_SORT_DEFINE(sort_i64, int64_t, void *, i64_before)

/* The points of the aligned ranks, on the reference's clock, by (key, end). */
typedef struct pool {
    tp_sync_point *v;
    size_t n, cap;
} pool;

static size_t first_of_key(const pool *p, uint64_t key, int64_t end)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->v[mid].key < key || (p->v[mid].key == key && p->v[mid].end_ns < end))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Does a point of `key` end within the tolerance of `end`?  Its difference in *d. */
static bool partner(const pool *p, uint64_t key, int64_t end, int64_t *d)
{
    size_t i = first_of_key(p, key, end - TP_ALIGN_TOLERANCE_NS);
    if (i < p->n && p->v[i].key == key && p->v[i].end_ns <= end + TP_ALIGN_TOLERANCE_NS) {
        /* the nearest of the points in the window */
        int64_t best = p->v[i].end_ns - end;
        for (size_t j = i + 1; j < p->n && p->v[j].key == key && p->v[j].end_ns <= end + TP_ALIGN_TOLERANCE_NS; j++)
            if (llabs(p->v[j].end_ns - end) < llabs(best))
                best = p->v[j].end_ns - end;
        *d = best;
        return true;
    }
    return false;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static inline bool end_before(const tp_sync_point *a, const tp_sync_point *b, void *c)
{
    (void)c;
    return a->end_ns < b->end_ns;
}
TP_SORT_DEFINE(sort_by_end, tp_sync_point, void *, end_before)

/* The differences from VOTERS points spread evenly over the rank's time
 * (its first and last among them) to the points of their key in q.  Spread,
 * not the first ones: with periodic calls, a shift by k periods pairs up all
 * the first points too, and only the far end tells it from the true one. */
static int64_t *votes(const pool *q, const tp_sync_point *pts, size_t n, size_t *nc_out)
{
    tp_sync_point *s = tp_xmalloc((n + 1) * sizeof *s);
    memcpy(s, pts, n * sizeof *s);
    sort_by_end(s, n, NULL);
    size_t nv = n < VOTERS ? n : VOTERS;
    int64_t *cand = NULL;
    size_t nc = 0, cc = 0;
    for (size_t k = 0; k < nv && nc < MAX_VOTES; k++) {
        const tp_sync_point *v = &s[nv > 1 ? k * (n - 1) / (nv - 1) : 0];
        for (size_t j = first_of_key(q, v->key, INT64_MIN); j < q->n && q->v[j].key == v->key && nc < MAX_VOTES; j++) {
            int64_t d = q->v[j].end_ns - v->end_ns; /* both within the bounds: no overflow */
            if (d < -TP_ALIGN_MAX_OFFSET_NS || d > TP_ALIGN_MAX_OFFSET_NS)
                continue;
            TP_GROW(cand, cc, nc + 1);
            cand[nc++] = d;
        }
    }
    free(s);
    *nc_out = nc;
    return cand;
}

/* More votes, else the smaller |offset|, else the smaller offset. */
static bool better(size_t va, int64_t oa, size_t vb, int64_t ob)
{
    if (va != vb)
        return va > vb;
    return abs64(oa) != abs64(ob) ? abs64(oa) < abs64(ob) : oa < ob;
}

static void align_one(const pool *ref, const pool *p, const tp_sync_point *pts, size_t n, tp_align_result *r)
{
    memset(r, 0, sizeof *r);
    r->method = TP_ALIGN_RECORDED;
    /* votes against the reference's points; against every aligned rank's
     * when the reference shares no key with this rank (another group) */
    size_t nc;
    int64_t *cand = votes(ref, pts, n, &nc);
    if (!nc) {
        free(cand);
        cand = votes(p, pts, n, &nc);
    }
    if (!nc) {
        free(cand);
        return;
    }
    sort_i64(cand, nc, NULL);
    /* the windows of the tolerance with the most votes: up to CANDIDATES
     * distinct offsets (each a window's median), most votes first, ties by
     * the smaller |offset| (periodic calls give many windows as many votes:
     * the nearest must stay in) */
    int64_t best_off[CANDIDATES] = {0};
    size_t best_votes[CANDIDATES] = {0}, nb = 0;
    for (size_t i = 0, j = 0; i < nc; i++) {
        if (i && cand[i] == cand[i - 1])
            continue;
        while (j < nc && cand[j] <= cand[i] + TP_ALIGN_TOLERANCE_NS)
            j++;
        size_t votes_here = j - i;
        int64_t off = cand[i + (j - i) / 2];
        bool seen = false;
        for (size_t q = 0; q < nb && !seen; q++)
            seen = best_off[q] == off;
        if (seen || (nb == CANDIDATES && !better(votes_here, off, best_votes[CANDIDATES - 1], best_off[CANDIDATES - 1])))
            continue;
        size_t at = nb < CANDIDATES ? nb++ : CANDIDATES - 1;
        best_off[at] = off;
        best_votes[at] = votes_here;
        for (size_t q = at; q > 0 && better(best_votes[q], best_off[q], best_votes[q - 1], best_off[q - 1]); q--) {
            size_t tv = best_votes[q];
            best_votes[q] = best_votes[q - 1];
            best_votes[q - 1] = tv;
            int64_t to = best_off[q];
            best_off[q] = best_off[q - 1];
            best_off[q - 1] = to;
        }
    }
    free(cand);
    /* score each candidate on all the points */
    size_t best_score = 0;
    int64_t best = 0;
    for (size_t c = 0; c < nb; c++) {
        size_t score = 0;
        int64_t d;
        for (size_t i = 0; i < n; i++)
            score += partner(p, pts[i].key, pts[i].end_ns + best_off[c], &d);
        if (score > best_score || (score == best_score && score &&
                                   (abs64(best_off[c]) < abs64(best) ||
                                    (abs64(best_off[c]) == abs64(best) && best_off[c] < best)))) {
            best_score = score;
            best = best_off[c];
        }
    }
    /* one point always finds its own partner: it says nothing */
    if (best_score < MIN_MATCHED)
        return;
    /* the median difference over the matched points (of the middle two,
     * their mean rounded down), and their spread */
    int64_t *diffs = tp_xmalloc((n + 1) * sizeof *diffs);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        if (partner(p, pts[i].key, pts[i].end_ns + best, &d))
            diffs[nd++] = best + d;
    }
    sort_i64(diffs, nd, NULL);
    int64_t lo = diffs[(nd - 1) / 2], hi = diffs[nd / 2];
    r->offset_ns = lo + (hi - lo) / 2;
    r->method = TP_ALIGN_COLLECTIVES;
    r->matched = (uint32_t)nd;
    for (size_t i = 0; i < nd; i++)
        if (abs64(diffs[i] - r->offset_ns) > r->spread_ns)
            r->spread_ns = abs64(diffs[i] - r->offset_ns);
    free(diffs);
}

static void pool_add(pool *p, const tp_sync_point *pts, size_t n, int64_t offset)
{
    TP_GROW(p->v, p->cap, p->n + n + 1);
    for (size_t i = 0; i < n; i++)
        p->v[p->n++] = (tp_sync_point){pts[i].key, pts[i].end_ns + offset};
    sort_points(p->v, p->n, NULL);
}

void tp_clock_align(const tp_sync_point *const *ranks, const size_t *n, size_t nranks, tp_align_result *out)
{
    pool p = {0}, ref = {0};
    tp_sync_point *pts = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < nranks; r++) {
        size_t k = 0; /* the rank's points within the bounds */
        TP_GROW(pts, cap, n[r] + 1);
        for (size_t i = 0; i < n[r]; i++)
            if (ranks[r][i].end_ns >= -TP_ALIGN_MAX_END_NS && ranks[r][i].end_ns <= TP_ALIGN_MAX_END_NS)
                pts[k++] = ranks[r][i];
        if (r == 0) {
            out[r] = (tp_align_result){0, TP_ALIGN_REFERENCE, 0, 0};
            pool_add(&ref, pts, k, 0);
        } else
            align_one(&ref, &p, pts, k, &out[r]);
        /* a rank not aligned is no evidence for the next ones */
        if (out[r].method != TP_ALIGN_RECORDED)
            pool_add(&p, pts, k, out[r].offset_ns);
    }
    free(pts);
    free(p.v);
    free(ref.v);
}
