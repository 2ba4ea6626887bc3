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

/// The dB-offset metric's distances from a query to the selected blocks of a sparse map: block `b` stores
/// the columns `columns[column_start[b] ..< column_start[b + 1]]`, the `k`-th of them at `values + k * 8`.
/// The selection is `run_count` runs of blocks, run `i` being `runs[2i] ..< runs[2i + 1]`. A column the
/// query does not hear (`query_mask[c] == 0`) counts every lane absent. The same operations, in the same
/// order per lane, as `CompactKernels`' Swift loop and `DecibelOffsetMetric`'s finishing, so the distances
/// are the same to the bit. Only call when `beaconfix_offset_distances_have_avx2()` is true.
void beaconfix_offset_distances_sparse_avx2(
    const float *values, const int32_t *columns, const long *column_start, const long *runs, long run_count,
    const float *query_values, const float *query_mask, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

/// The same over a dense map of `width` columns a block (8 floats a column): the query's `column_count`
/// columns `query_columns`, ascending. Only call when `beaconfix_offset_distances_have_avx2()` is true.
void beaconfix_offset_distances_dense_avx2(
    const float *values, long width, const long *runs, long run_count, const long *query_columns,
    long column_count, const float *query_values, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows);

#endif
