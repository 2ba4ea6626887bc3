import ScanFormats
import Positioning
import Testing
import TestSupport

@Suite("Fingerprints")
struct FingerprintTests {
    let builder = FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1))

    @Test("relative power is 1 for the strongest beacon and falls linearly in dB below it")
    func relativePower() throws {
        // Given two samples hearing three beacons, one of them only once
        let samples = [
            Fixtures.sample([1: -60, 2: -70, 3: -90], time: 0),
            Fixtures.sample([1: -62, 2: -70], time: 1),
        ]
        // When a fingerprint is built
        let fingerprint = try builder.fingerprint(of: samples)
        // Then the strongest beacon's relative power is 1 and the others follow its mean
        let strongest = try #require(fingerprint.entries[Fixtures.beacon(1)])
        #expect(strongest.relativePower == 1)
        #expect(strongest.meanRSSI == -61)
        #expect(abs(strongest.dispersion - 1) < 1e-9)
        #expect(strongest.visibility == 1)
        let second = try #require(fingerprint.entries[Fixtures.beacon(2)])
        #expect(abs(second.relativePower - Float(1 - 9.0 / 40)) < 1e-6)
        #expect(second.dispersion == 0)
        let weak = try #require(fingerprint.entries[Fixtures.beacon(3)])
        #expect(weak.visibility == 0.5)
        #expect(abs(weak.relativePower - Float(1 - 29.0 / 40)) < 1e-6)
        #expect(fingerprint.sampleCount == 2)
    }

    @Test("a constant gain offset of the phone cancels")
    func gainOffsetCancels() throws {
        // Given the same scene heard by a phone 9 dB more sensitive
        let quiet = try builder.fingerprint(of: [Fixtures.sample([1: -60, 2: -70, 3: -85])])
        let loud = try builder.fingerprint(of: [Fixtures.sample([1: -51, 2: -61, 3: -76])])
        // Then the relative powers are identical
        #expect(quiet.entries.mapValues(\.relativePower) == loud.entries.mapValues(\.relativePower))
    }

    @Test("beacons far below the strongest clamp to 0, never negative")
    func clampsToZero() throws {
        let fingerprint = try builder.fingerprint(of: [Fixtures.sample([1: -40, 2: -100])])
        #expect(fingerprint.entries[Fixtures.beacon(2)]?.relativePower == 0)
    }

    @Test("a single beacon makes a valid fingerprint")
    func singleBeacon() throws {
        let fingerprint = try builder.fingerprint(of: [Fixtures.sample([5: -77])])
        #expect(fingerprint.beacons == [Fixtures.beacon(5)])
        #expect(fingerprint.entries[Fixtures.beacon(5)]?.relativePower == 1)
    }

    @Test("a batch of windows, built on every core, equals building them one by one, in order")
    func batchEqualsOneByOne() {
        // Given 700 windows (enough to be split across cores), some of them unusable
        var generator = SeededGenerator(seed: 11)
        let windows: [[Sample]] = (0..<700).map { index in
            if index % 97 == 0 { return [Fixtures.sample([1: 0, 2: .nan])] }
            return (0..<3).map { time in
                let readings = Dictionary(uniqueKeysWithValues: (1...12).compactMap { minor -> (UInt16, Double)? in
                    Double.random(in: 0..<1, using: &generator) < 0.7 ? (UInt16(minor), Double(Int.random(in: -100 ... -45, using: &generator))) : nil
                })
                return Fixtures.sample(readings, time: Double(time))
            }
        }
        // When they are built as a batch and one by one
        let batch = builder.fingerprints(ofWindows: windows)
        var cleaning = CleaningReport()
        let oneByOne = windows.map { window in
            Result { () throws(FingerprintError) in try builder.fingerprint(of: window, report: &cleaning) }
        }
        // Then results, their order and the cleaning counts agree
        #expect(batch.results == oneByOne)
        #expect(batch.cleaning == cleaning)
        #expect(batch.results.filter { (try? $0.get()) == nil }.count == 8)
    }

    @Test("no samples, or samples with nothing usable, are errors")
    func emptyInput() {
        #expect(throws: FingerprintError.noSamples) { try builder.fingerprint(of: []) }
        #expect(throws: FingerprintError.noValidReadings(samples: 2)) {
            try builder.fingerprint(of: [Fixtures.sample([:]), Fixtures.sample([1: 0, 2: .nan])])
        }
    }

    @Test("a minimum visibility leaves out beacons heard too rarely")
    func minimumVisibility() throws {
        let strict = FingerprintBuilder(minimumVisibility: 0.6)
        let fingerprint = try strict.fingerprint(of: [
            Fixtures.sample([1: -60, 2: -70]), Fixtures.sample([1: -60]), Fixtures.sample([1: -61]),
        ])
        #expect(fingerprint.beacons == [Fixtures.beacon(1)])
    }

    @Test("scales: powed dB and power ratio")
    func scales() {
        let powed = DecibelScale(dynamicRange: 40, exponent: 2)
        #expect(abs(powed.relativePower(rssi: -80, strongest: -60) - 0.25) < 1e-6)
        #expect(powed.relativePower(rssi: -60, strongest: -60) == 1)
        let ratio = PowerRatioScale()
        #expect(abs(ratio.relativePower(rssi: -70, strongest: -60) - 0.1) < 1e-6)
    }

    @Test("rescaling recomputes relative powers from the mean RSSIs")
    func rescaled() throws {
        let fingerprint = try builder.fingerprint(of: [Fixtures.sample([1: -60, 2: -80])])
        let rescaled = fingerprint.rescaled(with: DecibelScale(dynamicRange: 20, exponent: 1))
        #expect(rescaled.entries[Fixtures.beacon(2)]?.relativePower == 0)
        #expect(rescaled.entries[Fixtures.beacon(1)]?.relativePower == 1)
    }
}
