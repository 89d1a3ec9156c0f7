/* graph_capture.c: a graph replay's kernels mapped to the captured ops that
 * launched them (graph_capture.h; docs/REPORT.md "Graph capture"). */
#include "convert/pipeline/graph_capture.h"
#include "convert/base/i64map.h"
#include "convert/codec/json_value.h"
#include "convert/model/tracks.h"
#include "convert/io/protect.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What a captured call or a replayed activity is matched by: the kernel's
 * name id in the replay trace, or one of these. */
#define KEY_NONE UINT32_MAX        /* matches nothing (a kernel name the replay never ran) */
#define KEY_MEMCPY (UINT32_MAX - 1)
#define KEY_MEMSET (UINT32_MAX - 2)

/* ---- discovery ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int add_file(tp_capture_stats *st, const char *dir, const char *name, size_t nlen, tp_err *err)
{
    if (st->nfiles == TP_CAPTURE_MAX_FILES)
        return tp_fail_at(err, "", "%s: more than %d capture traces", dir, TP_CAPTURE_MAX_FILES);
    tp_capture_file *f = &st->files[st->nfiles];
    memset(f, 0, sizeof *f);
    int w = snprintf(f->path, sizeof f->path, "%s/%.*s", dir, (int)nlen, name);
    if (w < 0 || (size_t)w >= sizeof f->path)
        return tp_fail_at(err, "", "%s: a capture trace's path is too long", dir);
    st->nfiles++;
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A member of execution_details.json ignored: counted, and the first one
 * named (nothing is dropped in silence: the capture line says it). */
static void details_note(tp_capture_stats *st, const char *details, uint32_t entry, const char *member,
                         const char *why)
{
    if (st->details_ignored++ == 0) {
        const char *base = strrchr(details, '/');
        snprintf(st->details_note, sizeof st->details_note, "%s entry %u: \"%s\" ignored (%s)",
                 base ? base + 1 : details, entry, member, why);
    }
}

/* execution_details.json: [{"file": NAME, "batch_size": N, "mode": TEXT}, ...] */
static int read_details(const char *dir, const char *details, tp_capture_stats *st, tp_err *err)
{
    struct stat ds;
    if (stat(details, &ds) != 0 || !S_ISREG(ds.st_mode)) /* a FIFO would block the read */
        return tp_fail_at(err, "", "%s: not a regular file", details);
    FILE *fp = fopen(details, "rb");
    if (!fp)
        return tp_fail_at(err, "", "%s: cannot open", details);
    enum { MAX_DETAILS = 1 << 20 };
    char *buf = tp_xmalloc(MAX_DETAILS + 1);
    size_t n = fread(buf, 1, MAX_DETAILS + 1, fp);
    fclose(fp);
    if (n > MAX_DETAILS) {
        free(buf);
        return tp_fail_at(err, "", "%s: larger than 1 MiB", details);
    }
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    const tp_jv *root;
    tp_err perr = {0};
    int rc = 0;
    if (tp_jv_parse_all(&doc, buf, n, &root, &perr) < 0 || root->type != TP_JV_ARRAY) {
        rc = tp_fail_at(err, "", "%s: not a JSON list of {\"file\": NAME, ...}", details);
        goto done;
    }
    for (uint32_t i = 0; i < root->n; i++) {
        const tp_jv *o = tp_jv_at(root, i);
        size_t len = 0;
        const char *name = tp_jv_str(tp_jv_get(o, "file"), &len);
        if (!name || len == 0 || memchr(name, '/', len) || memchr(name, '\0', len) ||
            (len == 2 && memcmp(name, "..", 2) == 0)) {
            rc = tp_fail_at(err, "", "%s: entry %u has no plain \"file\" name", details, i + 1);
            goto done;
        }
        if ((rc = add_file(st, dir, name, len, err)) < 0)
            goto done;
        tp_capture_file *f = &st->files[st->nfiles - 1];
        struct stat sb;
        if (stat(f->path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            rc = tp_fail_at(err, "", "%s: names %s, which is not there", details, f->path);
            goto done;
        }
        int64_t bs;
        const tp_jv *bsv = tp_jv_get(o, "batch_size"), *mv = tp_jv_get(o, "mode");
        if (tp_jv_int(bsv, &bs) == 0 && bs > 0)
            f->batch_size = bs;
        else if (bsv && bsv->type != TP_JV_NULL)
            details_note(st, details, i + 1, "batch_size", "not a positive whole number");
        const char *mode = tp_jv_str(mv, &len);
        if (mode && len < sizeof f->mode && !memchr(mode, '\0', len)) {
            for (size_t k = 0; k < len; k++) /* printable ASCII only: it is written to text outputs */
                f->mode[k] = mode[k] > ' ' && mode[k] < 127 ? mode[k] : '?';
            f->mode[len] = 0;
        } else if (mv && mv->type != TP_JV_NULL)
            details_note(st, details, i + 1, "mode",
                         mode && len >= sizeof f->mode ? "longer than 15 characters" : "not a text without NUL");
    }
done:
    tp_jdoc_free(&doc);
    free(buf);
    return rc;
}

void tp_graph_capture_details(tp_capture_stats *st)
{
    for (size_t k = 0; k < st->nfiles; k++) {
        tp_capture_file *f = &st->files[k];
        const char *slash = strrchr(f->path, '/');
        char dir[1024], details[1100];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - f->path) : 1, slash ? f->path : ".");
        snprintf(details, sizeof details, "%s/execution_details.json", dir);
        struct stat sb;
        if (stat(details, &sb) != 0)
            continue;
        tp_capture_stats listed = {0};
        tp_err ignored = {0};
        read_details(dir, details, &listed, &ignored); /* what it lists before any problem */
        for (size_t i = 0; i < listed.nfiles; i++)
            if (strcmp(listed.files[i].path, f->path) == 0 ||
                strcmp(strrchr(listed.files[i].path, '/') + 1, slash ? slash + 1 : f->path) == 0) {
                f->batch_size = listed.files[i].batch_size;
                memcpy(f->mode, listed.files[i].mode, sizeof f->mode);
                break;
            }
        if (listed.details_ignored && !st->details_ignored)
            memcpy(st->details_note, listed.details_note, sizeof st->details_note);
        st->details_ignored += listed.details_ignored;
    }
}

