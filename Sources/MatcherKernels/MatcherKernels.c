// The dB-offset metric's distances, compiled for AVX2 and chosen at run time: Swift compiles a whole module
// for one target, and the baseline x86-64 target (SSE2) splits every 8-lane vector into two. Here one AVX
// register holds a column of a block of 8 fingerprints, and one call covers a whole selection of blocks:
// the loop over each block's columns, the finishing of its 8 distances and the prefetching of the next
// block after a gap. The operations and their order per lane are those of the Swift loop
// (`CompactKernels.SquaredDifferencesAndReferenceSum`) and of `DecibelOffsetMetric.distances`, and nothing
// is fused (no FMA: the Swift target has none, and contraction is off), so the distances are the same to
// the bit (WideKernelTests).
#include "MatcherKernels.h"
#include "MatcherHints.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <math.h>

int beaconfix_offset_distances_have_avx2(void) {
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

__attribute__((target("avx2"), always_inline))
static inline offset_accumulators zero_accumulators(void) {
    offset_accumulators sums = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_si256()};
    return sums;
}

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

/// `value` where `mask` is clear, `replacement` where it is set.
__attribute__((target("avx2"), always_inline))
static inline __m256 replacing(__m256 value, __m256 replacement, __m256 mask) {
    return _mm256_blendv_ps(value, replacement, mask);
}

/// The 8 distances of the `slot`-th selected block (`block` in the map) from its sums over `visited`
/// columns, as `DecibelOffsetMetric.distances` finishes them.
__attribute__((target("avx2"), always_inline))
static inline void finish_block(
    const offset_accumulators *sums, long visited, long block, long slot, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 common = _mm256_sub_ps(_mm256_set1_ps((float)visited), _mm256_cvtepi32_ps(sums->absent));
    __m256 no_common = _mm256_cmp_ps(common, _mm256_set1_ps(0.5f), _CMP_LT_OQ);
    __m256 spread = sums->squared;
    if (metric->removes_offset) {
        __m256 denominator = replacing(_mm256_add_ps(common, _mm256_set1_ps(metric->offset_shrinkage)), one, no_common);
        spread = _mm256_sub_ps(spread, _mm256_div_ps(_mm256_mul_ps(sums->differences, sums->differences), denominator));
        // S − D²/(c + λ) cancels catastrophically for a pure gain: below a relative 1e-5 of S it is noise.
        __m256 noise = _mm256_cmp_ps(spread, _mm256_mul_ps(_mm256_set1_ps(1e-5f), sums->squared), _CMP_LE_OQ);
        spread = replacing(spread, zero, noise);
    }
    __m256 query_only = _mm256_sub_ps(
        _mm256_set1_ps(metric->query_value_sum), _mm256_add_ps(sums->differences, sums->reference));
    query_only = replacing(query_only, zero, _mm256_cmp_ps(query_only, zero, _CMP_LT_OQ));
    __m256 reference_only = _mm256_sub_ps(_mm256_loadu_ps(rows->value_sum + block * 8), sums->reference);
    reference_only = replacing(reference_only, zero, _mm256_cmp_ps(reference_only, zero, _CMP_LT_OQ));
    __m256 union_count = _mm256_sub_ps(
        _mm256_add_ps(_mm256_set1_ps(metric->query_present), _mm256_loadu_ps(rows->present_count + block * 8)), common);
    __m256 cost = _mm256_add_ps(
        _mm256_mul_ps(_mm256_set1_ps(metric->query_only_penalty), query_only),
        _mm256_mul_ps(_mm256_set1_ps(metric->reference_only_penalty), reference_only));
    __m256 divisor = replacing(union_count, one, _mm256_cmp_ps(union_count, one, _CMP_LT_OQ));
    __m256 result = replacing(_mm256_div_ps(_mm256_add_ps(spread, cost), divisor), _mm256_set1_ps(INFINITY), no_common);
    long first = slot * 8;
    if (first + 8 <= rows->capacity) {
        _mm256_storeu_ps(rows->distances + first, result);
    } else if (first < rows->capacity) {
        float lanes[8];
        _mm256_storeu_ps(lanes, result);
        for (long lane = 0; first + lane < rows->capacity; lane++) rows->distances[first + lane] = lanes[lane];
    }
}

