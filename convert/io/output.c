/* output.c: atomic, optionally gzip'ed output files.
 *
 * gzip output is compressed by ISA-L at its level 0 (tp_out_gzip_init: why
 * not level 1); level 1 deflated a 200 MB Kineto trace in 0.16 s of CPU
 * against zlib level 1's 1.39 s, and level 0 is as fast.  ISA-L writes a
 * fixed generic gzip header (no name, mtime 0). */
#include "convert/io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

/* The formatting buffer is handed to the write thread at this size: 4 MB,
 * as the O_DIRECT staging buffer, so one hand-over is one disk write; with
 * 1 MB the formatter waited for every fourth write (0.1 s of a 1 GB Kineto
 * conversion on one core). */
#define FLUSH_AT (4u << 20)
/* Temporary files a signal must remove: the open ones and those of a set
 * not yet published (a report's PNGs, a split's parts). */
#define MAX_OPEN 4096

struct tp_outset {
    char **tmp, **final; /* committed members: temporary name -> final name */
    int *slot;           /* their places in open_tmps */
    size_t n, cap;
    pthread_mutex_t mu;  /* a report commits its PDF on a second thread */
    char **stale;        /* an earlier set's members this one replaces (tp_outset_replaces): DIR/NAME */
    size_t nstale, stale_dir_len;
};

/* The set this thread's tp_out_open joins (tp_outset_use). */
static _Thread_local tp_outset *current_set;

struct tp_out {
    char *path;
    char *tmp;
    tp_outset *set;      /* commit keeps the file under its temporary name for the set */
    int fd;
    bool gzip;
    bool failed;
    int saved_errno;
    struct isal_zstream z;
    unsigned char *zbuf;
    tp_buf buf;
    uint64_t bytes;
    int slot;
    /* Large outputs are written (and deflated) by a thread of their own
     * while the writer fills the next buffer: writing into the page cache
     * costs about as much CPU as formatting on this machine's kind of VM. */
    bool thread;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tp_buf io;               /* the buffer the thread writes */
    bool io_full, stop;
    /* Large outputs bypass the page cache (O_DIRECT, see direct_start):
     * bytes are staged in an aligned buffer and written in whole blocks. */
    bool direct;
    unsigned char *dbuf;
    size_t dlen, dalign;
    /* With no write thread (TP_WRITE_THREAD=0) a plain output stages in `buf`
     * itself, kept aligned: its whole blocks go to the disk from there and
     * only the partial last block stays (in_place_flush). */
    bool in_place, direct_tried;
    /* With the write thread and O_DIRECT (plain output), the thread writes
     * the whole blocks of the buffer it is handed in place, and the partial
     * last block starts the next formatting buffer: no copy into dbuf
     * (tp_out_maybe_flush).  io_in_place: the buffer it holds is such. */
    bool zero_copy, io_in_place;
};

/* Temporary names still open, for the signal handler: a fixed array of
 * pointers that stay valid while registered, claimed and released
 * atomically (outputs are opened by two threads at once: the report's PDF
 * and PNGs; lock-free atomics are async-signal-safe). */
static _Atomic(char *) open_tmps[MAX_OPEN];

/* Async-signal-safe: atomic loads and unlink only. */
static void remove_open_tmps(void)
{
    for (int i = 0; i < MAX_OPEN; i++) {
        char *tmp = atomic_load(&open_tmps[i]);
        if (tmp)
            unlink(tmp);
    }
}

static void on_signal(int sig)
{
    remove_open_tmps();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Inputs are read through memory maps: one that shrinks under us (another
 * process truncating it) faults with SIGBUS.  That is bad input, not a
 * crash: temporary outputs removed, one line, exit 2. */
static void on_bus_error(int sig)
{
    (void)sig;
    remove_open_tmps();
    static const char msg[] = TP_PROG ": an input file shrank while it was read (bus error)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(TP_EXIT_INPUT);
}

/* New files get 0666 less the umask, as the shell's would (mkstemp makes
 * 0600).  umask() can only be read by setting it: once, before threads. */
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static mode_t out_mode;

static void read_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    out_mode = 0666 & ~m;
}

