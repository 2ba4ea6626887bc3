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

/// Whether this CPU runs the AVX2 loops (x86-64 with AVX2 and the OS saving its registers).
int beaconfix_offset_distances_have_avx2(void);

/// Whether this CPU also runs the AVX-512 VNNI loops (AVX-512 F, BW, VL and VNNI, and the OS saving the
/// opmask and 512-bit registers).
int beaconfix_offset_distances_have_avx512_vnni(void);

/// The bytes of this CPU's last-level cache, 0 where unknown (glibc's reading of CPUID on x86-64; 0 on
/// other CPUs).
long beaconfix_last_level_cache_bytes(void);

/// The query level of a column the query does not hear: -1, as a map's level of a beacon a row does not hear
/// (levels are at least 0), so a lane counts where the lower of the two levels is at least 0.
#define BEACONFIX_UNHEARD ((int16_t)-1)

/// A map's levels in 1/16 dB (`DecibelLevels`), as the loops read them. 16 levels a pair of columns: row 0
/// of the first column, row 0 of the second, row 1 of the first, ...; -1 where a row does not hear the
/// beacon.
typedef struct {
    /// A dense map's pair `p` of block `b` (columns `2p` and `2p + 1`) is at
    /// `levels + (b * pairs_per_block + p) * 16`; a sparse map's pair `p` at `levels + p * 16`.
    const int16_t *levels;
    /// A sparse map's block `b` stores the pairs `pair_start[b] ..< pair_start[b + 1]`, pair `p` being the
    /// columns `pair_columns[2p]` and `pair_columns[2p + 1]`. NULL for a dense map.
    const long *pair_start;
    const uint16_t *pair_columns;
    /// A dense map's pairs a block; 0 for a sparse one.
    long pairs_per_block;
    /// A sparse map's levels a byte each in the same layout, for the coarse pass: 0 where a row does not hear
    /// the beacon and `b` for the level `8 (b − 1)` in 1/16 dB, each within `coarse_error` (1/16 dB) of the
    /// exact level. NULL where the map keeps none.
    const uint8_t *coarse_levels;
    int16_t coarse_error;
    /// The prefetch policy: non-zero where the map outgrows the cache, so that every selected block is
    /// requested ahead and not only the first of each run. The AVX2 exact loop and the coarse loops read it;
    /// the VNNI exact loops request every block a line at a time in any map (docs/decisions/2026-11-29-every-block-requested-one-buffer.md).
    int prefetch_adjacent;
} beaconfix_level_map;

/// A query as the loops read it.
typedef struct {
    /// One level per column of the map and one more, `BEACONFIX_UNHEARD`, for the padding column of an odd
    /// pair; `BEACONFIX_UNHEARD` too for a column the query does not hear.
    const int16_t *levels;
    /// The number of `levels` (the map's columns and the padding one).
    long width;
    /// For a dense map, the `pair_count` pairs holding a column the query hears, ascending (the only ones
    /// the dense loops visit); unread for a sparse map, whose blocks list their own pairs.
    const long *pairs;
    long pair_count;
} beaconfix_level_query;

/// The dB-offset metric's distances from a query to the selected blocks of a map: the selection is
/// `run_count` runs of blocks, run `i` being `runs[2i] ..< runs[2i + 1]`, and its `i`-th block's distances
/// go to the `i`-th place of `rows`. The same integer sums and finishing as `DecibelOffsetMetric`'s Swift
/// loop, so the distances are the same to the bit.
typedef void (*beaconfix_level_distances_fn)(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows);

/// Bounds on those distances from a pass over the map's coarse levels (a sparse map's, which must keep
/// them), reading half the bytes of the levels. Each row's lower bound goes where its distance would
/// (`rows`), its upper bound to the same place of `upper`; a row sharing no beacon with the query gets
/// infinity for both, as its distance. Every table's loop gives the same bounds to the bit.
typedef void (*beaconfix_level_bounds_fn)(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper);

/// The instruction sets the loops are compiled for, slowest first.
typedef enum {
    BEACONFIX_LEVEL_PORTABLE = 0,
    BEACONFIX_LEVEL_AVX2 = 1,
    BEACONFIX_LEVEL_AVX512_VNNI = 2,
} beaconfix_instruction_level;

/// The loops of one instruction set, chosen once: callers call through the table instead of branching on
/// the CPU at each call. Static data, never freed or changed.
typedef struct {
    beaconfix_instruction_level level;
    /// The exact loops over a sparse and a dense map. NULL at the portable level, whose exact loop is
    /// `DecibelOffsetMetric`'s Swift one (Swift's SIMD types compile to the baseline target's vectors).
    beaconfix_level_distances_fn distances_sparse;
    beaconfix_level_distances_fn distances_dense;
    /// The coarse pass over a sparse map (plain C at the portable level).
    beaconfix_level_bounds_fn bounds_sparse;
} beaconfix_level_kernels;

/// The table of `level`'s loops, or NULL where this CPU does not run them (the portable level: always).
const beaconfix_level_kernels *beaconfix_level_kernels_at(beaconfix_instruction_level level);

/// The table of the fastest loops this CPU runs.
const beaconfix_level_kernels *beaconfix_level_kernels_best(void);

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
