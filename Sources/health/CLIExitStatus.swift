import ArgumentParser
import Foundation

/// The exit statuses of every `health` command.
enum CLIExitStatus: Int32 {
    /// Success, or the input is valid (a card, a resource, an intact log).
    case success = 0
    /// Refused, invalid or tampered: the command ran and its answer is no.
    case refused = 1
    /// The command could not run: a usage error, or a file or server that could not be read.
    case usageOrIO = 2

    /// The status for an error that ended a command, given the code swift-argument-parser gives it.
    init(parserCode: ExitCode, error: any Error) {
        if parserCode == .success {
            self = .success
        } else if parserCode.rawValue != 1 {
            // The parser's usage errors (64), and explicit `ExitCode(2)`.
            self = .usageOrIO
        } else {
            // An error a command threw: ErrorReport decides (a file that could not be read, or a
            // store that cannot be opened, is 2; an explicit `ExitCode(1)` after a verdict is 1).
            self = ErrorReport(error).status
        }
    }
}

/// Input the command read and refused (a bad line in an import file): printed as one line,
/// exit status 1. Usage errors are `UsageError` or the parser's `ValidationError` (exit 2).
struct InputRefused: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
