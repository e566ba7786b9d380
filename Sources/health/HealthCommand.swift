import ArgumentParser
import Foundation

/// The `health` command: a terminal front end to an OpenHealthKit store.
@main
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Keep and query health data in an encrypted, HealthKit-compatible store; verify and issue SMART Health Cards; validate and format FHIR R4 JSON; act as a FhirBlocks wallet or app and verify its audit log.",
        subcommands: [DemoCommand.self, StoreCommand.self, RecordsCommand.self, ShcCommand.self, FhirCommand.self, ServeCommand.self, WalletCommand.self,
                      AppCommand.self, AuditCommand.self])

    /// Runs the command. `health shc …`, `health fhir …`, `health records …`, `health serve …`, `health wallet …`,
    /// `health app …` and `health audit …` keep their documented exit codes: usage and I/O errors exit with 2
    /// (swift-argument-parser would use 64), invalid input, a refusal or a failed check with 1.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let isCardCommand = ["shc", "fhir", "records", "serve", "wallet", "app", "audit"].contains(arguments.first ?? "")
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            if isCardCommand, code != .success, code.rawValue != 1 {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// `health store …`: work with a store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add, query, summarise, delete and import samples.",
        subcommands: [StoreAddCommand.self, StoreQueryCommand.self, StoreStatsCommand.self, StoreDeleteCommand.self,
                      StoreSourcesCommand.self, StoreImportCommand.self])
}
