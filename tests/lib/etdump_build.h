/* etdump_build.h: synthetic ETDumps for tests, written with tests/lib/fbb.c
 * from plain descriptions.  Fields equal to the schema default are left out
 * (as flatcc does), so the reader's defaults are exercised too. */
#ifndef TP_ETDUMP_BUILD_H
#define TP_ETDUMP_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { XP = 1, XD = 2, XA = 3 }; /* profile, debug, allocation */

typedef struct xev {
    int kind;
    const char *name;
    int32_t chain, instr, dint; /* instr/dint: use -1 for "none" (the X* macros do) */
    const char *dstr;
    const char *meta;
    uint32_t metalen;
    uint64_t start, end;
    /* debug */
    int vtype;       /* 1 int, 2 bool, 3 float, 4 double, 5 tensor, 6 tensor list (2 tensors) */
    int64_t ival;    /* int, bool */
    double dval;     /* float, double */
    bool output;
    int ndims;
    int64_t dims[4];
    int dtype;
    /* allocation */
    int32_t alloc_id;
    uint64_t alloc_size;
    bool extra_field; /* an unknown field (slot 12) a newer writer might add */
} xev;

typedef struct xrun {
    const char *name;
    int32_t bundled; /* -1 none */
    int nev;
    const xev *ev;
    int nalloc;       /* allocators (named "alloc0"...) */
} xrun;

#define XPROF(...) ((xev){.kind = XP, .instr = -1, .dint = -1, __VA_ARGS__})
#define XDBG(...) ((xev){.kind = XD, .instr = -1, .dint = -1, __VA_ARGS__})
#define XALLOC(...) ((xev){.kind = XA, .instr = -1, .dint = -1, __VA_ARGS__})

uint8_t *etdump_build(const xrun *runs, int nruns, int size_prefixed, size_t *len);
/* Hostile: nruns entries of the runs vector all point at one run table. */
uint8_t *etdump_build_shared(const xrun *one, int nruns, size_t *len);

#endif
