/* batch_state.c: what a batch folder remembers between runs and who may
 * write it: the per-trace record of what made its outputs, and the
 * folder's lock (batch.h). */
#include "report/batch/batch.h"
#include "convert/codec/json_write.h"
#include "convert/io/output.h"
#include "report/assemble/report_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TP_VERSION
#define TP_VERSION "0.0.0"
#endif

#define RECORD "made-by.json"
#define RECORD_SCHEMA "tracepress.batch-trace/1"

static void record_path(char *p, size_t n, const char *dir, const char *name)
{
    snprintf(p, n, "%s/%s/" RECORD, dir, name);
}

void tp_batch_record_remove(const char *dir, const char *name)
{
    char p[4096];
    record_path(p, sizeof p, dir, name);
    if (!tp_out_protected(p)) /* an input is never removed (tp_batch_row_output_input refuses it first) */
        (void)unlink(p);
}

const char *tp_batch_row_output_input(const char *dir, const char *name, char *out, size_t nout)
{
    const char *in;
    record_path(out, nout, dir, name);
    if ((in = tp_out_protected(out)) != NULL)
        return in;
    snprintf(out, nout, "%s/%s/trace.json.gz", dir, name);
    if ((in = tp_out_protected(out)) != NULL)
        return in;
    char rdir[4400];
    snprintf(rdir, sizeof rdir, "%s/%s/report", dir, name);
    return tp_report_output_input(rdir, out, nout);
}

/* The row (the index's own fields) with what made it in front: the schema,
 * the version, the options as given and the input's mtime (for people; the
 * decision uses the content hash, which a copy or a `touch` keeps). */
int tp_batch_record_write(const char *dir, const tp_batch_row *r, const char *made_with, tp_err *err)
{
    char p[4096];
    record_path(p, sizeof p, dir, r->name);
    struct stat st;
    long long mtime_ns = stat(r->path, &st) == 0 ? (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec : -1;
    tp_buf row = {0}, b = {0};
    tp_batch_row_json(r, &row);
    tp_buf_puts(&b, "{\"schema\":\"" RECORD_SCHEMA "\",\"tracepress\":\"" TP_VERSION "\",\"made_with\":");
    tp_json_put_string(&b, made_with ? made_with : "", made_with ? strlen(made_with) : 0, NULL);
    tp_buf_printf(&b, ",\"mtime_ns\":%lld,", mtime_ns);
    tp_buf_put(&b, row.data + 1, row.len - 1); /* the row's keys, after its '{' */
    tp_buf_putc(&b, '\n');
    int rc = tp_out_write_file(NULL, p, b.data, b.len, err);
    tp_buf_free(&row);
    tp_buf_free(&b);
    return rc;
}

static bool exists(const char *dir, const char *name, const char *file)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s/%s", dir, name, file);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    tp_buf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1u << 20))
        tp_buf_put(&b, chunk, k);
    fclose(f);
    *len = b.len;
    tp_buf_putc(&b, 0);
    return b.data;
}

bool tp_batch_record_matches(const char *dir, tp_batch_row *r)
{
    char p[4096];
    record_path(p, sizeof p, dir, r->name);
    size_t len = 0;
    char *text = read_file(p, &len);
    if (!text)
        return false;
    tp_batch_row rec = {0};
    tp_err err = {0};
    const char *q = text;
    bool ok = strstr(text, "\"schema\":\"" RECORD_SCHEMA "\"") && tp_batch_row_parse(&q, text + len, &rec, &err) == 0 &&
              strcmp(rec.path, r->path) == 0 && strcmp(rec.name, r->name) == 0 && rec.bytes == r->bytes &&
              rec.hash == r->hash && rec.options == r->options && strcmp(rec.status, "ok") == 0 &&
              exists(dir, r->name, "trace.json.gz") && exists(dir, r->name, "report/summary.json");
    if (ok) {
        free(r->format);
        r->format = tp_xstrdup(rec.format);
        free(r->status);
        r->status = tp_xstrdup("ok");
        r->events = rec.events;
        r->steps = rec.steps;
        r->median_step_ns = rec.median_step_ns;
        r->device_ns = rec.device_ns;
        r->span_ns = rec.span_ns;
    }
    tp_batch_row_free(&rec);
    free(text);
    return ok;
}