int tp_graph_capture_discover(const char *replay_path, tp_capture_stats *st, tp_err *err)
{
    char dir[1024];
    const char *slash = strrchr(replay_path, '/');
    int w = slash ? snprintf(dir, sizeof dir, "%.*s/capture_traces", (int)(slash - replay_path), replay_path)
                  : snprintf(dir, sizeof dir, "capture_traces");
    if (w < 0 || (size_t)w >= sizeof dir)
        return 0;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    st->discovered = true;
    char details[1100];
    snprintf(details, sizeof details, "%s/execution_details.json", dir);
    if (stat(details, &sb) == 0)
        return read_details(dir, details, st, err);
    DIR *d = opendir(dir);
    if (!d)
        return tp_fail_at(err, "", "%s: cannot read the folder", dir);
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !(ends_with(de->d_name, ".json") || ends_with(de->d_name, ".json.gz")))
            continue;
        TP_GROW(names, cap, nn + 1);
        names[nn++] = tp_xstrdup(de->d_name);
    }
    closedir(d);
    if (nn) /* name order: readdir's is the file system's */
        qsort(names, nn, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < nn && rc == 0; i++) {
        rc = add_file(st, dir, names[i], strlen(names[i]), err);
        /* a file, as execution_details.json's names must be: a FIFO of that name would block the read */
        if (rc == 0 && (stat(st->files[st->nfiles - 1].path, &sb) != 0 || !S_ISREG(sb.st_mode)))
            rc = tp_fail_at(err, "", "%s: not a regular file (a capture trace)", st->files[st->nfiles - 1].path);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return rc;
}

void tp_graph_capture_protect(const char *replay_path)
{
    tp_capture_stats *st = tp_xcalloc(1, sizeof *st);
    tp_err err = {0};
    tp_graph_capture_discover(replay_path, st, &err); /* (a bad folder: the load says so) */
    for (size_t k = 0; k < st->nfiles; k++)
        tp_out_protect(st->files[k].path);
    free(st);
}

/* ---- the captured graphs of one capture trace ---- */

typedef struct call {
    uint32_t key;  /* KEY_* or the kernel's name id in the replay */
    uint32_t ev;   /* the launch call in the capture trace */
} call;

typedef struct graph {
    uint32_t file;         /* index into the loaded captures */
    call *calls;
    size_t n;
} graph;

