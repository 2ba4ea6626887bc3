// The dB-offset metric's distances, compiled for AVX2 and for AVX-512 VNNI and chosen at run time: Swift
// compiles a whole module for one target, and the baseline x86-64 target (SSE2) splits every vector into
// two. The map's levels are 16-bit integers in 1/16 dB (`DecibelLevels`), two columns interleaved lane by
// lane, so one `_mm256_madd_epi16` (or `vpdpwssd`) squares and adds two columns for a block's 8 rows into
// exact 32-bit sums. One call covers a whole selection of blocks: each block's column pairs, the finishing
// of its 8 distances and the requests for blocks ahead. Integer sums are exact in any order, and the
// finishing is the Swift one (`DecibelOffsetMetric.distances`) operation for operation with nothing fused
// (no FMA: the Swift target has none, and contraction is off), so the distances are the same to the bit
// (WideKernelTests).
#include "MatcherKernels.h"
#include "MatcherHints.h"

#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <math.h>
#include <unistd.h>

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

int beaconfix_offset_distances_have_avx512_vnni(void) {
    if (!beaconfix_offset_distances_have_avx2()) return 0;
    unsigned int eax, ebx, ecx, edx;
    // The OS saving the opmask and both halves of the 512-bit registers too (XCR0 bits 5 to 7).
    unsigned int xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0xE6) != 0xE6) return 0;
    // Leaf 7: AVX512F (EBX bit 16), AVX512BW (bit 30), AVX512VL (bit 31) and AVX512_VNNI (ECX bit 11).
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & bit_AVX512F) && (ebx & bit_AVX512BW) && (ebx & bit_AVX512VL) && (ecx & bit_AVX512VNNI) ? 1 : 0;
}

long beaconfix_last_level_cache_bytes(void) {
    long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return bytes > 0 ? bytes : 0;
}

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

/// The selected block after `block` in run `run` (of `run_count`), or -1 after the last.
static inline long next_selected(const long *runs, long run_count, long run, long block) {
    if (block + 1 < runs[2 * run + 1]) return block + 1;
    return run + 1 < run_count ? runs[2 * (run + 1)] : -1;
}

/// A position in a selection of blocks (`block` -1 past its end), walked `BEACONFIX_BLOCKS_AHEAD` blocks
/// ahead of the block being computed so that each block is requested from memory early.
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

/// How far ahead a sparse selection is requested. The first block of a run is always requested; the
/// blocks after it only where the caller asks (`prefetch_adjacent`: a map the cache does not hold), where the
/// processor's own prefetcher, which stops at page boundaries, leaves them waiting on memory. Against
/// requesting only the first block after a gap, one block ahead (`Profile locate 1000000 8000 large
/// spots1536-1`, builds run at once): every block two ahead took a locate among 1,000,000 fingerprints
/// from 820 to 653 us (four ahead: 686 against 668 us), and first blocks only kept it at 832 against
/// 696 us; among 100,000 fingerprints, in the cache, every block cost 5% (96.8 against 91.6 us, means of
/// two turns) and first blocks only nothing (91.0 against 92.9 us). A block's levels are requested a line
/// a pair computed, spread over the block before, as the VNNI loop requests them, rather than at once: on
/// an AMD EPYC (Zen 3, no AVX-512), both builds at once, 163 to 147 us among 100,000 fingerprints
/// (`locate 100000 100000 large spots256-2`), 729 to 720 us among 1,000,000.
#define BEACONFIX_BLOCKS_AHEAD 2

/// Requests block `block`'s rows of `rows`: their beacon counts and value sums, which finishing the block
/// reads. They are two arrays of a float a fingerprint (8 MB at 1,000,000), and a scattered selection reads
/// a line of each at every block: on a map the cache does not hold they were as far away as the levels, and
/// only asked for when the block was finished. Requested with the block's levels, old and new loops in one
/// build taking turns (`Profile locate 1000000 1000 large spots1536-1`, AMD EPYC, 16 turns): medians 780
/// to 703 us a locate; among 100,000 fingerprints 201 to 197 us (5000 locates a turn).
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

