import FingerprintStore
import Foundation
import Hummingbird
import NIOCore
import Positioning
import ScanFormats

/// Limits and validation of the samples that locate, tracked-samples and proximity requests carry
/// (`SamplesRequest` of openapi.yaml: scan-log lines without ground truth).
struct SampleParser: Sendable {
    let settings: Settings

    /// Reads a request's body whole, or 413 over the limit.
    func body(of request: Request) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: settings.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the request body is larger than \(settings.maximumBodyBytes) bytes")
        }
    }

    /// Decodes a body into the generated request type: the single-pass parser reads well-formed bodies
    /// several times faster; anything it does not take goes through JSONDecoder, whose errors name the
    /// field.
    ///
    /// - Throws: `HTTPError` 400 for malformed JSON.
    func decode(_ body: ByteBuffer) throws -> Components.Schemas.SamplesRequest {
        if let fast = body.withUnsafeReadableBytes({ ScanLineParser.parseSamplesDocument($0) }) {
            return Components.Schemas.SamplesRequest(samples: fast.map { line in
                Components.Schemas.SampleInput(
                    t: line.t, device: line.device,
                    beacons: line.beacons.map { .init(uuid: $0.uuid, major: $0.major, minor: $0.minor, rssi: $0.rssi) })
            })
        }
        do {
            return try APIJSON.decoder.decode(Components.Schemas.SamplesRequest.self, from: Data(buffer: body))
        } catch let error as DecodingError {
            throw HTTPError(.badRequest, message: "malformed JSON: \(ScanLogDecoder.explain(error))")
        }
    }

    /// Validates decoded samples into samples of `device`.
    ///
    /// - Throws: `HTTPError` 422 for valid JSON that does not describe usable samples (none, too many, bad
    ///   identities, an RSSI no radio reports, a time ahead of the server's clock).
    func samples(of request: Components.Schemas.SamplesRequest, device: String) throws -> [Sample] {
        guard !request.samples.isEmpty else {
            throw HTTPError(.unprocessableContent, message: "the request holds no sample; send {\"samples\": [...]} with at least one")
        }
        guard request.samples.count <= settings.maximumSamples else {
            throw HTTPError(.unprocessableContent, message: "\(request.samples.count) samples in one request; at most \(settings.maximumSamples) are accepted")
        }
        let now = Date().timeIntervalSince1970
        let validation = SampleValidation(futureTolerance: settings.clockFutureTolerance)
        // Samples of one phone repeat the same UUID: parse each distinct one once.
        var uuids = UUIDParsingCache()
        return try request.samples.enumerated().map { index, input in
            guard input.beacons.count <= settings.maximumReadings else {
                throw HTTPError(.unprocessableContent, message: "samples[\(index)] holds \(input.beacons.count) readings; at most \(settings.maximumReadings) are accepted")
            }
            // One policy for every route: a time the server's clock says is impossible is refused, naming
            // the field, rather than trusted (one future time used to freeze a tracked device for good).
            if let t = input.t, let problem = validation.problem(time: t, field: "samples[\(index)].t", now: now) {
                throw HTTPError(.unprocessableContent, message: problem + "; omit 't' to use the server's clock")
            }
            var readings: [Reading] = []
            readings.reserveCapacity(input.beacons.count)
            for (position, beacon) in input.beacons.enumerated() {
                let id: BeaconID
                do {
                    id = try BeaconID(uuidString: beacon.uuid, major: beacon.major, minor: beacon.minor, cache: &uuids)
                } catch let error as BeaconIDError {
                    throw HTTPError(.unprocessableContent, message: "samples[\(index)]: beacons[\(position)]: \(error.description)")
                }
                if let problem = validation.problem(rssi: beacon.rssi, field: "samples[\(index)]: beacons[\(position)].rssi") {
                    throw HTTPError(.unprocessableContent, message: problem)
                }
                readings.append(Reading(beacon: id, rssi: beacon.rssi))
            }
            return Sample(device: device, time: input.t ?? now, readings: readings)
        }
    }
}
