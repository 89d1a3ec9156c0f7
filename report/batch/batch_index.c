/* batch_index.c: index.json / index.md / index.pdf of a batch (batch.h). */
#include "render/text/units.h"
#include "render/charts/axis.h"
#include "report/batch/batch.h"
#include "render/text/report_text.h"
#include "render/canvas.h"
#include "render/charts/chart_table.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/io/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_batch_row_free(tp_batch_row *r)
{
    free(r->path);
    free(r->name);
    free(r->dir);
    free(r->format);
    free(r->status);
    free(r->error);
    memset(r, 0, sizeof *r);
}

void tp_batch_rows_free(tp_batch_rows *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        tp_batch_row_free(&rs->v[i]);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const tp_batch_row *)a)->path, ((const tp_batch_row *)b)->path);
}
void tp_batch_rows_sort(tp_batch_rows *rs)
{
    if (rs->n > 1)
        qsort(rs->v, rs->n, sizeof *rs->v, row_cmp);
}

static void jstr(tp_buf *b, const char *s)
{
    if (s)
        tp_json_put_string(b, s, strlen(s), NULL);
    else
        tp_buf_puts(b, "null");
}

void tp_batch_row_json(const tp_batch_row *r, tp_buf *b)
{
    tp_buf_puts(b, "{\"path\":");
    jstr(b, r->path);
    tp_buf_puts(b, ",\"name\":");
    jstr(b, r->name);
    tp_buf_puts(b, ",\"dir\":");
    jstr(b, r->dir);
    tp_buf_puts(b, ",\"format\":");
    jstr(b, r->format);
    tp_buf_printf(b, ",\"bytes\":%llu,\"hash\":\"%016llx\",\"options\":\"%016llx\",\"status\":",
                  (unsigned long long)r->bytes, (unsigned long long)r->hash, (unsigned long long)r->options);
    jstr(b, r->status);
    tp_buf_puts(b, ",\"error\":");
    jstr(b, r->error);
    tp_buf_printf(b, ",\"events\":%lld,\"steps\":%lld,\"median_step_ns\":", (long long)r->events,
                  (long long)r->steps);
    if (r->median_step_ns < 0)
        tp_buf_puts(b, "null");
    else
        tp_buf_printf(b, "%lld", (long long)r->median_step_ns);
    tp_buf_printf(b, ",\"device_ns\":%lld,\"span_ns\":%lld}", (long long)r->device_ns, (long long)r->span_ns);
}

void tp_batch_index_json(const tp_batch_rows *rs, tp_buf *b)
{
    size_t ok = 0;
    tp_buf_puts(b, "{\"schema\":\"tracepress.batch/1\",\n\"traces\":[");
    for (size_t i = 0; i < rs->n; i++) {
        ok += strcmp(rs->v[i].status, "ok") == 0;
        tp_buf_puts(b, i ? ",\n" : "\n");
        tp_batch_row_json(&rs->v[i], b);
    }
    tp_buf_printf(b, "\n],\n\"total\":%zu,\"ok\":%zu,\"failed\":%zu}\n", rs->n, ok, rs->n - ok);
}

/* ---- reading back (our own output; any valid JSON of that shape) ------- */

static char *jval_str(const char *s, size_t len, bool esc)
{
    if (!esc)
        return tp_xstrndup(s, len);
    tp_buf b = {0};
    tp_json_unescape(&b, s, len, NULL);
    tp_buf_putc(&b, 0);
    return b.data;
}