typedef struct capture {
    tp_trace u;
    uint32_t *parent;  /* capture event -> its innermost enclosing slice worth copying, TP_NONE */
    uint32_t *copied;  /* capture event -> its copy in the replay, TP_NONE */
} capture;

/* 1 kernel launch, 2 memcpy, 3 memset, 0 other. */
static int launch_class(const char *n)
{
    if (strstr(n, "GraphLaunch"))
        return 0;
    if (strstr(n, "LaunchKernel") || strstr(n, "LaunchCooperativeKernel"))
        return 1;
    if (strstr(n, "Memcpy"))
        return 2;
    if (strstr(n, "Memset"))
        return 3;
    return 0;
}

/* The kernel a captured launch call names (args "kernel"), as the replay's name id. */
static uint32_t kernel_key(const tp_trace *t, const tp_trace *u, const tp_event *e, tp_jdoc *doc)
{
    if (!e->args)
        return KEY_NONE;
    const char *a, *x;
    size_t alen, xlen;
    tp_args_split(u, e->args, &a, &alen, &x, &xlen);
    if (!a || alen == 0)
        return KEY_NONE;
    tp_jdoc_reset(doc);
    const tp_jv *root;
    tp_err perr = {0};
    if (tp_jv_parse_all(doc, a, alen, &root, &perr) < 0)
        return KEY_NONE;
    size_t len;
    const char *k = tp_jv_str(tp_jv_get(root, "kernel"), &len);
    if (!k)
        return KEY_NONE;
    tp_str id = tp_str_find(t, k, len);
    return id ? id : KEY_NONE;
}

typedef struct rt_ref {
    uint32_t track;
    int64_t ts;
    uint32_t ev;
} rt_ref;

static int cmp_rt(const void *pa, const void *pb)
{
    const rt_ref *a = pa, *b = pb;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static void add_graph(graph **gs, size_t *ng, size_t *cap, uint32_t file)
{
    TP_GROW(*gs, *cap, *ng + 1);
    (*gs)[(*ng)++] = (graph){file, NULL, 0};
}

/* The captured graphs of capture `file`, appended to *gs. */
static void find_graphs(const tp_trace *t, const tp_trace *u, uint32_t file, graph **gs, size_t *ng, size_t *gcap,
                        tp_capture_file *info)
{
    rt_ref *rt = NULL;
    size_t n = 0, cap = 0;
    bool any_begin = false;
    for (size_t i = 0; i < u->nevents; i++) {
        const tp_event *e = &u->events[i];
        if (e->kind != TP_KIND_RUNTIME || e->ph != 'X' || (e->flags & TP_EV_DROPPED))
            continue;
        const char *nm = tp_str_get(u, e->name);
        bool begin = strstr(nm, "BeginCapture") != NULL;
        any_begin |= begin;
        if (!begin && !strstr(nm, "EndCapture") && !launch_class(nm))
            continue;
        TP_GROW(rt, cap, n + 1);
        rt[n++] = (rt_ref){e->track, e->ts, (uint32_t)i};
    }
    if (!any_begin) /* no capture calls: every launch call in time order, one graph */
        for (size_t i = 0; i < n; i++)
            rt[i].track = 0;
    if (n)
        qsort(rt, n, sizeof *rt, cmp_rt);
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    size_t first = *ng;
    bool inside = !any_begin;
    if (inside)
        add_graph(gs, ng, gcap, file);
    size_t gcalls_cap = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_event *e = &u->events[rt[i].ev];
        const char *nm = tp_str_get(u, e->name);
        if (any_begin && (i == 0 || rt[i].track != rt[i - 1].track))
            inside = false;
        if (strstr(nm, "BeginCapture")) {
            inside = true;
            add_graph(gs, ng, gcap, file);
            gcalls_cap = 0;
            continue;
        }
        if (strstr(nm, "EndCapture")) {
            inside = false;
            continue;
        }
        if (!inside)
            continue;
        int cls = launch_class(nm);
        graph *g = &(*gs)[*ng - 1];
        TP_GROW(g->calls, gcalls_cap, g->n + 1);
        g->calls[g->n++] = (call){cls == 1 ? kernel_key(t, u, e, &doc) : cls == 2 ? KEY_MEMCPY : KEY_MEMSET, rt[i].ev};
    }
    tp_jdoc_free(&doc);
    free(rt);
    /* graphs with no call are none */
    size_t k = first;
    for (size_t i = first; i < *ng; i++) {
        if ((*gs)[i].n == 0) {
            free((*gs)[i].calls);
            continue;
        }
        info->calls += (*gs)[i].n;
        (*gs)[k++] = (*gs)[i];
    }
    info->graphs = (uint32_t)(k - first);
    *ng = k;
}