void tp_out_install_signal_cleanup(void)
{
    pthread_once(&mode_once, read_umask);
    tp_on_fatal_exit(remove_open_tmps); /* out of memory: no temporary file left behind */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_bus_error;
    sigaction(SIGBUS, &sa, NULL);
    /* A file-size limit (ulimit -f; Slurm passes the submitting shell's on)
     * must be a write error like a full disk: with SIGXFSZ's default action
     * the process dies at the limit and leaves its temporary file; ignored,
     * write() fails with EFBIG and the output is cleaned up as usual. */
    signal(SIGXFSZ, SIG_IGN);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Temporary files are NAME.tmp.PID.XXXXXX: one whose process is gone (a
 * SIGKILL, a power cut) is removed by the next run that writes NAME.  The
 * pid of such a name in n when it has the form (for NAME = base when base is
 * not NULL), else 0. */
static long tmp_pid(const char *n, const char *base)
{
    size_t len = strlen(n);
    if (len < 14 || n[len - 7] != '.') /* "X.tmp.1.XXXXXX" at least */
        return 0;
    const char *digits = n + len - 7;
    while (digits > n && digits[-1] >= '0' && digits[-1] <= '9')
        digits--;
    if (digits == n + len - 7 || digits - n < 6 || strncmp(digits - 5, ".tmp.", 5) != 0)
        return 0;
    if (base && ((size_t)(digits - 5 - n) != strlen(base) || strncmp(n, base, strlen(base)) != 0))
        return 0;
    char *end;
    long pid = strtol(digits, &end, 10);
    return end == n + len - 7 && pid > 0 ? pid : 0;
}

/* The stale temporary files in dir (of NAME = base, or of any name when base
 * is NULL). */
static void sweep_tmps(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = tmp_pid(e->d_name, base);
        if (!pid || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to ask): its file */
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (!tp_out_protected(full)) /* an input, however it is named, is never removed */
            (void)unlink(full);
    }
    closedir(d);
}

/* A folder swept whole (tp_out_sweep_dir): writes into it skip their scan. */
static char *swept_dir;

void tp_out_sweep_dir(const char *dir)
{
    sweep_tmps(dir, NULL);
    free(swept_dir);
    swept_dir = tp_xstrdup(dir);
}

static void remove_stale_tmps(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (swept_dir && strcmp(dir, swept_dir) == 0)
        return; /* a scan per file would cost files x files in a folder of thousands (a job's ranks) */
    sweep_tmps(dir, slash ? slash + 1 : path);
}

/* An output that is not a regular file: a FIFO or a character device
 * (/dev/null, a terminal) is written straight into, as standard output is;
 * anything else is refused, never renamed over.  0: go on with a temporary
 * file; 1: o->fd is open on it; -1: refused. */
static int open_special(tp_out *o, const char *path, tp_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return 0;
    const char *what = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket" : NULL;
    if (!what && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd >= 0)
            return 1;
        return tp_fail_at(err, "", "cannot open %s: %s", path, strerror(errno));
    }
    return tp_fail_at(err, "", "refusing to write %s: it is %s, not a regular file", path,
                      what ? what : "not a regular file");
}

