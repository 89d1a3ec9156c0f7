/* gen_etdump.c: a large synthetic ExecuTorch ETDump for `make bench`.
 *   build/gen/gen_etdump OUT.etdp [MB]      (default 100 MB)
 * Size-prefixed flatbuffer "ED00" laid out like the runtime's (one string
 * per event name, framework events chain -1).  Each "Execute" run has 200
 * instructions: kernel ops (native_call_* + OPERATOR_CALL) and every 10th a
 * delegate call with int- and string-id delegate events (with metadata);
 * every 50th instruction logs a tensor debug event.  Every run executes the
 * same program (so the Inspector merges them into one block); times are ns
 * from a deterministic generator, so the file is the same on every run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
    if (len + n > cap) {
        cap = (len + n) * 2;
        buf = realloc(buf, cap);
        if (!buf) {
            perror("gen_etdump");
            exit(1);
        }
    }
    memcpy(buf + len, p, n);
    len += n;
}
static void pad4(void)
{
    static const uint8_t z[4];
    put(z, (4 - len % 4) % 4);
}
static void put32(uint32_t v) { put(&v, 4); }
static void patch(uint32_t at, uint32_t target)
{
    uint32_t v = target - at;
    memcpy(buf + at, &v, 4);
}

typedef struct fld {
    int slot, size; /* size 0: offset placeholder */
    uint64_t v;
} fld;

/* vtable, then the table (soffset back to it); ph[] gets offset placeholders */
static uint32_t table(const fld *f, int n, uint32_t *ph)
{
    uint16_t vt[20] = {0};
    int nslots = 0;
    uint16_t off = 4;
    for (int i = 0; i < n; i++) {
        vt[2 + f[i].slot] = off;
        off = (uint16_t)(off + (f[i].size ? f[i].size : 4));
        if (f[i].slot + 1 > nslots)
            nslots = f[i].slot + 1;
    }
    vt[0] = (uint16_t)(4 + 2 * nslots);
    vt[1] = off;
    pad4();
    uint32_t vpos = (uint32_t)len;
    put(vt, vt[0]);
    pad4();
    uint32_t tpos = (uint32_t)len;
    put32(tpos - vpos);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!f[i].size) {
            ph[k++] = (uint32_t)len;
            put32(0);
        } else {
            put(&f[i].v, (size_t)f[i].size);
        }
    }
    return tpos;
}

