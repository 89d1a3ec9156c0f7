/* clock_align.c: a job's clock offsets from collective ends (clock_align.h). */
#include "convert/model/clock_align.h"
#include "convert/base/i64map.h"
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
static inline bool end_before(const tp_sync_point *a, const tp_sync_point *b, void *c)
{
    (void)c;
    return a->end_ns < b->end_ns;
}
TP_SORT_DEFINE(sort_by_end, tp_sync_point, void *, end_before)

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* The partners: per key, the ends (on the reference's clock, ascending) of
 * the first aligned rank that has calls of that key.  One rank per key, so
 * that calls pair one to one and in order; the first one, so that a key the
 * reference has is matched against the reference. */
typedef struct partners {
    tp_i64map of_key; /* key -> index into at/len */
    size_t *at, *len; /* each key's run in ends */
    size_t nkeys, kcap;
    int64_t *ends;
    size_t n, cap;
} partners;

static const int64_t *partners_of(const partners *p, uint64_t key, size_t *m)
{
    uint32_t k = tp_i64map_get(&p->of_key, (int64_t)key);
    if (k == TP_I64MAP_EMPTY) {
        *m = 0;
        return NULL;
    }
    *m = p->len[k];
    return p->ends + p->at[k];
}

/* The first index of v[0..m) with v[i] >= x. */
static size_t lower_bound(const int64_t *v, size_t m, int64_t x)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The differences from VOTERS points spread evenly over the rank's time
 * (its first and last among them) to the partners of their key.  Spread,
 * not the first ones: with periodic calls, a shift by k periods pairs up all
 * the first points too, and only the far end tells it from the true one.
 * A voter votes for at most MAX_VOTES / VOTERS partners: those nearest its
 * own place in its key's order (the i-th of n calls looks around the
 * i*m/n-th of the m partners), so that a capped vote stays centred on the
 * in-order pairing instead of leaning to the partners that come first.
 * s: the rank's points by (key, end). */
static int64_t *votes(const partners *p, const tp_sync_point *s, size_t n, size_t *nc_out)
{
    tp_sync_point *t = tp_xmalloc((n + 1) * sizeof *t);
    memcpy(t, s, n * sizeof *t);
    sort_by_end(t, n, NULL);
    size_t nv = n < VOTERS ? n : VOTERS, quota = MAX_VOTES / VOTERS;
    int64_t *cand = NULL;
    size_t nc = 0, cc = 0;
    for (size_t k = 0; k < nv; k++) {
        const tp_sync_point *v = &t[nv > 1 ? k * (n - 1) / (nv - 1) : 0];
        size_t m;
        const int64_t *e = partners_of(p, v->key, &m);
        if (!m)
            continue;
        /* the voter's place among the rank's calls of its key */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s[mid].key < v->key)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t first = lo;
        for (hi = n; lo < hi;) {
            size_t mid = (lo + hi) / 2;
            if (s[mid].key == v->key && s[mid].end_ns < v->end_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t own = lo - first, count = own + 1;
        while (first + count < n && s[first + count].key == v->key)
            count++;
        size_t from = 0, to = m;
        if (m > quota) {
            size_t centre = (size_t)((double)own * (double)m / (double)count);
            from = centre > quota / 2 ? centre - quota / 2 : 0;
            if (from + quota > m)
                from = m - quota;
            to = from + quota;
        }
        for (size_t j = from; j < to; j++) {
            int64_t d; /* a partner is an end plus an offset: up to 5 x 2^60 from a point */
            if (__builtin_sub_overflow(e[j], v->end_ns, &d) || d < -TP_ALIGN_MAX_OFFSET_NS ||
                d > TP_ALIGN_MAX_OFFSET_NS)
                continue;
            TP_GROW(cand, cc, nc + 1);
            cand[nc++] = d;
        }
    }
    free(t);
    *nc_out = nc;
    return cand;
}

/* The points of s (by key, end) shifted by `off` paired with the partners in
 * order: per key, each point with the earliest partner not yet paired that
 * ends within the tolerance (the most pairs any order-keeping pairing
 * gets).  Returns the pairs; their differences (partner - point) in diffs
 * when not NULL.  O(n + the partners passed). */
static size_t pair_up(const partners *p, const tp_sync_point *s, size_t n, int64_t off, int64_t *diffs)
{
    size_t pairs = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && s[e].key == s[i].key)
            e++;
        size_t m;
        const int64_t *v = partners_of(p, s[i].key, &m);
        size_t j = m ? lower_bound(v, m, s[i].end_ns + off - TP_ALIGN_TOLERANCE_NS) : 0;
        for (; i < e && j < m; i++) {
            int64_t x = s[i].end_ns + off;
            while (j < m && v[j] < x - TP_ALIGN_TOLERANCE_NS)
                j++;
            if (j < m && v[j] <= x + TP_ALIGN_TOLERANCE_NS) {
                if (diffs)
                    diffs[pairs] = v[j] - s[i].end_ns;
                pairs++;
                j++;
            }
        }
        i = e;
    }
    return pairs;
}

