/* kname_set.c: short names of a set of names that stay distinct (rules
 * 4-6 in kname.h). */
#include "render/labels/kname.h"
#include "render/labels/kname_parts.h"

#include "convert/base/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *full; /* as given: what "the same name" means */
    tp_kname_info info;
    char *label0; /* rule 4 label, or the base; not cut */
    char *label;  /* after rule 5 */
    size_t idx;
} kn;

static int cmp3(const char *a1, const char *a2, const char *b1, const char *b2, size_t i1, size_t i2)
{
    int c = strcmp(a1, a2);
    if (c)
        return c;
    c = strcmp(b1, b2);
    return c ? c : (i1 > i2) - (i1 < i2);
}
static int cmp_base(const void *a, const void *b)
{
    const kn *x = a, *y = b;
    return cmp3(x->info.base, y->info.base, x->full, y->full, x->idx, y->idx);
}
static int cmp_label(const void *a, const void *b)
{
    const kn *x = a, *y = b;
    return cmp3(x->label, y->label, x->full, y->full, x->idx, y->idx);
}

#define LABEL_MAX 60

/* Rule 4 for one group of equal base names: base<the informative names of
 * the template arguments that differ inside the group>. */
static void label_group(kn *v, size_t n)
{
    char ***args = tp_xcalloc(n, sizeof *args);
    size_t *na = tp_xcalloc(n, sizeof *na);
    int same_count = 1;
    for (size_t k = 0; k < n; k++) {
        char **raw;
        na[k] = tp_kname_targs(v[k].info.targs, &raw);
        args[k] = tp_xcalloc(na[k] ? na[k] : 1, sizeof(char *));
        for (size_t i = 0; i < na[k]; i++)
            args[k][i] = tp_kname_informative(raw[i]);
        tp_kname_free_list(raw, na[k]);
        if (na[k] != na[0])
            same_count = 0;
    }
    /* a position differs when any member differs from the first: O(n) */
    int *differs = tp_xcalloc(na[0] ? na[0] : 1, sizeof *differs);
    for (size_t i = 0; same_count && i < na[0]; i++)
        for (size_t m = 1; m < n && !differs[i]; m++)
            differs[i] = strcmp(args[m][i], args[0][i]) != 0;
    for (size_t k = 0; k < n; k++) {
        tp_buf b = {0};
        tp_buf_puts(&b, v[k].info.base);
        size_t shown = 0;
        for (size_t i = 0; i < na[k]; i++) {
            if (same_count && !differs[i])
                continue;
            tp_buf_puts(&b, shown++ ? "," : "<");
            tp_buf_puts(&b, args[k][i]);
        }
        if (shown)
            tp_buf_putc(&b, '>');
        if (b.len > LABEL_MAX || !shown) {
            free(b.data);
            b = (tp_buf){0};
            tp_buf_puts(&b, v[k].info.base);
        }
        v[k].label0 = b.data;
    }
    free(differs);
    for (size_t k = 0; k < n; k++)
        tp_kname_free_list(args[k], na[k]);
    free(args);
    free(na);
}

/* Calls fn on each run [a, b) of v (sorted by label) whose members share a
 * label but not a full name. */
static void each_clash(kn *v, size_t n, void (*fn)(kn *, size_t))
{
    qsort(v, n, sizeof *v, cmp_label);
    size_t a = 0;
    while (a < n) {
        size_t b = a + 1;
        int clash = 0;
        while (b < n && strcmp(v[b].label, v[a].label) == 0) {
            clash |= strcmp(v[b].full, v[b - 1].full) != 0;
            b++;
        }
        if (clash)
            fn(v + a, b - a);
        a = b;
    }
}

static int cmp_label0(const void *a, const void *b)
{
    const kn *x = a, *y = b;
    return cmp3(x->label0, y->label0, x->full, y->full, x->idx, y->idx);
}

/* Characters a and b share at their start. */
static size_t common_chars(const char *a, const char *b)
{
    size_t i = 0, c = 0;
    while (a[i] && a[i] == b[i])
        c += ((unsigned char)a[i++] & 0xC0) != 0x80;
    return c;
}

/* Rule 5, second half: the head and the part where each uncut label
 * differs: first from where the run's labels start to differ (sorted, the
 * smallest common start of neighbours), then, for labels still equal,
 * from where each differs from its nearest neighbour (the largest). */
static void head_mid(kn *v, size_t n, int nearest)
{
    qsort(v, n, sizeof *v, cmp_label0);
    size_t *d = tp_xcalloc(n, sizeof *d), least = SIZE_MAX;
    for (size_t k = 1; k < n; k++) {
        size_t c = common_chars(v[k - 1].label0, v[k].label0);
        d[k - 1] = c > d[k - 1] ? c : d[k - 1];
        d[k] = c;
        least = c < least ? c : least;
    }
    for (size_t k = 0; k < n; k++)
        if (tp_kname_chars(v[k].label0) > TP_KNAME_MAX) {
            free(v[k].label);
            v[k].label = tp_kname_head_mid(v[k].label0, nearest ? d[k] : least, TP_KNAME_MAX);
        }
    free(d);
}
static void head_first_diff(kn *v, size_t n) { head_mid(v, n, 0); }
static void head_near_diff(kn *v, size_t n) { head_mid(v, n, 1); }

/* Rule 6: " #k" by distinct full name (the run is sorted by full name). */
static void number(kn *v, size_t n)
{
    size_t num = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || strcmp(v[k].full, v[k - 1].full) != 0)
            num++;
        tp_buf t = {0};
        tp_buf_printf(&t, "%s #%zu", v[k].label, num);
        free(v[k].label);
        v[k].label = t.data;
    }
}

char **tp_kname_shorten(const char *const *names, size_t n)
{
    char **out = tp_xcalloc(n ? n : 1, sizeof *out);
    kn *v = tp_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const char *f = names[i] ? names[i] : "";
        v[i] = (kn){f, tp_kname_info_of(f), NULL, NULL, i};
    }
    qsort(v, n, sizeof *v, cmp_base);
    for (size_t i = 0; i < n;) { /* rule 4 in each group of equal base names */
        size_t j = i + 1;
        int distinct = 0;
        while (j < n && strcmp(v[j].info.base, v[i].info.base) == 0) {
            distinct |= strcmp(v[j].full, v[j - 1].full) != 0;
            j++;
        }
        if (distinct)
            label_group(v + i, j - i);
        else
            for (size_t k = i; k < j; k++)
                v[k].label0 = tp_xstrdup(v[k].info.base);
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        v[i].label = tp_kname_cut(v[i].label0, TP_KNAME_MAX);
    each_clash(v, n, head_first_diff);
    each_clash(v, n, head_near_diff);
    each_clash(v, n, number);
    for (size_t i = 0; i < n; i++) {
        out[v[i].idx] = v[i].label;
        free(v[i].label0);
        tp_kname_info_free(&v[i].info);
    }
    free(v);
    return out;
}

void tp_kname_free(char **shorts, size_t n)
{
    if (!shorts)
        return;
    for (size_t i = 0; i < n; i++)
        free(shorts[i]);
    free(shorts);
}
