import ArgumentParser
import Foundation
@testable import health
import Testing

@Suite("One exit status for every command")
struct CLIExitStatusTests {
    struct LibraryRefusal: Error {}

    @Test("Usage errors and unreadable files are 2, a command's no is 1, help is 0")
    func mapping() {
        func status(_ error: any Error) -> CLIExitStatus {
            CLIExitStatus(parserCode: HealthCommand.exitCode(for: error), error: error)
        }
        #expect(status(ValidationError("--batch-size must be positive")) == .usageOrIO)
        #expect(status(ExitCode(2)) == .usageOrIO)
        #expect(status(ExitCode(1)) == .refused)
        #expect(status(CocoaError(.fileReadNoSuchFile)) == .usageOrIO)
        #expect(status(POSIXError(.EACCES)) == .usageOrIO)
        #expect(status(LibraryRefusal()) == .refused)
        #expect(status(CleanExit.helpRequest()) == .success)
    }
}
