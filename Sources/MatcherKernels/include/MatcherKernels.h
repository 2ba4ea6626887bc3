#ifndef BEACONFIX_MATCHER_KERNELS_H
#define BEACONFIX_MATCHER_KERNELS_H

#include <stdint.h>

/// What the dB-offset metric needs, besides a block's sums, to finish its 8 distances.
typedef struct {
    /// The query's number of beacons and the sum of its values.
    float query_present;
    float query_value_sum;
    /// λ, read only where `removes_offset` is non-zero.
    float offset_shrinkage;
    int32_t removes_offset;
    /// The cost per unit of level of a beacon heard by the query only, and by the reference only.
    float query_only_penalty;
    float reference_only_penalty;
} beaconfix_offset_metric;

/// The rows of a map the distances are finished with: each row's number of beacons and sum of values
/// (8 a block, padding rows included), and where the distances go.
typedef struct {
    const float *present_count;
    const float *value_sum;
    /// The `i`-th selected block's 8 distances go to `distances[i * 8 ..< i * 8 + 8]`, those before
    /// `capacity` only (a buffer of one distance per row ends inside a partly filled last block).
    float *distances;
    long capacity;
} beaconfix_offset_rows;

/// Whether this CPU runs the AVX2 loops below (x86-64 with AVX2 and the OS saving its registers). Every
/// other CPU keeps the Swift loops, which the baseline target (SSE2) compiles.
int beaconfix_offset_distances_have_avx2(void);

/// Whether this CPU also runs the AVX-512 VNNI loops below (AVX-512 F, BW, VL and VNNI, and the OS saving
/// the opmask and 512-bit registers).
int beaconfix_offset_distances_have_avx512_vnni(void);

/// The bytes of this CPU's last-level cache, 0 where unknown (glibc's reading of CPUID on x86-64; 0 on
/// other CPUs, which never run the AVX2 loops).
long beaconfix_last_level_cache_bytes(void);

/// The query level of a column the query does not hear: -1, as a map's level of a beacon a row does not hear
/// (levels are at least 0), so a lane counts where the lower of the two levels is at least 0.
#define BEACONFIX_UNHEARD ((int16_t)-1)

/// The dB-offset metric's distances from a query to the selected blocks of a sparse map, over levels in
/// 1/16 dB (`DecibelLevels`): block `b` stores the column pairs `pair_start[b] ..< pair_start[b + 1]`, pair
/// `p` of columns `pair_columns[2p]` and `pair_columns[2p + 1]` at `levels + p * 16` (row 0 of the
/// first, row 0 of the second, row 1 of the first, ...; -1 where a row does not hear the beacon). The
/// selection is `run_count` runs of blocks, run `i` being `runs[2i] ..< runs[2i + 1]`. `query_levels` has
/// one level per column and one more, `BEACONFIX_UNHEARD`, for the padding column of an odd pair; a column
/// the query does not hear is `BEACONFIX_UNHEARD` too. Each run's first block is requested from memory two
/// blocks ahead, a line of its levels for each pair computed; with `prefetch_adjacent` non-zero (a map the
/// cache does not hold) every block is. The same sums and finishing as `DecibelOffsetMetric`'s Swift loop,
/// so the distances are the same to the bit.
/// Only call when `beaconfix_offset_distances_have_avx2()` is true.
void beaconfix_level_distances_sparse_avx2(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

/// The same over a dense map of `pairs_per_block` column pairs a block (pair `p` is columns `2p` and
/// `2p + 1`, at `levels + (block * pairs_per_block + p) * 16`): the query's `pair_count` pairs `query_pairs`
/// (ascending, those holding a column it hears). Only call when `beaconfix_offset_distances_have_avx2()` is true.
void beaconfix_level_distances_dense_avx2(
    const int16_t *levels, long pairs_per_block, const long *runs, long run_count, const long *query_pairs,
    long pair_count, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

/// `beaconfix_level_distances_sparse_avx2` with AVX-512's VNNI instructions, the same distances to the bit;
/// it requests every block three ahead, a line per pair it computes, whether the map fits the cache or
/// not. Only call when `beaconfix_offset_distances_have_avx512_vnni()` is true.
void beaconfix_level_distances_sparse_avx512_vnni(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

/// Bounds on `beaconfix_level_distances_sparse_avx512_vnni`'s distances from a pass over coarse levels: a
/// byte a level, in the same layout, 0 where a row does not hear the beacon and `b` for the level
/// `8 (b − 1)` in 1/16 dB, each within `coarse_error` (1/16 dB) of the exact level. It reads half the
/// bytes of levels. Each row's lower bound goes where the distances would (`rows`), its upper bound to the
/// same place of `upper`; a row sharing no beacon with the query gets infinity for both, as its distance.
/// `query_width` is the number of `query_levels` (the map's columns and the padding one).
/// Only call when `beaconfix_offset_distances_have_avx512_vnni()` is true.
void beaconfix_level_bounds_sparse_avx512_vnni(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper);

/// `beaconfix_level_bounds_sparse_avx512_vnni` with AVX2's instructions, the same bounds to the bit. Only call
/// when `beaconfix_offset_distances_have_avx2()` is true.
void beaconfix_level_bounds_sparse_avx2(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper);

/// `beaconfix_level_distances_dense_avx2` with AVX-512's VNNI instructions, the same distances to the bit.
/// Only call when `beaconfix_offset_distances_have_avx512_vnni()` is true.
void beaconfix_level_distances_dense_avx512_vnni(
    const int16_t *levels, long pairs_per_block, const long *runs, long run_count, const long *query_pairs,
    long pair_count, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

/// Whether one of the 8 distances at `distances` is under `bound` (NaN never is). In C because Swift's
/// generic SIMD comparison compiles lane by lane through memory on the baseline target, while clang turns
/// this loop into two vector comparisons: the matcher asks it of every selected block when it ranks rows.
static inline int beaconfix_any_below8(const float *distances, float bound) {
    int any = 0;
    for (int lane = 0; lane < 8; lane++) {
        any |= distances[lane] < bound;
    }
    return any;
}

#endif
