// The dB-offset metric's exact loops and coarse pass compiled for AVX2, chosen at run time
// (MatcherKernels.c's tables): Swift compiles a whole module for one target, and the baseline x86-64 target
// (SSE2) splits every vector into two. The map's levels are 16-bit integers in 1/16 dB (`DecibelLevels`),
// two columns interleaved lane by lane, so one `_mm256_madd_epi16` squares and adds two columns for a
// block's 8 rows into exact 32-bit sums. One call covers a whole selection of blocks: each block's column
// pairs, the finishing of its 8 distances and the requests for blocks ahead. Integer sums are exact in any
// order, and the finishing is the Swift one (`DecibelOffsetMetric.distances`) operation for operation with
// nothing fused (no FMA: the Swift target has none, and contraction is off), so the distances are the same
// to the bit (WideKernelTests).
#if defined(__x86_64__)
#include "KernelsX86.h"

#pragma STDC FP_CONTRACT OFF

/// A block's integer sums: per row, Σ e², Σ e, −Σ r over the beacons both sides hear (in 1/256 dB², 1/16 dB,
/// 1/16 dB), and minus the number of those beacons. The count is kept per 16-bit lane (one column of one
/// row) and widened when the block is finished: a lane falls by at most 1 a pair, and a block is cut into
/// stretches of `BEACONFIX_PAIRS_PER_STRETCH` pairs, so it never wraps.
typedef struct {
    __m256i squared, differences, minus_reference, minus_common, minus_common_lanes;
} level_sums;

/// Pairs whose counts a 16-bit lane holds before they are widened (well under 32,768).
#define BEACONFIX_PAIRS_PER_STRETCH 16384

/// Adds one pair of columns: `levels` the 16 levels of a pair (row 0 of the first column, row 0 of the
/// second, row 1 of the first, ...), `query_pair` the query's levels of the two columns, the first in the
/// low 16 bits and the second in the high ones (`BEACONFIX_UNHEARD` for a column it does not hear): one
/// 32-bit broadcast lays them out lane by lane as the levels are.
__attribute__((target("avx2"), always_inline))
static inline void add_pair(level_sums *sums, const int16_t *levels, uint32_t query_pair) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i reference = _mm256_loadu_si256((const __m256i *)levels);
    __m256i query = _mm256_set1_epi32((int)query_pair);
    // A lane counts where both hear the beacon: neither level is -1 (absent, unheard), so their minimum is
    // at least 0.
    __m256i both = _mm256_cmpgt_epi16(_mm256_min_epi16(query, reference), _mm256_set1_epi16(-1));
    __m256i difference = _mm256_and_si256(_mm256_sub_epi16(query, reference), both);
    sums->squared = _mm256_add_epi32(sums->squared, _mm256_madd_epi16(difference, difference));
    sums->differences = _mm256_add_epi32(sums->differences, _mm256_madd_epi16(difference, ones));
    // −Σ r: `both` (−1 where it counts, 0 elsewhere) multiplies directly, where masking the levels first
    // would cost an instruction a pair.
    sums->minus_reference = _mm256_add_epi32(sums->minus_reference, _mm256_madd_epi16(reference, both));
    // A lane of `both` is -1 where it counts.
    sums->minus_common_lanes = _mm256_add_epi16(sums->minus_common_lanes, both);
}

/// Widens the 16-bit counts into the row's count (each row's two lanes added) and clears them.
__attribute__((target("avx2"), always_inline))
static inline void widen_counts(level_sums *sums) {
    sums->minus_common = _mm256_add_epi32(sums->minus_common, _mm256_madd_epi16(sums->minus_common_lanes, _mm256_set1_epi16(1)));
    sums->minus_common_lanes = _mm256_setzero_si256();
}