int tp_batch_row_parse(const char **pp, const char *end, tp_batch_row *r, tp_err *err)
{
    const char *p = tp_json_ws(*pp, end), *why = NULL;
    if (p >= end || *p != '{')
        return tp_fail_at(err, "", "index: row is not an object");
    p++;
    r->median_step_ns = -1;
    for (;;) {
        p = tp_json_ws(p, end);
        if (p < end && *p == '}') {
            p++;
            break;
        }
        const char *ks, *next;
        size_t kl;
        bool kesc;
        if (p >= end || *p != '"' || tp_json_string(p, end, &ks, &kl, &kesc, &next, &why) != TP_JL_OK)
            return tp_fail_at(err, "", "index: bad key");
        p = tp_json_ws(next, end);
        if (p >= end || *p != ':')
            return tp_fail_at(err, "", "index: missing ':'");
        p = tp_json_ws(p + 1, end);
        char key[32];
        snprintf(key, sizeof key, "%.*s", (int)(kl < 31 ? kl : 31), ks);
        if (p < end && *p == '"') {
            const char *vs;
            size_t vl;
            bool vesc;
            if (tp_json_string(p, end, &vs, &vl, &vesc, &next, &why) != TP_JL_OK)
                return tp_fail_at(err, "", "index: bad string");
            char *v = jval_str(vs, vl, vesc);
            char **dst = strcmp(key, "path") == 0     ? &r->path
                         : strcmp(key, "name") == 0   ? &r->name
                         : strcmp(key, "dir") == 0    ? &r->dir
                         : strcmp(key, "format") == 0 ? &r->format
                         : strcmp(key, "status") == 0 ? &r->status
                         : strcmp(key, "error") == 0  ? &r->error
                                                      : NULL;
            if (dst) {
                free(*dst);
                *dst = v;
            } else {
                if (strcmp(key, "hash") == 0)
                    r->hash = strtoull(v, NULL, 16);
                else if (strcmp(key, "options") == 0)
                    r->options = strtoull(v, NULL, 16);
                free(v);
            }
            p = next;
        } else if (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
            size_t nl;
            int64_t v = 0;
            if (tp_json_number(p, end, &nl, &why) != TP_JL_OK || tp_parse_int(p, nl, &v) < 0)
                return tp_fail_at(err, "", "index: bad number for %s", key);
            if (strcmp(key, "bytes") == 0)
                r->bytes = (uint64_t)v;
            else if (strcmp(key, "events") == 0)
                r->events = v;
            else if (strcmp(key, "steps") == 0)
                r->steps = v;
            else if (strcmp(key, "median_step_ns") == 0)
                r->median_step_ns = v;
            else if (strcmp(key, "device_ns") == 0)
                r->device_ns = v;
            else if (strcmp(key, "span_ns") == 0)
                r->span_ns = v;
            p += nl;
        } else if (tp_json_skip(p, end, &next, &why) == TP_JL_OK)
            p = next;
        else
            return tp_fail_at(err, "", "index: bad value for %s", key);
        p = tp_json_ws(p, end);
        if (p < end && *p == ',')
            p++;
    }
    if (!r->path || !r->name || !r->status)
        return tp_fail_at(err, "", "index: a row without path, name or status");
    if (!r->dir)
        r->dir = tp_xstrdup(r->name);
    if (!r->format)
        r->format = tp_xstrdup("");
    *pp = p;
    return 0;
}

int tp_batch_index_read(const char *path, tp_batch_rows *rs, tp_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    tp_buf b = {0};
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
        tp_buf_put(&b, chunk, k);
    fclose(f);
    tp_buf_putc(&b, 0);
    const char *p = strstr(b.data, "\"traces\"");
    const char *end = b.data + b.len - 1;
    int rc = 0;
    if (!strstr(b.data, "\"tracepress.batch/1\"") || !p || !(p = strchr(p, '['))) {
        rc = tp_fail_at(err, "", "%s: not a tracepress batch index", path);
        goto out;
    }
    p++;
    for (;;) {
        p = tp_json_ws(p, end);
        if (p < end && *p == ']')
            break;
        TP_GROW(rs->v, rs->cap, rs->n + 1);
        tp_batch_row *r = &rs->v[rs->n];
        memset(r, 0, sizeof *r);
        if (tp_batch_row_parse(&p, end, r, err) < 0) {
            tp_batch_row_free(r);
            rc = -1;
            goto out;
        }
        rs->n++;
        p = tp_json_ws(p, end);
        if (p < end && *p == ',')
            p++;
    }
out:
    tp_buf_free(&b);
    return rc;
}

/* ---- people's versions ---------------------------------------------------- */

static void dur(char *buf, size_t n, int64_t ns)
{
    if (ns < 0)
        snprintf(buf, n, "-");
    else
        tp_fmt_dur(buf, n, ns);
}

/* A string from a trace or a file name as a table cell: a code span
 * (tp_md_code: nothing in it is markup); empty: "-". */
static void md_code(tp_buf *b, const char *s)
{
    if (!s || !*s)
        tp_buf_putc(b, '-');
    else
        tp_md_code(b, s, SIZE_MAX);
}

/* A link destination: every byte but [A-Za-z0-9/._~-] percent-encoded, so
 * a folder name with spaces, parentheses, '<' or a pipe stays one link. */
static void md_link(tp_buf *b, const char *dir, const char *file)
{
    for (int part = 0; part < 2; part++) {
        for (const unsigned char *c = (const unsigned char *)(part ? file : dir); *c; c++) {
            if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("/._~-", *c))
                tp_buf_putc(b, (char)*c);
            else
                tp_buf_printf(b, "%%%02X", *c);
        }
        if (!part)
            tp_buf_putc(b, '/');
    }
}

void tp_batch_index_md(const tp_batch_rows *rs, tp_buf *b)
{
    size_t ok = 0;
    for (size_t i = 0; i < rs->n; i++)
        ok += strcmp(rs->v[i].status, "ok") == 0;
    tp_buf_printf(b, "# tracepress batch\n\n%zu traces: %zu ok, %zu failed.\n\n", rs->n, ok, rs->n - ok);
    tp_buf_puts(b, "| trace | format | steps | median step | device time | span | status | links |\n"
                   "|---|---|---:|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < rs->n; i++) {
        const tp_batch_row *r = &rs->v[i];
        char m[40], d[40], s[40];
        bool good = strcmp(r->status, "ok") == 0;
        dur(m, sizeof m, r->median_step_ns);
        dur(d, sizeof d, good ? r->device_ns : -1);
        dur(s, sizeof s, good ? r->span_ns : -1);
        tp_buf_puts(b, "| ");
        md_code(b, r->name);
        tp_buf_puts(b, " | ");
        md_code(b, r->format);
        if (good) {
            tp_buf_printf(b, " | %lld | %s | %s | %s | ok | [report](", (long long)r->steps, m, d, s);
            md_link(b, r->dir, "report/report.pdf");
            tp_buf_puts(b, ") · [summary](");
            md_link(b, r->dir, "report/summary.md");
            tp_buf_puts(b, ") · [trace](");
            md_link(b, r->dir, "trace.json.gz");
            tp_buf_puts(b, ") |\n");
        } else {
            tp_buf_puts(b, " | - | - | - | - | **error**: ");
            md_code(b, r->error ? r->error : "?");
            tp_buf_puts(b, " | |\n");
        }
    }
}

