import FingerprintStore
import Foundation
import Hummingbird
import Logging
import Positioning
import ScanFormats

/// `/v1/venues/{venue}/survey/sessions/...`: a surveyor's app records a venue's survey over HTTP. Scope
/// survey. The store keeps every batch as it arrives and records the session, on commit, through the
/// code `survey record` runs; the venue is then re-tuned in the background.
extension PositiondAPI {
    func openSurveySession(_ input: Operations.OpenSurveySession.Input) async throws -> Operations.OpenSurveySession.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        guard case .json(let body) = input.body else { throw HTTPError(.unsupportedMediaType) }
        let walk = body.walk.map { SurveyWalkSettings(cellSize: $0.cellM ?? 1, snapDistance: $0.snapM ?? 0.5) }
        let upload = try await surveyCall {
            try await store.openSurveyUpload(venue: venue, operator: body._operator, deviceModel: body.deviceModel, notes: body.notes, walk: walk)
        }
        RequestScope.context?.logger.notice("survey session opened", metadata: ["venue.id": "\(venue)", "session": "\(upload.id)"])
        return .created(.init(body: .json(.init(upload))))
    }

    func getSurveySession(_ input: Operations.GetSurveySession.Input) async throws -> Operations.GetSurveySession.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let upload = try await surveyCall { try await store.surveyUpload(input.path.session, of: venue) }
        return .ok(.init(body: .json(.init(upload))))
    }

    func abandonSurveySession(_ input: Operations.AbandonSurveySession.Input) async throws -> Operations.AbandonSurveySession.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let upload = try await surveyCall { try await store.abandonSurveyUpload(input.path.session, of: venue) }
        RequestScope.context?.logger.notice("survey session abandoned", metadata: ["venue.id": "\(venue)", "session": "\(upload.id)"])
        return .ok(.init(body: .json(.init(upload))))
    }

    func postSurveyBatch(_ input: Operations.PostSurveyBatch.Input) async throws -> Operations.PostSurveyBatch.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        guard case .json(let body) = input.body else { throw HTTPError(.unsupportedMediaType) }
        // A batch is bounded by the body limit (http.max.body.bytes), which the router enforces before decoding.
        let lines = (body.samples ?? []).map { sample in
            ScanLine(
                t: sample.t, device: sample.device, spot: sample.spot, x: sample.x, y: sample.y, floor: sample.floor,
                beacons: sample.beacons.map { .init(uuid: $0.uuid, major: $0.major, minor: $0.minor, rssi: $0.rssi) })
        }
        let checkpoints = (body.checkpoints ?? []).map { checkpoint in
            WalkPathFile.Entry(t: checkpoint.t, spot: checkpoint.spot, x: checkpoint.x, y: checkpoint.y, floor: checkpoint.floor, via: checkpoint.via)
        }
        let receipt = try await surveyCall {
            try await store.addSurveyBatch(lines, checkpoints: checkpoints, id: body.batchId, to: input.path.session, of: venue)
        }
        if !receipt.duplicate { await publishCoverage(of: receipt.upload, batch: lines) }
        return .ok(.init(body: .json(.init(
            batchId: receipt.batchID, duplicate: receipt.duplicate, samples: receipt.samples, checkpoints: receipt.checkpoints,
            session: .init(receipt.upload)))))
    }

    func getSurveySessionCoverage(_ input: Operations.GetSurveySessionCoverage.Input) async throws -> Operations.GetSurveySessionCoverage.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let coverage: SurveyUploadCoverage
        do {
            coverage = try await store.surveyUploadCoverage(input.path.session, of: venue)
        } catch StoreError.unknownSurveyUpload(let venue, let id) {
            throw HTTPError(.notFound, message: "\(StoreError.unknownSurveyUpload(venue: venue, id: id))")
        }
        return .ok(.init(body: .json(.init(
            session: .init(coverage.upload), spots: coverage.spots.map(Components.Schemas.SurveySpotCoverage.init),
            path: coverage.path.map(Components.Schemas.SurveyPathPoint.init)))))
    }

    /// Tells the venue's live map what a stored batch changed: the session's counts, the coverage of the
    /// spots the batch touched (over the whole session), and where its samples were taken. Only when a
    /// venue-wide subscriber listens here (the session is read again for it); a failure to read it costs
    /// the map one update, never the batch.
    ///
    /// A walking session's message carries the samples with coordinates only: a checkpoint can place
    /// samples of earlier batches, so the map reads a walk's coverage again on each of its messages.
    ///
    /// On a cluster the message also goes to the other replicas' venue-wide sockets (the relay), so it is
    /// made whenever there is a relay; one too large for a relay batch travels there without its spots
    /// and path, marked partial, and the map reads the session's coverage from the shared store instead.
    private func publishCoverage(of upload: SurveyUpload, batch: [ScanLine]) async {
        guard hub.hasVenueWideSubscribers(venue: upload.venue) || hub.relay != nil,
              let coverage = try? await store.surveyUploadCoverage(upload.id, of: upload.venue)
        else { return }
        let touched = Set(batch.compactMap { $0.groundTruth?.spotName })
        let path = batch.compactMap { line in line.groundTruth.map { Components.Schemas.SurveyPathPoint(t: line.t, x: $0.x, y: $0.y, floor: $0.floor) } }
        let spots = coverage.spots.filter { touched.contains($0.spot) }.map(Components.Schemas.SurveySpotCoverage.init)
        let session = Components.Schemas.SurveySession(coverage.upload)
        hub.publishToVenueWide(
            venue: upload.venue, message: .survey(.init(_type: .survey, venue: upload.venue, session: session, spots: spots, path: path)),
            compact: .survey(.init(_type: .survey, venue: upload.venue, session: session, spots: [], path: [], partial: true)))
    }

    func commitSurveySession(_ input: Operations.CommitSurveySession.Input) async throws -> Operations.CommitSurveySession.Output {
        try RequestScope.current.require(.survey)
        let venue = try catalog.snapshot(named: input.path.venue).details.id
        let configuration = PositioningConfiguration()
        let commit = try await surveyCall {
            try await store.commitSurveyUpload(
                input.path.session, of: venue, options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
        }
        let (upload, summary) = (commit.upload, commit.summary)
        RequestScope.context?.logger.notice(
            "survey session committed", metadata: ["venue.id": "\(venue)", "session": "\(upload.id)", "fingerprints": "\(summary.fingerprints)"])
        // Tuning takes seconds to minutes: the answer does not wait. Its revision reaches every replica
        // as any revision does.
        await retuner.retune(venue)
        var session = Components.Schemas.SurveySession(upload)
        session.tuning = .started
        session.placement = commit.walk.map { walk in
            .init(
                placed: walk.placed, beforeFirstCheckpoint: walk.beforeFirstCheckpoint, afterLastCheckpoint: walk.afterLastCheckpoint,
                betweenFloors: walk.betweenFloors)
        }
        return .ok(.init(body: .json(session)))
    }

    /// Runs a store call, its refusals as the API's errors: 404 for an unknown session or a venue removed
    /// since the catalog loaded, 409 for a session that is not open or a reused batch id, 422 for samples
    /// or values the store refuses (the sentence names them), 500 with the request id for a failure of
    /// the store itself.
    private func surveyCall<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as InvalidSurveyBatch {
            throw HTTPError(.unprocessableContent, message: error.description)
        } catch let error as StoreError {
            throw HTTPError.answering(error)
        }
    }
}

extension Components.Schemas.SurveySession {
    init(_ upload: SurveyUpload) {
        self.init(
            id: upload.id, venue: upload.venue, state: .init(rawValue: upload.state.rawValue) ?? .open, _operator: upload.operator,
            deviceModel: upload.deviceModel, notes: upload.notes, openedAt: upload.openedAt, closedAt: upload.closedAt,
            samples: upload.samples, batches: upload.batches, fingerprints: upload.fingerprints, revision: upload.revision,
            walk: upload.walk.map { .init(cellM: $0.cellSize, snapM: $0.snapDistance) },
            checkpoints: upload.walk == nil ? nil : upload.checkpoints)
    }
}

extension Components.Schemas.SurveySpotCoverage {
    init(_ spot: SurveyUploadCoverage.SpotCoverage) {
        self.init(spot: spot.spot, x: spot.x, y: spot.y, floor: spot.floor, samples: spot.samples, medianBeacons: spot.medianBeacons, thin: spot.isThin)
    }
}

extension Components.Schemas.SurveyPathPoint {
    init(_ point: SurveyUploadCoverage.PathPoint) {
        self.init(t: point.t, x: point.x, y: point.y, floor: point.floor)
    }
}
