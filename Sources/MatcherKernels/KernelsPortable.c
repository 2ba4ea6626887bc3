// The coarse pass in plain C, for CPUs without AVX2 (and for tests that force it): the pass saves reads
// from memory rather than arithmetic, so it helps wherever a map outgrows the cache. It keeps the same
// integer sums as the AVX2 and VNNI coarse loops (KernelsX86.h: `add_coarse_pair`, `finish_coarse_sums`),
// in 32-bit integers that wrap as theirs do, and finishes them as `finish_bounds` does, operation for
// operation and in the same order, with nothing fused: the same bounds to the bit (CoarsePassTests). No
// intrinsics: the compiler may vectorise it for whatever target the package is built for.
#include "KernelsShared.h"
#include <math.h>

#pragma STDC FP_CONTRACT OFF

/// A block's integer sums, per row: Σ d², Σ d, −Σ b and minus the count of the beacons both sides hear,
/// with `d` the moved difference and `b` the coarse step of `add_coarse_pair`. Unsigned, so that they wrap
/// as the vector lanes do (they never do for real levels).
typedef struct {
    uint32_t squared[8], differences[8], minus_reference[8], minus_common[8];
} portable_sums;

/// `_mm256_max_ps(value, floor)`: the second operand where either is NaN or both are zero.
static inline float maximum(float value, float floor) { return value > floor ? value : floor; }

/// Adds pair `pair` as `add_coarse_pair` does: the query's level plus one (0 where it does not hear the
/// column) against 8 times the step; a lane counts where both are at least 1.
static inline void add_coarse_pair_portable(
    portable_sums *sums, const uint8_t *coarse_levels, const uint16_t *pair_columns, const int16_t *query_levels, long pair) {
    const int16_t query[2] = {
        (int16_t)(uint16_t)(query_levels[pair_columns[2 * pair]] + 1),
        (int16_t)(uint16_t)(query_levels[pair_columns[2 * pair + 1]] + 1)};
    const uint8_t *steps = coarse_levels + pair * 16;
    for (int row = 0; row < 8; row++) {
        for (int column = 0; column < 2; column++) {
            const int16_t step = steps[2 * row + column];
            // The vector loop's mask: -1 where it counts, 0 elsewhere.
            const int16_t both = (query[column] < step ? query[column] : step) > 0 ? -1 : 0;
            const int16_t difference = (int16_t)((uint16_t)(query[column] - (int16_t)(step << 3)) & (uint16_t)both);
            sums->squared[row] += (uint32_t)((int32_t)difference * difference);
            sums->differences[row] += (uint32_t)(int32_t)difference;
            sums->minus_reference[row] += (uint32_t)((int32_t)step * both);
            sums->minus_common[row] += (uint32_t)(int32_t)both;
        }
    }
}

/// `finish_coarse_sums` and `finish_bounds` for the block's 8 rows, lane by lane.
static inline void finish_bounds_portable(
    const portable_sums *sums, float error, long block, long slot, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows, float *upper) {
    for (long lane = 0; lane < 8; lane++) {
        // finish_coarse_sums: the moved sums back to those over the levels 8 (b − 1).
        const uint32_t common_count = 0u - sums->minus_common[lane];
        const uint32_t exact_squared = sums->squared[lane] + sums->differences[lane] * 14u + common_count * 49u;
        const uint32_t exact_differences = sums->differences[lane] + common_count * 7u;
        const uint32_t minus_reference = (sums->minus_reference[lane] - sums->minus_common[lane]) * 8u;
        // finish_bounds, in its order.
        const float common = (float)(int32_t)(0u - sums->minus_common[lane]);
        const int no_common = common < 0.5f;
        const float squared = (float)(int32_t)exact_squared * (1.0f / 256);
        const float differences = (float)(int32_t)exact_differences * (1.0f / 16);
        const float common_reference = (float)(int32_t)(0u - minus_reference) * (1.0f / 16);
        float spread = squared;
        if (metric->removes_offset) {
            const float denominator = no_common ? 1.0f : common + metric->offset_shrinkage;
            spread = spread - (differences * differences) / denominator;
        }
        const float root = sqrtf(maximum(spread, 0.0f));
        const float reach = (error / 16) * sqrtf(common);
        const float high_root = root + reach, low_root = maximum(root - reach, 0.0f);
        const float spread_high = high_root * high_root, spread_low = low_root * low_root;
        const float query_only = maximum(metric->query_value_sum - (differences + common_reference), 0.0f);
        const float value_sum = rows->value_sum[block * 8 + lane];
        const float shift = (error / 16) * common;
        const float reference_only = value_sum - common_reference;
        const float reference_only_low = maximum(reference_only - shift, 0.0f);
        const float reference_only_high = maximum(reference_only + shift, 0.0f);
        const float query_only_cost = metric->query_only_penalty * query_only;
        const float reference_only_penalty = metric->reference_only_penalty;
        const float squared_high = (squared + reach * reach) * 2.0f;
        const float magnitude = (squared_high + metric->query_only_penalty * metric->query_value_sum)
            + reference_only_penalty * (value_sum + shift);
        const float slack = 1e-4f * magnitude;
        const float union_count = (metric->query_present + rows->present_count[block * 8 + lane]) - common;
        const float divisor = union_count < 1.0f ? 1.0f : union_count;
        const float low = ((spread_low + query_only_cost) + reference_only_penalty * reference_only_low) - slack;
        const float high = ((spread_high + query_only_cost) + reference_only_penalty * reference_only_high) + slack;
        const float inverse = 1.0f / divisor;
        const float lower = no_common ? INFINITY : maximum(low * inverse, 0.0f);
        const float higher = no_common ? INFINITY : high * inverse;
        const long place = slot * 8 + lane;
        if (place < rows->capacity) {
            rows->distances[place] = lower;
            upper[place] = higher;
        }
    }
}

void beaconfix_level_bounds_sparse_portable(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper) {
    const uint8_t *coarse_levels = map->coarse_levels;
    const uint16_t *pair_columns = map->pair_columns;
    const long *pair_start = map->pair_start;
    const float error = (float)map->coarse_error;
    // Blocks are requested ahead as the vector coarse loops request them.
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
    long slot = 0;
    for (long run = 0; run < run_count; run++) {
        for (long block = runs[2 * run]; block < runs[2 * run + 1]; block++) {
            if (ahead.block >= 0) {
                if (map->prefetch_adjacent || ahead.block == runs[2 * ahead.run]) {
                    long first = pair_start[ahead.block], stored = pair_start[ahead.block + 1] - first;
                    prefetch_block_rows(rows, ahead.block);
                    request = (const char *)(coarse_levels + first * 16);
                    request_end = request + stored * 16;
                    beaconfix_prefetch_range(pair_columns + 2 * first, stored * 2 * (long)sizeof(uint16_t));
                }
                advance(&ahead);
            }
            portable_sums sums = {{0}, {0}, {0}, {0}};
            for (long pair = pair_start[block]; pair < pair_start[block + 1]; pair++) {
                // A line holds four pairs: one request every other pair keeps pace, as in the vector loops.
                if (((pair - pair_start[block]) & 1) == 0 && request < request_end) {
                    beaconfix_prefetch(request);
                    request += 64;
                }
                add_coarse_pair_portable(&sums, coarse_levels, pair_columns, query->levels, pair);
            }
            finish_bounds_portable(&sums, error, block, slot, metric, rows, upper);
            slot++;
        }
    }
}
