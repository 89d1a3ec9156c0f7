/* etdump_build.c: synthetic ETDump writer for tests (see etdump_build.h). */
#include "tests/lib/etdump_build.h"
#include "tests/lib/fbb.h"

#include <string.h>

static void patch_str(fbb *b, uint32_t ph, const char *s) { fbb_patch(b, ph, fbb_string(b, s)); }

static uint32_t profile(fbb *b, const xev *e)
{
    fbf f[10];
    int n = 0;
    if (e->name)
        f[n++] = (fbf){0, 0, 0};
    if (e->chain)
        f[n++] = (fbf){1, 4, (uint32_t)e->chain};
    if (e->instr != -1)
        f[n++] = (fbf){2, 4, (uint32_t)e->instr};
    if (e->dint != -1)
        f[n++] = (fbf){3, 4, (uint32_t)e->dint};
    if (e->dstr)
        f[n++] = (fbf){4, 0, 0};
    if (e->meta)
        f[n++] = (fbf){5, 0, 0};
    if (e->start)
        f[n++] = (fbf){6, 8, e->start};
    if (e->end)
        f[n++] = (fbf){7, 8, e->end};
    if (e->extra_field)
        f[n++] = (fbf){12, 4, 77};
    uint32_t ph[3];
    uint32_t t = fbb_table(b, f, n, ph);
    int k = 0;
    if (e->name)
        patch_str(b, ph[k++], e->name);
    if (e->dstr)
        patch_str(b, ph[k++], e->dstr);
    if (e->meta)
        fbb_patch(b, ph[k], fbb_bytes(b, e->meta, e->metalen));
    return t;
}

static uint32_t tensor(fbb *b, const xev *e)
{
    fbf tf[3] = {{0, 1, (uint64_t)e->dtype}, {1, 0, 0}, {3, 8, 4096}};
    uint32_t tph[1];
    uint32_t tt = fbb_table(b, tf, 3, tph);
    fbb_patch(b, tph[0], fbb_longs(b, e->dims, (uint32_t)e->ndims));
    return tt;
}

/* Value's member slot for each ValueType the builder writes. */
static const int value_slot[] = {0, 3, 6, 4, 5, 1, 2};

static uint32_t value(fbb *b, const xev *e)
{
    fbf f[3];
    int n = 0;
    f[n++] = (fbf){0, 1, (uint64_t)e->vtype};
    if (e->vtype >= 1 && e->vtype <= 6)
        f[n++] = (fbf){value_slot[e->vtype], 0, 0};
    if (e->output)
        f[n++] = (fbf){7, 0, 0};
    uint32_t ph[2];
    uint32_t t = fbb_table(b, f, n, ph);
    int k = 0;
    if (e->vtype == 5) {
        fbb_patch(b, ph[k++], tensor(b, e));
    } else if (e->vtype == 6) { /* TensorList{tensors} with the tensor twice */
        fbf lf[1] = {{0, 0, 0}};
        uint32_t lph[1];
        uint32_t lt = fbb_table(b, lf, 1, lph);
        fbb_patch(b, ph[k++], lt);
        uint32_t v = fbb_offvec(b, 2);
        fbb_patch(b, lph[0], v);
        fbb_patch(b, v + 4, tensor(b, e));
        fbb_patch(b, v + 8, tensor(b, e));
    } else if (e->vtype >= 1 && e->vtype <= 4) {
        float fl = (float)e->dval;
        uint32_t fbits;
        memcpy(&fbits, &fl, 4);
        uint64_t dbits;
        memcpy(&dbits, &e->dval, 8);
        fbf vf[1] = {e->vtype == 1 ? (fbf){0, 8, (uint64_t)e->ival}
                     : e->vtype == 2 ? (fbf){0, 1, (uint64_t)e->ival}
                     : e->vtype == 3 ? (fbf){0, 4, fbits}
                                     : (fbf){0, 8, dbits}};
        fbb_patch(b, ph[k++], fbb_table(b, vf, 1, NULL));
    }
    if (e->output) {
        fbf vf[1] = {{0, 1, 1}};
        fbb_patch(b, ph[k++], fbb_table(b, vf, 1, NULL));
    }
    return t;
}

