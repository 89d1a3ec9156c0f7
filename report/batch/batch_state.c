/* batch_state.c: what a batch folder remembers between runs and who may
 * write it: the per-trace record of what made its outputs, and the
 * folder's lock (batch.h). */
#include "report/batch/batch.h"
#include "convert/codec/json_write.h"
#include "convert/io/output.h"

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
    (void)unlink(p);
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

/* ---- the lock --------------------------------------------------------------- */

/* POSIX record locks (fcntl), not flock: a forked worker does not inherit
 * them, so a worker that outlives its parent holds nothing, and F_GETLK
 * names the holder's pid.  Byte 0: the folder (exclusive for a whole run
 * or a merge, shared by shards); byte 1 + N(N-1)/2 + K-1: shard K/N. */
static int lock_byte(int fd, short type, off_t at, bool wait, const char *dir, const char *what)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    if (fcntl(fd, F_SETLK, &fl) == 0)
        return 0;
    if (errno != EACCES && errno != EAGAIN) {
        /* a filesystem without locks: say so once and go on unprotected */
        fprintf(stderr, TP_PROG " batch: %s: cannot lock (%s); not protected from a concurrent run\n", dir,
                strerror(errno));
        return 0;
    }
    struct flock who = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    char pid[40] = "";
    if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0)
        snprintf(pid, sizeof pid, " (pid %ld)", (long)who.l_pid);
    if (!wait) {
        fprintf(stderr, TP_PROG ": %s: another batch is writing %s%s\n", dir, what, pid);
        return -1;
    }
    fprintf(stderr, TP_PROG " batch: %s: waiting for another batch writing %s%s\n", dir, what, pid);
    while (fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) {
            fprintf(stderr, TP_PROG ": %s: cannot lock %s: %s\n", dir, what, strerror(errno));
            return -1;
        }
    return 0;
}

int tp_batch_lock(const char *dir, int shard_k, int shard_n, bool wait)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/.tracepress-batch.lock", dir);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, TP_PROG ": %s: cannot open the batch lock: %s\n", p, strerror(errno));
        return -1;
    }
    int rc;
    if (shard_n == 0)
        rc = lock_byte(fd, F_WRLCK, 0, wait, dir, "this folder");
    else {
        char what[80];
        snprintf(what, sizeof what, "shard %d/%d of this folder", shard_k, shard_n);
        off_t at = 1 + (off_t)shard_n * (shard_n - 1) / 2 + (shard_k - 1);
        rc = lock_byte(fd, F_RDLCK, 0, wait, dir, "this folder");
        if (rc == 0)
            rc = lock_byte(fd, F_WRLCK, at, wait, dir, what);
    }
    if (rc < 0) {
        close(fd);
        return -1;
    }
    return fd;
}
