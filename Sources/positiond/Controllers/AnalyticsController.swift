import FingerprintStore
import Foundation
import Hummingbird
import ScanFormats

/// `/v1/venues/{venue}/analytics/...`: presence, dwell, funnels and heatmaps from the visitor history, and
/// the venue's recording switch. Scope admin: these describe every visitor of the venue.
extension PositiondAPI {
    func getPresence(_ input: Operations.GetPresence.Input) async throws -> Operations.GetPresence.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let report = try await analytics { try await store.presence(of: venue, window: input.query.window ?? 300) }
        return .ok(.init(body: .json(.init(
            venue: report.venue, at: report.at, window: report.window, total: report.total, outside: report.outside,
            zones: report.zones.map { .init(zone: $0.zone, devices: $0.devices) }))))
    }

    func getDwell(_ input: Operations.GetDwell.Input) async throws -> Operations.GetDwell.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let (from, to) = try Self.period(from: input.query.from, to: input.query.to)
        let report = try await analytics {
            try await store.dwell(of: venue, from: from, to: to, minimumVisit: input.query.minVisit ?? minimumVisit)
        }
        return .ok(.init(body: .json(.init(
            venue: report.venue, from: report.from, to: report.to, minVisitS: report.minimumVisit,
            zones: report.zones.map { .init(zone: $0.zone, visits: $0.visits, medianS: $0.median, p90S: $0.p90, meanS: $0.mean) }))))
    }

    func getFunnel(_ input: Operations.GetFunnel.Input) async throws -> Operations.GetFunnel.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let (from, to) = try Self.period(from: input.query.from, to: input.query.to)
        let zones = input.query.zones.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !zones.contains(where: \.isEmpty) else {
            throw HTTPError(.unprocessableContent, message: "zones is a comma-separated list of zone names, none empty")
        }
        let report = try await analytics {
            try await store.funnel(of: venue, zones: zones, from: from, to: to, within: input.query.within ?? 3600)
        }
        return .ok(.init(body: .json(.init(
            venue: report.venue, from: report.from, to: report.to, withinS: report.within,
            steps: report.steps.map { .init(zone: $0.zone, devices: $0.devices, conversion: $0.conversion, medianS: $0.medianSeconds) }))))
    }

    func getHeatmap(_ input: Operations.GetHeatmap.Input) async throws -> Operations.GetHeatmap.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let (from, to) = try Self.period(from: input.query.from, to: input.query.to)
        let report = try await analytics {
            try await store.heatmap(of: venue, floor: input.query.floor, cell: input.query.cell ?? 1, from: from, to: to)
        }
        return .ok(.init(body: .json(.init(
            venue: report.venue, floor: report.floor, from: report.from, to: report.to, cellM: report.cell, totalS: report.totalSeconds,
            maxS: report.maximumSeconds, cells: report.cells.map { .init(x: $0.x, y: $0.y, seconds: $0.seconds) }))))
    }

    func getHistoryRecording(_ input: Operations.GetHistoryRecording.Input) async throws -> Operations.GetHistoryRecording.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let state = try await analytics { try await store.historyRecording(of: venue) }
        return .ok(.init(body: .json(.init(venue: state.venue, recording: state.recording))))
    }

    func setHistoryRecording(_ input: Operations.SetHistoryRecording.Input) async throws -> Operations.SetHistoryRecording.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        guard case .json(let body) = input.body else { throw HTTPError(.unsupportedMediaType) }
        let state = try await analytics { try await store.setHistoryRecording(of: venue, to: body.recording) }
        RequestScope.context?.logger.notice(
            "visitor history recording switched", metadata: ["venue.id": "\(venue)", "recording": "\(state.recording)"])
        return .ok(.init(body: .json(.init(venue: state.venue, recording: state.recording))))
    }

    /// Runs a store query, its errors as the API's: 422 for a parameter the store refuses, 404 for a venue
    /// removed since the catalog last loaded, 500 with the request id for a failure of the store itself.
    private func analytics<T>(_ query: () async throws -> T) async throws -> T {
        do {
            return try await query()
        } catch let error as StoreError {
            throw HTTPError.answering(error)
        }
    }

    /// `from` and `to` as Unix seconds, or a 422 naming the one that is neither ISO 8601 nor Unix seconds.
    static func period(from: String, to: String) throws -> (Double, Double) {
        do {
            return (try TimeParameter.seconds(of: from, name: "from"), try TimeParameter.seconds(of: to, name: "to"))
        } catch {
            throw HTTPError(.unprocessableContent, message: "\(error)")
        }
    }
}
