/* globset.c: first matching glob of an ordered set (globset.h). */
#include "convert/base/globset.h"
#include "convert/base/i64map.h"
#include "convert/base/strset.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define NO_ID UINT32_MAX

/* A byte trie: edges in a hash map (node << 8 | byte -> child), node 0 the
 * root; two values per node (the smallest ids of the patterns ending there). */
typedef struct trie {
    tp_i64map edge;
    uint32_t *v1, *v2;
    size_t n, cap;
} trie;

static uint32_t trie_new_node(trie *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->v1 = tp_xrealloc(t->v1, t->cap * sizeof *t->v1);
        t->v2 = tp_xrealloc(t->v2, t->cap * sizeof *t->v2);
    }
    t->v1[t->n] = t->v2[t->n] = NO_ID;
    return (uint32_t)t->n++;
}

static uint32_t trie_child(const trie *t, uint32_t node, unsigned char c)
{
    return t->cap ? tp_i64map_get(&t->edge, ((int64_t)node << 8) | c) : TP_I64MAP_EMPTY;
}

/* The node of s[0..n) (read backwards when reverse), made as needed. */
static uint32_t trie_insert(trie *t, const unsigned char *s, size_t n, bool reverse)
{
    if (!t->n)
        trie_new_node(t);
    uint32_t node = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = reverse ? s[n - 1 - i] : s[i];
        uint32_t k = trie_child(t, node, c);
        if (k == TP_I64MAP_EMPTY) {
            k = trie_new_node(t);
            tp_i64map_put(&t->edge, ((int64_t)node << 8) | c, k);
        }
        node = k;
    }
    return node;
}

static void trie_free(trie *t)
{
    tp_i64map_free(&t->edge);
    free(t->v1);
    free(t->v2);
}

static void keep_min(uint32_t *slot, uint32_t id)
{
    if (id < *slot)
        *slot = id;
}

/* a pattern tried with fnmatch (see globset.h) */
typedef struct general {
    char *pattern;
    uint32_t id;
    uint32_t next; /* the next general pattern of the same literal piece, NO_ID ends */
} general;

struct tp_globset {
    bool casefold, sealed;
    uint32_t all_min;   /* patterns of stars only */
    trie fwd;           /* v1 exact names, v2 prefixes */
    trie back;          /* v1 suffixes (reversed) */
    trie ac;            /* v1 substrings, v2 the first general pattern of this piece */
    uint32_t *fail, *out_min, *gen_link; /* per ac node, after seal */
    general *gen;
    size_t ngen, gcap;
    uint32_t *pieceless; /* general patterns without a literal piece (indexes into gen) */
    size_t npieceless, pcap;
    tp_strset pats;      /* the general patterns' texts: a repeated one is one entry of the */
    uint32_t *gen_of;    /* smallest id (first match never reaches the others), so a table of */
    size_t npats, gocap; /* 60k copies of `[0-9]*` costs one fnmatch per name, not 60k */
};

tp_globset *tp_globset_new(bool casefold)
{
    tp_globset *g = tp_xcalloc(1, sizeof *g);
    g->casefold = casefold;
    g->all_min = NO_ID;
    return g;
}

static unsigned char fold(const tp_globset *g, unsigned char c)
{
    return g->casefold && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* the pattern bytes s[0..n) folded into a fresh buffer */
static unsigned char *folded(const tp_globset *g, const char *s, size_t n)
{
    unsigned char *f = tp_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++)
        f[i] = fold(g, (unsigned char)s[i]);
    f[n] = 0;
    return f;
}

static bool is_glob_char(char c) { return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\'; }

/* Just past the ']' that closes the bracket expression opening at p[i], as
 * fnmatch reads it (after '[', '!' or '^', the first member may be ']'; a
 * backslash escapes the next character), or 0 when this is not certain: no
 * ']' (fnmatch then takes the '[' as a literal), a class, collating symbol or
 * equivalence class ("[:", "[.", "[=": their own rules for where they end). */
static size_t bracket_end(const char *p, size_t n, size_t i)
{
    size_t j = i + 1;
    if (j < n && (p[j] == '!' || p[j] == '^'))
        j++;
    for (bool first = true; j < n; first = false) {
        if (p[j] == '\\') {
            j += 2;
            continue;
        }
        if (p[j] == '[' && j + 1 < n && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '='))
            return 0;
        if (p[j] == ']' && !first)
            return j + 1;
        j++;
    }
    return 0;
}

/* The longest run of plain characters of p outside bracket expressions
 * (runs after a bracket whose end is not certain are not considered).  Each
 * such run matches itself only (case folded), so it occurs in every name the
 * pattern matches.  Its start and length (0: none). */
