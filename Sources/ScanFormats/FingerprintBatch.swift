public import Positioning
import Foundation

extension FingerprintBuilder {
    /// Builds one fingerprint per window, in the windows' order, spreading large batches over the cores.
    ///
    /// A survey log of tens of thousands of lines holds thousands of windows, each built independently:
    /// `survey record` builds them all at once before it writes.
    /// - Returns: per window its fingerprint or why none could be built, and what cleaning dropped overall.
    public func fingerprints(ofWindows windows: [[Sample]]) -> (results: [Result<Fingerprint, FingerprintError>], cleaning: CleaningReport) {
        // Below a few hundred windows the threads cost more than they save.
        let parts = windows.count >= 512 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        let slots = UnsafeMutableBufferPointer<(results: [Result<Fingerprint, FingerprintError>], cleaning: CleaningReport)>
            .allocate(capacity: parts)
        defer { slots.deallocate() }
        // Each part builds its own contiguous range of windows into its own slot.
        let shared = UncheckedSendableBox((slots: slots, windows: windows, builder: self, parts: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let context = shared.value
            let range = (context.windows.count * part / context.parts)..<(context.windows.count * (part + 1) / context.parts)
            var cleaning = CleaningReport()
            var results: [Result<Fingerprint, FingerprintError>] = []
            results.reserveCapacity(range.count)
            for index in range {
                results.append(Result { () throws(FingerprintError) in
                    try context.builder.fingerprint(of: context.windows[index], report: &cleaning)
                })
            }
            (context.slots.baseAddress! + part).initialize(to: (results, cleaning))
        }
        var results: [Result<Fingerprint, FingerprintError>] = []
        results.reserveCapacity(windows.count)
        var cleaning = CleaningReport()
        for part in 0..<parts {
            results += slots[part].results
            cleaning.add(slots[part].cleaning)
        }
        _ = slots.deinitialize()
        return (results, cleaning)
    }
}
