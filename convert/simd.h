/* simd.h: the AVX2 paths some scanners take beside their baseline ones.
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
#include <stdint.h>

/* Bit i = XOR of bits 0..i of x: with x the quotes of 64 bytes, the bytes
 * from an opening quote up to (not including) its closing one.  One
 * carry-less multiply by all ones does the six shift-and-XOR steps. */
TP_AVX2 static inline uint64_t tp_prefix_xor(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}
#endif

bool tp_simd_avx2(void);

/* For tests: force the AVX2 paths off (false) or back to what the CPU has (true). */
void tp_simd_allow(bool on);

#endif
