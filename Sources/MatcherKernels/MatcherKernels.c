// Which loops of the dB-offset metric this CPU runs, chosen once into a table of function pointers
// (MatcherKernels.h): the portable coarse pass (KernelsPortable.c), the AVX2 loops (KernelsAVX2.c) and the
// AVX-512 VNNI ones (KernelsAVX512VNNI.c), each giving the same distances and bounds to the bit.
#include "KernelsShared.h"

static const beaconfix_level_kernels portable_kernels = {
    BEACONFIX_LEVEL_PORTABLE, 0, 0, beaconfix_level_bounds_sparse_portable};

#if defined(__x86_64__)
#include <cpuid.h>
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

static const beaconfix_level_kernels avx2_kernels = {
    BEACONFIX_LEVEL_AVX2, beaconfix_level_distances_sparse_avx2, beaconfix_level_distances_dense_avx2,
    beaconfix_level_bounds_sparse_avx2};

static const beaconfix_level_kernels avx512_vnni_kernels = {
    BEACONFIX_LEVEL_AVX512_VNNI, beaconfix_level_distances_sparse_avx512_vnni, beaconfix_level_distances_dense_avx512_vnni,
    beaconfix_level_bounds_sparse_avx512_vnni};

const beaconfix_level_kernels *beaconfix_level_kernels_at(beaconfix_instruction_level level) {
    switch (level) {
    case BEACONFIX_LEVEL_PORTABLE: return &portable_kernels;
    case BEACONFIX_LEVEL_AVX2: return beaconfix_offset_distances_have_avx2() ? &avx2_kernels : 0;
    case BEACONFIX_LEVEL_AVX512_VNNI: return beaconfix_offset_distances_have_avx512_vnni() ? &avx512_vnni_kernels : 0;
    }
    return 0;
}

#else

// No AVX outside x86-64: the portable loops run.
int beaconfix_offset_distances_have_avx2(void) { return 0; }

int beaconfix_offset_distances_have_avx512_vnni(void) { return 0; }

long beaconfix_last_level_cache_bytes(void) { return 0; }

const beaconfix_level_kernels *beaconfix_level_kernels_at(beaconfix_instruction_level level) {
    return level == BEACONFIX_LEVEL_PORTABLE ? &portable_kernels : 0;
}

#endif

const beaconfix_level_kernels *beaconfix_level_kernels_best(void) {
    const beaconfix_level_kernels *best = beaconfix_level_kernels_at(BEACONFIX_LEVEL_AVX512_VNNI);
    if (!best) best = beaconfix_level_kernels_at(BEACONFIX_LEVEL_AVX2);
    return best ? best : &portable_kernels;
}
