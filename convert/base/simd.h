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

/* 64 bytes in two AVX2 registers, and bit masks of them (bit i: byte i). */
typedef struct tp_block64 {
    __m256i lo, hi;
} tp_block64;

TP_AVX2 static inline tp_block64 tp_load64(const void *p)
{
    tp_block64 b = {_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)((const char *)p + 32))};
    return b;
}

/* the top bit of each byte of lo, then of hi */
TP_AVX2 static inline uint64_t tp_mask64(__m256i lo, __m256i hi)
{
    return (uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

/* where the byte is c */
TP_AVX2 static inline uint64_t tp_eq64(tp_block64 b, char c)
{
    __m256i k = _mm256_set1_epi8(c);
    return tp_mask64(_mm256_cmpeq_epi8(b.lo, k), _mm256_cmpeq_epi8(b.hi, k));
}

/* every byte ORed with c ('[' | 0x20 is '{', ']' | 0x20 is '}') */
TP_AVX2 static inline tp_block64 tp_or64(tp_block64 b, char c)
{
    __m256i k = _mm256_set1_epi8(c);
    tp_block64 r = {_mm256_or_si256(b.lo, k), _mm256_or_si256(b.hi, k)};
    return r;
}

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
