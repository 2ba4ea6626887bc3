// The AVX2 loops (KernelsAVX2.c) for a CPU with AVX-512 (BW, VL) and its VNNI instructions, still on
// 256-bit vectors of a block's 8 rows. `vpdpwssd` multiplies, adds pairs and accumulates in one instruction
// where AVX2 takes two, and a lane of 1 where both sides hear weighs Σ r and counts the common beacons
// straight into 32-bit sums: fewer vector instructions a pair (docs/decisions/2026-11-29-avx512-vnni-loops.md). The sums are the same
// integers, so the distances are the same to the bit.
#if defined(__x86_64__)
#include "KernelsX86.h"

#pragma STDC FP_CONTRACT OFF

/// `add_pair` for the VNNI loops: `query` the query's levels of the pair's two columns, laid out lane by
/// lane as the levels are.
__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void add_levels_vnni(vnni_sums *sums, __m256i reference, __m256i query) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i both = _mm256_cmpgt_epi16(_mm256_min_epi16(query, reference), _mm256_set1_epi16(-1));
    __m256i difference = _mm256_and_si256(_mm256_sub_epi16(query, reference), both);
    sums->squared = dot_add(sums->squared, difference, difference);
    sums->differences = dot_add(sums->differences, difference, ones);
    sums->minus_reference = dot_add(sums->minus_reference, reference, both);
    sums->minus_common = dot_add(sums->minus_common, both, ones);
}

/// `add_levels_vnni` of the 16 levels of a pair at `levels`.
__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void add_pair_vnni(vnni_sums *sums, const int16_t *levels, __m256i query) {
    add_levels_vnni(sums, _mm256_loadu_si256((const __m256i *)levels), query);
}

/// `add_pair_vnni` of pair `pair` of a sparse map, with the query's levels of its two columns.
__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void add_sparse_pair_vnni(
    vnni_sums *sums, const int16_t *levels, const uint16_t *pair_columns, const int16_t *query_levels, long pair) {
    uint32_t query = query_pair(query_levels, pair_columns[2 * pair], pair_columns[2 * pair + 1]);
    add_pair_vnni(sums, levels + pair * 16, _mm256_set1_epi32((int)query));
}

/// `add_pair_vnni` of pair `pair` of a dense map's block at `block_pairs` (columns `2 pair` and `2 pair + 1`).
__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void add_dense_pair_vnni(vnni_sums *sums, const int16_t *block_pairs, const int16_t *query_levels, long pair) {
    add_pair_vnni(sums, block_pairs + pair * 16, _mm256_set1_epi32((int)query_pair(query_levels, 2 * pair, 2 * pair + 1)));
}

/// The block's distances from the VNNI loops' sums, through the same finishing as ever.
__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void finish_vnni(
    const vnni_sums *sums, long block, long slot, const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    offset_accumulators converted = {
        _mm256_mul_ps(_mm256_cvtepi32_ps(sums->squared), _mm256_set1_ps(1.0f / 256)),
        _mm256_mul_ps(_mm256_cvtepi32_ps(sums->differences), _mm256_set1_ps(1.0f / 16)),
        _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_setzero_si256(), sums->minus_reference)), _mm256_set1_ps(1.0f / 16)),
        sums->minus_common};
    finish_block(&converted, 0, block, slot, metric, rows);
}

__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void level_distances_sparse_avx512_vnni(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    long slot = 0;
    selection_cursor ahead = {runs, run_count, 0, -1};
    enter_run(&ahead, 0);
    for (long step = 0; step < BEACONFIX_VNNI_BLOCKS_AHEAD && ahead.block >= 0; step++) {
        prefetch_sparse_block(levels, pair_columns, pair_start, ahead.block);
        prefetch_block_rows(rows, ahead.block);
        advance(&ahead);
    }
    // The lines of the block ahead's levels not requested yet.
    const char *request = 0, *request_end = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            if (ahead.block >= 0) {
                long first = pair_start[ahead.block], stored = pair_start[ahead.block + 1] - first;
                prefetch_block_rows(rows, ahead.block);
                request = (const char *)(levels + first * 16);
                request_end = request + stored * 16 * (long)sizeof(int16_t);
                beaconfix_prefetch_range(pair_columns + 2 * first, stored * 2 * (long)sizeof(uint16_t));
                advance(&ahead);
            }
            vnni_sums sums = vnni_zero(), odd = vnni_zero();
            long pair = pair_start[block];
            const long end = pair_start[block + 1];
            // Two pairs a turn, each into its own sums: a `vpdpwssd` waits on the one before it into the same
            // sum, and one set of sums would hold the loop to that wait a pair.
            for (; pair + 1 < end; pair += 2) {
                if (request < request_end) {
                    beaconfix_prefetch(request);
                    beaconfix_prefetch(request + 64);
                    request += 128;
                }
                add_sparse_pair_vnni(&sums, levels, pair_columns, query_levels, pair);
                add_sparse_pair_vnni(&odd, levels, pair_columns, query_levels, pair + 1);
            }
            if (pair < end) add_sparse_pair_vnni(&sums, levels, pair_columns, query_levels, pair);
            sums = vnni_added(sums, odd);
            finish_vnni(&sums, block, slot, metric, rows);
            slot++;
        }
    }
}

__attribute__((target(BEACONFIX_AVX512_VNNI), always_inline))
static inline void level_distances_dense_avx512_vnni(
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
            vnni_sums sums = vnni_zero(), odd = vnni_zero();
            long index = 0;
            // Two pairs a turn into two sets of sums, as in the sparse loop.
            for (; index + 1 < pair_count; index += 2) {
                add_dense_pair_vnni(&sums, block_pairs, query_levels, query_pairs[index]);
                add_dense_pair_vnni(&odd, block_pairs, query_levels, query_pairs[index + 1]);
            }
            if (index < pair_count) add_dense_pair_vnni(&sums, block_pairs, query_levels, query_pairs[index]);
            sums = vnni_added(sums, odd);
            finish_vnni(&sums, block, slot, metric, rows);
            slot++;
        }
    }
}

/// Unlike the AVX2 loop, it requests every block, a line a pair, whatever `prefetch_adjacent` says: a line
/// a pair costs little, and maps the cache could hold still waited on memory (docs/decisions/2026-11-29-every-block-requested-one-buffer.md).
__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_distances_sparse_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    level_distances_sparse_avx512_vnni(map->levels, map->pair_columns, map->pair_start, runs, run_count, query->levels, metric, rows);
}

__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_distances_dense_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows) {
    level_distances_dense_avx512_vnni(
        map->levels, map->pairs_per_block, runs, run_count, query->pairs, query->pair_count, query->levels, metric, rows);
}

/// The coarse loop of KernelsX86.h with `vpdpwssd`.
__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_bounds_sparse_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper) {
    level_bounds_with_words(map->coarse_levels, map->pair_columns, map->pair_start, runs, run_count, map->prefetch_adjacent,
                            query->levels, query->width, metric, map->coarse_error, rows, upper, 1);
}

#endif