static uint32_t debug(fbb *b, const xev *e)
{
    fbf f[6];
    int n = 0;
    if (e->chain)
        f[n++] = (fbf){0, 8, (uint64_t)(int64_t)e->chain};
    if (e->instr != -1)
        f[n++] = (fbf){1, 4, (uint32_t)e->instr};
    f[n++] = (fbf){2, 0, 0};
    if (e->dint != -1)
        f[n++] = (fbf){3, 4, (uint32_t)e->dint};
    if (e->dstr)
        f[n++] = (fbf){4, 0, 0};
    if (e->name)
        f[n++] = (fbf){5, 0, 0};
    uint32_t ph[3];
    uint32_t t = fbb_table(b, f, n, ph);
    int k = 0;
    fbb_patch(b, ph[k++], value(b, e));
    if (e->dstr)
        patch_str(b, ph[k++], e->dstr);
    if (e->name)
        patch_str(b, ph[k++], e->name);
    return t;
}

static uint32_t event(fbb *b, const xev *e)
{
    int slot = e->kind == XP ? 0 : e->kind == XA ? 1 : 2;
    fbf f[1] = {{slot, 0, 0}};
    uint32_t ph[1];
    uint32_t t = fbb_table(b, f, 1, ph);
    uint32_t in;
    if (e->kind == XP) {
        in = profile(b, e);
    } else if (e->kind == XD) {
        in = debug(b, e);
    } else {
        fbf af[2] = {{0, 4, (uint32_t)e->alloc_id}, {1, 8, e->alloc_size}};
        in = fbb_table(b, af, 2, NULL);
    }
    fbb_patch(b, ph[0], in);
    return t;
}

static uint32_t run(fbb *b, const xrun *r)
{
    fbf f[4];
    int n = 0;
    f[n++] = (fbf){0, 0, 0};
    if (r->bundled != -1)
        f[n++] = (fbf){1, 4, (uint32_t)r->bundled};
    if (r->nalloc)
        f[n++] = (fbf){2, 0, 0};
    f[n++] = (fbf){3, 0, 0};
    uint32_t ph[3];
    uint32_t t = fbb_table(b, f, n, ph);
    int k = 0;
    patch_str(b, ph[k++], r->name);
    if (r->nalloc) {
        uint32_t v = fbb_offvec(b, (uint32_t)r->nalloc);
        fbb_patch(b, ph[k++], v);
        for (int i = 0; i < r->nalloc; i++) {
            fbf af[1] = {{0, 0, 0}};
            uint32_t aph[1];
            uint32_t at = fbb_table(b, af, 1, aph);
            patch_str(b, aph[0], i ? "alloc1" : "alloc0");
            fbb_patch(b, v + 4 + 4 * (uint32_t)i, at);
        }
    }
    uint32_t v = fbb_offvec(b, (uint32_t)r->nev);
    fbb_patch(b, ph[k++], v);
    for (int i = 0; i < r->nev; i++)
        fbb_patch(b, v + 4 + 4 * (uint32_t)i, event(b, &r->ev[i]));
    return t;
}

uint8_t *etdump_build(const xrun *runs, int nruns, int size_prefixed, size_t *len)
{
    fbb b;
    fbb_start(&b, "ED00", size_prefixed);
    fbf f[1] = {{1, 0, 0}};
    uint32_t ph[1];
    uint32_t root = fbb_table(&b, f, 1, ph);
    uint32_t v = fbb_offvec(&b, (uint32_t)nruns);
    fbb_patch(&b, ph[0], v);
    for (int i = 0; i < nruns; i++)
        fbb_patch(&b, v + 4 + 4 * (uint32_t)i, run(&b, &runs[i]));
    return fbb_finish(&b, root, len);
}

uint8_t *etdump_build_shared(const xrun *one, int nruns, size_t *len)
{
    fbb b;
    fbb_start(&b, "ED00", 1);
    fbf f[1] = {{1, 0, 0}};
    uint32_t ph[1];
    uint32_t root = fbb_table(&b, f, 1, ph);
    uint32_t v = fbb_offvec(&b, (uint32_t)nruns);
    fbb_patch(&b, ph[0], v);
    uint32_t shared = run(&b, one);
    for (int i = 0; i < nruns; i++)
        fbb_patch(&b, v + 4 + 4 * (uint32_t)i, shared);
    return fbb_finish(&b, root, len);
}
