/* dvdt_samples.h: dv/dt inputs built by the tests. */
#ifndef TP_DVDT_SAMPLES_H
#define TP_DVDT_SAMPLES_H

#include "convert/base/common.h"

/* One repetition of a CK experiment point (kA: execution 10000 + 1000*rep
 * ns, kB: 20000 ns; time_fw_ms 12.5 + rep; two per-layer entries), with the
 * separating comma when rep > 0. */
void tp_test_dvdt_ck_rep(tp_buf *b, int rep);

/* A CK point file of `reps` repetitions at tmpdir/name; returns its path. */
const char *tp_test_dvdt_ck_point(const char *name, int reps);

#endif
