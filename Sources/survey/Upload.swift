import ArgumentParser
import BeaconfixClient
import FingerprintStore
import Foundation
import OpenAPIRuntime
import ScanFormats

extension Survey {
    /// `survey upload`: a scan log sent to a remote positiond as a survey session, resumably.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a survey log (JSON Lines) to a running positiond as a survey session, and commit it.",
            discussion: """
                The log is checked here first (a bad line stops the command with FILE:LINE and nothing sent), \
                then sent in batches of --batch samples through positiond's survey-session routes, and \
                committed: positiond records it as 'survey record' would and re-tunes the venue in the \
                background. The key needs the survey scope ('survey key create --scope survey').

                Resumable: every batch the server acknowledges is written to a journal beside the log \
                (FILE.upload.json, or --journal). If the upload stops (a dropped connection, Ctrl-C), run the \
                same command again: only the batches not acknowledged are sent, into the same session. A batch \
                whose answer was lost is recognised by the server and not stored twice. Once committed, running \
                it again sends nothing. Passing --no-commit leaves the session open (commit it later by running \
                the command again without it).

                A walking survey: with --path, the session is a walk. The log's lines may then lack \
                coordinates, and the path file's checkpoints (as 'survey record --path' reads them) are sent \
                first; positiond places the lines along the walked path at commit, with --cell and --snap as \
                'survey record' places them.

                The key is read from --key or, so that it stays out of shell histories and process lists, from \
                the environment variable BEACONFIX_KEY.
                """)

        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: ArgumentHelp("The positiond to send to: its root URL, e.g. https://positions.example.org.", valueName: "url"))
        var to: String

        @Option(name: .long, help: ArgumentHelp("An API key with the survey scope (or set BEACONFIX_KEY).", valueName: "key"))
        var key: String?

        @Option(name: .long, help: "The venue the survey belongs to.")
        var venue: String

        @Option(name: .long, help: "Samples per batch (1 to 5000); a resumed upload keeps the size it began with.")
        var batch: Int = 200

        @Option(name: .customLong("operator"), help: "Who walked the survey (kept with the session).")
        var surveyor: String?

        @Option(name: .long, help: "The phone or scanner that recorded it (kept with the session).")
        var deviceModel: String?

        @Option(name: .long, help: "Notes kept with the session.")
        var notes: String?

        @Option(name: .long, help: ArgumentHelp("Where to keep the upload's journal (default: FILE.upload.json).", valueName: "file"))
        var journal: String?

        @Option(name: .long, help: "Attempts per request when the server cannot be reached or answers 5xx (1 to 10).")
        var attempts: Int = 4

        @Option(name: .long, help: "Seconds a request may take, connecting included, before it is tried again (1 to 600; the commit may take 600).")
        var timeout: Int = 30

        @OptionGroup var walkOptions: WalkOptions

        @Flag(name: .long, help: "Skip and count malformed lines instead of refusing the file.")
        var skipBad = false

        @Flag(name: .long, help: "Send the samples but leave the session open.")
        var noCommit = false

        @Argument(help: ArgumentHelp("The survey log: labelled lines (a spot, or x/y/floor), as 'survey record' reads.", valueName: "file"))
        var file: String

        private var path: String? { walkOptions.path }
        private var cell: Double { walkOptions.cell }
        private var snap: Double { walkOptions.snap }

        func validate() throws {
            guard file != "-" else { throw ValidationError("upload needs a file, not standard input: its journal is what makes it resumable.") }
            guard !venue.isEmpty else { throw ValidationError("--venue must name a venue.") }
            guard (1...5_000).contains(batch) else { throw ValidationError("--batch must be from 1 to 5000 samples (got \(batch)).") }
            guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be from 1 to 600 seconds (got \(timeout)).") }
            guard (1...10).contains(attempts) else { throw ValidationError("--attempts must be from 1 to 10 (got \(attempts)).") }
            guard path != "-" else { throw ValidationError("--path needs a file, not standard input: the journal ties the upload to it.") }
            guard Self.serverURL(to) != nil else {
                throw ValidationError("--to must be an http or https URL of a positiond, e.g. http://127.0.0.1:8080 (got '\(to)').")
            }
            guard (key ?? ProcessInfo.processInfo.environment["BEACONFIX_KEY"]).map({ !$0.isEmpty }) == true else {
                throw ValidationError("an API key with the survey scope is needed: pass --key or set BEACONFIX_KEY.")
            }
        }

        static func serverURL(_ text: String) -> URL? {
            guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false, url.query == nil
            else { return nil }
            return url
        }

        func run() async throws {
            let server = Self.serverURL(to)!
            let contents = try ScanLogInput.read(file)
            let log = try ScanLogInput(contents: contents, path: file, skipBad: skipBad, requireGroundTruth: path == nil, consequence: "nothing was sent")
            guard !log.lines.isEmpty else { throw CLIError("\(file) holds no scan line\(log.skipped > 0 ? " that could be read" : ""); nothing was sent") }
            // The checkpoints are read here; their spots are checked by the server, which knows the venue.
            var pathContents = Data()
            var checkpoints: [(line: Int, entry: WalkPathFile.Entry)] = []
            if let path {
                pathContents = try ScanLogInput.read(path)
                do {
                    checkpoints = try WalkPathFile.entries(from: pathContents)
                } catch {
                    throw CLIError("\(path):\(error.line): \(error.message); nothing was sent")
                }
                guard !checkpoints.isEmpty else { throw CLIError("\(path) holds no checkpoint; nothing was sent") }
            }
            if log.skipped > 0, !output.json { Output.standardError("Skipping \(log.skipped) malformed lines.") }
            let journalURL = URL(fileURLWithPath: journal ?? file + ".upload.json")
            // The journal is tied to both files: either changed makes another upload.
            let digest = UploadJournal.digest(path == nil ? contents : contents + pathContents)
            let remote = SurveyRemote(
                server: server, apiKey: key ?? ProcessInfo.processInfo.environment["BEACONFIX_KEY"], venue: venue, attempts: attempts,
                timeout: .seconds(timeout))

            // Resume the journal's session when it is this file's, on this server and venue.
            var state: UploadJournal
            var resumed = false
            if var previous = try UploadJournal.load(from: journalURL) {
                guard previous.server == server.absoluteString, previous.venue == venue else {
                    throw CLIError("""
                        \(journalURL.path) is the journal of an upload of \(file) to \(previous.server), venue '\(previous.venue)'; \
                        pass --journal elsewhere to send it to \(server.absoluteString), venue '\(venue)', as well
                        """)
                }
                guard previous.fileDigest == digest else {
                    throw CLIError("""
                        \(file)\(path.map { " or \($0)" } ?? "") has changed since its upload began (session \(previous.session)); delete \(journalURL.path) to send it \
                        as a new session (the old one stays open until abandoned)
                        """)
                }
                if let revision = previous.committedRevision {
                    let summary = UploadSummary(
                        session: previous.session, venue: venue, samples: log.lines.count,
                        batches: Self.batchCount(log.lines.count, previous.batchSize) + Self.batchCount(checkpoints.count, previous.batchSize),
                        batchesSent: 0, batchesAlreadyStored: 0, committed: true, revision: revision, fingerprints: nil, alreadyCommitted: true)
                    return try report(summary)
                }
                switch try await remote.session(previous.session) {
                case .some(let session) where session.state == .open:
                    resumed = true
                    if previous.batchSize != batch, !output.json {
                        Output.standardError("Resuming with --batch \(previous.batchSize), the size the upload began with.")
                    }
                case .some(let session) where session.state == .committed:
                    // Committed by an earlier run whose answer was lost: record it and send nothing.
                    previous.committedRevision = session.revision
                    try previous.save(to: journalURL)
                    return try report(UploadSummary(
                        session: session.id, venue: venue, samples: session.samples, batches: session.batches, batchesSent: 0,
                        batchesAlreadyStored: session.batches, committed: true, revision: session.revision, fingerprints: session.fingerprints,
                        alreadyCommitted: true))
                default:
                    Output.standardError("Session \(previous.session) is no longer open on the server; starting a new one.")
                    previous.session = try await remote.open(operator: surveyor, deviceModel: deviceModel, notes: notes, walk: walkSettings).id
                    previous.acknowledged = []
                    previous.batchSize = batch
                    try previous.save(to: journalURL)
                }
                state = previous
            } else {
                let session = try await remote.open(operator: surveyor, deviceModel: deviceModel, notes: notes, walk: walkSettings)
                state = UploadJournal(
                    server: server.absoluteString, venue: venue, session: session.id, fileDigest: digest, batchSize: batch, acknowledged: [])
                try state.save(to: journalURL)
            }
            if !output.json {
                print("\(resumed ? "Resuming" : "Opened") survey session \(state.session) on \(server.absoluteString) for '\(venue)'.")
            }

            // Send what is not acknowledged: the checkpoints first, then the log in file order.
            let batches = Self.batches(checkpoints: checkpoints, size: state.batchSize) + Self.batches(log.lines, size: state.batchSize)
            var acknowledged = Set(state.acknowledged)
            let acknowledgedBatches = batches.filter { acknowledged.contains($0.id) }
            let alreadyAcknowledged = acknowledgedBatches.count
            var sent = 0, duplicates = 0
            let progress = ProgressReporter(label: "uploading", unit: "samples")
            var samplesDone = acknowledgedBatches.reduce(0) { $0 + $1.lines.count }
            if !output.json { progress.report(samplesDone, log.lines.count) }
            for batch in batches where !acknowledged.contains(batch.id) {
                let receipt: Components.Schemas.SurveyBatchReceipt
                do {
                    receipt = try await remote.post(batch, session: state.session)
                } catch let error as SurveyRemote.Refusal {
                    throw CLIError(error.message(file: file, batch: batch, pathFile: path, acknowledged: acknowledged.count, of: batches.count))
                }
                acknowledged.insert(batch.id)
                state.acknowledged.append(batch.id)
                try state.save(to: journalURL)
                sent += 1
                if receipt.duplicate { duplicates += 1 }
                samplesDone += batch.lines.count
                if !output.json { progress.report(samplesDone, log.lines.count) }
            }

            var summary = UploadSummary(
                session: state.session, venue: venue, samples: log.lines.count, batches: batches.count, batchesSent: sent - duplicates,
                batchesAlreadyStored: alreadyAcknowledged + duplicates, committed: false, revision: nil, fingerprints: nil, alreadyCommitted: false)
            if !noCommit {
                let committed = try await remote.commit(state.session)
                state.committedRevision = committed.revision
                try state.save(to: journalURL)
                summary.committed = true
                summary.revision = committed.revision
                summary.fingerprints = committed.fingerprints
                summary.placement = committed.placement.map { answer in
                    var counts = WalkPlacementCounts()
                    (counts.placed, counts.beforeFirstCheckpoint) = (answer.placed, answer.beforeFirstCheckpoint)
                    (counts.afterLastCheckpoint, counts.betweenFloors) = (answer.afterLastCheckpoint, answer.betweenFloors)
                    return counts
                }
            }
            try report(summary)
        }

        private func report(_ summary: UploadSummary) throws {
            if output.json { return try Output.json(summary) }
            if summary.alreadyCommitted {
                print("Session \(summary.session) was committed already (revision \(summary.revision.map(String.init) ?? "unknown")); nothing was sent.")
                return
            }
            print("""
                Sent \(summary.batchesSent) of \(summary.batches) batches (\(summary.samples) samples\(checkpointsText)); \
                \(summary.batchesAlreadyStored) were stored already.
                """)
            if let placement = summary.placement { print("Walking survey: \(placement.text).") }
            if summary.committed {
                print("""
                    Committed session \(summary.session): \(summary.fingerprints ?? 0) fingerprints recorded into '\(summary.venue)' \
                    (revision \(summary.revision ?? 0)); the venue is being re-tuned on the server.
                    """)
            } else {
                print("Session \(summary.session) is left open (--no-commit): run the command again without --no-commit to commit it.")
            }
        }

        private var checkpointsText: String {
            path.map { ", and the checkpoints of \($0)" } ?? ""
        }

        private var walkSettings: Components.Schemas.SurveyWalk? {
            path.map { _ in .init(cellM: cell, snapM: snap) }
        }

        /// A batch of the log, or of the path file: its lines (with their line numbers, for messages) and
        /// its id, which is the same for the same lines on every run (the first line's number and a digest
        /// of the lines), so the server recognises a batch sent again.
        struct Batch {
            var id: String
            var lines: [(number: Int, line: ScanLine)] = []
            var samples: [Components.Schemas.SurveySample] = []
            var checkpointLines: [Int] = []
            var checkpoints: [Components.Schemas.SurveyCheckpoint] = []
        }

        /// A walk's checkpoints in batches of `size`, their ids starting with `c`.
        static func batches(checkpoints: [(line: Int, entry: WalkPathFile.Entry)], size: Int) -> [Batch] {
            stride(from: 0, to: checkpoints.count, by: size).map { start in
                let slice = Array(checkpoints[start..<min(start + size, checkpoints.count)])
                let digest = UploadJournal.digest((try? WalkPathFile.jsonLines(slice.map(\.entry))) ?? Data()).prefix(16)
                return Batch(
                    id: "c\(slice[0].line)-\(digest)", checkpointLines: slice.map(\.line),
                    checkpoints: slice.map { .init(t: $0.entry.t, spot: $0.entry.spot, x: $0.entry.x, y: $0.entry.y, floor: $0.entry.floor, via: $0.entry.via) })
            }
        }

        static func batchCount(_ lines: Int, _ size: Int) -> Int { (lines + size - 1) / size }

        static func batches(_ lines: [(number: Int, line: ScanLine)], size: Int) -> [Batch] {
            stride(from: 0, to: lines.count, by: size).map { start in
                let slice = Array(lines[start..<min(start + size, lines.count)])
                let jsonLines = (try? ScanLine.jsonLines(slice.map(\.line))) ?? Data()
                let digest = UploadJournal.digest(jsonLines).prefix(16)
                let samples = slice.map { entry in
                    Components.Schemas.SurveySample(
                        t: entry.line.t, device: entry.line.device, spot: entry.line.spot, x: entry.line.x, y: entry.line.y, floor: entry.line.floor,
                        beacons: entry.line.beacons.map { .init(uuid: $0.uuid, major: $0.major, minor: $0.minor, rssi: $0.rssi) })
                }
                return Batch(id: "l\(slice[0].number)-\(digest)", lines: slice, samples: samples)
            }
        }
    }
}

/// `upload --json`, and the text summary's figures.
struct UploadSummary: Encodable {
    var session: String
    var venue: String
    var samples: Int
    var batches: Int
    /// Batches this run stored.
    var batchesSent: Int
    /// Batches stored by an earlier run (acknowledged in the journal, or recognised by the server).
    var batchesAlreadyStored: Int
    var committed: Bool
    var revision: Int?
    var fingerprints: Int?
    /// An earlier run had committed the session: this one sent nothing.
    var alreadyCommitted: Bool
    /// A walking survey's placement of its samples at commit, as the server counted it.
    var placement: WalkPlacementCounts?
}

