import ArgumentParser

/// The `health` command: a terminal front end to an OpenHealthKit store.
@main
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Keep and query health data in an encrypted, HealthKit-compatible store.",
        subcommands: [DemoCommand.self, StoreCommand.self])
}

/// `health store …`: work with a store.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Add, query, summarise, delete and import samples.",
        subcommands: [StoreAddCommand.self, StoreQueryCommand.self, StoreStatsCommand.self, StoreDeleteCommand.self,
                      StoreSourcesCommand.self, StoreImportCommand.self])
}
