#ifndef BEACONFIX_MATCHER_HINTS_H
#define BEACONFIX_MATCHER_HINTS_H

/// Asks the CPU to start loading the cache line at `address` for reading, without waiting for it: the
/// matcher names the next block's lines while it computes on the current one, so a large map's scattered
/// lines arrive from memory in parallel instead of one miss at a time. A hint only: no fault, no effect on
/// any value.
static inline void beaconfix_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// The same for every line of `bytes` bytes from `address`: a sparse block of the matcher is one contiguous
/// run, requested whole by one call (a call per line costs more than the loads it hides when the compiler
/// does not inline it).
static inline void beaconfix_prefetch_range(const void *address, long bytes) {
    const char *line = (const char *)address;
    for (long offset = 0; offset < bytes; offset += 64) {
        __builtin_prefetch(line + offset, 0, 3);
    }
}

#endif