/* A capture slice worth copying: a host op, or a module scope (the module path). */
static bool copied_kind(const tp_trace *u, const tp_event *e)
{
    if (e->kind == TP_KIND_HOST_OP)
        return true;
    const char *n = tp_str_get(u, e->name);
    return strncmp(n, "nn.Module: ", 11) == 0;
}

/* Each host slice's innermost enclosing slice worth copying (copied_kind)
 * on its thread (runtime calls included, as children), by the nesting
 * order: the slices in between (Python functions) are skipped here once,
 * not walked again for every op copied (a deep Python stack over many ops
 * cost ops x depth). */
static uint32_t *host_parents(const tp_trace *u)
{
    uint32_t *parent = tp_xmalloc((u->nevents + 1) * sizeof *parent);
    size_t *start = tp_xcalloc(u->ntracks + 2, sizeof *start);
    for (size_t i = 0; i < u->nevents; i++) {
        const tp_event *e = &u->events[i];
        parent[i] = TP_NONE;
        if (e->ph == 'X' && !(e->flags & TP_EV_DROPPED) && u->tracks[e->track].role == TP_TRACK_HOST)
            start[e->track + 1]++;
    }
    for (size_t k = 0; k < u->ntracks; k++)
        start[k + 1] += start[k];
    uint32_t *idx = tp_xmalloc((start[u->ntracks] + 1) * sizeof *idx);
    size_t *fill = tp_xmalloc((u->ntracks + 1) * sizeof *fill);
    memcpy(fill, start, (u->ntracks + 1) * sizeof *fill);
    for (size_t i = 0; i < u->nevents; i++) {
        const tp_event *e = &u->events[i];
        if (e->ph == 'X' && !(e->flags & TP_EV_DROPPED) && u->tracks[e->track].role == TP_TRACK_HOST)
            idx[fill[e->track]++] = (uint32_t)i;
    }
    uint32_t *stack = NULL;
    size_t scap = 0;
    for (size_t k = 0; k < u->ntracks; k++) {
        uint32_t *list = idx + start[k];
        size_t n = start[k + 1] - start[k], depth = 0;
        tp_sort_by_time(u, list, n);
        for (size_t j = 0; j < n; j++) {
            const tp_event *e = &u->events[list[j]];
            while (depth && u->events[stack[depth - 1]].ts + u->events[stack[depth - 1]].dur <= e->ts)
                depth--;
            uint32_t up = depth ? stack[depth - 1] : TP_NONE; /* (processed before: parents come first) */
            parent[list[j]] = up == TP_NONE || copied_kind(u, &u->events[up]) ? up : parent[up];
            TP_GROW(stack, scap, depth + 1);
            stack[depth++] = list[j];
        }
    }
    free(stack);
    free(fill);
    free(idx);
    free(start);
    return parent;
}


/* The copy in t of capture op `ev` and of its copied ancestors (each once). */
static uint32_t copy_op(tp_trace *t, capture *c, uint32_t ev, uint32_t track, tp_capture_stats *st)
{
    const tp_trace *u = &c->u;
    uint32_t chain[256];
    size_t n = 0;
    for (uint32_t p = ev; p != TP_NONE && n < 256; p = c->parent[p]) {
        if (!copied_kind(u, &u->events[p]))
            continue;
        chain[n++] = p;
        if (c->copied[p] != TP_NONE)
            break; /* copied with its ancestors already */
    }
    uint32_t above = TP_NONE;
    for (size_t k = n; k-- > 0;) {
        uint32_t p = chain[k];
        if (c->copied[p] != TP_NONE) {
            above = c->copied[p];
            continue;
        }
        const tp_event *s = &u->events[p];
        tp_event e;
        tp_event_init(&e);
        e.ts = s->ts;
        e.dur = s->dur;
        e.ph = 'X';
        e.kind = s->kind;
        e.track = track;
        e.flags = TP_EV_DROPPED | TP_EV_CAPTURED;
        const char *nm = tp_str_get(u, s->name), *ct = tp_str_get(u, s->cat);
        e.name = tp_intern(t, nm, strlen(nm));
        e.cat = tp_intern(t, ct, strlen(ct));
        e.link = above;
        if (s->args) {
            const char *a, *x;
            size_t alen, xlen;
            tp_args_split(u, s->args, &a, &alen, &x, &xlen);
            if (a && alen)
                e.args = tp_args_add(t, a, alen);
        }
        above = c->copied[p] = tp_event_add(t, &e);
        st->ops_copied++;
    }
    return above;
}

