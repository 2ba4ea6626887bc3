// What the portable, AVX2 and AVX-512 VNNI loops share, in no instruction set of its own: walking a
// selection of blocks, requesting blocks from memory, and the loops' entry points (hidden: Swift reaches
// them through the tables of MatcherKernels.h only). Internal to the target (outside include/).
#ifndef BEACONFIX_KERNELS_SHARED_H
#define BEACONFIX_KERNELS_SHARED_H

#include "MatcherKernels.h"
#include "MatcherHints.h"

#define BEACONFIX_HIDDEN __attribute__((visibility("hidden")))

/// The selected block after `block` in run `run` (of `run_count`), or -1 after the last.
static inline long next_selected(const long *runs, long run_count, long run, long block) {
    if (block + 1 < runs[2 * run + 1]) return block + 1;
    return run + 1 < run_count ? runs[2 * (run + 1)] : -1;
}

/// A position in a selection of blocks (`block` -1 past its end), walked a few blocks ahead of the block
/// being computed so that each block is requested from memory early.
typedef struct {
    const long *runs;
    long run_count, run, block;
} selection_cursor;

/// Moves `cursor` to the first block of run `run` or a later one (empty runs passed over).
static inline void enter_run(selection_cursor *cursor, long run) {
    while (run < cursor->run_count && cursor->runs[2 * run] >= cursor->runs[2 * run + 1]) run++;
    cursor->run = run;
    cursor->block = run < cursor->run_count ? cursor->runs[2 * run] : -1;
}

static inline void advance(selection_cursor *cursor) {
    if (cursor->block < 0) return;
    if (cursor->block + 1 < cursor->runs[2 * cursor->run + 1]) {
        cursor->block++;
    } else {
        enter_run(cursor, cursor->run + 1);
    }
}

/// How far ahead the AVX2 loop over a sparse selection requests blocks. The first block of a run is always
/// requested; the blocks after it only where the map asks (`prefetch_adjacent`: a map the cache does not
/// hold), where the processor's own prefetcher, which stops at page boundaries, leaves them waiting on
/// memory; a block's levels go a line a pair computed, spread over the block before, rather than at once.
/// See docs/decisions/2026-11-29-blocks-requested-two-ahead.md for the measurements.
#define BEACONFIX_BLOCKS_AHEAD 2

/// How far ahead the VNNI loop over sparse blocks, and the coarse loops, request blocks: they compute a
/// pair faster than the AVX2 exact loop, and a whole block requested at once then stalls them on full line
/// fill buffers, so a block three ahead goes one line at a time over the current block
/// (docs/decisions/2026-11-29-every-block-requested-one-buffer.md).
#define BEACONFIX_VNNI_BLOCKS_AHEAD 3

/// Requests block `block`'s rows of `rows`: their beacon counts and value sums, which finishing the block
/// reads. On a map the cache does not hold they are as far away as the levels (two floats a fingerprint,
/// one line each a block of a scattered selection), so they are requested with the block's levels rather
/// than when the block is finished (see docs/decisions/2026-12-02-block-rows-requested.md).
__attribute__((always_inline))
static inline void prefetch_block_rows(const beaconfix_offset_rows *rows, long block) {
    beaconfix_prefetch(rows->present_count + block * 8);
    beaconfix_prefetch(rows->value_sum + block * 8);
}

/// Requests block `block` of a sparse map: its levels and its column list.
static inline void prefetch_sparse_block(const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, long block) {
    long stored = pair_start[block + 1] - pair_start[block];
    beaconfix_prefetch_range(levels + pair_start[block] * 16, stored * 16 * (long)sizeof(int16_t));
    beaconfix_prefetch_range(pair_columns + 2 * pair_start[block], stored * 2 * (long)sizeof(uint16_t));
}

/// The query's levels of columns `first` and `second`, as the exact loops take them: the first in the low
/// 16 bits and the second in the high ones.
static inline uint32_t query_pair(const int16_t *query_levels, long first, long second) {
    return (uint32_t)(uint16_t)query_levels[first] | ((uint32_t)(uint16_t)query_levels[second] << 16);
}

/// How a dense loop requests a block after a gap: the bytes from the query's first pair to the end of its
/// last, in a block. Where the query's pairs cover at least half of it, that span, one request a cache line
/// (two pairs), rather than one request a pair.
typedef struct {
    long span_start, span_bytes;
    int as_span;
} dense_requests;

static inline dense_requests dense_requests_for(const long *query_pairs, long pair_count) {
    dense_requests requests = {0, 0, 1};
    if (pair_count > 0) {
        requests.span_start = query_pairs[0] * 16;
        requests.span_bytes = (query_pairs[pair_count - 1] * 16 + 16 - requests.span_start) * (long)sizeof(int16_t);
        requests.as_span = pair_count * 16 * (long)sizeof(int16_t) * 2 >= requests.span_bytes;
    }
    return requests;
}

/// Requests the query's pairs of the dense block whose levels start at `block_levels`.
static inline void request_dense_block(
    const int16_t *block_levels, dense_requests requests, const long *query_pairs, long pair_count) {
    if (requests.as_span) {
        beaconfix_prefetch_range(block_levels + requests.span_start, requests.span_bytes);
    } else {
        for (long index = 0; index < pair_count; index++) beaconfix_prefetch(block_levels + query_pairs[index] * 16);
    }
}

// The loops, one file an instruction set (KernelsPortable.c, KernelsAVX2.c, KernelsAVX512VNNI.c), gathered
// into the tables of MatcherKernels.c. The AVX ones exist on x86-64 only.
BEACONFIX_HIDDEN void beaconfix_level_bounds_sparse_portable(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper);

#if defined(__x86_64__)
BEACONFIX_HIDDEN void beaconfix_level_distances_sparse_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows);
BEACONFIX_HIDDEN void beaconfix_level_distances_dense_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows);
BEACONFIX_HIDDEN void beaconfix_level_bounds_sparse_avx2(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper);

BEACONFIX_HIDDEN void beaconfix_level_distances_sparse_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows);
BEACONFIX_HIDDEN void beaconfix_level_distances_dense_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows);
BEACONFIX_HIDDEN void beaconfix_level_bounds_sparse_avx512_vnni(
    const beaconfix_level_map *map, const beaconfix_level_query *query, const long *runs, long run_count,
    const beaconfix_offset_metric *metric, const beaconfix_offset_rows *rows, float *upper);
#endif

#endif