/// The block's distances from its integer sums (its counts widened), through the same finishing as ever.
__attribute__((target("avx2"), always_inline))
static inline void finish_levels(
    const level_sums *sums, long block, long slot, const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    offset_accumulators converted = {
        _mm256_mul_ps(_mm256_cvtepi32_ps(sums->squared), _mm256_set1_ps(1.0f / 256)),
        _mm256_mul_ps(_mm256_cvtepi32_ps(sums->differences), _mm256_set1_ps(1.0f / 16)),
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_setzero_si256(), sums->minus_reference)), _mm256_set1_ps(1.0f / 16)),
        sums->minus_common};
    // common = 0 − (−common): exact, as the Swift finishing computes it.
    finish_block(&converted, 0, block, slot, metric, rows);
}

__attribute__((target("avx2"), always_inline))
static inline void level_distances_sparse_avx2(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    long slot = 0;
    selection_cursor ahead = {runs, run_count, 0, -1};
    enter_run(&ahead, 0);
    for (long step = 0; step < BEACONFIX_BLOCKS_AHEAD && ahead.block >= 0; step++) {
        prefetch_sparse_block(levels, pair_columns, pair_start, ahead.block);
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
                    request = (const char *)(levels + first * 16);
                    request_end = request + stored * 16 * (long)sizeof(int16_t);
                    beaconfix_prefetch_range(pair_columns + 2 * first, stored * 2 * (long)sizeof(uint16_t));
                }
                advance(&ahead);
            }
            level_sums sums = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
            for (long stretch = pair_start[block]; stretch < pair_start[block + 1]; stretch += BEACONFIX_PAIRS_PER_STRETCH) {
                long end = pair_start[block + 1] - stretch > BEACONFIX_PAIRS_PER_STRETCH ? stretch + BEACONFIX_PAIRS_PER_STRETCH : pair_start[block + 1];
                for (long pair = stretch; pair < end; pair++) {
                    if (request < request_end) {
                        beaconfix_prefetch(request);
                        request += 64;
                    }
                    add_pair(&sums, levels + pair * 16, query_pair(query_levels, pair_columns[2 * pair], pair_columns[2 * pair + 1]));
                }
                widen_counts(&sums);
            }
            finish_levels(&sums, block, slot, metric, rows);
            slot++;
        }
    }
}

__attribute__((target("avx2"), always_inline))
static inline void level_distances_dense_avx2(
    const int16_t *levels, long pairs_per_block, const long *runs, long run_count, const long *query_pairs,
    long pair_count, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    const long block_levels = pairs_per_block * 16;
    const dense_requests requests = dense_requests_for(query_pairs, pair_count);
    long slot = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            long next = next_selected(runs, run_count, run, block);
            if (next >= 0 && next != block + 1) request_dense_block(levels + next * block_levels, requests, query_pairs, pair_count);
            const int16_t *block_pairs = levels + block * block_levels;
            level_sums sums = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
            for (long stretch = 0; stretch < pair_count; stretch += BEACONFIX_PAIRS_PER_STRETCH) {
                long end = pair_count - stretch > BEACONFIX_PAIRS_PER_STRETCH ? stretch + BEACONFIX_PAIRS_PER_STRETCH : pair_count;
                for (long index = stretch; index < end; index++) {
                    long pair = query_pairs[index];
                    add_pair(&sums, block_pairs + pair * 16, query_pair(query_levels, 2 * pair, 2 * pair + 1));
                }
                widen_counts(&sums);
            }
            finish_levels(&sums, block, slot, metric, rows);
            slot++;
        }
    }
}

__attribute__((target("avx2")))
void beaconfix_level_distances_sparse_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    level_distances_sparse_avx2(
        map->levels, map->pair_columns, map->pair_start, runs, run_count, map->prefetch_adjacent, query->levels, metric, rows);
}

__attribute__((target("avx2")))
void beaconfix_level_distances_dense_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    level_distances_dense_avx2(
        map->levels, map->pairs_per_block, runs, run_count, query->pairs, query->pair_count, query->levels, metric, rows);
}

/// The coarse loop of KernelsX86.h with AVX2's multiply-adds.
__attribute__((target("avx2")))
void beaconfix_level_bounds_sparse_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper) {
    level_bounds_with_words(map->coarse_levels, map->pair_columns, map->pair_start, runs, run_count, map->prefetch_adjacent,
                            query->levels, query->width, metric, map->coarse_error, rows, upper, 0);
}

#endif
