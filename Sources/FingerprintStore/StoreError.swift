/// Why a store operation was refused. Every case reads as a sentence for the command line and the API.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file was written by a newer beaconfix: its schema has migrations this build does not know.
    case newerSchema(path: String, unknownMigrations: [String])
    case unknownVenue(String)
    case unknownBeacon(venue: String, beacon: String)
    /// No survey upload of that id belongs to the venue.
    case unknownSurveyUpload(venue: String, id: String)
    /// No beacon proposal of that id belongs to the venue.
    case unknownBeaconProposal(venue: String, id: Int64)
    case invalidVenue(problems: [String])
    /// The caller asked for something the store refuses: a value out of range, a name it lacks. The
    /// sentence names the argument; an API answers it as the client's mistake (4xx).
    case invalidInput(String)
    /// The store failed through no fault of the caller: a stored value this build cannot read, a statement
    /// the database refused, a broken invariant. The sentence is for the operator's log; an API answers
    /// a server error (5xx) without it.
    case storageFault(String)
    /// The operation would remove data that other records still need.
    case conflict(String)
    /// The disk holding the database is full; the write was rolled back.
    case diskFull(path: String)
    /// There is no database file where one must be read.
    case missingDatabase(path: String)
    /// SQLite cannot open the file (a read-only folder or filesystem, permissions, not a database).
    case cannotOpen(path: String, reason: String)
    /// The PostgreSQL server cannot be reached or refuses the connection; `location` holds no password.
    case cannotConnect(location: String, reason: String)

    public var description: String {
        switch self {
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer version of beaconfix (unknown schema migrations: \(unknown.joined(separator: ", "))); upgrade beaconfix to open it"
        case .unknownVenue(let id):
            "there is no venue '\(id)'"
        case .unknownBeacon(let venue, let beacon):
            "venue '\(venue)' has no beacon \(beacon)"
        case .unknownSurveyUpload(let venue, let id):
            "venue '\(venue)' has no survey session '\(id)'"
        case .unknownBeaconProposal(let venue, let id):
            "venue '\(venue)' has no beacon proposal \(id) ('survey beacons --venue \(venue)' lists them)"
        case .invalidVenue(let problems):
            "the venue definition is invalid: " + problems.joined(separator: "; ")
        case .invalidInput(let message):
            message
        case .storageFault(let message):
            message
        case .conflict(let message):
            message
        case .missingDatabase(let path):
            "the database '\(path)' does not exist: load a venue into it with 'survey venue import --db \(path) VENUE.json' and 'survey record'"
        case .cannotOpen(let path, let reason):
            "cannot open the database '\(path)' (\(reason)): a database in WAL mode writes its -wal and -shm files beside it, even to be read, so the file and its folder must be writable by this user"
        case .cannotConnect(let location, let reason):
            "cannot connect to the PostgreSQL store \(location) (\(reason)): is the server running on that host and port, and do the user and the database exist?"
        case .diskFull(let path):
            "the disk holding \(path) is full: nothing was written; free some space and run the command again"
        }
    }
}