/* More votes, else the smaller |offset|, else the smaller offset. */
static bool better(size_t va, int64_t oa, size_t vb, int64_t ob)
{
    if (va != vb)
        return va > vb;
    return abs64(oa) != abs64(ob) ? abs64(oa) < abs64(ob) : oa < ob;
}

/* s: the rank's points by (key, end). */
static void align_one(const partners *p, const tp_sync_point *s, size_t n, tp_align_result *r)
{
    memset(r, 0, sizeof *r);
    r->method = TP_ALIGN_RECORDED;
    size_t nc;
    int64_t *cand = votes(p, s, n, &nc);
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
        size_t score = pair_up(p, s, n, best_off[c], NULL);
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
    /* the median difference over the paired points (of the middle two,
     * their mean rounded down), and their spread */
    int64_t *diffs = tp_xmalloc((n + 1) * sizeof *diffs);
    size_t nd = pair_up(p, s, n, best, diffs);
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

/* The keys of s (by key, end) that no aligned rank had yet become partners,
 * shifted by offset. */
static void partners_add(partners *p, const tp_sync_point *s, size_t n, int64_t offset)
{
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && s[e].key == s[i].key)
            e++;
        if (tp_i64map_get(&p->of_key, (int64_t)s[i].key) == TP_I64MAP_EMPTY) {
            size_t kc = p->kcap;
            TP_GROW(p->at, kc, p->nkeys + 1);
            TP_GROW(p->len, p->kcap, p->nkeys + 1);
            p->at[p->nkeys] = p->n;
            p->len[p->nkeys] = e - i;
            tp_i64map_put(&p->of_key, (int64_t)s[i].key, (uint32_t)p->nkeys++);
            TP_GROW(p->ends, p->cap, p->n + (e - i) + 1);
            for (size_t k = i; k < e; k++)
                p->ends[p->n++] = s[k].end_ns + offset;
        }
        i = e;
    }
}

void tp_clock_align(const tp_sync_point *const *ranks, const size_t *n, size_t nranks, tp_align_result *out)
{
    partners p = {0};
    tp_sync_point *pts = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < nranks; r++) {
        size_t k = 0; /* the rank's points within the bounds */
        TP_GROW(pts, cap, n[r] + 1);
        for (size_t i = 0; i < n[r]; i++)
            if (ranks[r][i].end_ns >= -TP_ALIGN_MAX_END_NS && ranks[r][i].end_ns <= TP_ALIGN_MAX_END_NS)
                pts[k++] = ranks[r][i];
        sort_points(pts, k, NULL);
        if (r == 0)
            out[r] = (tp_align_result){0, TP_ALIGN_REFERENCE, 0, 0};
        else
            align_one(&p, pts, k, &out[r]);
        /* a rank not aligned is no evidence for the next ones */
        if (out[r].method != TP_ALIGN_RECORDED)
            partners_add(&p, pts, k, out[r].offset_ns);
    }
    free(pts);
    free(p.at);
    free(p.len);
    free(p.ends);
    tp_i64map_free(&p.of_key);
}
