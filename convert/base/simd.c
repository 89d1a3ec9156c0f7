/* simd.c: see simd.h. */
#include "convert/base/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int have = -1, allowed = 1;

bool tp_simd_avx2(void)
{
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (h < 0) {
#ifdef TP_HAVE_AVX2_PATHS
        const char *v = getenv("TP_SIMD");
        __builtin_cpu_init();
        h = !(v && strcmp(v, "0") == 0) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
            __builtin_cpu_supports("bmi") && __builtin_cpu_supports("pclmul");
#else
        h = 0;
#endif
        atomic_store(&have, h);
    }
    return h && atomic_load_explicit(&allowed, memory_order_relaxed);
}

void tp_simd_allow(bool on) { atomic_store(&allowed, on); }
