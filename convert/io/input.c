/* input.c: plain or gzip input as a stream.
 *
 * gzip is inflated by ISA-L (Debian's libisal): on this machine it inflates
 * a 1 GB Kineto trace 8x faster than zlib (2,500 against 300 MB/s of
 * output per CPU second), which made zlib the limit of `.json.gz` input even
 * on its own thread.  The stream is driven directly so that a truncated or
 * corrupt file is reported with its offset, never silently ended. */
#include "convert/io/input.h"
#include "convert/io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

#define RAW_CHUNK (1u << 20)
/* Read-ahead: a second thread reads (and inflates) up to RING chunks ahead of
 * the parser, so decompression and parsing overlap on two cores. */
#define RING 4
#define RING_CHUNK (4u << 20)

typedef struct ring_chunk {
    unsigned char *data;
    size_t len, pos;
} ring_chunk;

struct tp_input {
    const char *path;
    int fd;
    bool gzip;
    bool raw_eof;
    bool z_end;
    struct inflate_state z;
    unsigned char *raw;      /* compressed read buffer */
    uint64_t file_size;
    uint64_t raw_read;       /* compressed bytes read from the fd */
    uint64_t consumed;       /* decompressed bytes returned */
    uint64_t inflated;       /* decompressed bytes produced (the bomb rule) */
    unsigned char head[64];  /* peeked decompressed bytes not yet returned */
    size_t head_len, head_pos;
    /* read-ahead thread (when `threaded`) */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ring_chunk ring[RING];
    size_t ring_head, ring_count; /* consumer takes ring[ring_head]; producer fills after */
    bool producer_done, producer_failed, stop;
    tp_err thread_err;
    char *map;               /* tp_input_map: the file, then one zero page */
    size_t map_len;
};

static long read_decompressed(tp_input *in, unsigned char *buf, size_t n, tp_err *err);

static void *producer(void *arg)
{
    tp_input *in = arg;
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while (in->ring_count == RING && !in->stop)
            pthread_cond_wait(&in->cv, &in->mu);
        if (in->stop) {
            pthread_mutex_unlock(&in->mu);
            return NULL;
        }
        ring_chunk *c = &in->ring[(in->ring_head + in->ring_count) % RING];
        pthread_mutex_unlock(&in->mu);
        /* fill outside the lock: only this thread touches this slot now */
        size_t len = 0;
        long r = 1;
        while (len < RING_CHUNK && (r = read_decompressed(in, c->data + len, RING_CHUNK - len, &in->thread_err)) > 0)
            len += (size_t)r;
        pthread_mutex_lock(&in->mu);
        c->len = len;
        c->pos = 0;
        if (len)
            in->ring_count++;
        if (r <= 0) {
            in->producer_done = true;
            in->producer_failed = r < 0;
        }
        pthread_cond_broadcast(&in->cv);
        bool done = in->producer_done;
        pthread_mutex_unlock(&in->mu);
        if (done)
            return NULL;
    }
}

static void start_thread(tp_input *in)
{
    pthread_mutex_init(&in->mu, NULL);
    pthread_cond_init(&in->cv, NULL);
    for (int i = 0; i < RING; i++)
        in->ring[i].data = tp_xmalloc(RING_CHUNK);
    if (pthread_create(&in->thread, NULL, producer, in) == 0)
        in->threaded = true;
    else {
        for (int i = 0; i < RING; i++)
            free(in->ring[i].data);
        pthread_mutex_destroy(&in->mu);
        pthread_cond_destroy(&in->cv);
    }
}

/* Consumer side: copy from the ring. */
static long read_threaded(tp_input *in, unsigned char *buf, size_t n, tp_err *err)
{
    pthread_mutex_lock(&in->mu);
    while (in->ring_count == 0 && !in->producer_done)
        pthread_cond_wait(&in->cv, &in->mu);
    if (in->ring_count == 0) {
        bool failed = in->producer_failed;
        pthread_mutex_unlock(&in->mu);
        if (failed) {
            if (err && !err->set)
                *err = in->thread_err;
            return -1;
        }
        return 0;
    }
    ring_chunk *c = &in->ring[in->ring_head];
    pthread_mutex_unlock(&in->mu);
    size_t k = c->len - c->pos;
    if (k > n)
        k = n;
    memcpy(buf, c->data + c->pos, k);
    c->pos += k;
    if (c->pos == c->len) {
        pthread_mutex_lock(&in->mu);
        in->ring_head = (in->ring_head + 1) % RING;
        in->ring_count--;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
    }
    return (long)k;
}

static long read_fd(tp_input *in, void *buf, size_t n, tp_err *err)
{
    for (;;) {
        ssize_t r = read(in->fd, buf, n);
        if (r >= 0) {
            in->raw_read += (uint64_t)r;
            return (long)r;
        }
        if (errno == EINTR)
            continue;
        tp_fail(err, in->raw_read, "read error: %s", strerror(errno));
        return -1;
    }
}

