/// Why a store operation was refused. Every case reads as a sentence for the command line and the API.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file was written by a newer beaconfix: its schema has migrations this build does not know.
    case newerSchema(path: String, unknownMigrations: [String])
    case unknownVenue(String)
    case unknownBeacon(venue: String, beacon: String)
    case invalidVenue(problems: [String])
    case invalidInput(String)
    /// The operation would remove data that other records still need.
    case conflict(String)

    public var description: String {
        switch self {
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer version of beaconfix (unknown schema migrations: \(unknown.joined(separator: ", "))); upgrade beaconfix to open it"
        case .unknownVenue(let id):
            "there is no venue '\(id)'"
        case .unknownBeacon(let venue, let beacon):
            "venue '\(venue)' has no beacon \(beacon)"
        case .invalidVenue(let problems):
            "the venue definition is invalid: " + problems.joined(separator: "; ")
        case .invalidInput(let message):
            message
        case .conflict(let message):
            message
        }
    }
}