/* An allocation op: its Concrete Inputs[0] is the size of a buffer the
 * enclosing op's kernels write. */
static bool allocation(const tp_trace *u, const tp_event *e)
{
    if (e->kind != TP_KIND_HOST_OP)
        return false;
    const char *n = tp_str_get(u, e->name);
    return strcmp(n, "aten::empty") == 0 || strcmp(n, "aten::empty_strided") == 0;
}

/* The allocations made directly inside a copied op are copied too (after
 * it, linked to it): they launch nothing, but their recorded sizes say the
 * sizes of the buffers the op's kernels write, which its own inputs may
 * not (vLLM's unfused MoE: the experts' intermediate size, docs/REPORT.md
 * "Inference ops").  One pass over the capture trace's events. */
static void copy_allocations(tp_trace *t, capture *c, tp_capture_stats *st)
{
    const tp_trace *u = &c->u;
    for (size_t i = 0; i < u->nevents; i++) {
        uint32_t up = c->parent[i];
        if (up == TP_NONE || c->copied[up] == TP_NONE || c->copied[i] != TP_NONE || !allocation(u, &u->events[i]))
            continue;
        copy_op(t, c, (uint32_t)i, t->events[c->copied[up]].track, st);
    }
}

/* ---- matching a graph launch's activities to a captured graph ---- */

typedef struct launch {
    uint32_t *act;     /* its activities, by stream then time */
    size_t n;
    size_t *sstart;    /* stream s: act[sstart[s] .. sstart[s+1]) */
    size_t ns;
    uint32_t *key;     /* per activity */
} launch;

static uint32_t activity_key(const tp_event *e)
{
    return e->kind == TP_KIND_MEMCPY ? KEY_MEMCPY : e->kind == TP_KIND_MEMSET ? KEY_MEMSET : e->name;
}

/* How many of the launch's activities graph g maps; with map (per
 * activity, the call index or SIZE_MAX) filled when not NULL.  The
 * comparisons made are added to *work; UINT64_MAX when it passes budget
 * (stopped: nothing counted). */
static uint64_t align(const tp_trace *t, const launch *l, const graph *g, size_t *heads, size_t *map,
                      uint64_t *not_replayed, uint64_t *work, uint64_t budget)
{
    enum { W = TP_CAPTURE_LOOKAHEAD, CONFIRM = 4 };
    for (size_t s = 0; s < l->ns; s++)
        heads[s] = l->sstart[s];
    if (map)
        for (size_t i = 0; i < l->n; i++)
            map[i] = SIZE_MAX;
    uint64_t mapped = 0, missed = 0;
    for (size_t ci = 0; ci < g->n; ci++) {
        uint32_t key = g->calls[ci].key;
        size_t best = SIZE_MAX, best_run = 0, best_skip = 0;
        if (*work > budget)
            return UINT64_MAX;
        *work += 1 + l->ns; /* the streams' heads looked at */
        for (size_t s = 0; s < l->ns && key != KEY_NONE; s++) {
            size_t h = heads[s], end = l->sstart[s + 1];
            if (h >= end || l->key[h] != key)
                continue;
            size_t run = 0;
            while (run < W && ci + 1 + run < g->n && h + 1 + run < end && l->key[h + 1 + run] == g->calls[ci + 1 + run].key)
                run++;
            *work += run;
            if (best == SIZE_MAX || run > best_run ||
                (run == best_run && t->events[l->act[h]].ts < t->events[l->act[heads[best]]].ts))
                best = s, best_run = run;
        }
        if (best == SIZE_MAX && key != KEY_NONE) {
            /* an activity further on: taken when the calls after this one confirm it */
            for (size_t s = 0; s < l->ns; s++) {
                size_t h = heads[s], end = l->sstart[s + 1];
                for (size_t p = 1; p <= W && h + p < end; p++) {
                    ++*work;
                    if (l->key[h + p] != key)
                        continue;
                    size_t run = 0;
                    while (run < CONFIRM && ci + 1 + run < g->n && h + p + 1 + run < end &&
                           l->key[h + p + 1 + run] == g->calls[ci + 1 + run].key)
                        run++;
                    *work += run;
                    size_t need = g->n - ci - 1 < CONFIRM ? g->n - ci - 1 : CONFIRM;
                    if (run >= need && (best == SIZE_MAX || p < best_skip))
                        best = s, best_skip = p;
                    break;
                }
            }
        }
        if (best == SIZE_MAX) {
            missed++;
            continue;
        }
        heads[best] += best_skip;
        if (map)
            map[heads[best]] = ci;
        heads[best]++;
        mapped++;
    }
    if (not_replayed)
        *not_replayed += missed;
    return mapped;
}

