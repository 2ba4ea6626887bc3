#ifndef BEACONFIX_MATCHER_KERNELS_H
#define BEACONFIX_MATCHER_KERNELS_H

#include <stdint.h>

/// The sums the dB-offset metric needs over one block of 8 reference fingerprints (one lane each), over the
/// columns the block and the query both hear: Σ (q − r)², Σ (q − r), Σ r, and per lane the number of visited
/// columns in which the lane is absent. The same sums, in the same order, as the Swift loop of
/// `CompactKernels.SquaredDifferencesAndReferenceSum`.
typedef struct {
    float squaredDifferences[8];
    float differences[8];
    float commonReference[8];
    int32_t absentColumns[8];
} beaconfix_offset_sums;

/// Whether this CPU runs the AVX2 loops below (x86-64 with AVX2 and the OS saving its registers). Every
/// other CPU keeps the Swift loops, which the baseline target (SSE2) compiles.
int beaconfix_offset_sums_have_avx2(void);

/// A sparse block: its stored columns `columns[begin ..< end]`, the `k`-th at `values + k * 8`; a column the
/// query does not hear (`query_mask[c] == 0`) counts every lane absent. Only call when
/// `beaconfix_offset_sums_have_avx2()` is true.
void beaconfix_offset_sums_sparse_avx2(
    const float *values, const int32_t *columns, long begin, long end,
    const float *query_values, const float *query_mask, beaconfix_offset_sums *sums);

/// A dense block starting at `block` (8 floats per column): the query's `column_count` columns
/// `query_columns`. Only call when `beaconfix_offset_sums_have_avx2()` is true.
void beaconfix_offset_sums_dense_avx2(
    const float *block, const long *query_columns, long column_count,
    const float *query_values, beaconfix_offset_sums *sums);

#endif