static uint32_t string(const char *s)
{
    pad4();
    uint32_t pos = (uint32_t)len;
    put32((uint32_t)strlen(s));
    put(s, strlen(s) + 1);
    return pos;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One Event wrapping a ProfileEvent. */
static uint32_t profile(const char *name, int32_t chain, int32_t instr, int32_t dint, const char *dstr, int meta,
                        uint64_t start, uint64_t end)
{
    fld ef[1] = {{0, 0, 0}};
    uint32_t eph[1], ph[3];
    uint32_t ev = table(ef, 1, eph);
    fld f[8];
    int n = 0;
    if (name)
        f[n++] = (fld){0, 0, 0};
    if (chain)
        f[n++] = (fld){1, 4, (uint32_t)chain};
    if (instr != -1)
        f[n++] = (fld){2, 4, (uint32_t)instr};
    if (dint != -1)
        f[n++] = (fld){3, 4, (uint32_t)dint};
    if (dstr)
        f[n++] = (fld){4, 0, 0};
    if (meta)
        f[n++] = (fld){5, 0, 0};
    f[n++] = (fld){6, 8, start};
    f[n++] = (fld){7, 8, end};
    uint32_t pe = table(f, n, ph);
    patch(eph[0], pe);
    int k = 0;
    if (name)
        patch(ph[k++], string(name));
    if (dstr)
        patch(ph[k++], string(dstr));
    if (meta) {
        pad4();
        uint32_t pos = (uint32_t)len;
        put32(8);
        uint64_t m = next();
        put(&m, 8);
        patch(ph[k], pos);
    }
    return ev;
}

static uint32_t debug_tensor(int32_t instr)
{
    fld ef[1] = {{2, 0, 0}};
    uint32_t eph[1], ph[1], vph[1], tph[1];
    uint32_t ev = table(ef, 1, eph);
    fld df[2] = {{1, 4, (uint32_t)instr}, {2, 0, 0}};
    uint32_t de = table(df, 2, ph);
    patch(eph[0], de);
    fld vf[2] = {{0, 1, 5}, {1, 0, 0}};
    uint32_t val = table(vf, 2, vph);
    patch(ph[0], val);
    fld tf[3] = {{0, 1, 6}, {1, 0, 0}, {3, 8, (uint64_t)instr * 4096}};
    uint32_t t = table(tf, 3, tph);
    patch(vph[0], t);
    pad4();
    uint32_t sizes = (uint32_t)len;
    put32(4);
    int64_t dims[4] = {1, 64, 56, 56};
    put(dims, sizeof dims);
    patch(tph[0], sizes);
    return ev;
}

static const char *const ops[] = {"native_call_convolution.out", "native_call_relu.out", "native_call_addmm.out",
                                  "native_call_max_pool2d_with_indices.out", "native_call_permute_copy.out",
                                  "native_call_add.out", "native_call_mul.out", "native_call_softmax.out"};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_etdump OUT.etdp [MB]\n");
        return 2;
    }
    double mb = argc > 2 ? atof(argv[2]) : 100;
    size_t target = (size_t)(mb * 1e6);
    enum { INSTR = 200, MAX_EVENTS = 1000 };
    size_t per_run = 0;
    /* Runs are generated first, into a block whose internal offsets are
     * relative and so survive moving it behind the header, root table and
     * run vector (offsets must point forward; the run count is known last). */
    uint32_t *run_tables = NULL;
    size_t nruns = 0, runs_cap = 0;
    uint64_t clock = 1000000;
    char dname[32];
    uint32_t evs[MAX_EVENTS];
    while (len + per_run < target || nruns == 0) {
        size_t before = len;
        fld f[2] = {{0, 0, 0}, {3, 0, 0}};
        uint32_t ph[2];
        uint32_t rt = table(f, 2, ph);
        patch(ph[0], string("Execute"));
        uint64_t exec_start = clock;
        clock += 300;
        /* the event vector comes before the events (offsets point forward) */
        int total = 1;
        for (int i = 0; i < INSTR; i++)
            total += (i % 10 == 9 ? 3 : 2) + (i % 50 == 49);
        pad4();
        uint32_t v = (uint32_t)len;
        put32((uint32_t)total);
        for (int i = 0; i < total; i++)
            put32(0);
        patch(ph[1], v);
        int ne = 0;
        for (int i = 0; i < INSTR; i++) {
            uint64_t call_start = clock;
            clock += 100 + next() % 200;
            if (i % 10 == 9) { /* a delegate call with two delegate events */
                uint64_t a = clock, b = a + 2000 + next() % 5000, c = b + 1000 + next() % 3000;
                snprintf(dname, sizeof dname, "fused_conv_%d", i);
                evs[ne++] = profile(NULL, 0, i, i * 2, NULL, 1, a, b);
                evs[ne++] = profile(NULL, 0, i, -1, dname, 1, b, c);
                clock = c + 200;
                evs[ne++] = profile("DELEGATE_CALL", 0, i, -1, NULL, 0, call_start, clock);
            } else {
                uint64_t s = clock, e = s + 500 + next() % 50000;
                evs[ne++] = profile(ops[(i * 7 + i / 8) % 8], 0, i, -1, NULL, 0, s, e); /* same model every run */
                clock = e + 100 + next() % 300;
                evs[ne++] = profile("OPERATOR_CALL", 0, i, -1, NULL, 0, call_start, clock);
            }
            if (i % 50 == 49)
                evs[ne++] = debug_tensor(i);
            clock += 50;
        }
        evs[ne++] = profile("Method::execute", -1, 0, -1, NULL, 0, exec_start, clock + 200);
        clock += 5000;
        if (ne != total) {
            fprintf(stderr, "gen_etdump: internal error: %d events, %d expected\n", ne, total);
            return 1;
        }
        for (int i = 0; i < ne; i++)
            patch(v + 4 + 4 * (uint32_t)i, evs[i]);
        if (nruns == runs_cap) {
            runs_cap = runs_cap ? runs_cap * 2 : 64;
            run_tables = realloc(run_tables, runs_cap * sizeof *run_tables);
        }
        run_tables[nruns++] = rt;
        per_run = len - before;
    }
    pad4();
    uint8_t *runs = buf;
    size_t runs_len = len;
    buf = NULL;
    len = cap = 0;
    put32(0); /* size prefix */
    put32(0); /* root */
    put("ED00", 4);
    fld rf[1] = {{1, 0, 0}};
    uint32_t rph[1];
    uint32_t root = table(rf, 1, rph);
    pad4();
    uint32_t rv = (uint32_t)len;
    put32((uint32_t)nruns);
    for (size_t i = 0; i < nruns; i++)
        put32(0);
    while (len % 8) /* keep the block's 8-byte fields aligned */
        put("", 1);
    uint32_t base = (uint32_t)len;
    for (size_t i = 0; i < nruns; i++)
        patch(rv + 4 + 4 * (uint32_t)i, base + run_tables[i]);
    patch(rph[0], rv);
    patch(4, root);
    uint32_t size = (uint32_t)(len + runs_len) - 4;
    memcpy(buf, &size, 4);
    FILE *out = fopen(argv[1], "wb");
    if (!out || fwrite(buf, 1, len, out) != len || fwrite(runs, 1, runs_len, out) != runs_len || fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    fprintf(stderr, "gen_etdump: %s: %zu bytes, %zu runs of %d instructions\n", argv[1], len + runs_len, nruns, INSTR);
    free(buf);
    free(runs);
    free(run_tables);
    return 0;
}