/* Compressed input for the inflater, when it has used what it had. */
static int feed(tp_input *in, tp_err *err)
{
    if (in->z.avail_in > 0 || in->raw_eof)
        return 0;
    long r = read_fd(in, in->raw, RAW_CHUNK, err);
    if (r < 0)
        return -1;
    if (r == 0)
        in->raw_eof = true;
    in->z.next_in = in->raw;
    in->z.avail_in = (uint32_t)r;
    return 0;
}

static const char *isal_error(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect checksum";
    default: return "inflate failed";
    }
}

/* gzip data that expands more than max_ratio times, once past BOMB_FLOOR, is
 * refused: real traces compress 3-30 fold (the shared samples: 4-30), a gzip
 * bomb up to 1000 fold, and 62 MB of it would have the reader hold events of
 * 21 GB.  Checked against the compressed bytes read so far, so a pipe is
 * held to it too.  --max-inflate changes the ratio (0: no limit). */
#define BOMB_FLOOR ((uint64_t)64 << 20)
static unsigned max_ratio = TP_INPUT_MAX_INFLATE;

void tp_input_set_max_inflate(unsigned ratio) { max_ratio = ratio; }
unsigned tp_input_max_inflate(void) { return max_ratio; }

static int check_bomb(tp_input *in, tp_err *err)
{
    uint64_t cap = in->raw_read * max_ratio;
    if (!max_ratio || in->inflated <= BOMB_FLOOR || in->inflated <= cap)
        return 0;
    return tp_fail(err, in->inflated, "gzip data expands more than %u-fold (%llu bytes from %llu): a gzip bomb? "
                   "(--max-inflate N raises the limit)", max_ratio, (unsigned long long)in->inflated,
                   (unsigned long long)in->raw_read);
}

static long read_decompressed(tp_input *in, unsigned char *buf, size_t n, tp_err *err)
{
    if (!in->gzip)
        return read_fd(in, buf, n, err);
    if (in->z_end)
        return 0;
    in->z.next_out = buf;
    in->z.avail_out = (uint32_t)(n > (1u << 30) ? (1u << 30) : n);
    while (in->z.avail_out > 0) {
        if (feed(in, err) < 0)
            return -1;
        if (in->z.block_state == ISAL_BLOCK_FINISH) {
            /* concatenated gzip members are one stream (gzip(1) semantics) */
            if (in->z.avail_in >= 2 && in->z.next_in[0] == 0x1f && in->z.next_in[1] == 0x8b) {
                isal_inflate_reset(&in->z);
                in->z.crc_flag = ISAL_GZIP;
                continue;
            }
            in->z_end = true; /* what follows the last member is not gzip: ignored, like gzip -d */
            break;
        }
        uint32_t in_before = in->z.avail_in, out_before = in->z.avail_out;
        int r = isal_inflate(&in->z);
        if (r < 0) {
            tp_fail(err, in->raw_read - in->z.avail_in, "corrupt gzip data (%s)", isal_error(r));
            return -1;
        }
        bool progress = in->z.avail_in != in_before || in->z.avail_out != out_before;
        if (in->z.block_state != ISAL_BLOCK_FINISH && in->z.avail_in == 0 && in->raw_eof && !progress) {
            tp_fail(err, in->raw_read, "gzip stream ends early (truncated file)");
            return -1;
        }
        if (!progress && in->z.avail_in > 0 && in->z.block_state != ISAL_BLOCK_FINISH) {
            tp_fail(err, in->raw_read - in->z.avail_in, "corrupt gzip data (inflate makes no progress)");
            return -1;
        }
    }
    long got = (long)(in->z.next_out - buf);
    in->inflated += (uint64_t)got;
    return check_bomb(in, err) < 0 ? -1 : got;
}

tp_input *tp_input_open(const char *path, tp_err *err)
{
    tp_input *in = tp_xcalloc(1, sizeof *in);
    in->path = path;
    if (strcmp(path, "-") == 0) {
        in->fd = 0;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            tp_fail_at(err, "", "cannot open: %s", strerror(errno));
            free(in);
            return NULL;
        }
        struct stat st;
        if (fstat(in->fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                tp_fail_at(err, "", "is a directory");
                close(in->fd);
                free(in);
                return NULL;
            }
            in->file_size = (uint64_t)st.st_size;
        }
        tp_out_protect(path); /* no output of this run may replace an input it read */
    }
    /* sniff the gzip magic from the first raw bytes */
    unsigned char magic[2];
    long r = read_fd(in, magic, 2, err);
    if (r < 0) {
        tp_input_close(in);
        return NULL;
    }
    if (r == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        in->gzip = true;
        in->raw = tp_xmalloc(RAW_CHUNK);
        memcpy(in->raw, magic, 2);
        isal_inflate_init(&in->z);
        in->z.crc_flag = ISAL_GZIP; /* parse the gzip header, check CRC and length */
        in->z.next_in = in->raw;
        in->z.avail_in = 2;
    } else {
        memcpy(in->head, magic, (size_t)r);
        in->head_len = (size_t)r;
    }
    /* fill the peek buffer up to 64 bytes */
    while (in->head_len < sizeof in->head) {
        long n = read_decompressed(in, in->head + in->head_len, sizeof in->head - in->head_len, err);
        if (n < 0) {
            tp_input_close(in);
            return NULL;
        }
        if (n == 0)
            break;
        in->head_len += (size_t)n;
    }
    if (in->gzip) /* inflating is the expensive part; plain reads are cheap */
        start_thread(in);
    return in;
}

