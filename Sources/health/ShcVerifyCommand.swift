import ArgumentParser
import Foundation
import SmartHealthCards
import SmartHealthCardsHTTPS

/// `health shc verify INPUT… [--issuer ISS=DIR]… [--trust-directory FILE] [--at ISO8601] [--json]`.
struct ShcVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify SMART Health Cards: JWS, .smart-health-card files, $health-cards-issue responses or shc:/ QR text.",
        discussion: """
            Each INPUT is a file (its form is detected by content) or - for standard input.
            Issuer keys come from --issuer ISS=DIR (a folder holding .well-known/jwks.json and optionally .well-known/crl/KID.json);
            issuers not named there are fetched over HTTPS from ISS/.well-known/jwks.json and cached in ~/.cache/openhealthkit/shc.
            Exit status: 0 when every card is valid, 1 when any card is invalid, 2 for usage or I/O errors
            (including issuer keys that could not be fetched).
            """)

    @Argument(help: "Files to verify, or - for standard input.")
    var inputs: [String]

    @OptionGroup var verification: CardVerifierOptions

    @Flag(help: "Print a machine-readable JSON report.")
    var json = false

    func run() async throws {
        let (verifier, https) = try verification.makeVerifier()

        var results: [(input: String, index: Int, report: SHCVerificationReport)] = []
        var inputFailures: [(input: String, error: String)] = []
        for input in inputs {
            let bytes = try cardText(of: input)
            let cards: [SHCInput.Card]
            do {
                cards = try SHCInput.parse(bytes, allowSurroundingWhitespace: input == "-")
            } catch {
                inputFailures.append((input, "\(error)"))
                continue
            }
            for (index, card) in cards.enumerated() {
                results.append((input, index, await verifier.verify(card)))
            }
        }
        await https.shutdown()
        let allValid = inputFailures.isEmpty && results.allSatisfy(\.report.isValid)
        if json {
            print(try ShcReportFormatter.json(results: results, inputFailures: inputFailures, valid: allValid))
        } else {
            for line in ShcReportFormatter.text(results: results, inputFailures: inputFailures) { print(line) }
        }
        // A card whose keys could not be fetched was not judged: that is an I/O error (2), unless
        // another card is invalid for what it contains (1).
        let unreachable: Set<SHCFindingCode> = [.resolverFailed]
        let judgedInvalid = !inputFailures.isEmpty
            || results.contains { !$0.report.isValid && !$0.report.errors.allSatisfy { unreachable.contains($0.code) } }
        if judgedInvalid { throw ExitCode(1) }
        if !allValid { throw ExitCode(2) }
    }

    static var cacheDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("openhealthkit/shc")
    }
}
