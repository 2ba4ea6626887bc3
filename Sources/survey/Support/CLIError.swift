/// A runtime failure of a command, printed as `Error: <message>` with a non-zero exit status.
struct CLIError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