/// The query's levels of columns `first` and `second`, as `add_pair` takes them.
static inline uint32_t query_pair(const int16_t *query_levels, long first, long second) {
    return (uint32_t)(uint16_t)query_levels[first] | ((uint32_t)(uint16_t)query_levels[second] << 16);
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

__attribute__((target("avx2")))
void beaconfix_level_distances_sparse_avx2(
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

__attribute__((target("avx2")))
void beaconfix_level_distances_dense_avx2(
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


// The same loops for a CPU with AVX-512 (BW, VL) and its VNNI instructions, still on 256-bit vectors of a
// block's 8 rows. `vpdpwssd` multiplies, adds pairs and accumulates in one instruction where AVX2 takes two,
// and a lane of 1 where both sides hear weighs Σ r and counts the common beacons straight into 32-bit sums.
// As compiled, a pair takes 11 vector instructions besides its loads, against the AVX2 loop's 14 (clang
// keeps the masks in vector registers). The sums are the same integers, so the distances are the
// same to the bit.
#define BEACONFIX_AVX512_VNNI "avx2,avx512f,avx512bw,avx512vl,avx512vnni"

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

/// How far ahead the VNNI loop over sparse blocks requests blocks. It computes a pair faster than the AVX2
/// loop, and requesting a whole block at once then stalls it: perf put 31% of its samples on the
/// instruction after the requests, whose line fill buffers were all waiting on memory. So it requests the
/// block three ahead one line per pair of columns it computes, spread over the current block, and a block's
/// column list whole (a few lines). Against whole blocks two ahead, `Profile locate 1000000 8000 large
/// spots1536-1` with both builds at once: 657 against 682 us, then 636 against 661 us; among 100,000
/// fingerprints, taking turns, 85.2 and 84.5 against 86.1 and 86.4 us.
///
/// Unlike the AVX2 loop, it requests every block so, whether or not the map outgrows the cache: a line a
/// pair costs little, and maps the cache could hold still waited on memory. The spot centroids of
/// 1,000,000 fingerprints (100,000 rows, well under half the cache this machine reports) spent 39% of the
/// loop's samples on the first use of a block's levels, and every block requested took
/// `Profile locate 1000000 30000 large spots1536-1` from 516 to 468 us (both builds at once); among
/// 100,000 fingerprints (`locate 100000 100000 large spots256-2`), 83.0 to 80.4 us.
#define BEACONFIX_VNNI_BLOCKS_AHEAD 3

__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_distances_sparse_avx512_vnni(
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

__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_bounds_sparse_avx512_vnni(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper) {
    level_bounds_with_words(coarse_levels, pair_columns, pair_start, runs, run_count, prefetch_adjacent, query_levels,
                            query_width, metric, coarse_error, rows, upper, 1);
}

__attribute__((target("avx2")))
void beaconfix_level_bounds_sparse_avx2(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper) {
    level_bounds_with_words(coarse_levels, pair_columns, pair_start, runs, run_count, prefetch_adjacent, query_levels,
                            query_width, metric, coarse_error, rows, upper, 0);
}

__attribute__((target(BEACONFIX_AVX512_VNNI)))
void beaconfix_level_distances_dense_avx512_vnni(
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

#else

// No AVX2 outside x86-64: the Swift loops run, and these are never called.
int beaconfix_offset_distances_have_avx2(void) { return 0; }

int beaconfix_offset_distances_have_avx512_vnni(void) { return 0; }

long beaconfix_last_level_cache_bytes(void) { return 0; }

void beaconfix_level_distances_sparse_avx2(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)levels; (void)pair_columns; (void)pair_start; (void)runs; (void)run_count; (void)prefetch_adjacent;
    (void)query_levels; (void)metric; (void)rows;
    __builtin_trap();
}

void beaconfix_level_distances_dense_avx2(
    const int16_t *levels, long pairs_per_block, const long *runs, long run_count, const long *query_pairs,
    long pair_count, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)levels; (void)pairs_per_block; (void)runs; (void)run_count; (void)query_pairs; (void)pair_count;
    (void)query_levels; (void)metric; (void)rows;
    __builtin_trap();
}

void beaconfix_level_distances_sparse_avx512_vnni(
    const int16_t *levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)levels; (void)pair_columns; (void)pair_start; (void)runs; (void)run_count;
    (void)query_levels; (void)metric; (void)rows;
    __builtin_trap();
}

void beaconfix_level_bounds_sparse_avx512_vnni(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper) {
    (void)coarse_levels; (void)pair_columns; (void)pair_start; (void)runs; (void)run_count; (void)prefetch_adjacent;
    (void)query_levels; (void)query_width; (void)metric; (void)coarse_error; (void)rows; (void)upper;
    __builtin_trap();
}

void beaconfix_level_bounds_sparse_avx2(
    const uint8_t *coarse_levels, const uint16_t *pair_columns, const long *pair_start, const long *runs, long run_count,
    int prefetch_adjacent, const int16_t *query_levels, long query_width, const beaconfix_offset_metric *metric,
    int16_t coarse_error, const beaconfix_offset_rows *rows, float *upper) {
    (void)coarse_levels; (void)pair_columns; (void)pair_start; (void)runs; (void)run_count; (void)prefetch_adjacent;
    (void)query_levels; (void)query_width; (void)metric; (void)coarse_error; (void)rows; (void)upper;
    __builtin_trap();
}

void beaconfix_level_distances_dense_avx512_vnni(
    const int16_t *levels, long pairs_per_block, const long *runs, long run_count, const long *query_pairs,
    long pair_count, const int16_t *query_levels, const beaconfix_offset_metric *metric,
    const beaconfix_offset_rows *rows) {
    (void)levels; (void)pairs_per_block; (void)runs; (void)run_count; (void)query_pairs; (void)pair_count;
    (void)query_levels; (void)metric; (void)rows;
    __builtin_trap();
}

#endif