tp_out *tp_out_open(const char *path, const char *protect, tp_err *err)
{
    pthread_once(&mode_once, read_umask);
    struct stat a, b;
    if (protect && strcmp(protect, "-") != 0) {
        if (stat(path, &a) == 0 && stat(protect, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            tp_fail_at(err, "", "refusing to overwrite the input file %s", protect);
            return NULL;
        }
    }
    const char *input = strcmp(path, "-") != 0 ? tp_out_protected(path) : NULL;
    if (input) {
        tp_fail_at(err, "", "refusing to overwrite the input file %s", input);
        return NULL;
    }
    tp_out *o = tp_xcalloc(1, sizeof *o);
    o->path = tp_xstrdup(path);
    o->slot = -1;
    if (strcmp(path, "-") == 0) {
        /* standard output: streamed as is (no rename possible; a failure is
         * still reported, and the reader of the pipe sees it end early) */
        o->fd = 1;
        return o;
    }
    int special = open_special(o, path, err);
    if (special != 0) {
        if (special < 0) {
            free(o->path);
            free(o);
            return NULL;
        }
        goto opened;
    }
    remove_stale_tmps(path);
    size_t n = strlen(path);
    o->tmp = tp_xmalloc(n + 40);
    snprintf(o->tmp, n + 40, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    /* registered before mkstemp creates the file, so that a signal at any
     * moment after its creation (on any thread) finds it; before that the
     * handler unlinks a name that does not exist yet */
    o->slot = -1;
    for (int i = 0; i < MAX_OPEN; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&open_tmps[i], &none, o->tmp)) {
            o->slot = i;
            break;
        }
    }
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        int e = errno;
        if (o->slot >= 0)
            atomic_store(&open_tmps[o->slot], NULL);
        tp_fail_at(err, "", "cannot create %s: %s", o->tmp, strerror(e));
        free(o->tmp);
        free(o->path);
        free(o);
        return NULL;
    }
    fchmod(o->fd, out_mode);
    o->set = current_set;
opened:
    o->gzip = ends_with(path, ".gz");
    if (o->gzip) {
        tp_out_gzip_init(&o->z);
        o->zbuf = tp_xmalloc(FLUSH_AT);
    }
    return o;
}

/* Direct output.  On this class of VM, writing into the page cache costs
 * more CPU than formatting: each new page-cache page is fresh guest memory
 * (the balloon reports freed pages to the host, which faults them in again),
 * and a 1 GB conversion spent 0.3-0.8 s of CPU in that copy.  O_DIRECT
 * writes go from our buffer to the disk (here 1.5 GB/s) without it, for
 * 0.07 s of CPU per 800 MB.  Only large outputs (past the first full
 * buffer: the write thread's, or with TP_WRITE_THREAD=0 this thread's, see
 * in_place_start) do this, only on regular files whose filesystem says how
 * to align (statx STATX_DIOALIGN), and any refusal (EINVAL) falls back to
 * the page cache with nothing lost.  The last partial block is written through the page
 * cache after O_DIRECT is cleared.  TP_DIRECT_IO=0 turns this off. */
#define DBUF_SIZE ((size_t)4 << 20)

static ssize_t write_some(tp_out *o, const unsigned char *p, size_t n);
static void flush_buf(tp_out *o, bool finish);

static void direct_start(tp_out *o)
{
#if defined(O_DIRECT) && defined(STATX_DIOALIGN)
    struct statx sx;
    struct stat st;
    const char *env = getenv("TP_DIRECT_IO"); /* 0: through the page cache (tests, measurements) */
    if ((env && strcmp(env, "0") == 0) || o->fd == 1 || fstat(o->fd, &st) != 0 || !S_ISREG(st.st_mode) || lseek(o->fd, 0, SEEK_CUR) != 0 ||
        statx(o->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) != 0 || !(sx.stx_mask & STATX_DIOALIGN) ||
        sx.stx_dio_offset_align == 0 || sx.stx_dio_mem_align == 0)
        return;
    size_t align = 4096; /* a whole page covers every block size seen; larger if the filesystem asks */
    if (sx.stx_dio_offset_align > align)
        align = sx.stx_dio_offset_align;
    if (sx.stx_dio_mem_align > align)
        align = sx.stx_dio_mem_align;
    if (align > DBUF_SIZE || posix_memalign((void **)&o->dbuf, align, DBUF_SIZE) != 0)
        return;
    int fl = fcntl(o->fd, F_GETFL);
    if (fl < 0 || fcntl(o->fd, F_SETFL, fl | O_DIRECT) != 0) {
        free(o->dbuf);
        o->dbuf = NULL;
        return;
    }
    o->direct = true;
    o->dalign = align;
    o->dlen = 0;
#else
    (void)o;
#endif
}