typedef struct gl_ref {
    uint32_t link, track;
    int64_t ts;
    uint32_t ev;
} gl_ref;

static int cmp_gl(const void *pa, const void *pb)
{
    const gl_ref *a = pa, *b = pb;
    if (a->link != b->link)
        return a->link < b->link ? -1 : 1;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static bool is_activity(const tp_event *e)
{
    return e->ph == 'X' && !(e->flags & (TP_EV_DROPPED | TP_EV_DERIVED)) &&
           (e->kind == TP_KIND_KERNEL || e->kind == TP_KIND_MEMCPY || e->kind == TP_KIND_MEMSET);
}

static bool graph_launched(const tp_trace *t, const tp_event *e)
{
    return e->link != TP_NONE && e->link < t->nevents && strstr(tp_str_get(t, t->events[e->link].name), "GraphLaunch");
}

int64_t tp_graph_replay_ns(const tp_trace *t, uint64_t *activities)
{
    int64_t ns = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (is_activity(e) && graph_launched(t, e)) {
            ns = tp_sat_add(ns, e->dur > 0 ? e->dur : 0);
            n++;
        }
    }
    if (activities)
        *activities = n;
    return ns;
}

static uint64_t seq_hash(const launch *l)
{
    uint64_t h = 1469598103934665603ull ^ l->n;
    for (size_t i = 0; i < l->n; i++)
        h = (h ^ l->key[i]) * 1099511628211ull;
    for (size_t s = 0; s <= l->ns; s++)
        h = (h ^ l->sstart[s]) * 1099511628211ull;
    return h;
}

