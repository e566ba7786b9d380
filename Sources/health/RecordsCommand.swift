import ArgumentParser

/// `health records …`: clinical records and verifiable health records in the store.
struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "Import, list and show clinical records (FHIR) and verifiable health records (SMART Health Cards); list what was shared; "
            + "connect to and sync with SMART on FHIR servers.",
        subcommands: [RecordsImportCommand.self, RecordsListCommand.self, RecordsShowCommand.self, RecordsSharesCommand.self,
                      RecordsConnectCommand.self, RecordsSyncCommand.self, RecordsConnectionsCommand.self])
}
