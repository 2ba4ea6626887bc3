import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey beacons`: the beacons' health as positiond judged it from live traffic.
    struct Beacons: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "beacons",
            abstract: "Show each beacon's health from live traffic (dead, drifted, swapped), its history, and reverse what was concluded.",
            discussion: """
                positiond takes every located scan as evidence of the venue's beacons and keeps their health in the \
                store: 'show' (the default) lists each beacon's state, since when, offset and evidence, the open \
                proposals ('survey replace-beacon accept N' takes one) and what matching makes of silent beacons; \
                'history' lists the state changes; 'reset' makes positiond forget what it concluded of a beacon; \
                'hold' and 'release' suspend and resume matching's tolerance for one.
                """,
            subcommands: [Show.self, History.self, Reset.self, Hold.self, Release.self],
            defaultSubcommand: Show.self)
    }
}

extension Survey.Beacons {
    /// A beacon's name for people: its label with its id, or its id.
    static func name(_ beacon: String, labels: [String: String]) -> String {
        labels[beacon].map { "\($0) (\(beacon))" } ?? beacon
    }

    /// The venue's beacon labels by id text.
    static func labels(of venue: String, in store: FingerprintStore) async throws -> [String: String] {
        let details = try await store.venue(venue)
        return Dictionary(details.beacons.compactMap { beacon in beacon.label.map { (beacon.id.description, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The beacon `text` names in `venue`: a label of the venue, or UUID:major:minor.
    static func beacon(_ text: String, in venue: String, store: FingerprintStore) async throws -> BeaconID {
        let details = try await store.venue(venue)
        if let labelled = details.beacons.first(where: { $0.label == text }) { return labelled.id }
        do {
            return try BeaconID(parsing: text)
        } catch {
            throw CLIError("'\(text)' is neither a beacon label of venue '\(venue)' nor UUID:major:minor")
        }
    }

    static func time(_ seconds: Double?) -> String {
        guard let seconds else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
    }

    static func validate(venue: String) throws {
        guard !venue.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--venue must not be empty.") }
    }
}