static void longest_piece(const char *p, size_t n, size_t *at, size_t *len)
{
    *at = *len = 0;
    size_t run = 0, i = 0;
    for (;;) {
        bool plain = i < n && !is_glob_char(p[i]);
        if (plain) {
            run++;
            i++;
            continue;
        }
        if (run > *len) {
            *len = run;
            *at = i - run;
        }
        run = 0;
        if (i >= n)
            return;
        if (p[i] == '[') {
            i = bracket_end(p, n, i);
            if (!i)
                return;
        } else
            i += p[i] == '\\' ? 2 : 1; /* an escaped character: left out of the runs */
    }
}

void tp_globset_add(tp_globset *g, const char *pattern, uint32_t id)
{
    size_t n = strlen(pattern), a = 0, b = n;
    while (a < n && pattern[a] == '*')
        a++;
    while (b > a && pattern[b - 1] == '*')
        b--;
    bool plain = true;
    for (size_t i = a; i < b; i++)
        plain = plain && !is_glob_char(pattern[i]);
    /* a middle ending in a backslash made the trailing star literal: not plain, tried by fnmatch */
    if (plain) {
        unsigned char *lit = folded(g, pattern + a, b - a);
        size_t ln = b - a;
        /* the node first: inserting may move the value arrays */
        if (ln == 0 && n > 0) {
            keep_min(&g->all_min, id); /* "*", "**": every name */
        } else if (a == 0) { /* (the empty pattern: the empty name only, at the root) */
            uint32_t node = trie_insert(&g->fwd, lit, ln, false);
            keep_min(b == n ? &g->fwd.v1[node] : &g->fwd.v2[node], id);
        } else if (b == n) {
            uint32_t node = trie_insert(&g->back, lit, ln, true);
            keep_min(&g->back.v1[node], id);
        } else {
            uint32_t node = trie_insert(&g->ac, lit, ln, false);
            keep_min(&g->ac.v1[node], id);
        }
        free(lit);
        return;
    }
    uint32_t pid = tp_strset_add(&g->pats, pattern, n); /* ids from 1, in order of first add */
    if (pid <= g->npats) {
        keep_min(&g->gen[g->gen_of[pid - 1]].id, id);
        return;
    }
    TP_GROW(g->gen_of, g->gocap, g->npats + 1);
    g->gen_of[g->npats++] = (uint32_t)g->ngen;
    TP_GROW(g->gen, g->gcap, g->ngen + 1);
    general *e = &g->gen[g->ngen];
    *e = (general){tp_xstrdup(pattern), id, NO_ID};
    size_t at, len;
    longest_piece(pattern, n, &at, &len);
    if (len == 0) {
        TP_GROW(g->pieceless, g->pcap, g->npieceless + 1);
        g->pieceless[g->npieceless++] = (uint32_t)g->ngen;
    } else {
        unsigned char *lit = folded(g, pattern + at, len);
        uint32_t node = trie_insert(&g->ac, lit, len, false);
        free(lit);
        e->next = g->ac.v2[node];
        g->ac.v2[node] = (uint32_t)g->ngen;
    }
    g->ngen++;
}

void tp_globset_seal(tp_globset *g)
{
    g->sealed = true;
    if (!g->ac.n)
        trie_new_node(&g->ac);
    size_t n = g->ac.n;
    /* children lists for the breadth-first walk: (parent, byte) of each node */
    uint32_t *head = tp_xmalloc(n * sizeof *head), *next = tp_xmalloc(n * sizeof *next);
    unsigned char *by = tp_xmalloc(n);
    for (size_t i = 0; i < n; i++)
        head[i] = NO_ID;
    for (size_t s = 0; s < g->ac.edge.cap; s++) {
        if (g->ac.edge.vals[s] == TP_I64MAP_EMPTY)
            continue;
        uint32_t parent = (uint32_t)(g->ac.edge.keys[s] >> 8), child = g->ac.edge.vals[s];
        by[child] = (unsigned char)(g->ac.edge.keys[s] & 0xFF);
        next[child] = head[parent];
        head[parent] = child;
    }
    g->fail = tp_xcalloc(n, sizeof *g->fail);
    g->out_min = tp_xmalloc(n * sizeof *g->out_min);
    g->gen_link = tp_xmalloc(n * sizeof *g->gen_link); /* the nearest proper suffix node holding general patterns */
    uint32_t *queue = tp_xmalloc(n * sizeof *queue);
    size_t qh = 0, qt = 0;
    queue[qt++] = 0;
    g->out_min[0] = g->ac.v1[0];
    g->gen_link[0] = NO_ID;
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (uint32_t v = head[u]; v != NO_ID; v = next[v]) {
            uint32_t f = NO_ID;
            if (u != 0) {
                uint32_t w = g->fail[u];
                for (;;) {
                    uint32_t k = trie_child(&g->ac, w, by[v]);
                    if (k != TP_I64MAP_EMPTY) {
                        f = k;
                        break;
                    }
                    if (w == 0)
                        break;
                    w = g->fail[w];
                }
            }
            g->fail[v] = f == NO_ID ? 0 : f;
            uint32_t fv = g->fail[v];
            g->out_min[v] = g->ac.v1[v] < g->out_min[fv] ? g->ac.v1[v] : g->out_min[fv];
            g->gen_link[v] = fv != 0 && g->ac.v2[fv] != NO_ID ? fv : g->gen_link[fv];
            queue[qt++] = v;
        }
    }
    free(queue);
    free(head);
    free(next);
    free(by);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

