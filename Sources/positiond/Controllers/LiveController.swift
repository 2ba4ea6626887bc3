import FingerprintStore
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// `GET /v1/venues/{venue}/live`: a WebSocket of position updates, zone events and revisions.
///
/// `?device=ID` narrows the feed to one device (scope `locate`); the venue-wide feed needs `admin`.
/// The first message is `{"type": "subscribed", ...}`: from then on nothing is missed but what a slow
/// reader's bounded buffer drops.
struct LiveController {
    let catalog: VenueCatalog
    let hub: LiveHub

    func register(on group: RouterGroup<AppRequestContext>) {
        group.ws(":venue/live") { request, context in
            _ = try catalog.snapshot(for: request, context)  // an unknown venue is a 404 before the upgrade
            let device = request.uri.queryParameters["device"].map(String.init)
            try context.require(device == nil ? .admin : .locate)
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let venueID = context.requestContext.parameters.get("venue") ?? ""
            let device = context.request.uri.queryParameters["device"].map(String.init)
            let (id, messages) = hub.subscribe(venue: venueID, device: device)
            defer { hub.unsubscribe(id) }
            let revision = catalog.snapshot(of: venueID)?.revision ?? 0
            let hello = LiveMessage(venue: venueID, device: device, payload: SubscribedMessage(venue: venueID, device: device, revision: revision))
            try await outbound.write(.text(hello.text))
            context.logger.info("live feed opened", metadata: ["venue.id": "\(venueID)", "device": "\(device ?? "*")"])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in messages { try await outbound.write(.text(message.text)) }
                }
                group.addTask {
                    // The client only ever closes; reading keeps ping/pong and the close handshake going.
                    for try await _ in inbound {}
                }
                try await group.next()
                group.cancelAll()
            }
            context.logger.info("live feed closed", metadata: ["venue.id": "\(venueID)"])
        }
    }
}
