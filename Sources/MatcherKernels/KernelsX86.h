// The AVX helpers the AVX2 and AVX-512 VNNI loops share (KernelsAVX2.c, KernelsAVX512VNNI.c): the
// finishing of a block's distances, the VNNI loops' sums and the coarse loop, compiled once into each file
// (always inline). Internal to the target, x86-64 only.
#ifndef BEACONFIX_KERNELS_X86_H
#define BEACONFIX_KERNELS_X86_H

#include "KernelsShared.h"
#include <immintrin.h>
#include <math.h>

#pragma STDC FP_CONTRACT OFF

/// The target of the VNNI loops: still 256-bit vectors of a block's 8 rows.
#define BEACONFIX_AVX512_VNNI "avx2,avx512f,avx512bw,avx512vl,avx512vnni"

typedef struct {
    __m256 squared, differences, reference;
    __m256i absent;
} offset_accumulators;

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

/// A block's integer sums as the VNNI loops keep them, per row: Σ e², Σ e, −Σ r and minus the count of
/// common beacons. The last two are negative because a lane's mask is −1 where it counts: it multiplies
/// directly, where a mask of 1 would cost an instruction a pair.
typedef struct {
    __m256i squared, differences, minus_reference, minus_common;
} vnni_sums;

/// The VNNI loops' sums (and the AVX2 copy of the coarse loop's), cleared.
__attribute__((target("avx2"), always_inline))
static inline vnni_sums vnni_zero(void) {
    vnni_sums sums = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    return sums;
}

/// Two blocks' sums added (integer sums: exact in any order).
__attribute__((target("avx2"), always_inline))
static inline vnni_sums vnni_added(vnni_sums a, vnni_sums b) {
    vnni_sums sums = {_mm256_add_epi32(a.squared, b.squared), _mm256_add_epi32(a.differences, b.differences),
                      _mm256_add_epi32(a.minus_reference, b.minus_reference), _mm256_add_epi32(a.minus_common, b.minus_common)};
    return sums;
}

/// `_mm256_dpwssd_epi32`, kept one instruction. clang otherwise splits some of an unrolled loop's into a
/// `vpmaddwd` and a `vpaddd` to shorten their chains: two instructions where one does, and the loops keep
/// two sets of sums (one a pair, in turn), so no chain is long. Only where the CPU runs it: the coarse
/// loop, shared with AVX2, calls it under a constant `vnni` that leaves it out of the AVX2 copy (inline
/// assembly needs no target, so it compiles under AVX2's).
__attribute__((target("avx2"), always_inline))
static inline __m256i dot_add(__m256i sum, __m256i a, __m256i b) {
    __asm__("vpdpwssd %2, %1, %0" : "+v"(sum) : "v"(a), "v"(b));
    return sum;
}

