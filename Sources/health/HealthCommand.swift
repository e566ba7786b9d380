import ArgumentParser
import Foundation

/// The `health` command: a terminal front end to an OpenHealthKit store.
@main
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Keep and query health data in an encrypted, HealthKit-compatible store; verify and issue SMART Health Cards; validate and format FHIR R4 JSON; act as a FhirBlocks wallet or app and verify its audit log.",
        version: HealthVersion.text,
        subcommands: [DemoCommand.self, StoreCommand.self, RecordsCommand.self, ShcCommand.self, FhirCommand.self, ServeCommand.self, UICommand.self, WalletCommand.self,
                      AppCommand.self, AuditCommand.self, ImportCommand.self])

    /// Runs the command with one exit-status convention for every subcommand (docs/cli.md,
    /// exit status): 0 success or valid; 1 refused, invalid or tampered; 2 a usage or I/O error
    /// (swift-argument-parser's own usage errors, 64, become 2).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            // `shc verify` in its plain form skips the argument parser's reflection (see
            // ShcVerifyArguments); every other command line is parsed as usual.
            if let verify = ShcVerifyArguments(commandLine: arguments) {
                try await ShcVerifyCommand.verify(verify)
                return
            }
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            Foundation.exit(CLIExitStatus.usageOrIO.rawValue)
        } catch let error as InputRefused {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            Foundation.exit(CLIExitStatus.refused.rawValue)
        } catch {
            let code = exitCode(for: error)
            switch CLIExitStatus(parserCode: code, error: error) {
            case .success, .refused:
                exit(withError: error)
            case .usageOrIO:
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(CLIExitStatus.usageOrIO.rawValue)
            }
        }
    }
}

/// `health store …`: work with a store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add, query, summarise, delete and import samples; order sources; manage apps' access.",
        subcommands: [StoreAddCommand.self, StoreQueryCommand.self, StoreStatsCommand.self, StoreDeleteCommand.self, StoreDeletedCommand.self,
                      StoreSourcesCommand.self, StoreAppsCommand.self, StoreImportCommand.self, StoreDeviceKeysCommand.self,
                      StoreTypesCommand.self])
}