int tp_graph_capture_merge(tp_trace *t, const tp_load_opts *lo, tp_capture_stats *st, tp_err *err)
{
    if (st->nfiles == 0)
        return 0;
    capture *caps = tp_xcalloc(st->nfiles, sizeof *caps);
    graph *gs = NULL;
    size_t ng = 0, gcap = 0;
    int rc = 0;
    size_t loaded = 0;
    for (size_t f = 0; f < st->nfiles; f++) {
        tp_load_opts co = {0};
        co.read.strict = lo->read.strict;
        co.read.keep_args = true; /* the launch calls' kernel names and the ops' shapes */
        co.no_derive = true;
        tp_trace_init(&caps[f].u);
        loaded = f + 1;
        tp_err cerr = {0};
        if (tp_load(st->files[f].path, &co, &caps[f].u, &cerr) < 0) {
            rc = tp_fail_at(err, "", "graph capture %s: %s%s%s", st->files[f].path, cerr.where,
                            cerr.where[0] ? ": " : "", cerr.msg);
            goto done;
        }
        caps[f].parent = host_parents(&caps[f].u);
        caps[f].copied = tp_xmalloc((caps[f].u.nevents + 1) * sizeof *caps[f].copied);
        memset(caps[f].copied, 0xff, (caps[f].u.nevents + 1) * sizeof *caps[f].copied);
        find_graphs(t, &caps[f].u, (uint32_t)f, &gs, &ng, &gcap, &st->files[f]);
    }
    /* the replay's graph launches and their activities */
    gl_ref *refs = NULL;
    size_t nr = 0, rcap = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (!is_activity(e) || !graph_launched(t, e))
            continue;
        TP_GROW(refs, rcap, nr + 1);
        refs[nr++] = (gl_ref){e->link, e->track, e->ts, (uint32_t)i};
        st->activities++;
        st->activities_ns = tp_sat_add(st->activities_ns, e->dur > 0 ? e->dur : 0);
    }
    if (nr)
        qsort(refs, nr, sizeof *refs, cmp_gl);
    /* the work bound: matching costs at most TP_CAPTURE_WORK_PER_ITEM comparisons per captured call and
     * replayed activity (plus one call's comparisons past it); the launches it stops stay unmatched, counted */
    uint64_t calls = 0, work = 0;
    for (size_t g = 0; g < ng; g++)
        calls += gs[g].n;
    uint64_t budget = (uint64_t)TP_CAPTURE_WORK_PER_ITEM * (calls + nr + 1);
    launch l = {0};
    size_t lcap = 0, scap = 0, hcap = 0, mcap = 0;
    uint64_t missed_calls = 0; /* the chosen graph's calls not replayed (counted once matched) */
    size_t *heads = NULL, *map = NULL;
    tp_i64map choice_of = {0}; /* kernel sequence hash -> the graph chosen for it (+1; 0 none) */
    for (size_t a = 0; a < nr;) {
        size_t b = a;
        while (b < nr && refs[b].link == refs[a].link)
            b++;
        l.n = b - a, l.ns = 0;
        TP_GROW(l.act, lcap, l.n);
        l.key = tp_xrealloc(l.key, lcap * sizeof *l.key);
        for (size_t k = a; k < b; k++) {
            l.act[k - a] = refs[k].ev;
            l.key[k - a] = activity_key(&t->events[refs[k].ev]);
            if (k == a || refs[k].track != refs[k - 1].track) {
                TP_GROW(l.sstart, scap, l.ns + 2);
                l.sstart[l.ns++] = k - a;
            }
        }
        l.sstart[l.ns] = l.n;
        TP_GROW(heads, hcap, l.ns + 1);
        TP_GROW(map, mcap, l.n + 1);
        st->graph_launches++;
        int64_t h = (int64_t)seq_hash(&l);
        size_t choice = SIZE_MAX;
        bool over = false;
        uint32_t known = tp_i64map_get(&choice_of, h);
        if (known != TP_I64MAP_EMPTY) {
            choice = known ? known - 1 : SIZE_MAX;
        } else {
            uint64_t best = 0;
            for (size_t g = 0; g < ng && !over; g++) {
                uint64_t m = align(t, &l, &gs[g], heads, NULL, NULL, &work, budget);
                over = m == UINT64_MAX;
                /* the graph replayed maps most of the launch and has most of its calls replayed; one that
                 * shares a few kernel names (another model's, another batch size's) is not it */
                if (!over && m > best && 2 * m > l.n && 2 * m > gs[g].n)
                    best = m, choice = g;
            }
            if (!over)
                tp_i64map_put(&choice_of, h, choice == SIZE_MAX ? 0 : (uint32_t)choice + 1);
        }
        if (!over && choice != SIZE_MAX)
            over = align(t, &l, &gs[choice], heads, map, &missed_calls, &work, budget) == UINT64_MAX;
        if (over) {
            st->over_bound++;
            a = b;
            continue;
        }
        if (choice != SIZE_MAX) {
            st->launches_matched++;
            const graph *g = &gs[choice];
            capture *c = &caps[g->file];
            st->not_replayed += missed_calls;
            missed_calls = 0;
            uint32_t track = t->events[refs[a].link].track;
            for (size_t k = 0; k < l.n; k++) {
                if (map[k] == SIZE_MAX)
                    continue;
                uint32_t op = c->u.events[g->calls[map[k]].ev].op;
                if (op == TP_NONE)
                    continue;
                uint32_t copy = copy_op(t, c, op, track, st);
                tp_event *e = &t->events[l.act[k]];
                e->op = copy;
                st->mapped++;
                st->mapped_ns = tp_sat_add(st->mapped_ns, e->dur > 0 ? e->dur : 0);
            }
        }
        a = b;
    }
    tp_i64map_free(&choice_of);
    for (size_t f = 0; f < loaded; f++)
        copy_allocations(t, &caps[f], st);
    free(l.act), free(l.key), free(l.sstart), free(heads), free(map);
    free(refs);
done:
    for (size_t g = 0; g < ng; g++)
        free(gs[g].calls);
    free(gs);
    for (size_t f = 0; f < loaded; f++) {
        tp_trace_free(&caps[f].u);
        free(caps[f].parent);
        free(caps[f].copied);
    }
    free(caps);
    return rc;
}