/// A block's 8 lower and upper bounds on the distances the exact levels give, from its sums over the
/// coarse levels, each within `error` (1/16 dB) of the exact one. With `e` the exact differences over the
/// `c` beacons both sides hear and `ẽ` the coarse ones, `|e − ẽ| ≤ error` lane by lane, so:
/// - the spread `Σ e² − (Σ e)²/(c + λ)` is the squared distance from `e` to a line (λ ≥ 0; `Σ e²` alone
///   without an offset, the distance to 0), and a distance moves by at most the length of the move:
///   `√spread` is within `error·√c` of the coarse `√spread`;
/// - the query-only sum is the same (`Σ q − (Σ ẽ + Σ r̃) = Σ q − Σ q(common)` either way), and the
///   reference-only sum `Σ r − Σ r(common)` is within `error·c` of the coarse one;
/// - the count of common beacons and the union are the same (a coarse level is absent where the exact
///   one is).
/// Float rounding and the exact finishing's cut of a spread under 1e-5 of `Σ e²` to 0 are covered by a
/// slack of 1e-4 of (a bound on) the sum of the magnitudes the numerator is made of.
__attribute__((target("avx2"), always_inline))
static inline void finish_bounds(
    const vnni_sums *sums, float error, long block, long slot, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows, float *upper) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 common = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_setzero_si256(), sums->minus_common));
    __m256 no_common = _mm256_cmp_ps(common, _mm256_set1_ps(0.5f), _CMP_LT_OQ);
    __m256 squared = _mm256_mul_ps(_mm256_cvtepi32_ps(sums->squared), _mm256_set1_ps(1.0f / 256));
    __m256 differences = _mm256_mul_ps(_mm256_cvtepi32_ps(sums->differences), _mm256_set1_ps(1.0f / 16));
    __m256 common_reference = _mm256_mul_ps(
        _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_setzero_si256(), sums->minus_reference)), _mm256_set1_ps(1.0f / 16));
    __m256 spread = squared;
    if (metric->removes_offset) {
        __m256 denominator = replacing(_mm256_add_ps(common, _mm256_set1_ps(metric->offset_shrinkage)), one, no_common);
        spread = _mm256_sub_ps(spread, _mm256_div_ps(_mm256_mul_ps(differences, differences), denominator));
    }
    __m256 root = _mm256_sqrt_ps(_mm256_max_ps(spread, zero));
    __m256 reach = _mm256_mul_ps(_mm256_set1_ps(error / 16), _mm256_sqrt_ps(common));
    __m256 high_root = _mm256_add_ps(root, reach), low_root = _mm256_max_ps(_mm256_sub_ps(root, reach), zero);
    __m256 spread_high = _mm256_mul_ps(high_root, high_root), spread_low = _mm256_mul_ps(low_root, low_root);
    __m256 query_only = _mm256_max_ps(
        _mm256_sub_ps(_mm256_set1_ps(metric->query_value_sum), _mm256_add_ps(differences, common_reference)), zero);
    __m256 value_sum = _mm256_loadu_ps(rows->value_sum + block * 8);
    __m256 shift = _mm256_mul_ps(_mm256_set1_ps(error / 16), common);
    __m256 reference_only = _mm256_sub_ps(value_sum, common_reference);
    __m256 reference_only_low = _mm256_max_ps(_mm256_sub_ps(reference_only, shift), zero);
    __m256 reference_only_high = _mm256_max_ps(_mm256_add_ps(reference_only, shift), zero);
    __m256 query_only_cost = _mm256_mul_ps(_mm256_set1_ps(metric->query_only_penalty), query_only);
    __m256 reference_only_penalty = _mm256_set1_ps(metric->reference_only_penalty);
    // The exact Σ e² is at most (√Σ ẽ² + reach)² ≤ 2 Σ ẽ² + 2 reach², without a square root.
    __m256 squared_high = _mm256_mul_ps(_mm256_add_ps(squared, _mm256_mul_ps(reach, reach)), _mm256_set1_ps(2.0f));
    __m256 magnitude = _mm256_add_ps(
        _mm256_add_ps(squared_high,
                      _mm256_mul_ps(_mm256_set1_ps(metric->query_only_penalty), _mm256_set1_ps(metric->query_value_sum))),
        _mm256_mul_ps(reference_only_penalty, _mm256_add_ps(value_sum, shift)));
    __m256 slack = _mm256_mul_ps(_mm256_set1_ps(1e-4f), magnitude);
    __m256 union_count = _mm256_sub_ps(
        _mm256_add_ps(_mm256_set1_ps(metric->query_present), _mm256_loadu_ps(rows->present_count + block * 8)), common);
    __m256 divisor = replacing(union_count, one, _mm256_cmp_ps(union_count, one, _CMP_LT_OQ));
    __m256 low = _mm256_sub_ps(
        _mm256_add_ps(_mm256_add_ps(spread_low, query_only_cost), _mm256_mul_ps(reference_only_penalty, reference_only_low)), slack);
    __m256 high = _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(spread_high, query_only_cost), _mm256_mul_ps(reference_only_penalty, reference_only_high)), slack);
    const __m256 infinity = _mm256_set1_ps(INFINITY);
    // One division for both bounds: a product by the reciprocal is within 2 ulps of the quotient, far inside
    // the slack (1e-4 of a bound on the numerator).
    __m256 inverse = _mm256_div_ps(one, divisor);
    __m256 lower = replacing(_mm256_max_ps(_mm256_mul_ps(low, inverse), zero), infinity, no_common);
    __m256 higher = replacing(_mm256_mul_ps(high, inverse), infinity, no_common);
    long first = slot * 8;
    if (first + 8 <= rows->capacity) {
        _mm256_storeu_ps(rows->distances + first, lower);
        _mm256_storeu_ps(upper + first, higher);
    } else if (first < rows->capacity) {
        float lanes[8], upper_lanes[8];
        _mm256_storeu_ps(lanes, lower);
        _mm256_storeu_ps(upper_lanes, higher);
        for (long lane = 0; first + lane < rows->capacity; lane++) {
            rows->distances[first + lane] = lanes[lane];
            upper[first + lane] = upper_lanes[lane];
        }
    }
}