void tp_input_close(tp_input *in)
{
    if (!in)
        return;
    if (in->threaded) {
        pthread_mutex_lock(&in->mu);
        in->stop = true;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        pthread_join(in->thread, NULL);
        for (int i = 0; i < RING; i++)
            free(in->ring[i].data);
        pthread_mutex_destroy(&in->mu);
        pthread_cond_destroy(&in->cv);
    }
    if (in->map)
        munmap(in->map, in->map_len);
    if (in->fd > 0)
        close(in->fd);
    free(in->raw);
    free(in);
}

long tp_input_read(tp_input *in, void *buf, size_t n, tp_err *err)
{
    if (n == 0)
        return 0;
    if (in->head_pos < in->head_len) {
        size_t k = in->head_len - in->head_pos;
        if (k > n)
            k = n;
        memcpy(buf, in->head + in->head_pos, k);
        in->head_pos += k;
        in->consumed += k;
        return (long)k;
    }
    long r = in->threaded ? read_threaded(in, buf, n, err) : read_decompressed(in, buf, n, err);
    if (r > 0)
        in->consumed += (uint64_t)r;
    return r;
}

char *tp_input_slurp(tp_input *in, size_t *len, uint64_t limit, tp_err *err)
{
    size_t cap = in->gzip ? (size_t)in->file_size * 4 + 4096 : (size_t)in->file_size + 1;
    if (cap < 4096)
        cap = 4096;
    if (limit && cap > limit + 1)
        cap = (size_t)limit + 1;
    char *buf = tp_xmalloc(cap);
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            /* full: is there more at all?  (a plain file fits exactly: no doubling at its end) */
            unsigned char probe;
            long r1 = tp_input_read(in, &probe, 1, err);
            if (r1 < 0) {
                free(buf);
                return NULL;
            }
            if (r1 == 0)
                break;
            if (limit && n >= limit) {
                tp_fail(err, n, "input expands beyond %llu bytes", (unsigned long long)limit);
                free(buf);
                return NULL;
            }
            size_t ncap = cap * 2;
            if (limit && ncap > limit + 1)
                ncap = (size_t)limit + 1;
            buf = tp_xrealloc(buf, ncap);
            cap = ncap;
            buf[n++] = (char)probe;
        }
        long r = tp_input_read(in, buf + n, cap - n - 1, err);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

size_t tp_input_peek(tp_input *in, const unsigned char **head)
{
    *head = in->head + in->head_pos;
    return in->head_len - in->head_pos;
}

bool tp_input_seekable(const tp_input *in)
{
    if (in->gzip || in->threaded || in->fd <= 0 || in->file_size == 0)
        return false;
    struct stat st;
    return fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
}

bool tp_input_reopenable(const tp_input *in)
{
    struct stat st;
    return in->fd > 0 && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
}

int tp_input_seek(tp_input *in, uint64_t offset, tp_err *err)
{
    if (!tp_input_seekable(in))
        return tp_fail(err, offset, "cannot seek in this input");
    if (lseek(in->fd, (off_t)offset, SEEK_SET) < 0)
        return tp_fail(err, offset, "seek error: %s", strerror(errno));
    in->head_pos = in->head_len; /* the peeked bytes are behind us, or skipped */
    in->raw_read = offset;
    in->consumed = offset;
    return 0;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

const char *tp_input_map(tp_input *in, uint64_t *size)
{
    if (in->map) {
        *size = in->file_size;
        return in->map;
    }
    size_t page = page_size();
    if (!tp_input_seekable(in) || in->file_size > SIZE_MAX - 2 * page)
        return NULL;
    struct stat st;
    if (fstat(in->fd, &st) != 0 || (uint64_t)st.st_size != in->file_size)
        return NULL;
    /* reserve the file's pages and one more (anonymous, zero), then put the
     * file over the first ones: a NUL follows the last byte even when the
     * file ends on a page boundary */
    size_t len = ((size_t)in->file_size + page - 1) / page * page + page;
    char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mmap(m, (size_t)in->file_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, in->fd, 0) == MAP_FAILED) {
        munmap(m, len);
        return NULL;
    }
    in->map = m;
    in->map_len = len;
    *size = in->file_size;
    return m;
}

void tp_input_unmap_pages(const char *map, uint64_t from, uint64_t to)
{
    const uint64_t page = page_size();
    from = from / page * page;
    to = to / page * page;
    if (to > from)
        (void)madvise((void *)(map + from), (size_t)(to - from), MADV_DONTNEED);
}

bool tp_input_is_gzip(const tp_input *in) { return in->gzip; }
const char *tp_input_path(const tp_input *in) { return in->path; }
uint64_t tp_input_compressed_size(const tp_input *in) { return in->file_size; }
