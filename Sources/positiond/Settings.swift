package import Configuration
import Foundation
package import Logging

/// positiond's settings, read once at start-up through swift-configuration.
///
/// Every key can come from a flag (`--port 9090`; dots become dashes: `--log-level debug`), an environment
/// variable prefixed with `POSITIOND_` (`POSITIOND_LOG_LEVEL=debug`), or the default here; flags win over
/// the environment. ``documentation`` lists them all (`positiond --help` prints it); an unknown flag or a
/// value that cannot be read stops the daemon with one clear line.
package struct Settings: Sendable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// The store: a SQLite file's path, or a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL shared by
    /// the replicas of a cluster. Never shown as given (the URL may hold a password): messages use the
    /// store's `path`, which leaves the password out.
    package var databasePath = "beaconfix.sqlite"
    package var logLevel = Logger.Level.info
    /// How often a SQLite store is checked for new venue revisions and key changes, and how often idle
    /// devices are forgotten (a PostgreSQL store notifies its changes and is not polled).
    package var revisionPollInterval: Duration = .seconds(2)
    /// How often the live messages of this replica's devices leave for the other replicas, batched
    /// (PostgreSQL stores only): the delay a subscriber on another replica sees, at most.
    var liveRelayFlushInterval: Duration = .milliseconds(50)
    /// Devices silent for longer are forgotten.
    package var deviceIdleTimeout: Duration = .seconds(600)
    /// At most this many devices are tracked; the least recently seen are evicted first.
    var maximumDevices = 10_000
    package var maximumBodyBytes = 256 * 1024
    package var maximumSamples = 60
    package var maximumReadings = 200
    /// Messages queued per live socket before the oldest are dropped.
    var liveBuffer = 64
    /// Live sockets open at once, in all; more are refused with 429 (each holds a buffer and a task).
    package var maximumLiveSubscribers = 1000
    /// Live sockets open at once per API key (per client address when authentication is off).
    package var maximumLiveSubscribersPerKey = 50
    /// Seconds a sample's `t` may be ahead of the server's clock (phones' clocks drift); later is a 422.
    var clockFutureTolerance: Double = 300
    /// Where Leaflet's files are (Debian's libjs-leaflet): the map page loads them from /web/leaflet/.
    var leafletDirectory = "/usr/share/javascript/leaflet"
    /// How long a live-feed ticket (`POST .../live/tickets`) may wait for its one use.
    var liveTicketLifetime: Duration = .seconds(30)
    /// Whether tracked devices' visitor history (zone visits, a thinned trace, presence) is recorded at all;
    /// each venue can also be switched off on its own (`survey analytics recording`).
    var historyEnabled = true
    /// At most one trace point per device per this many seconds: the heatmap's and presence's resolution.
    var historyTraceInterval: Double = 10
    /// How often the buffered history is written, in one transaction.
    package var historyFlushInterval: Duration = .seconds(1)
    /// History older than this is deleted.
    var historyRetention: Duration = .seconds(30 * 86_400)
    /// Dwell's default: visits shorter than this many seconds are not counted as visits.
    var minimumVisit: Double = 10
    /// Whether located scans are taken as evidence of the beacons' health (and matching acts on it).
    package var healthEnabled = true
    /// How often the evidence gathered is stored and the venue's beacon health advanced.
    package var healthFlushInterval: Duration = .seconds(1)
    /// Located samples kept per venue while the store is away; the oldest are dropped beyond it.
    var healthPendingLimit = 20_000
    /// Located samples per venue and second taken as evidence (a uniform subset of the venue's): a state
    /// rests on tens of samples, and a busy venue's thousands would only cost a core.
    package var healthSamplesPerSecond = 200

    package init() {}

    /// Values that were given but could not be read (`--port abc`), as sentences: a typo must stop the
    /// daemon with a clear line, not fall back to a default silently.
    private(set) var unreadable: [String] = []

    package init(reader: ConfigReader) {
        let defaults = Settings()
        var unreadable: [String] = []
        func read<T>(_ key: String, as kind: String, _ typed: (String) -> T?) -> T? {
            if let value = typed(key) { return value }
            if let raw = reader.string(forKey: ConfigKey(key)) { unreadable.append("\(key) '\(raw)' is not \(kind)") }
            return nil
        }
        func integer(_ key: String) -> Int? { read(key, as: "a whole number") { reader.int(forKey: ConfigKey($0)) } }
        func number(_ key: String) -> Double? {
            read(key, as: "a finite number") { key in reader.double(forKey: ConfigKey(key)).flatMap { $0.isFinite ? $0 : nil } }
        }
        func seconds(_ key: String, _ fallback: Duration) -> Duration {
            guard let value = number(key) else { return fallback }
            guard value > 0, value < 1e9 else {
                unreadable.append("\(key) must be positive and under 10^9 seconds")
                return fallback
            }
            return .milliseconds(Int64(1000 * value))
        }
        host = reader.string(forKey: "host", default: defaults.host)
        port = integer("port") ?? defaults.port
        databasePath = reader.string(forKey: "db", default: defaults.databasePath)
        logLevel = read("log.level", as: "one of trace, debug, info, notice, warning, error, critical") {
            reader.string(forKey: ConfigKey($0), as: Logger.Level.self)
        } ?? defaults.logLevel
        revisionPollInterval = seconds("revision.poll.seconds", defaults.revisionPollInterval)
        deviceIdleTimeout = seconds("devices.idle.seconds", defaults.deviceIdleTimeout)
        maximumDevices = integer("devices.max") ?? defaults.maximumDevices
        maximumBodyBytes = integer("limits.body.bytes") ?? defaults.maximumBodyBytes
        maximumSamples = integer("limits.samples") ?? defaults.maximumSamples
        maximumReadings = integer("limits.readings") ?? defaults.maximumReadings
        liveBuffer = integer("live.buffer") ?? defaults.liveBuffer
        maximumLiveSubscribers = integer("live.max.total") ?? defaults.maximumLiveSubscribers
        maximumLiveSubscribersPerKey = integer("live.max.per.key") ?? defaults.maximumLiveSubscribersPerKey
        clockFutureTolerance = number("clock.future.seconds") ?? defaults.clockFutureTolerance
        leafletDirectory = reader.string(forKey: "web.leaflet", default: defaults.leafletDirectory)
        liveTicketLifetime = seconds("live.ticket.seconds", defaults.liveTicketLifetime)
        liveRelayFlushInterval = seconds("live.relay.seconds", defaults.liveRelayFlushInterval)
        historyEnabled = read("history.enabled", as: "true or false") { reader.bool(forKey: ConfigKey($0)) } ?? defaults.historyEnabled
        historyTraceInterval = number("history.trace.seconds") ?? defaults.historyTraceInterval
        historyFlushInterval = seconds("history.flush.seconds", defaults.historyFlushInterval)
        if let days = number("history.retention.days") {
            if days > 0, days <= 3650 { historyRetention = .seconds(Int64(days * 86_400)) } else { unreadable.append("history.retention.days must be more than 0 and at most 3650") }
        }
        minimumVisit = number("analytics.min.visit.seconds") ?? defaults.minimumVisit
        healthEnabled = read("health.enabled", as: "true or false") { reader.bool(forKey: ConfigKey($0)) } ?? defaults.healthEnabled
        healthFlushInterval = seconds("health.flush.seconds", defaults.healthFlushInterval)
        healthPendingLimit = integer("health.pending.max") ?? defaults.healthPendingLimit
        healthSamplesPerSecond = integer("health.samples.per.second") ?? defaults.healthSamplesPerSecond
        self.unreadable = unreadable
    }

    /// Every setting: key, default, meaning. Flags and environment variables are derived from the key.
    package static let documentation: [(key: String, defaultValue: String, meaning: String)] = [
        ("host", "127.0.0.1", "address to listen on (without an API key in the database, loopback only)"),
        ("port", "8080", "port to listen on"),
        ("db", "beaconfix.sqlite", "the database 'survey' wrote: a file, or postgres://USER[:PASSWORD]@HOST[:PORT]/DB"),
        ("log.level", "info", "trace, debug, info, notice, warning, error or critical"),
        ("revision.poll.seconds", "2", "how often a SQLite file is checked for revisions and keys; idle devices' beat"),
        ("devices.idle.seconds", "600", "devices silent for longer are forgotten"),
        ("devices.max", "10000", "at most this many devices are tracked (least recently seen evicted)"),
        ("limits.body.bytes", "262144", "largest request body"),
        ("limits.samples", "60", "samples per request"),
        ("limits.readings", "200", "readings per sample"),
        ("live.buffer", "64", "messages queued per live socket before the oldest are dropped"),
        ("live.max.total", "1000", "live sockets open at once"),
        ("live.max.per.key", "50", "live sockets open at once per API key"),
        ("clock.future.seconds", "300", "how far ahead of the server's clock a sample's t may be"),
        ("web.leaflet", "/usr/share/javascript/leaflet", "Leaflet's folder (Debian libjs-leaflet), for the map page"),
        ("live.ticket.seconds", "30", "how long a live-feed ticket stays usable (once)"),
        ("live.relay.seconds", "0.05", "how often live events leave for the other replicas (PostgreSQL)"),
        ("history.enabled", "true", "record visitor history (zone visits, thinned trace, presence) for analytics"),
        ("history.trace.seconds", "10", "at most one trace point per device per this many seconds"),
        ("history.flush.seconds", "1", "how often the buffered history is written, in one transaction"),
        ("history.retention.days", "30", "history older than this is deleted"),
        ("analytics.min.visit.seconds", "10", "dwell: visits shorter than this are not counted"),
        ("health.enabled", "true", "take located scans as evidence of the beacons' health, and match under it"),
        ("health.flush.seconds", "1", "how often that evidence is stored and the venue's beacon health advanced"),
        ("health.samples.per.second", "200", "located samples per venue and second taken as evidence (a random subset)"),
        ("health.pending.max", "20000", "located samples kept per venue while the store is away (oldest dropped)"),
    ]

    package static func flag(of key: String) -> String { "--" + key.replacingOccurrences(of: ".", with: "-") }
    package static func environmentVariable(of key: String) -> String { "POSITIOND_" + key.replacingOccurrences(of: ".", with: "_").uppercased() }

    /// `positiond --help`.
    package static var help: String {
        // Columns as wide as their longest entry, so that no flag or variable is cut.
        func width(_ column: (String) -> String) -> Int { documentation.map { column($0.key).count }.max()! + 2 }
        let flagWidth = width(flag(of:)), variableWidth = width(environmentVariable(of:))
        let defaultWidth = documentation.map(\.defaultValue.count).max()! + 2
        let rows = documentation.map {
            "  " + flag(of: $0.key).padding(toLength: flagWidth, withPad: " ", startingAt: 0)
                + environmentVariable(of: $0.key).padding(toLength: variableWidth, withPad: " ", startingAt: 0)
                + $0.defaultValue.padding(toLength: defaultWidth, withPad: " ", startingAt: 0) + $0.meaning
        }
        return (["positiond: beaconfix's positioning daemon. Settings (flag, environment variable, default):", ""] + rows).joined(separator: "\n")
    }

    /// The flags of `arguments` (the command line, program name first) that are not settings.
    static func unknownFlags(in arguments: [String]) -> [String] {
        let known = Set(documentation.map { flag(of: $0.key) })
        return arguments.dropFirst().filter { $0.hasPrefix("-") }.map { String($0.split(separator: "=", maxSplits: 1)[0]) }
            .filter { !known.contains($0) && Double($0) == nil }
    }

    /// Problems that make the settings unusable, as sentences.
    package func problems() -> [String] {
        var problems = unreadable
        if !(1...65535).contains(port) { problems.append("port \(port) is outside 1...65535") }
        if maximumDevices < 1 { problems.append("devices.max must be at least 1") }
        if maximumBodyBytes < 1024 { problems.append("limits.body.bytes must be at least 1024") }
        if maximumSamples < 1 || maximumReadings < 1 { problems.append("limits.samples and limits.readings must be at least 1") }
        if liveBuffer < 1 { problems.append("live.buffer must be at least 1") }
        if maximumLiveSubscribers < 1 || maximumLiveSubscribersPerKey < 1 { problems.append("live.max.total and live.max.per.key must be at least 1") }
        if !(clockFutureTolerance >= 0) { problems.append("clock.future.seconds must be 0 or more") }
        if revisionPollInterval <= .zero { problems.append("revision.poll.seconds must be positive") }
        if !(historyTraceInterval >= 1 && historyTraceInterval <= 3600) { problems.append("history.trace.seconds must be from 1 to 3600") }
        if !(minimumVisit >= 0) { problems.append("analytics.min.visit.seconds must be 0 or more") }
        if healthPendingLimit < 1 { problems.append("health.pending.max must be at least 1") }
        if healthSamplesPerSecond < 1 { problems.append("health.samples.per.second must be at least 1") }
        return problems
    }

    /// Whether the daemon listens on the loopback interface only.
    package var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }
}
