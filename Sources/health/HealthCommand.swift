import ArgumentParser
import Foundation

/// The `health` command: a terminal front end to an OpenHealthKit store.
@main
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Keep and query health data in an encrypted, HealthKit-compatible store; verify and issue SMART Health Cards; "
            + "validate and format FHIR R4 JSON; act as a FhirBlocks wallet or app and verify its audit log.",
        version: HealthVersion.text,
        subcommands: [DemoCommand.self, StoreCommand.self, RecordsCommand.self, ShcCommand.self, FhirCommand.self, ServeCommand.self, UICommand.self,
                      WalletCommand.self, AppCommand.self, AuditCommand.self, ImportCommand.self, ProfileCommand.self, ShareCommand.self])

    /// Runs the command with one exit-status convention for every subcommand (docs/cli.md,
    /// exit status): 0 success or valid; 1 refused, invalid or tampered; 2 a usage or I/O error.
    ///
    /// An error while parsing the command line is swift-argument-parser's: printed with the
    /// command's usage (its usage errors, 64, become 2). An error the command throws once it runs
    /// is printed as one line in words, without usage text (``ErrorReport``).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            // `shc verify` in its plain form skips the argument parser's reflection (see
            // ShcVerifyArguments); every other command line is parsed as usual.
            if let verify = ShcVerifyArguments(commandLine: arguments) {
                try await ShcVerifyCommand.verify(verify)
                return
            }
        } catch {
            exit(reporting: error)
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(parsing: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ExitCode {
            exit(reporting: error)
        } catch let error as ValidationError {
            exit(reporting: error)
        } catch {
            // `health help …` runs the parser's help command, which throws the parser's own
            // errors (help, or an unknown subcommand): the parser reports those.
            if exitCode(for: error) != .failure { exit(parsing: error) }
            exit(reporting: error)
        }
    }

    /// Prints the argument parser's error (help, version, or a usage error with the command's
    /// usage) and exits: 0 for help and version, 2 for a usage error.
    static func exit(parsing error: any Error) -> Never {
        switch CLIExitStatus(parserCode: exitCode(for: error), error: error) {
        case .success, .refused:
            exit(withError: error)
        case .usageOrIO:
            try? FileHandle.standardError.write(contentsOf: Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(CLIExitStatus.usageOrIO.rawValue)
        }
    }

    /// Prints what ended a running command as one line (``ErrorReport``) and exits with its status.
    static func exit(reporting error: any Error) -> Never {
        let report = ErrorReport(error)
        if let message = report.message {
            try? FileHandle.standardError.write(contentsOf: Data("Error: \(message)\n".utf8))
        }
        Foundation.exit(report.status.rawValue)
    }
}

/// `health store …`: work with a store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add, query, summarise, delete and import samples; order sources; manage apps' access.",
        subcommands: [StoreAddCommand.self, StoreQueryCommand.self, StoreStatsCommand.self, StoreDeleteCommand.self, StoreDeletedCommand.self,
                      StoreSourcesCommand.self, StoreAppsCommand.self, StoreImportCommand.self, StoreDeviceKeysCommand.self,
                      StoreTypesCommand.self, StoreMedicationsCommand.self])
}
