import FingerprintStore
import Hummingbird
import HummingbirdWebSocket
import Foundation
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
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw HTTPError(.upgradeRequired, headers: [.upgrade: "websocket"], message: "this route is a WebSocket: open it with a WebSocket client (Upgrade: websocket)")
            }
            // The cap on live sockets is enforced after the upgrade, with a close frame (1013, try again
            // later) and the reason: a refused upgrade reaches a browser's WebSocket as a bare failure,
            // whatever its HTTP status, while a close frame carries the reason to the app.
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let venueID = context.requestContext.parameters.get("venue") ?? ""
            let device = context.request.uri.queryParameters["device"].map(String.init)
            let subscription: (id: UUID, messages: AsyncStream<LiveMessage>)
            do throws(LiveHub.Refusal) {
                subscription = try hub.subscribe(venue: venueID, device: device, owner: context.requestContext.client)
            } catch {
                context.logger.notice("live socket refused: over the cap", metadata: ["venue.id": "\(venueID)", "reason": "\(error.rawValue)"])
                try await outbound.close(.unknown(1013), reason: error.message)  // 1013: try again later
                return
            }
            let (id, messages) = subscription
            defer { hub.unsubscribe(id) }
            let revision = catalog.snapshot(of: venueID)?.revision ?? 0
            let hello = try LiveMessage(
                venue: venueID, device: device,
                message: .subscribed(.init(_type: .subscribed, venue: venueID, device: device, revision: revision)))
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

/// `POST /v1/venues/{venue}/live/tickets`: what a browser opens the live feed with.
extension PositiondAPI {
    func createLiveTicket(_ input: Operations.CreateLiveTicket.Input) async throws -> Operations.CreateLiveTicket.Output {
        let context = try RequestScope.current
        try context.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        do {
            let ticket = try tickets.issue(venue: venue.details.id, scope: context.scope, client: context.client)
            let seconds = Double(tickets.lifetime.components.seconds) + Double(tickets.lifetime.components.attoseconds) / 1e18
            return .created(.init(body: .json(.init(ticket: ticket, expiresInS: seconds))))
        } catch {
            throw HTTPError(.tooManyRequests, message: "\(tickets.maximumPending) live tickets wait for their use; try again in a few seconds")
        }
    }
}
