import ScanFormats
import Foundation
import Positioning
import PositioningTuning

/// One `record` in progress, inside its write transaction: samples go in chunk by chunk, fingerprints
/// come out as their windows complete.
struct SurveyRecording {
    let store: FingerprintStore
    let venueID: String
    let options: RecordOptions
    let db: any SQLTransaction
    var levels: Set<Int>
    let inserter: any EntryInserting
    let startedAt = Date()
    /// Fingerprints from this id on are this recording's: coverage reads only the older ones back.
    let firstNewFingerprint: Int64
    var beaconRows: [BeaconID: Int64]
    var spotRows: [String: Int64] = [:]
    var sessions: [String: Int64] = [:]
    var windower: SampleWindower<LabelledSample>

    var samples = 0
    var emptySamples = 0
    var unusableWindows = 0
    var cleaning = CleaningReport()
    var unknownReadings: [BeaconID: Int] = [:]
    var beaconsAdded: [BeaconID] = []
    var spotsCreated: [String] = []
    /// Beacons per new fingerprint, per spot: how many fingerprints each spot got, too.
    var addedBeaconCounts: [String: [Int]] = [:]

    init(store: FingerprintStore, venueID: String, options: RecordOptions, _ db: any SQLTransaction) async throws {
        self.store = store
        self.venueID = venueID
        self.options = options
        self.db = db
        let venue = try await store.venueDetails(venueID, db)
        levels = Set(venue.floors.map(\.level))
        beaconRows = try await store.beaconIndex(venueID, db)
        for row in try await SpotRecord.all(of: venueID, db) {
            spotRows[row.name] = row.id!
        }
        inserter = try db.entryInserter()
        firstNewFingerprint = Int64(try await db.count("SELECT COALESCE(MAX(id), 0) + 1 FROM fingerprint"))
        windower = SampleWindower(size: options.windowSize)
    }

    /// Takes the next samples of the log: leaves out empty scans and unknown beacons (or adds them),
    /// and stores the windows they complete.
    mutating func take(_ chunk: [LabelledSample]) async throws {
        samples += chunk.count
        var kept: [LabelledSample] = []
        kept.reserveCapacity(chunk.count)
        for var labelled in chunk {
            if labelled.sample.readings.isEmpty {
                emptySamples += 1
                continue
            }
            if labelled.sample.readings.contains(where: { beaconRows[$0.beacon] == nil }) {
                try await leaveOutOrAddUnknownBeacons(of: &labelled.sample)
            }
            kept.append(labelled)
        }
        try await store(windower.add(kept))
    }

    private mutating func leaveOutOrAddUnknownBeacons(of sample: inout Sample) async throws {
        if options.addUnknownBeacons {
            for reading in sample.readings where beaconRows[reading.beacon] == nil {
                let beacon = reading.beacon
                if let retired = try await BeaconRecord.find(beacon, in: venueID, db) {
                    throw StoreError.conflict(
                        "beacon \(beacon) is \(retired.status.rawValue) in venue '\(venueID)'; it cannot be added back by recording")
                }
                var record = BeaconRecord(
                    id: nil, venueId: venueID, uuid: beacon.uuid.uuidString, major: Int(beacon.major),
                    minor: Int(beacon.minor), status: .active)
                try await record.insert(db)
                beaconRows[beacon] = record.id!
                beaconsAdded.append(beacon)
            }
        } else {
            var unknown = unknownReadings
            sample.readings.removeAll { reading in
                guard beaconRows[reading.beacon] == nil else { return false }
                unknown[reading.beacon, default: 0] += 1
                return true
            }
            unknownReadings = unknown
        }
    }

    /// Builds the windows' fingerprints (all at once, on every core: pure computation) and inserts them.
    private mutating func store(_ windows: [[LabelledSample]]) async throws {
        guard !windows.isEmpty else { return }
        let built = options.builder.fingerprints(ofWindows: windows.map { $0.map(\.sample) })
        cleaning.add(built.cleaning)
        for (window, result) in zip(windows, built.results) {
            guard case .success(let fingerprint) = result else {
                unusableWindows += 1
                continue
            }
            let first = window[0]
            let spotName = first.truth.spotName
            let fingerprintID = try await inserter.insertFingerprint(
                spot: try spotID(spotName, truth: first.truth), session: try sessionID(first.sample.device),
                device: first.sample.device, time: first.sample.time, sampleCount: window.count)
            try await inserter.insertEntries(of: fingerprint, id: fingerprintID, beaconRows: beaconRows)
            addedBeaconCounts[spotName, default: []].append(fingerprint.entries.count)
        }
    }

    /// The spot's row, created from the log's coordinates (and its floor, if new) when the venue lacks it.
    private mutating func spotID(_ name: String, truth: GroundTruth) async throws -> Int64 {
        if let known = spotRows[name] { return known }
        if !levels.contains(truth.floor) {
            try await FloorRecord(venueId: venueID, level: truth.floor, name: "Level \(truth.floor)").save(db)
            levels.insert(truth.floor)
        }
        var record = SpotRecord(id: nil, venueId: venueID, name: name, x: truth.x, y: truth.y, floor: truth.floor, zone: nil)
        try await record.insert(db)
        spotRows[name] = record.id!
        spotsCreated.append(name)
        return record.id!
    }

    /// One survey session per device of the log.
    private mutating func sessionID(_ device: String) async throws -> Int64 {
        if let known = sessions[device] { return known }
        var session = SurveySessionRecord(
            id: nil, venueId: venueID, operator: options.operator, device: device, recordedAt: startedAt,
            sourceFile: options.sourceFile, windowSize: options.windowSize)
        try await session.insert(db)
        sessions[device] = session.id!
        return session.id!
    }

    /// Stores the last window, bumps the revision when anything changed, and sums up.
    mutating func finish() async throws -> RecordSummary {
        try await store(windower.finish())
        let stored = addedBeaconCounts.values.reduce(0) { $0 + $1.count }
        if stored > 0 || !beaconsAdded.isEmpty || !spotsCreated.isEmpty { try await store.bumpRevision(of: venueID, db) }
        let coverage = try await store.spotCoverage(venueID, db, before: firstNewFingerprint, adding: addedBeaconCounts)
        let created = Set(spotsCreated)
        let spots = coverage.filter { addedBeaconCounts[$0.spot] != nil || created.contains($0.spot) }.map { spot in
            var spot = spot
            spot.added = addedBeaconCounts[spot.spot]?.count ?? 0
            return spot
        }
        return RecordSummary(
            venue: venueID, samples: samples, fingerprints: stored, emptySamples: emptySamples,
            unusableWindows: unusableWindows, cleaning: cleaning,
            unknownBeaconReadings: Dictionary(uniqueKeysWithValues: unknownReadings.map { ($0.key.description, $0.value) }),
            beaconsAdded: beaconsAdded.map(\.description).sorted(), spotsCreated: spotsCreated,
            spots: spots,
            spotsToRevisit: coverage.filter(\.needsRevisit).map(\.spot),
            revision: try await store.revision(of: venueID, db))
    }
}
