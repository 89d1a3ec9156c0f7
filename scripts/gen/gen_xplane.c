/* gen_xplane.c: write a synthetic XSpace (*.xplane.pb) of about SIZE_MB for
 * benchmarks:  gen_xplane SIZE_MB OUT
 *
 * Shape of a TF/JAX GPU capture (XPLANE.md §1, §7): one /host:CPU plane with
 * a launch thread per device (cudaLaunchKernel events with correlation_id,
 * device_id, group_id) and 8 /device:GPU:N planes with 4 streams of kernels
 * (stats correlation_id, group_id, tf_op and kernel_details as ref_values,
 * context_id, shape).  Lines are written before the metadata maps, as real
 * files do.  Deterministic: the same arguments give the same bytes.  Each
 * plane is built in memory (about SIZE/9) and written out. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 1 << 16;
        while (c < b->n + n)
            c *= 2;
        b->p = realloc(b->p, c);
        if (!b->p) {
            fprintf(stderr, "gen_xplane: out of memory\n");
            exit(1);
        }
        b->cap = c;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void varint(buf *b, uint64_t v)
{
    uint8_t t[10];
    int k = 0;
    do {
        t[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, t, (size_t)k);
}

static void key(buf *b, unsigned num, unsigned wt) { varint(b, (uint64_t)num << 3 | wt); }
static void fint(buf *b, unsigned num, int64_t v) { key(b, num, 0); varint(b, (uint64_t)v); }
static void fbytes(buf *b, unsigned num, const void *d, size_t n) { key(b, num, 2); varint(b, n); put(b, d, n); }
static void fstr(buf *b, unsigned num, const char *s) { fbytes(b, num, s, strlen(s)); }
static void fmsg(buf *b, unsigned num, const buf *m) { fbytes(b, num, m->p, m->n); }

/* stat metadata ids */
enum { S_CORR = 1, S_GROUP, S_TFOP, S_KD, S_CTX, S_SHAPE, S_DEVICE, S_REF0 = 100 };
enum { NKERNELS = 64, NOPS = 256, NGPU = 8, NSTREAMS = 4 };

static void stat_int(buf *ev, buf *tmp, int64_t mid, int64_t v)
{
    tmp->n = 0;
    fint(tmp, 1, mid);
    fint(tmp, 4, v);
    fmsg(ev, 4, tmp);
}

static void stat_ref(buf *ev, buf *tmp, int64_t mid, int64_t ref)
{
    tmp->n = 0;
    fint(tmp, 1, mid);
    fint(tmp, 7, ref);
    fmsg(ev, 4, tmp);
}