/// The selected block after `block` in run `run` (of `run_count`), or -1 after the last.
static inline long next_selected(const long *runs, long run_count, long run, long block) {
    if (block + 1 < runs[2 * run + 1]) return block + 1;
    return run + 1 < run_count ? runs[2 * (run + 1)] : -1;
}

__attribute__((target("avx2")))
void beaconfix_offset_distances_sparse_avx2(
    const float *values, const int32_t *columns, const long *column_start, const long *runs, long run_count,
    const float *query_values, const float *query_mask, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    long slot = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            long next = next_selected(runs, run_count, run, block);
            if (next >= 0 && next != block + 1) {
                // The whole next block after a gap, and its column list; an adjacent one the processor's own
                // prefetcher brings (requesting it line by line measured slower).
                long stored = column_start[next + 1] - column_start[next];
                beaconfix_prefetch_range(values + column_start[next] * 8, stored * 8 * (long)sizeof(float));
                beaconfix_prefetch_range(columns + column_start[next], stored * (long)sizeof(int32_t));
            }
            offset_accumulators sums = zero_accumulators();
            long begin = column_start[block], end = column_start[block + 1];
            for (long index = begin; index < end; index++) {
                long column = columns[index];
                __m256 below = _mm256_set1_ps(query_mask[column] > 0 ? 0.0f : INFINITY);
                add_column(&sums, _mm256_loadu_ps(values + index * 8), _mm256_set1_ps(query_values[column]), below);
            }
            finish_block(&sums, end - begin, block, slot, metric, rows);
            slot++;
        }
    }
}

__attribute__((target("avx2")))
void beaconfix_offset_distances_dense_avx2(
    const float *values, long width, const long *runs, long run_count, const long *query_columns,
    long column_count, const float *query_values, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    const long block_floats = width * 8;
    // The bytes from the query's first column to the end of its last, in a block. Where the query's columns
    // cover at least half of it, a block after a gap is requested as that span, one request a cache line
    // (two columns), rather than one request a column.
    const long span_start = column_count > 0 ? query_columns[0] * 8 : 0;
    const long span_bytes = column_count > 0 ? (query_columns[column_count - 1] * 8 + 8 - span_start) * (long)sizeof(float) : 0;
    const int prefetch_span = column_count * 8 * (long)sizeof(float) * 2 >= span_bytes;
    const __m256 below = _mm256_setzero_ps();
    long slot = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            long next = next_selected(runs, run_count, run, block);
            if (next >= 0 && next != block + 1) {
                const float *next_block = values + next * block_floats;
                if (prefetch_span) {
                    beaconfix_prefetch_range(next_block + span_start, span_bytes);
                } else {
                    for (long index = 0; index < column_count; index++) beaconfix_prefetch(next_block + query_columns[index] * 8);
                }
            }
            const float *block_values = values + block * block_floats;
            offset_accumulators sums = zero_accumulators();
            for (long index = 0; index < column_count; index++) {
                long column = query_columns[index];
                add_column(&sums, _mm256_loadu_ps(block_values + column * 8), _mm256_set1_ps(query_values[column]), below);
            }
            finish_block(&sums, column_count, block, slot, metric, rows);
            slot++;
        }
    }
}

#else

// No AVX2 outside x86-64: the Swift loops run, and these are never called.
int beaconfix_offset_distances_have_avx2(void) { return 0; }

void beaconfix_offset_distances_sparse_avx2(
    const float *values, const int32_t *columns, const long *column_start, const long *runs, long run_count,
    const float *query_values, const float *query_mask, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)values; (void)columns; (void)column_start; (void)runs; (void)run_count; (void)query_values;
    (void)query_mask; (void)metric; (void)rows;
    __builtin_trap();
}

void beaconfix_offset_distances_dense_avx2(
    const float *values, long width, const long *runs, long run_count, const long *query_columns,
    long column_count, const float *query_values, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)values; (void)width; (void)runs; (void)run_count; (void)query_columns; (void)column_count;
    (void)query_values; (void)metric; (void)rows;
    __builtin_trap();
}

#endif