/* Back to the page cache: the staged bytes are written as they are. */
static void direct_stop(tp_out *o)
{
    if (!o->direct)
        return;
#ifdef O_DIRECT
    int fl = fcntl(o->fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(o->fd, F_SETFL, fl & ~O_DIRECT);
#endif
    o->direct = false;
    const unsigned char *p = o->dbuf;
    size_t n = o->dlen;
    o->dlen = 0;
    while (n && !o->failed) {
        ssize_t w = write_some(o, p, n);
        if (w < 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* Write the staged whole blocks; a refusal of O_DIRECT itself (EINVAL)
 * turns it off and writes them through the page cache instead. */
static void direct_flush_blocks(tp_out *o)
{
    size_t whole = o->dlen & ~(o->dalign - 1), done = 0;
    while (done < whole && !o->failed) {
        ssize_t w = write(o->fd, o->dbuf + done, whole - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EINVAL) {
            memmove(o->dbuf, o->dbuf + done, o->dlen - done);
            o->dlen -= done;
            direct_stop(o);
            return;
        }
        if (w < 0) {
            o->failed = true;
            o->saved_errno = errno;
            return;
        }
        if ((size_t)w & (o->dalign - 1)) { /* a short write off the block grain: finish through the page cache */
            done += (size_t)w;
            memmove(o->dbuf, o->dbuf + done, o->dlen - done);
            o->dlen -= done;
            direct_stop(o);
            return;
        }
        done += (size_t)w;
    }
    memmove(o->dbuf, o->dbuf + done, o->dlen - done);
    o->dlen -= done;
}

/* One thread, plain output: O_DIRECT staged in the formatting buffer
 * itself (no copy into dbuf: 0.1 s per GB), which must then start on the
 * alignment.  Not worth it below a full buffer; gzip output (a fifth of
 * the bytes) keeps the staging copy.  The writes then wait for the disk
 * (1 GB Kineto trace: write phase 0.3 s of wall time more than its CPU),
 * but save more CPU than that (sys 0.55 -> 0.28 s). */
#define IN_PLACE_CAP ((size_t)2 * FLUSH_AT) /* room past FLUSH_AT: a grown buffer moves off the alignment */

static void in_place_start(tp_out *o)
{
    o->direct_tried = true;
    direct_start(o);
    if (!o->direct || o->gzip)
        return;
    free(o->dbuf);
    o->dbuf = NULL;
    o->in_place = true;
}

/* b's start on the alignment (a grown buffer may have moved off it);
 * false when no aligned memory is to be had. */
static bool buf_align(tp_buf *b, size_t align)
{
    if (b->data && ((uintptr_t)b->data & (align - 1)) == 0)
        return true;
    size_t cap = b->cap > IN_PLACE_CAP ? b->cap : IN_PLACE_CAP;
    void *p;
    if (posix_memalign(&p, align, cap) != 0)
        return false;
    if (b->data)
        memcpy(p, b->data, b->len + 1); /* tp_buf keeps a NUL after the bytes */
    else
        ((char *)p)[0] = 0;
    free(b->data);
    b->data = p;
    b->cap = cap;
    return true;
}

/* Write buf's whole blocks, keep the partial last one at its start;
 * `finish` writes that too (through the page cache). */
static void in_place_flush(tp_out *o, bool finish)
{
    if (o->direct && !o->failed && !buf_align(&o->buf, o->dalign))
        direct_stop(o); /* nothing staged elsewhere: just O_DIRECT off */
    if (!o->failed && o->direct) {
        o->dbuf = (unsigned char *)o->buf.data;
        o->dlen = o->buf.len;
        direct_flush_blocks(o); /* may turn O_DIRECT off: then all is written */
        if (finish)
            direct_stop(o);
        o->bytes += o->buf.len - o->dlen;
        o->buf.len = o->dlen;
        o->dbuf = NULL;
        o->dlen = 0;
    }
    if (o->failed || !o->direct) { /* failed (nothing more is written), or O_DIRECT refused */
        o->in_place = false;
        direct_stop(o); /* nothing staged in dbuf: only the flag */
        flush_buf(o, false);
    }
    if (o->buf.data)
        o->buf.data[o->buf.len] = 0;
}

static ssize_t write_some(tp_out *o, const unsigned char *p, size_t n)
{
    for (;;) {
        ssize_t w = write(o->fd, p, n);
        if (w >= 0)
            return w;
        if (errno == EINTR)
            continue;
        o->failed = true;
        o->saved_errno = errno;
        return -1;
    }
}

static void write_all(tp_out *o, const unsigned char *p, size_t n)
{
    while (o->direct && n && !o->failed) {
        size_t k = DBUF_SIZE - o->dlen < n ? DBUF_SIZE - o->dlen : n;
        memcpy(o->dbuf + o->dlen, p, k);
        o->dlen += k;
        p += k;
        n -= k;
        if (o->dlen == DBUF_SIZE)
            direct_flush_blocks(o);
    }
    while (n && !o->failed) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            o->failed = true;
            o->saved_errno = errno;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* igzip level 0, not 1 or 2: ISA-L 2.30's levels 1 and 2 write bytes that
 * depend on where this struct lies in memory, not on the data alone.  On
 * the rows of one report chart (4.9 MB, runs of zero bytes), 15 of 20,000
 * placements of the struct gave another stream (a match at another distance
 * inside a run: the same bytes when inflated); so did 6 of 20,000 on 3 MB of
 * converted JSON with names of one repeated character, so a trace could
 * make a `.json.gz` differ from run to run under address randomisation.
 * Levels 0 and 3: none in 40,000 (20,000 on each data).  Measured on this
 * machine's CPU (AVX-512: ISA-L picks its code by CPU).  Level 0 is as fast
 * as level 1 (65-73 ms against 68-72 ms for the 58.5 MB JSON of the 100 MB
 * real-shaped trace) and 19% larger (7.59 MB against 6.38 MB); level 3 is
 * 7% smaller than level 1 and 2.5 times slower.
 * tests/write/test_gzip_address.c checks the chart's rows with the struct
 * at 305 addresses. */
void tp_out_gzip_init(struct isal_zstream *z)
{
    isal_deflate_init(z);
    z->level = 0;
    z->gzip_flag = IGZIP_GZIP;
}

static void push(tp_out *o, const unsigned char *p, size_t n, bool finish)
{
    if (!o->gzip) {
        write_all(o, p, n);
        return;
    }
    o->z.next_in = (uint8_t *)p;
    o->z.avail_in = (uint32_t)n;
    o->z.end_of_stream = finish;
    do {
        o->z.next_out = o->zbuf;
        o->z.avail_out = FLUSH_AT;
        if (isal_deflate(&o->z) != COMP_OK && !o->failed) {
            o->failed = true;
            o->saved_errno = EIO; /* cannot happen with valid arguments; never write a cut stream */
        }
        write_all(o, o->zbuf, FLUSH_AT - o->z.avail_out);
    } while (!o->failed && (o->z.avail_in > 0 || o->z.avail_out == 0 ||
                            (finish && o->z.internal_state.state != ZSTATE_END)));
}

static void flush_buf(tp_out *o, bool finish)
{
    o->bytes += o->buf.len;
    push(o, (unsigned char *)o->buf.data, o->buf.len, finish);
    o->buf.len = 0;
}

void tp_out_write(tp_out *o, const void *p, size_t n)
{
    tp_buf_put(&o->buf, p, n);
    tp_out_maybe_flush(o);
}


tp_buf *tp_out_buf(tp_out *o) { return &o->buf; }

static void *io_main(void *arg)
{
    tp_out *o = arg;
    pthread_mutex_lock(&o->mu);
    for (;;) {
        while (!o->io_full && !o->stop)
            pthread_cond_wait(&o->cv, &o->mu);
        if (!o->io_full)
            break;
        pthread_mutex_unlock(&o->mu);
        if (o->io_in_place) { /* whole blocks, from where they are */
            o->dbuf = (unsigned char *)o->io.data;
            o->dlen = o->io.len;
            direct_flush_blocks(o); /* may turn O_DIRECT off: then all is written */
            o->dbuf = NULL;
            o->dlen = 0;
        } else {
            push(o, (unsigned char *)o->io.data, o->io.len, false);
        }
        pthread_mutex_lock(&o->mu);
        o->io.len = 0;
        o->io_full = false;
        pthread_cond_broadcast(&o->cv);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Wait until the thread has written what it was given; stop it when done. */
static void io_drain(tp_out *o, bool stop)
{
    if (!o->thread)
        return;
    pthread_mutex_lock(&o->mu);
    while (o->io_full)
        pthread_cond_wait(&o->cv, &o->mu);
    o->stop = stop;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    if (stop) {
        pthread_join(o->th, NULL);
        pthread_mutex_destroy(&o->mu);
        pthread_cond_destroy(&o->cv);
        o->thread = false;
    }
}

/* The write thread computes nothing (it waits on the disk while this
 * thread formats), so it stays with TP_THREADS=1: pinned to one core
 * (taskset -c 0) a 1 GB conversion took 2.7 s with it and 3.0-3.5 s
 * without, the same CPU.  TP_WRITE_THREAD=0 turns it off: then a plain
 * output is staged in the formatting buffer itself (in_place_start). */
static bool write_thread_off(void)
{
    const char *v = getenv("TP_WRITE_THREAD");
    return v && strcmp(v, "0") == 0;
}

void tp_out_maybe_flush(tp_out *o)
{
    if (o->buf.len < FLUSH_AT)
        return;
    if (!o->thread && !o->failed && !write_thread_off()) { /* the first full buffer: an output worth a thread */
        pthread_mutex_init(&o->mu, NULL);
        pthread_cond_init(&o->cv, NULL);
        direct_start(o); /* before the thread: it alone writes from now on */
        if (o->direct && !o->gzip) { /* gzip output (a fifth of the bytes) keeps the staging copy */
            free(o->dbuf);
            o->dbuf = NULL;
            o->zero_copy = true;
        }
        o->thread = pthread_create(&o->th, NULL, io_main, o) == 0;
        if (!o->thread) {
            pthread_mutex_destroy(&o->mu);
            pthread_cond_destroy(&o->cv);
        }
    }
    if (!o->thread && write_thread_off() && !o->direct_tried)
        in_place_start(o);
    if (o->in_place) {
        in_place_flush(o, false);
        return;
    }
    if (!o->thread) {
        flush_buf(o, false);
        return;
    }
    pthread_mutex_lock(&o->mu);
    while (o->io_full)
        pthread_cond_wait(&o->cv, &o->mu);
    tp_buf full = o->buf; /* swap: the writers keep using &o->buf */
    o->buf = o->io;
    o->io = full;
    o->buf.len = 0;
    o->io_in_place = false;
    /* (o->direct is the thread's while it writes: read here, between two) */
    if (o->zero_copy && o->direct && !o->failed) {
        if (buf_align(&o->io, o->dalign) && (o->buf.data || buf_align(&o->buf, o->dalign))) {
            size_t whole = o->io.len & ~(o->dalign - 1), tail = o->io.len - whole;
            TP_GROW(o->buf.data, o->buf.cap, tail + 1);
            memcpy(o->buf.data, o->io.data + whole, tail); /* the partial block starts the next buffer */
            o->buf.len = tail;
            o->buf.data[tail] = 0;
            o->io.len = whole;
            o->io_in_place = true;
        } else {
            direct_stop(o); /* no aligned memory: through the page cache from here on */
        }
    }
    o->bytes += o->io.len;
    o->io_full = true;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

/* Put the finished temporary file at `path`, atomically: a reader sees the
 * old file or the new one, never neither.  An existing regular file is
 * swapped with the new one (RENAME_EXCHANGE) and then removed under the
 * temporary name, instead of being renamed over: ext4 answers a rename over
 * an existing file by starting writeback of the whole new file before it
 * returns (its "auto_da_alloc" heuristic), which made re-converting a 1 GB
 * trace over its old output wait 0.3-0.5 s for the disk.  Anything else (no
 * file yet, a directory, a filesystem without the flag) takes rename(). */
static int replace_file(const char *tmp, const char *path)
{
#ifdef RENAME_EXCHANGE
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        (void)unlink(tmp); /* the old output; the signal handler would remove it too */
        return 0;
    }
#endif
    return rename(tmp, path);
}

uint64_t tp_out_bytes(const tp_out *o) { return o->bytes + o->buf.len; }

static void release(tp_out *o)
{
    io_drain(o, true);
    free(o->dbuf);
    if (o->slot >= 0)
        atomic_store(&open_tmps[o->slot], NULL);
    free(o->zbuf);
    tp_buf_free(&o->buf);
    tp_buf_free(&o->io);
    free(o->tmp);
    free(o->path);
    free(o);
}

int tp_out_commit(tp_out *o, tp_err *err)
{
    io_drain(o, true);
    if (o->gzip) {
        o->bytes += o->buf.len;
        push(o, (unsigned char *)o->buf.data, o->buf.len, true);
        o->buf.len = 0;
    } else if (o->in_place || o->zero_copy) {
        in_place_flush(o, true);
    } else {
        flush_buf(o, false);
    }
    if (o->direct) {
        direct_flush_blocks(o);
        direct_stop(o); /* the last partial block */
    }
    if (o->fd != 1 && close(o->fd) != 0 && !o->failed) {
        o->failed = true;
        o->saved_errno = errno;
    }
    o->fd = -1;
    if (o->failed) {
        tp_fail_at(err, "", "cannot write %s: %s", o->path, strerror(o->saved_errno));
        if (o->tmp)
            unlink(o->tmp);
        release(o);
        return -1;
    }
    if (!o->tmp) {
        release(o);
        return 0;
    }
    if (o->set) { /* published with the rest of its set, or removed with it */
        tp_outset *st = o->set;
        pthread_mutex_lock(&st->mu);
        if (st->n == st->cap) {
            st->cap = st->cap ? st->cap * 2 : 16;
            st->tmp = tp_xrealloc(st->tmp, st->cap * sizeof *st->tmp);
            st->final = tp_xrealloc(st->final, st->cap * sizeof *st->final);
            st->slot = tp_xrealloc(st->slot, st->cap * sizeof *st->slot);
        }
        st->tmp[st->n] = o->tmp;
        st->final[st->n] = o->path;
        st->slot[st->n++] = o->slot;
        pthread_mutex_unlock(&st->mu);
        o->tmp = o->path = NULL;
        o->slot = -1; /* the set keeps it registered for the signal handler */
        release(o);
        return 0;
    }
    if (replace_file(o->tmp, o->path) != 0) {
        tp_fail_at(err, "", "cannot rename to %s: %s", o->path, strerror(errno));
        unlink(o->tmp);
        release(o);
        return -1;
    }
    release(o);
    return 0;
}

void tp_out_abort(tp_out *o)
{
    if (!o)
        return;
    io_drain(o, true);
    if (o->fd >= 0 && o->fd != 1)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}

tp_outset *tp_outset_new(void)
{
    tp_outset *s = tp_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

tp_outset *tp_outset_use(tp_outset *set)
{
    tp_outset *prev = current_set;
    current_set = set;
    return prev;
}

tp_out *tp_out_open_in(tp_outset *set, const char *path, const char *protect, tp_err *err)
{
    tp_out *o = tp_out_open(path, protect, err);
    if (o && o->tmp)
        o->set = set;
    return o;
}

void tp_outset_replaces(tp_outset *set, const char *dir, const char *const *names)
{
    set->stale_dir_len = strlen(dir);
    for (size_t i = 0; names[i]; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        set->stale = tp_xrealloc(set->stale, (set->nstale + 1) * sizeof *set->stale);
        set->stale[set->nstale] = tp_xmalloc(len);
        snprintf(set->stale[set->nstale++], len, "%s/%s", dir, names[i]);
    }
}

/* A folder on the way from the set's folder to PATH is a symbolic link:
 * what is beyond it is not the set's (DIR/png linked elsewhere). */
static bool through_link(const char *path, size_t dir_len)
{
    char *p = tp_xstrdup(path);
    bool link = false;
    for (char *c = p + dir_len + 1; *c && !link; c++) {
        if (*c != '/')
            continue;
        *c = 0;
        struct stat st;
        link = lstat(p, &st) != 0 || S_ISLNK(st.st_mode);
        *c = '/';
    }
    free(p);
    return link;
}

/* After the set is in place: the earlier set's members it did not write
 * again go, so the folder holds one set.  Only regular files (a symbolic
 * link there is the user's), never an input, never through a linked folder. */
static void remove_replaced(tp_outset *s)
{
    for (size_t i = 0; i < s->nstale; i++) {
        const char *p = s->stale[i];
        bool written = false;
        for (size_t k = 0; k < s->n && !written; k++)
            written = strcmp(s->final[k], p) == 0;
        struct stat st;
        if (written || lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || tp_out_protected(p))
            continue;
        if (through_link(p, s->stale_dir_len))
            continue;
        (void)unlink(p);
    }
}

static void outset_free(tp_outset *s)
{
    for (size_t i = 0; i < s->nstale; i++)
        free(s->stale[i]);
    free(s->stale);
    for (size_t i = 0; i < s->n; i++) {
        if (s->slot[i] >= 0)
            atomic_store(&open_tmps[s->slot[i]], NULL);
        free(s->tmp[i]);
        free(s->final[i]);
    }
    free(s->tmp);
    free(s->final);
    free(s->slot);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int tp_outset_publish(tp_outset *s, tp_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (rc == 0 && replace_file(s->tmp[i], s->final[i]) != 0)
            rc = tp_fail_at(err, "", "cannot rename to %s: %s", s->final[i], strerror(errno));
        if (rc < 0)
            (void)unlink(s->tmp[i]); /* what is left of the set: never half of it */
    }
    if (rc == 0)
        remove_replaced(s);
    outset_free(s);
    return rc;
}

void tp_outset_abort(tp_outset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        (void)unlink(s->tmp[i]);
    outset_free(s);
}

int tp_out_write_file(const char *dir, const char *name, const void *data, size_t len, tp_err *err)
{
    char path[4096];
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    tp_out *o = tp_out_open(path, NULL, err);
    if (!o)
        return -1;
    tp_out_write(o, data, len);
    return tp_out_commit(o, err);
}

int tp_mkdirs(const char *path, tp_err *err)
{
    char *p = tp_xstrdup(path);
    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            tp_fail_at(err, "", "cannot create directory %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *c = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        tp_fail_at(err, "", "cannot create directory %s: %s", p, strerror(errno));
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

int tp_outset_finish(tp_outset *set, tp_outset *prev, int rc, tp_err *err)
{
    tp_outset_use(prev);
    if (rc < 0) {
        tp_outset_abort(set);
        return rc;
    }
    return tp_outset_publish(set, err);
}
