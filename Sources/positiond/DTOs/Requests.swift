import ScanFormats
import FingerprintStore
import Foundation
import Hummingbird
import NIOCore
import Positioning

/// The body of locate, tracked-samples and proximity requests: scan-log lines without ground truth.
///
/// ```json
/// {"samples": [{"t": 1795000000, "beacons": [{"uuid": "B9407F30-…", "major": 1, "minor": 3, "rssi": -61}]}]}
/// ```
struct SamplesRequest: Decodable {
    struct SampleInput: Decodable {
        /// Seconds since the Unix epoch; the server's clock when absent.
        var t: Double?
        /// The phone; ignored by tracked routes, which take it from the path.
        var device: String?
        var beacons: [ScanLine.BeaconReading]
    }

    var samples: [SampleInput]
}

/// Limits and validation of request bodies, shared by the routes that take samples.
struct SampleParser: Sendable {
    let settings: Settings

    /// Reads, decodes and validates the body into samples of `device`.
    ///
    /// - Throws: `HTTPError` 413 for a body over the limit, 400 for malformed JSON, 422 for valid JSON
    ///   that does not describe usable samples (none, too many, bad identities, an RSSI no radio reports, a
    ///   time ahead of the server's clock).
    func samples(of request: Request, context: AppRequestContext, device: String) async throws -> [Sample] {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: settings.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the request body is larger than \(settings.maximumBodyBytes) bytes")
        }
        let decoded: SamplesRequest
        // The single-pass parser reads well-formed bodies several times faster; anything it does not take
        // goes through JSONDecoder, whose errors name the field.
        if let fast = body.withUnsafeReadableBytes({ ScanLineParser.parseSamplesDocument($0) }) {
            decoded = SamplesRequest(samples: fast.map { SamplesRequest.SampleInput(t: $0.t, device: $0.device, beacons: $0.beacons) })
        } else {
            do {
                decoded = try APIJSON.decoder.decode(SamplesRequest.self, from: Data(buffer: body))
            } catch let error as DecodingError {
                throw HTTPError(.badRequest, message: "malformed JSON: \(ScanLogDecoder.explain(error))")
            }
        }
        guard !decoded.samples.isEmpty else {
            throw HTTPError(.unprocessableContent, message: "the request holds no sample; send {\"samples\": [...]} with at least one")
        }
        guard decoded.samples.count <= settings.maximumSamples else {
            throw HTTPError(.unprocessableContent, message: "\(decoded.samples.count) samples in one request; at most \(settings.maximumSamples) are accepted")
        }
        let now = Date().timeIntervalSince1970
        let validation = SampleValidation(futureTolerance: settings.clockFutureTolerance)
        // Samples of one phone repeat the same UUID: parse each distinct one once.
        var uuids = UUIDParsingCache()
        return try decoded.samples.enumerated().map { index, input in
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

extension Request {
    /// The path parameter `name`, which the router guarantees.
    func parameter(_ name: String, _ context: AppRequestContext) throws -> String {
        guard let value = context.parameters.get(name) else {
            throw HTTPError(.badRequest, message: "missing path parameter '\(name)'")
        }
        return value
    }
}
