import ArgumentParser
import Foundation

extension Survey.ReplaceBeacon {
    /// What `survey replace-beacon` runs when no subcommand is named: help with no arguments, and for the
    /// flag forms of earlier versions (`--old X --new Y`, `--remove`, `--list`, `--undo N`) the subcommand
    /// to use instead, spelled out with the user's own arguments.
    ///
    /// Without it, argument-parser would only say "Unknown option '--venue'", which tells a user of a
    /// script written for the old form nothing about the new one.
    struct FlagForms: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flag-forms",
            abstract: "Name the subcommand that replaces a flag form of earlier versions.",
            discussion: """
                'survey replace-beacon' runs one of its subcommands: 'replace --venue V --old X --new Y', \
                'remove --venue V --old X', 'list --venue V' or 'undo --venue V N' (see 'survey replace-beacon \
                --help'). The flag forms of earlier versions ('--old X --new Y', '--remove --old X', '--list', \
                '--undo N') are refused with the subcommand to run instead, spelled out with the same arguments.
                """,
            shouldDisplay: false)

        @Argument(parsing: .allUnrecognized, help: "The arguments given to 'survey replace-beacon'.")
        var arguments: [String] = []

        func validate() throws {
            // Plain 'survey replace-beacon' lists the subcommands, as every command group does.
            guard !arguments.isEmpty else { throw CleanExit.helpRequest(Survey.ReplaceBeacon.self) }
            if let replacement = Self.subcommandForm(of: arguments) {
                throw CLIError("""
                    'survey replace-beacon' takes a subcommand instead of these flags now; run:
                      survey replace-beacon \(replacement.map(Self.shellQuoted).joined(separator: " "))
                    """)
            }
            if let first = arguments.first, !first.hasPrefix("-") {
                throw CLIError("'\(first)' is not a subcommand of 'survey replace-beacon': use replace, remove, list or undo (see 'survey replace-beacon --help')")
            }
            throw CLIError("'survey replace-beacon' needs a subcommand before its options: replace, remove, list or undo (see 'survey replace-beacon --help')")
        }

        /// `arguments` of a flag form rewritten as the subcommand that does the same, or nil when they are no
        /// flag form.
        static func subcommandForm(of arguments: [String]) -> [String]? {
            func isOption(_ argument: String, _ name: String) -> Bool { argument == name || argument.hasPrefix(name + "=") }
            var rest = arguments
            if let index = rest.firstIndex(of: "--list") {
                rest.remove(at: index)
                return ["list"] + rest
            }
            if let index = rest.firstIndex(where: { isOption($0, "--undo") }) {
                let option = rest.remove(at: index)
                var number = "N"
                if let equals = option.firstIndex(of: "=") {
                    number = String(option[option.index(after: equals)...])
                } else if index < rest.count {
                    number = rest.remove(at: index)
                }
                return ["undo"] + rest + [number]
            }
            if let index = rest.firstIndex(of: "--remove") {
                rest.remove(at: index)
                return ["remove"] + rest
            }
            if rest.contains(where: { isOption($0, "--old") || isOption($0, "--new") }) {
                return ["replace"] + rest
            }
            return nil
        }

        /// `argument` as a shell reads it back: quoted only when it holds more than safe characters.
        static func shellQuoted(_ argument: String) -> String {
            let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/@+%")
            guard argument.isEmpty || !argument.allSatisfy(safe.contains) else { return argument }
            return "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }
    }
}
