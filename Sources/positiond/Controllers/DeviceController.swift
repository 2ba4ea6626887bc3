import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// `/v1/venues/{venue}/devices/{device}`: tracked positioning with smoothing and zone events.
extension PositiondAPI {
    /// Adds `samples` to the track of `device` in `venue`, publishes what changed on the live feed, and
    /// answers the device's state.
    func track(_ samples: [Sample], of device: String, in venue: VenueSnapshot) throws -> Components.Schemas.Device {
        let configuration = venue.configuration
        // Refuse a body that says nothing about this venue before it touches the device's state.
        do {
            _ = try venue.pipeline.query(for: samples)
        } catch {
            samplesOutcomes.rejected.increment()
            throw HTTPError(.unprocessableContent, message: error.message(venue: venue.details.id))
        }

        let key = DeviceRegistry.Key(venue: venue.details.id, device: device)
        let ordered = samples.count > 1 ? samples.sorted { $0.time < $1.time } : samples  // outside the shard's lock
        let health = venue.health
        let (tracked, zone, events, isNew, located) = try devices.withTracker(key, configuration: configuration.tracking) { tracker, isNew -> (TrackingUpdate?, String?, [ZoneEvent], Bool, [(Sample, Position)]) in
            var last: TrackingUpdate?
            var events: [ZoneEvent] = []
            var located: [(Sample, Position)] = []
            for sample in ordered {
                // A sample with nothing usable still ages the window; it just cannot produce a position.
                if let update = try? tracker.update(
                    with: health.tolerance.corrected(sample), builder: configuration.builder, locator: configuration.locator, map: health.map)
                {
                    last = update
                    events += update.events
                    if let position = update.position { located.append((sample, position)) }
                }
            }
            return (last ?? tracker.lastUpdate, tracker.currentZone, events, isNew, located)
        }
        // Each located sample is evidence, as heard, at the device's smoothed position.
        for (sample, position) in located {
            beaconHealth?.add(sample, at: position, venue: venue.details.id, revision: venue.revision, device: device)
        }
        guard var update = tracked else {
            samplesOutcomes.rejected.increment()
            throw HTTPError(.unprocessableContent, message: "no known beacon: no usable reading in the samples")
        }
        (update.position == nil ? samplesOutcomes.unknown : samplesOutcomes.located).increment()
        update.position = update.position.map(health.widened)

        let venueID = venue.details.id
        history?.record(key, update: update, zone: zone, events: events)
        if let position = update.position {
            hub.publish(
                venue: venueID, device: device,
                message: .position(.init(_type: .position, venue: venueID, device: device, time: update.time, position: .init(position, anchor: venue.details.geo), zone: zone)))
        }
        for event in events {
            hub.publish(
                venue: venueID, device: device,
                message: .zone(.init(_type: .zone, venue: venueID, device: device, event: .init(event.kind), zone: event.zone, time: event.time)))
        }
        // What this replica can know: a track it has just created is a re-warm when another replica's
        // batches carried the device lately (the relay remembers them), and new otherwise.
        let track: Components.Schemas.TrackState = !isNew ? .continued : hub.relay?.isTrackedElsewhere(key) == true ? .rewarmed : .new
        return Components.Schemas.Device(
            venue: venueID, device: device, revision: venue.revision, update: update, zone: zone, events: events,
            anchor: venue.details.geo, track: track)
    }

    func getDevice(_ input: Operations.GetDevice.Input) async throws -> Operations.GetDevice.Output {
        try RequestScope.current.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        let device = try Self.deviceID(input.path.device)
        guard let (update, zone) = devices.current(of: DeviceRegistry.Key(venue: venue.details.id, device: device)) else {
            throw HTTPError(.notFound, message: "device '\(device)' is not tracked in venue '\(venue.details.id)' (never seen, or forgotten after being idle)")
        }
        return .ok(.init(body: .json(.init(
            venue: venue.details.id, device: device, revision: venue.revision, update: update, zone: zone, events: [],
            anchor: venue.details.geo))))
    }

    /// Device ids are opaque to the daemon but bounded: 1 to 128 printable characters.
    static func deviceID(_ device: String) throws -> String {
        guard (1...128).contains(device.count), device.allSatisfy({ !$0.isWhitespace }) else {
            throw HTTPError(.unprocessableContent, message: "a device id is 1 to 128 characters without spaces")
        }
        return device
    }
}