uint32_t tp_globset_first(const tp_globset *g, const char *s, uint64_t *fnmatch_calls)
{
    size_t n = strlen(s);
    const unsigned char *u = (const unsigned char *)s;
    uint32_t best = g->all_min;
    /* exact names and prefixes */
    uint32_t node = 0;
    if (g->fwd.n) {
        keep_min(&best, g->fwd.v2[0]);
        size_t i = 0;
        for (; i < n && (node = trie_child(&g->fwd, node, fold(g, u[i]))) != TP_I64MAP_EMPTY; i++)
            keep_min(&best, g->fwd.v2[node]);
        if (i == n)
            keep_min(&best, g->fwd.v1[node]);
    }
    /* suffixes */
    node = 0;
    for (size_t i = n; g->back.n && i > 0 && (node = trie_child(&g->back, node, fold(g, u[i - 1]))) != TP_I64MAP_EMPTY; i--)
        keep_min(&best, g->back.v1[node]);
    /* substrings, and the general patterns whose piece occurs (each node's list once) */
    uint32_t *cand = NULL;
    size_t ncand = 0, ccap = 0;
    tp_i64map seen = {0};
    node = 0;
    for (size_t i = 0; i < n && g->ac.n > 1; i++) {
        unsigned char c = fold(g, u[i]);
        for (;;) {
            uint32_t k = trie_child(&g->ac, node, c);
            if (k != TP_I64MAP_EMPTY) {
                node = k;
                break;
            }
            if (node == 0)
                break;
            node = g->fail[node];
        }
        keep_min(&best, g->out_min[node]);
        for (uint32_t v = g->ac.v2[node] != NO_ID ? node : g->gen_link[node]; v != NO_ID && v != 0;
             v = g->gen_link[v]) {
            if (tp_i64map_get(&seen, v) != TP_I64MAP_EMPTY)
                break; /* and so was the rest of its chain */
            tp_i64map_put(&seen, v, 1);
            for (uint32_t e = g->ac.v2[v]; e != NO_ID; e = g->gen[e].next)
                if (g->gen[e].id < best) {
                    TP_GROW(cand, ccap, ncand + 1);
                    cand[ncand++] = e;
                }
        }
    }
    tp_i64map_free(&seen);
    for (size_t j = 0; j < g->npieceless; j++)
        if (g->gen[g->pieceless[j]].id < best) {
            TP_GROW(cand, ccap, ncand + 1);
            cand[ncand++] = g->pieceless[j];
        }
    /* in id order: the first that matches is the answer among them */
    uint64_t *order = tp_xmalloc((ncand + 1) * sizeof *order);
    for (size_t j = 0; j < ncand; j++)
        order[j] = (uint64_t)g->gen[cand[j]].id << 32 | cand[j];
    qsort(order, ncand, sizeof *order, cmp_u64);
    for (size_t j = 0; j < ncand && (uint32_t)(order[j] >> 32) < best; j++) {
        const general *e = &g->gen[(uint32_t)order[j]];
        if (fnmatch_calls)
            (*fnmatch_calls)++;
        if (fnmatch(e->pattern, s, g->casefold ? FNM_CASEFOLD : 0) == 0)
            best = e->id;
    }
    free(order);
    free(cand);
    return best;
}

void tp_globset_free(tp_globset *g)
{
    if (!g)
        return;
    trie_free(&g->fwd);
    trie_free(&g->back);
    trie_free(&g->ac);
    free(g->fail);
    free(g->out_min);
    free(g->gen_link);
    for (size_t i = 0; i < g->ngen; i++)
        free(g->gen[i].pattern);
    free(g->gen);
    free(g->pieceless);
    tp_strset_free(&g->pats);
    free(g->gen_of);
    free(g);
}

size_t tp_globset_pieceless(const tp_globset *g) { return g ? g->npieceless : 0; }
