import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// `/v1/venues/{venue}/devices/{device}`: tracked positioning with smoothing and zone events.
struct DeviceController {
    let catalog: VenueCatalog
    let devices: DeviceRegistry
    let hub: LiveHub
    let parser: SampleParser
    let outcomes = Observability.LocateOutcomes(route: "samples")

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post(":venue/devices/:device/samples", use: samples)
        routes.get(":venue/devices/:device", use: show)
        return routes
    }

    @Sendable func samples(_ request: Request, context: AppRequestContext) async throws -> DeviceResponse {
        try context.require(.locate)
        let venue = try catalog.snapshot(for: request, context)
        let device = try deviceID(request, context)
        let samples = try await parser.samples(of: request, context: context, device: device)
        let configuration = venue.configuration
        // Refuse a body that says nothing about this venue before it touches the device's state.
        _ = try knownFingerprint(
            of: samples.map(configuration.builder.cleaner.clean), venue: venue, builder: configuration.builder, outcomes: outcomes)

        let key = DeviceRegistry.Key(venue: venue.details.id, device: device)
        let ordered = samples.sorted { $0.time < $1.time }  // outside the shard's lock
        let (update, zone, events) = try devices.withTracker(key, configuration: configuration.tracking) { tracker -> (TrackingUpdate?, String?, [ZoneEvent]) in
            var last: TrackingUpdate?
            var events: [ZoneEvent] = []
            for sample in ordered {
                // A sample with nothing usable still ages the window; it just cannot produce a position.
                if let update = try? tracker.update(
                    with: sample, builder: configuration.builder, locator: configuration.locator, map: venue.map)
                {
                    last = update
                    events += update.events
                }
            }
            return (last ?? tracker.lastUpdate, tracker.currentZone, events)
        }
        guard let update else {
            outcomes.rejected.increment()
            throw HTTPError(.unprocessableContent, message: "no known beacon: no usable reading in the samples")
        }
        (update.position == nil ? outcomes.unknown : outcomes.located).increment()

        if let position = update.position {
            hub.publish(
                venue: venue.details.id, device: device,
                payload: PositionMessage(venue: venue.details.id, device: device, time: update.time, position: position, zone: zone))
        }
        for event in events {
            hub.publish(
                venue: venue.details.id, device: device,
                payload: ZoneMessage(venue: venue.details.id, device: device, event: event.kind.rawValue, zone: event.zone, time: event.time))
        }
        return DeviceResponse(venue: venue.details.id, device: device, revision: venue.revision, update: update, zone: zone, events: events)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> DeviceResponse {
        try context.require(.locate)
        let venue = try catalog.snapshot(for: request, context)
        let device = try deviceID(request, context)
        guard let (update, zone) = devices.current(of: DeviceRegistry.Key(venue: venue.details.id, device: device)) else {
            throw HTTPError(.notFound, message: "device '\(device)' is not tracked in venue '\(venue.details.id)' (never seen, or forgotten after being idle)")
        }
        return DeviceResponse(venue: venue.details.id, device: device, revision: venue.revision, update: update, zone: zone, events: [])
    }


    /// Device ids are opaque to the daemon but bounded: 1 to 128 printable characters.
    func deviceID(_ request: Request, _ context: AppRequestContext) throws -> String {
        let device = try request.parameter("device", context)
        guard (1...128).contains(device.count), device.allSatisfy({ !$0.isWhitespace }) else {
            throw HTTPError(.unprocessableContent, message: "a device id is 1 to 128 characters without spaces")
        }
        return device
    }
}