static char *in_dir(const char *dir, const char *file)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "%s/%s", dir, file);
    tp_buf_putc(&b, 0);
    return b.data;
}

/* The PDF table: the Markdown's columns; the links are relative to the
 * index (like index.md's), so the folder can be moved or published. */
static void pdf_draw(tp_canvas *cv, const tp_batch_rows *rs)
{
    static const tp_table_col cols[] = {{"trace", 0, TP_FIT_MIDDLE, 1}, {"format", 0, TP_FIT_END, 0},
                                        {"steps", 1, 0, 0},             {"median step", 1, 0, 0},
                                        {"device time", 1, 0, 0},       {"span", 1, 0, 0},
                                        {"status", 0, TP_FIT_WRAP, 0},  {"report", 0, TP_FIT_END, 0},
                                        {"converted", 0, TP_FIT_END, 0}};
    enum { NC = 9 };
    const char **cells = tp_xcalloc(rs->n * NC + 1, sizeof *cells);
    const char **links = tp_xcalloc(rs->n * NC + 1, sizeof *links);
    char **own = tp_xcalloc(rs->n * NC + 1, sizeof *own); /* freed: cells and links we made */
    for (size_t i = 0; i < rs->n; i++) {
        const tp_batch_row *r = &rs->v[i];
        bool good = strcmp(r->status, "ok") == 0;
        char b[4][48];
        snprintf(b[0], sizeof b[0], "%lld", (long long)r->steps);
        dur(b[1], sizeof b[1], r->median_step_ns);
        dur(b[2], sizeof b[2], good ? r->device_ns : -1);
        dur(b[3], sizeof b[3], good ? r->span_ns : -1);
        const char **row = cells + i * NC;
        char **mine = own + i * NC;
        row[0] = r->name;
        row[1] = r->format;
        for (int k = 0; k < 4; k++)
            row[2 + k] = mine[k] = tp_xstrdup(good ? b[k] : "-");
        if (good) {
            row[6] = "ok";
            row[7] = "report.pdf";
            row[8] = "trace.json.gz";
            links[i * NC + 7] = mine[5] = in_dir(r->dir, "report/report.pdf");
            links[i * NC + 8] = mine[6] = in_dir(r->dir, "trace.json.gz");
        } else {
            char *e = NULL;
            if (asprintf(&e, "error: %s", r->error ? r->error : "?") < 0)
                e = tp_xstrdup("error");
            row[6] = mine[4] = e;
        }
    }
    tp_table t = {"tracepress batch: traces", NC, cols, rs->n, cells, 8, 3, links};
    const double w = 842, h = 595, m = 36;
    tp_table_layout *L = tp_table_layout_new(&t, w - 2 * m, h - 2 * m);
    for (size_t p = 0; p < tp_table_pages(L); p++) {
        tp_cv_begin_section_page(cv, w, h, "Traces", p, tp_table_pages(L));
        tp_table_draw_page(cv, &t, L, p, (tp_rect){m, m, w - 2 * m, h - 2 * m});
        tp_cv_end_page(cv);
    }
    tp_table_layout_free(L);
    for (size_t i = 0; i < rs->n * NC; i++)
        free(own[i]);
    free(own);
    free(links);
    free(cells);
}

int tp_batch_index_write(const tp_batch_rows *rs, const char *dir, const char *stem, tp_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.pdf", dir, stem);
    char title[96];
    snprintf(title, sizeof title, "tracepress batch index: %zu traces", rs->n);
    tp_canvas *cv = tp_canvas_pdf(path,
                                  &(tp_pdf_meta){.title = title,
                                                 .subject = "Each trace of a batch: its status, headline numbers "
                                                            "and a link to its report"},
                                  err);
    if (!cv)
        return -1;
    pdf_draw(cv, rs);
    if (tp_canvas_close(cv, err) != 0)
        return -1;
    tp_buf md = {0}, js = {0};
    tp_batch_index_md(rs, &md);
    tp_batch_index_json(rs, &js);
    snprintf(path, sizeof path, "%s/%s.md", dir, stem);
    int rc = tp_out_write_file(NULL, path, md.data, md.len, err);
    snprintf(path, sizeof path, "%s/%s.json", dir, stem);
    if (rc == 0)
        rc = tp_out_write_file(NULL, path, js.data, js.len, err);
    tp_buf_free(&md);
    tp_buf_free(&js);
    return rc;
}