static void stat_str(buf *ev, buf *tmp, int64_t mid, const char *s)
{
    tmp->n = 0;
    fint(tmp, 1, mid);
    fstr(tmp, 5, s);
    fmsg(ev, 4, tmp);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void stat_meta(buf *plane, buf *tmp, buf *tmp2, int64_t id, const char *name)
{
    tmp->n = 0;
    fint(tmp, 1, id);
    fstr(tmp, 2, name);
    tmp2->n = 0;
    fint(tmp2, 1, id);
    fmsg(tmp2, 2, tmp);
    fmsg(plane, 5, tmp2);
}

static void event_meta(buf *plane, buf *tmp, buf *tmp2, int64_t id, const char *name, const char *display)
{
    tmp->n = 0;
    fint(tmp, 1, id);
    fstr(tmp, 2, name);
    if (display)
        fstr(tmp, 4, display);
    tmp2->n = 0;
    fint(tmp2, 1, id);
    fmsg(tmp2, 2, tmp);
    fmsg(plane, 4, tmp2);
}

static const int64_t STEP_PS = 5000000000; /* 5 ms steps */

/* Kernel i of a stream: start (ps) and duration, the same in both planes. */
static int64_t kernel_start(uint64_t i) { return 1000000 + (int64_t)i * 9000000; } /* one every 9 us */

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_xplane SIZE_MB OUT\n");
        return 1;
    }
    double mb = atof(argv[1]);
    if (mb <= 0) {
        fprintf(stderr, "gen_xplane: SIZE_MB must be positive\n");
        return 1;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    uint64_t target = (uint64_t)(mb * 1024 * 1024);
    /* a kernel event is ~80 bytes, its launch ~40: size the run from that */
    uint64_t per_stream = target / (NGPU * NSTREAMS * 120) + 1;
    buf plane = {0}, line = {0}, ev = {0}, tmp = {0}, tmp2 = {0}, out = {0};
    char name[160];

    /* host plane: one launch thread per GPU; each launch up to 8 us before its kernel */
    plane.n = 0;
    fint(&plane, 1, 0);
    fstr(&plane, 2, "/host:CPU");
    for (int d = 0; d < NGPU; d++) {
        line.n = 0;
        fint(&line, 1, 1000 + d);
        snprintf(name, sizeof name, "tf_launcher/%d", 1000 + d);
        fstr(&line, 2, name);
        fint(&line, 3, 1000);
        for (uint64_t i = 0; i < per_stream; i++)
            for (int s = 0; s < NSTREAMS; s++) {
                int64_t t0 = kernel_start(i) - 8000000 + s * 2000000; /* 2 us slots: no overlap */
                uint64_t corr = ((i * NSTREAMS + (uint64_t)s) * NGPU + (uint64_t)d) + 1;
                ev.n = 0;
                fint(&ev, 1, 1);
                fint(&ev, 2, t0);
                fint(&ev, 3, 500000 + (int64_t)(next() % 1000000));
                stat_int(&ev, &tmp, S_CORR, (int64_t)corr);
                stat_int(&ev, &tmp, S_DEVICE, d);
                stat_int(&ev, &tmp, S_GROUP, (kernel_start(i) / STEP_PS));
                fmsg(&line, 4, &ev);
            }
        fmsg(&plane, 3, &line);
    }
    event_meta(&plane, &tmp, &tmp2, 1, "KernelLaunch", NULL); /* cu* API calls are not Launch Stats */
    stat_meta(&plane, &tmp, &tmp2, S_CORR, "correlation_id");
    stat_meta(&plane, &tmp, &tmp2, S_DEVICE, "device_id");
    stat_meta(&plane, &tmp, &tmp2, S_GROUP, "group_id");
    out.n = 0;
    fmsg(&out, 1, &plane);
    fwrite(out.p, 1, out.n, f);

    /* device planes */
    for (int d = 0; d < NGPU; d++) {
        plane.n = 0;
        fint(&plane, 1, d);
        snprintf(name, sizeof name, "/device:GPU:%d", d);
        fstr(&plane, 2, name);
        for (int s = 0; s < NSTREAMS; s++) {
            line.n = 0;
            fint(&line, 1, 100 + s);
            snprintf(name, sizeof name, "Stream #%d(Compute)", 100 + s);
            fstr(&line, 2, name);
            fint(&line, 3, 1000);
            for (uint64_t i = 0; i < per_stream; i++) {
                uint64_t corr = ((i * NSTREAMS + (uint64_t)s) * NGPU + (uint64_t)d) + 1;
                uint64_t op = (i / 3) % NOPS; /* three kernels per op call */
                ev.n = 0;
                fint(&ev, 1, 10 + (int64_t)((i + op) % NKERNELS));
                fint(&ev, 2, kernel_start(i) + s * 1000000);
                fint(&ev, 3, 1000000 + (int64_t)(next() % 6000000));
                stat_int(&ev, &tmp, S_CORR, (int64_t)corr);
                stat_int(&ev, &tmp, S_GROUP, kernel_start(i) / STEP_PS);
                stat_ref(&ev, &tmp, S_TFOP, S_REF0 + (int64_t)op);
                stat_ref(&ev, &tmp, S_KD, S_REF0 + NOPS + (int64_t)(i % 8));
                stat_ref(&ev, &tmp, S_CTX, S_REF0 + NOPS + 8);
                stat_str(&ev, &tmp, S_SHAPE, "(f16[8,128,1024],f16[1024,1024])");
                fmsg(&line, 4, &ev);
            }
            fmsg(&plane, 3, &line);
        }
        for (int k = 0; k < NKERNELS; k++) {
            snprintf(name, sizeof name, "void synthetic::gemm_kernel_%d<cutlass::half_t, 128, 128>(Params)", k);
            event_meta(&plane, &tmp, &tmp2, 10 + k, name, NULL);
        }
        stat_meta(&plane, &tmp, &tmp2, S_CORR, "correlation_id");
        stat_meta(&plane, &tmp, &tmp2, S_GROUP, "group_id");
        stat_meta(&plane, &tmp, &tmp2, S_TFOP, "tf_op");
        stat_meta(&plane, &tmp, &tmp2, S_KD, "kernel_details");
        stat_meta(&plane, &tmp, &tmp2, S_CTX, "context_id");
        stat_meta(&plane, &tmp, &tmp2, S_SHAPE, "shape");
        for (int o = 0; o < NOPS; o++) {
            snprintf(name, sizeof name, "model/block_%d/layer_%d/dense/MatMul_%d:MatMul", o / 32, o % 32, o % 3);
            stat_meta(&plane, &tmp, &tmp2, S_REF0 + o, name);
        }
        for (int k = 0; k < 8; k++) {
            snprintf(name, sizeof name, "regs:%d shm:0 grid:%d,1,1 block:256,1,1", 32 + k * 8, 80 * (k + 1));
            stat_meta(&plane, &tmp, &tmp2, S_REF0 + NOPS + k, name);
        }
        stat_meta(&plane, &tmp, &tmp2, S_REF0 + NOPS + 8, "$$1");
        out.n = 0;
        fmsg(&out, 1, &plane);
        fwrite(out.p, 1, out.n, f);
    }
    out.n = 0;
    fstr(&out, 4, "synthetic-host");
    fwrite(out.p, 1, out.n, f);
    if (fclose(f) != 0) {
        perror(argv[2]);
        return 1;
    }
    free(plane.p);
    free(line.p);
    free(ev.p);
    free(tmp.p);
    free(tmp2.p);
    free(out.p);
    return 0;
}
