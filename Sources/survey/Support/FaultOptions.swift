import ArgumentParser
import FingerprintStore
import Positioning
import PositioningTuning

/// `survey evaluate`'s beacon faults, injected into the walk from a moment on: what a fault costs and how
/// soon `--adapt` names it.
struct FaultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "From T on, BEACON is never heard (repeatable). BEACON is UUID:major:minor or a beacon's label; T is a share of the walk (50%), seconds after its first sample (+120) or seconds since the Unix epoch.",
        valueName: "BEACON@T"))
    var kill: [String] = []

    @Option(name: .long, help: ArgumentHelp("From T on, BEACON is heard DB dB louder (negative: quieter) (repeatable).", valueName: "BEACON:DB@T"))
    var shift: [String] = []

    @Option(name: .long, help: ArgumentHelp("From T on, the two beacons are heard each as the other, as if hung in each other's place (repeatable).", valueName: "BEACON,BEACON@T"))
    var swap: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "From T on, OLD is dead and NEW (an id the survey does not have) is heard in its place, DB dB louder (repeatable).",
        valueName: "OLD,NEW:DB@T"))
    var swapIn: [String] = []

    var isEmpty: Bool { kill.isEmpty && shift.isEmpty && swap.isEmpty && swapIn.isEmpty }

    func validate() throws {
        // The syntax is checked here; the beacons and times need the venue and the walk (``faults(venue:walk:)``).
        for value in kill + shift + swap + swapIn where !value.contains("@") {
            throw ValidationError("A fault is given as WHAT@T ('\(value)' has no '@'); for example --kill B1@50%.")
        }
    }

    /// The faults, with beacons resolved in `venue` and times against `walk`'s.
    func faults(venue: VenueDetails, walk: [LabelledSample]) throws -> [BeaconFault] {
        let times = walk.map(\.sample.time)
        let first = times.min() ?? 0, last = times.max() ?? 0
        func parts(_ value: String, option: String) throws -> (what: String, time: Double) {
            guard let at = value.lastIndex(of: "@") else { throw CLIError("--\(option) \(value): give WHAT@T") }
            let what = String(value[..<at]), moment = String(value[value.index(after: at)...])
            let time: Double
            if moment.hasSuffix("%"), let share = Double(moment.dropLast()), (0...100).contains(share) {
                time = first + (last - first) * share / 100
            } else if moment.hasPrefix("+"), let seconds = Double(moment.dropFirst()), seconds >= 0 {
                time = first + seconds
            } else if let absolute = Double(moment), absolute.isFinite {
                time = absolute
            } else {
                throw CLIError("--\(option) \(value): T must be a share of the walk (50%), seconds after its start (+120) or seconds since the Unix epoch")
            }
            return (what, time)
        }
        func beacon(_ text: String, option: String, known: Bool = true) throws -> BeaconID {
            if let labelled = venue.beacons.first(where: { $0.label == text }) { return labelled.id }
            do {
                let id = try BeaconID(parsing: text)
                if known, !venue.beacons.contains(where: { $0.id == id }) {
                    throw CLIError("--\(option): venue '\(venue.id)' has no beacon \(text)")
                }
                return id
            } catch let error as BeaconIDError {
                throw CLIError("--\(option): '\(text)' is neither a beacon label of venue '\(venue.id)' nor UUID:major:minor (\(error))")
            }
        }
        func decibels(_ text: String, option: String) throws -> Double {
            guard let value = Double(text), value.isFinite else { throw CLIError("--\(option): '\(text)' is not a number of dB") }
            return value
        }
        /// Splits `text` at its last ':' into a beacon and dB.
        func beaconAndDecibels(_ text: String, option: String, known: Bool = true) throws -> (BeaconID, Double) {
            guard let colon = text.lastIndex(of: ":") else { throw CLIError("--\(option) \(text): give BEACON:DB") }
            return (try beacon(String(text[..<colon]), option: option, known: known), try decibels(String(text[text.index(after: colon)...]), option: option))
        }
        var faults: [BeaconFault] = []
        for value in kill {
            let (what, time) = try parts(value, option: "kill")
            faults.append(BeaconFault(.kill(try beacon(what, option: "kill")), from: time))
        }
        for value in shift {
            let (what, time) = try parts(value, option: "shift")
            let (id, db) = try beaconAndDecibels(what, option: "shift")
            faults.append(BeaconFault(.shift(id, decibels: db), from: time))
        }
        for value in swap {
            let (what, time) = try parts(value, option: "swap")
            let pair = what.split(separator: ",").map(String.init)
            guard pair.count == 2 else { throw CLIError("--swap \(value): give two beacons, BEACON,BEACON@T") }
            let (a, b) = (try beacon(pair[0], option: "swap"), try beacon(pair[1], option: "swap"))
            guard a != b else { throw CLIError("--swap \(value): a beacon cannot swap with itself") }
            faults.append(BeaconFault(.swap(a, b), from: time))
        }
        for value in swapIn {
            let (what, time) = try parts(value, option: "swap-in")
            let pair = what.split(separator: ",", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { throw CLIError("--swap-in \(value): give OLD,NEW:DB@T") }
            let old = try beacon(pair[0], option: "swap-in")
            let (new, db) = try beaconAndDecibels(pair[1], option: "swap-in", known: false)
            guard !venue.activeBeacons.contains(where: { $0.id == new }) else {
                throw CLIError("--swap-in \(value): \(new) is already a beacon of venue '\(venue.id)'; the new id must be one the survey does not have")
            }
            faults.append(BeaconFault(.swapIn(old: old, new: new, decibels: db), from: time))
        }
        return faults
    }
}
