/* simd.h: the AVX2 path the JSON skipper takes beside its SSE2 one
 * (convert/codec/json_lex.c: skip_blocks_avx2).
 *
 * x86-64's baseline is SSE2; AVX2 (with POPCNT, BMI1 and PCLMUL) is
 * checked once at run time, so one binary runs everywhere.  A function
 * marked TP_AVX2 may use those instructions and must only be called when
 * tp_simd_avx2() is true.  TP_SIMD=0 turns the paths off, for measuring
 * and for testing the baseline ones.  Every such path gives the same
 * result as its baseline: the tests compare them. */
#ifndef TP_SIMD_H
#define TP_SIMD_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define TP_HAVE_AVX2_PATHS 1
#define TP_AVX2 __attribute__((target("avx2,popcnt,bmi,pclmul")))
#include <immintrin.h>
#endif

bool tp_simd_avx2(void);

/* For tests: force the AVX2 paths off (false) or back to what the CPU has (true). */
void tp_simd_allow(bool on);

#endif
