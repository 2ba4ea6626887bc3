// The dB-offset metric's loop over a block's columns, compiled for AVX2 and chosen at run time: Swift
// compiles a whole module for one target, and the baseline x86-64 target (SSE2) splits every 8-lane vector
// into two. Here one AVX register holds a column of the block. The operations and their order per lane are
// the Swift loop's, and nothing is fused (no FMA: the target has none, and contraction is off), so the sums
// are the same to the bit (WideKernelTests).
#include "MatcherKernels.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <math.h>

int beaconfix_offset_sums_have_avx2(void) {
    unsigned int eax, ebx, ecx, edx;
    // AVX, and the OS saving the AVX registers (OSXSAVE, then XCR0's SSE and AVX state bits).
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) return 0;
    // AVX2 proper: leaf 7, EBX bit 5.
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & bit_AVX2) ? 1 : 0;
}

typedef struct {
    __m256 squared, differences, reference;
    __m256i absent;
} offset_accumulators;

/// One column: `reference` the 8 rows' values, `q` the query's value, `below` the level under which a lane
/// counts absent (0, as the map stores absent values as -1; +∞ for a column the query does not hear).
__attribute__((target("avx2"), always_inline))
static inline void add_column(offset_accumulators *sums, __m256 reference, __m256 q, __m256 below) {
    __m256 absent = _mm256_cmp_ps(reference, below, _CMP_LT_OQ);
    __m256 difference = _mm256_andnot_ps(absent, _mm256_sub_ps(q, reference));
    sums->squared = _mm256_add_ps(sums->squared, _mm256_mul_ps(difference, difference));
    sums->differences = _mm256_add_ps(sums->differences, difference);
    sums->reference = _mm256_add_ps(sums->reference, _mm256_andnot_ps(absent, reference));
    // A true lane is all ones, -1 as an integer.
    sums->absent = _mm256_sub_epi32(sums->absent, _mm256_castps_si256(absent));
}

__attribute__((target("avx2"), always_inline))
static inline void store_sums(const offset_accumulators *sums, beaconfix_offset_sums *out) {
    _mm256_storeu_ps(out->squaredDifferences, sums->squared);
    _mm256_storeu_ps(out->differences, sums->differences);
    _mm256_storeu_ps(out->commonReference, sums->reference);
    _mm256_storeu_si256((__m256i *)out->absentColumns, sums->absent);
}

__attribute__((target("avx2")))
void beaconfix_offset_sums_sparse_avx2(
    const float *values, const int32_t *columns, long begin, long end,
    const float *query_values, const float *query_mask, beaconfix_offset_sums *out) {
    offset_accumulators sums = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_si256()};
    for (long index = begin; index < end; index++) {
        long column = columns[index];
        __m256 below = _mm256_set1_ps(query_mask[column] > 0 ? 0.0f : INFINITY);
        add_column(&sums, _mm256_loadu_ps(values + index * 8), _mm256_set1_ps(query_values[column]), below);
    }
    store_sums(&sums, out);
}

__attribute__((target("avx2")))
void beaconfix_offset_sums_dense_avx2(
    const float *block, const long *query_columns, long column_count,
    const float *query_values, beaconfix_offset_sums *out) {
    offset_accumulators sums = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_si256()};
    const __m256 below = _mm256_setzero_ps();
    for (long index = 0; index < column_count; index++) {
        long column = query_columns[index];
        add_column(&sums, _mm256_loadu_ps(block + column * 8), _mm256_set1_ps(query_values[column]), below);
    }
    store_sums(&sums, out);
}

#else

// No AVX2 outside x86-64: the Swift loops run, and these are never called.
int beaconfix_offset_sums_have_avx2(void) { return 0; }

void beaconfix_offset_sums_sparse_avx2(
    const float *values, const int32_t *columns, long begin, long end,
    const float *query_values, const float *query_mask, beaconfix_offset_sums *out) {
    (void)values; (void)columns; (void)begin; (void)end; (void)query_values; (void)query_mask; (void)out;
    __builtin_trap();
}

void beaconfix_offset_sums_dense_avx2(
    const float *block, const long *query_columns, long column_count,
    const float *query_values, beaconfix_offset_sums *out) {
    (void)block; (void)query_columns; (void)column_count; (void)query_values; (void)out;
    __builtin_trap();
}

#endif