/// The coarse loop's query levels for the columns `first` and `second`, laid out lane by lane as a pair's
/// levels are: each level plus one, 0 where the query does not hear the column. A query level is at most
/// 32766 (`DecibelLevels.highest`), so the level plus one still fits. With `words` (the levels as 32-bit
/// words, the same level in both halves, built once a call) that is two broadcasts from memory and one
/// blend, against two loads, a shift, an or and a broadcast from a general register.
__attribute__((target("avx2"), always_inline))
static inline __m256i coarse_query_pair(const uint32_t *words, const int16_t *query_levels, long first, long second) {
    if (words) {
        __m256i low = _mm256_set1_epi32((int)words[first]), high = _mm256_set1_epi32((int)words[second]);
        return _mm256_blend_epi16(low, high, 0xAA);
    }
    uint32_t pair = (uint32_t)(uint16_t)(query_levels[first] + 1) | ((uint32_t)(uint16_t)(query_levels[second] + 1) << 16);
    return _mm256_set1_epi32((int)pair);
}

/// Pair `pair` of the coarse loop: its 16 bytes (b for the level 8 (b − 1), 0 where absent) and the query
/// from `coarse_query_pair`. A lane counts where both are at least 1 (their minimum is). The
/// sums it keeps are those of `add_levels_vnni` moved by constants that `finish_coarse_sums` takes back,
/// which saves two instructions a pair (of about twenty):
/// - the difference is `(q + 1) − 8b`, 7 less than the exact `q − 8 (b − 1)`;
/// - the reference sum is over the steps b: −Σ b.
__attribute__((target("avx2"), always_inline))
static inline void add_coarse_pair(
    vnni_sums *sums, const uint8_t *coarse_levels, const uint16_t *pair_columns, const uint32_t *words,
    const int16_t *query_levels, long pair, int vnni) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i query = coarse_query_pair(words, query_levels, pair_columns[2 * pair], pair_columns[2 * pair + 1]);
    __m256i steps = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(coarse_levels + pair * 16)));
    __m256i both = _mm256_cmpgt_epi16(_mm256_min_epi16(query, steps), _mm256_setzero_si256());
    __m256i difference = _mm256_and_si256(_mm256_sub_epi16(query, _mm256_slli_epi16(steps, 3)), both);
    if (vnni) {
        sums->squared = dot_add(sums->squared, difference, difference);
        sums->differences = dot_add(sums->differences, difference, ones);
        sums->minus_reference = dot_add(sums->minus_reference, steps, both);
    } else {
        sums->squared = _mm256_add_epi32(sums->squared, _mm256_madd_epi16(difference, difference));
        sums->differences = _mm256_add_epi32(sums->differences, _mm256_madd_epi16(difference, ones));
        sums->minus_reference = _mm256_add_epi32(sums->minus_reference, _mm256_madd_epi16(steps, both));
    }
    sums->minus_common = _mm256_add_epi16(sums->minus_common, both);
}

/// A coarse block's sums with its counts widened: `add_coarse_pair` keeps minus the count per 16-bit lane
/// (one column of one row, −1 a pair at most) and a block holds at most 32,768 pairs (16-bit column ids),
/// split between two sets of sums, so a lane never wraps; each row's two lanes are added into its 32-bit
/// count here, once a block: a `vpaddw` a pair instead of a multiply-add and an add (or a `vpdpwssd`).
__attribute__((target("avx2"), always_inline))
static inline vnni_sums widened_coarse_counts(vnni_sums sums) {
    sums.minus_common = _mm256_madd_epi16(sums.minus_common, _mm256_set1_epi16(1));
    return sums;
}

/// `add_coarse_pair`'s sums turned into `add_levels_vnni`'s over the levels 8 (b − 1), in 32-bit integers
/// that wrap as the direct sums would (the same values wherever those fit): with `c` the count and `e` the
/// exact difference, `e = d + 7`, so Σ e = Σ d + 7c and Σ e² = Σ d² + 14 Σ d + 49c, and Σ r = 8 Σ b − 8c.
__attribute__((target("avx2"), always_inline))
static inline vnni_sums finish_coarse_sums(vnni_sums sums) {
    __m256i common = _mm256_sub_epi32(_mm256_setzero_si256(), sums.minus_common);
    __m256i squared = _mm256_add_epi32(
        _mm256_add_epi32(sums.squared, _mm256_mullo_epi32(sums.differences, _mm256_set1_epi32(14))),
        _mm256_mullo_epi32(common, _mm256_set1_epi32(49)));
    __m256i differences = _mm256_add_epi32(sums.differences, _mm256_mullo_epi32(common, _mm256_set1_epi32(7)));
    // −Σ r = −8 Σ b + 8c, with minus_reference = −Σ b.
    __m256i minus_reference = _mm256_mullo_epi32(_mm256_sub_epi32(sums.minus_reference, sums.minus_common), _mm256_set1_epi32(8));
    vnni_sums exact = {squared, differences, minus_reference, sums.minus_common};
    return exact;
}

