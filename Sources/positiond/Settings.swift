import Configuration
import Logging

/// positiond's settings, read once at start-up through swift-configuration.
///
/// Every key can come from a flag (`--port 9090`), an environment variable prefixed with `POSITIOND_`
/// (`POSITIOND_PORT=9090`), or the default here; flags win over the environment.
///
/// | key | environment | default |
/// |---|---|---|
/// | `host` | `POSITIOND_HOST` | 127.0.0.1 |
/// | `port` | `POSITIOND_PORT` | 8080 |
/// | `db` | `POSITIOND_DB` | beaconfix.sqlite |
/// | `log.level` | `POSITIOND_LOG_LEVEL` | info |
/// | `revision.poll.seconds` | `POSITIOND_REVISION_POLL_SECONDS` | 2 |
/// | `devices.idle.seconds` | `POSITIOND_DEVICES_IDLE_SECONDS` | 600 |
/// | `devices.max` | `POSITIOND_DEVICES_MAX` | 10000 |
/// | `limits.body.bytes` | `POSITIOND_LIMITS_BODY_BYTES` | 262144 |
/// | `limits.samples` | `POSITIOND_LIMITS_SAMPLES` | 60 |
/// | `limits.readings` | `POSITIOND_LIMITS_READINGS` | 200 |
/// | `live.buffer` | `POSITIOND_LIVE_BUFFER` | 64 |
struct Settings: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var databasePath = "beaconfix.sqlite"
    var logLevel = Logger.Level.info
    /// How often the store is checked for new venue revisions and key changes.
    var revisionPollInterval: Duration = .seconds(2)
    /// Devices silent for longer are forgotten.
    var deviceIdleTimeout: Duration = .seconds(600)
    /// At most this many devices are tracked; the least recently seen are evicted first.
    var maximumDevices = 10_000
    var maximumBodyBytes = 256 * 1024
    var maximumSamples = 60
    var maximumReadings = 200
    /// Messages queued per live socket before the oldest are dropped.
    var liveBuffer = 64

    init() {}

    init(reader: ConfigReader) {
        let defaults = Settings()
        host = reader.string(forKey: "host", default: defaults.host)
        port = reader.int(forKey: "port", default: defaults.port)
        databasePath = reader.string(forKey: "db", default: defaults.databasePath)
        logLevel = reader.string(forKey: "log.level", as: Logger.Level.self, default: defaults.logLevel)
        revisionPollInterval = .milliseconds(Int(1000 * reader.double(forKey: "revision.poll.seconds", default: defaults.revisionPollInterval / .seconds(1))))
        deviceIdleTimeout = .milliseconds(Int(1000 * reader.double(forKey: "devices.idle.seconds", default: defaults.deviceIdleTimeout / .seconds(1))))
        maximumDevices = reader.int(forKey: "devices.max", default: defaults.maximumDevices)
        maximumBodyBytes = reader.int(forKey: "limits.body.bytes", default: defaults.maximumBodyBytes)
        maximumSamples = reader.int(forKey: "limits.samples", default: defaults.maximumSamples)
        maximumReadings = reader.int(forKey: "limits.readings", default: defaults.maximumReadings)
        liveBuffer = reader.int(forKey: "live.buffer", default: defaults.liveBuffer)
    }

    /// Problems that make the settings unusable, as sentences.
    func problems() -> [String] {
        var problems: [String] = []
        if !(1...65535).contains(port) { problems.append("port \(port) is outside 1...65535") }
        if maximumDevices < 1 { problems.append("devices.max must be at least 1") }
        if maximumBodyBytes < 1024 { problems.append("limits.body.bytes must be at least 1024") }
        if maximumSamples < 1 || maximumReadings < 1 { problems.append("limits.samples and limits.readings must be at least 1") }
        if liveBuffer < 1 { problems.append("live.buffer must be at least 1") }
        if revisionPollInterval <= .zero { problems.append("revision.poll.seconds must be positive") }
        return problems
    }

    /// Whether the daemon listens on the loopback interface only.
    var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }
}
