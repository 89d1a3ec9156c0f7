/* batch_hash.c: the batch's content hash (batch.h). */
#include "report/batch/batch.h"
#include "convert/pipeline/graph_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static uint64_t round1(uint64_t acc, uint64_t w) { return rotl(acc + w * P2, 31) * P1; }

void tp_hash64_init(tp_hash64 *h)
{
    memset(h, 0, sizeof *h);
    h->lane[0] = P1 + P2;
    h->lane[1] = P2;
    h->lane[2] = 0;
    h->lane[3] = (uint64_t)0 - P1;
}

static void block(tp_hash64 *h, const unsigned char *p)
{
    h->lane[0] = round1(h->lane[0], rd64(p));
    h->lane[1] = round1(h->lane[1], rd64(p + 8));
    h->lane[2] = round1(h->lane[2], rd64(p + 16));
    h->lane[3] = round1(h->lane[3], rd64(p + 24));
}

void tp_hash64_update(tp_hash64 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    h->len += n;
    if (h->ntail) {
        size_t k = 32 - h->ntail < n ? 32 - h->ntail : n;
        memcpy(h->tail + h->ntail, p, k);
        h->ntail += k;
        p += k;
        n -= k;
        if (h->ntail < 32)
            return;
        block(h, h->tail);
        h->ntail = 0;
    }
    for (; n >= 32; p += 32, n -= 32)
        block(h, p);
    memcpy(h->tail, p, n);
    h->ntail = n;
}

uint64_t tp_hash64_final(const tp_hash64 *h)
{
    uint64_t x = rotl(h->lane[0], 1) + rotl(h->lane[1], 7) + rotl(h->lane[2], 12) + rotl(h->lane[3], 18);
    x ^= h->len * P3;
    size_t i = 0;
    for (; i + 8 <= h->ntail; i += 8)
        x = rotl(x ^ round1(0, rd64(h->tail + i)), 27) * P1 + P3;
    for (; i < h->ntail; i++)
        x = rotl(x ^ (h->tail[i] * P3), 11) * P1;
    x ^= x >> 33;
    x *= P2;
    x ^= x >> 29;
    x *= P3;
    x ^= x >> 32;
    return x;
}

uint64_t tp_hash64_bytes(const void *p, size_t n)
{
    tp_hash64 h;
    tp_hash64_init(&h);
    tp_hash64_update(&h, p, n);
    return tp_hash64_final(&h);
}

int tp_hash64_file(const char *path, uint64_t *out, uint64_t *size, tp_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tp_fail_at(err, "", "cannot open: %s", strerror(errno));
    static unsigned char buf[1 << 20];
    tp_hash64 h;
    tp_hash64_init(&h);
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            return tp_fail_at(err, "", "cannot read: %s", strerror(e));
        }
        if (k == 0)
            break;
        tp_hash64_update(&h, buf, (size_t)k);
    }
    close(fd);
    *out = tp_hash64_final(&h);
    *size = h.len;
    return 0;
}

uint64_t tp_batch_capture_key(const char *trace, uint64_t options)
{
    tp_capture_stats *st = tp_xcalloc(1, sizeof *st);
    tp_err err = {0};
    int rc = tp_graph_capture_discover(trace, st, &err);
    if (rc == 0 && !st->discovered) {
        free(st);
        return options;
    }
    tp_hash64 h;
    tp_hash64_init(&h);
    tp_hash64_update(&h, &options, sizeof options);
    if (rc < 0) /* a bad folder: the trace's run says so; redone until it is fixed */
        tp_hash64_update(&h, err.msg, strlen(err.msg));
    char details[1100];
    const char *slash = strrchr(trace, '/');
    snprintf(details, sizeof details, "%.*s%scapture_traces/execution_details.json", slash ? (int)(slash - trace) : 0,
             trace, slash ? "/" : "");
    struct stat sb;
    for (size_t k = 0; k <= st->nfiles; k++) { /* the listed files, then the details (batch sizes, modes) */
        const char *p = k < st->nfiles ? st->files[k].path : details;
        uint64_t fh = 0, fsz = 0;
        if (k == st->nfiles && (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)))
            break;
        tp_err ferr = {0};
        if (tp_hash64_file(p, &fh, &fsz, &ferr) < 0)
            fh = ~(uint64_t)0, fsz = 0;
        tp_hash64_update(&h, p, strlen(p) + 1);
        tp_hash64_update(&h, &fh, sizeof fh);
        tp_hash64_update(&h, &fsz, sizeof fsz);
    }
    free(st);
    return tp_hash64_final(&h);
}