/// Columns up to which the coarse loop lays the query out as 32-bit words on its stack (16 KB); a wider
/// map's query is read as 16-bit levels, pair by pair.
#define BEACONFIX_QUERY_WORDS 4096

/// The coarse loop over a selection, with the query's words (`words`) or without (nil), with the VNNI
/// instructions (`vnni` non-zero: a constant, so each entry point compiles its own copy) or AVX2's.
__attribute__((target("avx2"), always_inline))
static inline void level_bounds_sparse(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const uint32_t *words, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper, int vnni) {
    long slot = 0;
    const float error = (float)coarse_error;
    selection_cursor ahead = {runs, run_count, 0, -1};
    enter_run(&ahead, 0);
    for (long step = 0; step < BEACONFIX_VNNI_BLOCKS_AHEAD && ahead.block >= 0; step++) {
        long first = pair_start[ahead.block], stored = pair_start[ahead.block + 1] - first;
        beaconfix_prefetch_range(coarse_levels + first * 16, stored * 16);
        beaconfix_prefetch_range(pair_columns + 2 * first, stored * 2 * (long)sizeof(uint16_t));
        prefetch_block_rows(rows, ahead.block);
        advance(&ahead);
    }
    const char *request = 0, *request_end = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            if (ahead.block >= 0) {
                if (prefetch_adjacent || ahead.block == runs[2 * ahead.run]) {
                    long first = pair_start[ahead.block], stored = pair_start[ahead.block + 1] - first;
                    prefetch_block_rows(rows, ahead.block);
                    request = (const char *)(coarse_levels + first * 16);
                    request_end = request + stored * 16;
                    beaconfix_prefetch_range(pair_columns + 2 * first, stored * 2 * (long)sizeof(uint16_t));
                }
                advance(&ahead);
            }
            vnni_sums sums = vnni_zero(), odd = vnni_zero();
            long pair = pair_start[block];
            const long end = pair_start[block + 1];
            // Two pairs a turn, each into its own sums: a `vpdpwssd` waits on the one before it into the same
            // sum, and one set of sums would hold the loop to that wait a pair. A line holds four pairs here,
            // so one request a turn keeps pace with the exact loop's.
            for (; pair + 1 < end; pair += 2) {
                if (request < request_end) {
                    beaconfix_prefetch(request);
                    request += 64;
                }
                add_coarse_pair(&sums, coarse_levels, pair_columns, words, query_levels, pair, vnni);
                add_coarse_pair(&odd, coarse_levels, pair_columns, words, query_levels, pair + 1, vnni);
            }
            if (pair < end) add_coarse_pair(&sums, coarse_levels, pair_columns, words, query_levels, pair, vnni);
            vnni_sums exact = finish_coarse_sums(vnni_added(widened_coarse_counts(sums), widened_coarse_counts(odd)));
            finish_bounds(&exact, error, block, slot, metric, rows, upper);
            slot++;
        }
    }
}

/// The coarse loop with the query laid out as words where it is narrow enough (`BEACONFIX_QUERY_WORDS`).
__attribute__((target("avx2"), always_inline))
static inline void level_bounds_with_words(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper, int vnni) {
    if (query_width > BEACONFIX_QUERY_WORDS) {
        level_bounds_sparse(coarse_levels, pair_columns, pair_start, runs, run_count, prefetch_adjacent, 0, query_levels,
                            metric, coarse_error, rows, upper, vnni);
        return;
    }
    uint32_t words[BEACONFIX_QUERY_WORDS];
    for (long column = 0; column < query_width; column++) {
        uint32_t level = (uint16_t)(query_levels[column] + 1);
        words[column] = level | (level << 16);
    }
    level_bounds_sparse(coarse_levels, pair_columns, pair_start, runs, run_count, prefetch_adjacent, words, query_levels,
                        metric, coarse_error, rows, upper, vnni);
}

#endif
