import Metrics
package import Prometheus

/// Metric names and the Prometheus factory positiond uses.
package enum Observability {
    /// Prometheus wants `[a-zA-Z_:][a-zA-Z0-9_:]*`: swift-metrics labels from libraries use dots.
    package static func metricsFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitize(name), labels.map { (sanitize($0.0), $0.1) })
        }
        // Locates take well under a millisecond: the default buckets start at 5 ms.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        return factory
    }

    static func sanitize(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" ? $0 : "_" })
    }

    /// Answers by outcome (`located`, `unknown`, `rejected` for 422) and route (`locate`, `samples`).
    struct LocateOutcomes: Sendable {
        let located: Metrics.Counter
        let unknown: Metrics.Counter
        let rejected: Metrics.Counter

        init(route: String) {
            located = Metrics.Counter(label: "beaconfix_locate_total", dimensions: [("outcome", "located"), ("route", route)])
            unknown = Metrics.Counter(label: "beaconfix_locate_total", dimensions: [("outcome", "unknown"), ("route", route)])
            rejected = Metrics.Counter(label: "beaconfix_locate_total", dimensions: [("outcome", "rejected"), ("route", route)])
        }
    }

    // Handles are made by the services that own them, when the application is built: a handle made
    // before `MetricsSystem.bootstrap` would stay bound to the no-op backend for good.
    static func devicesTracked() -> Metrics.Gauge { Metrics.Gauge(label: "beaconfix_devices_tracked") }
    static func liveConnections() -> Metrics.Gauge { Metrics.Gauge(label: "beaconfix_live_connections") }
    static func liveDropped() -> Metrics.Counter { Metrics.Counter(label: "beaconfix_live_dropped_messages_total") }
    /// Live sockets refused by reason (`total`, `per_key`).
    static func liveRefused(reason: String) -> Metrics.Counter {
        Metrics.Counter(label: "beaconfix_live_refused_total", dimensions: [("reason", reason)])
    }

    static func radioMapRevision(venue: String) -> Metrics.Gauge {
        Metrics.Gauge(label: "beaconfix_radio_map_revision", dimensions: [("venue", venue)])
    }

    static func radioMapFingerprints(venue: String) -> Metrics.Gauge {
        Metrics.Gauge(label: "beaconfix_radio_map_fingerprints", dimensions: [("venue", venue)])
    }
}
