import ArgumentParser
import CommonSupport
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
            issuers not named there are fetched over HTTPS from ISS/.well-known/jwks.json \
            and cached in $XDG_CACHE_HOME/openhealthkit/shc (else ~/.cache/openhealthkit/shc).
            Offline, give each issuer's keys with --issuer.
            Cards are verified on every core and reported in order as they are done.
            Exit status: 0 when every card is valid, 1 when any card is invalid (including one whose issuer's keys
            could not be fetched), 2 for usage or I/O errors.
            """)

    @Argument(help: "Files to verify, or - for standard input.")
    var inputs: [String]

    @OptionGroup var verification: CardVerifierOptions

    @Flag(help: "Print a machine-readable JSON report.")
    var json = false

    func run() async throws {
        try await Self.verify(ShcVerifyArguments(
            inputs: inputs, issuers: verification.issuers, trustDirectory: verification.trustDirectory, at: verification.at,
            allowPrivateIssuers: verification.allowPrivateIssuers, json: json))
    }

    /// Verifies the cards of `arguments.inputs` and prints the report: the command's work, for a
    /// parsed command line or one read by ``ShcVerifyArguments/init(commandLine:)``.
    static func verify(_ arguments: ShcVerifyArguments) async throws {
        let (verifier, https) = try CardVerifierOptions.makeVerifier(
            issuers: arguments.issuers, trustDirectory: arguments.trustDirectory, at: arguments.at,
            allowPrivateIssuers: arguments.allowPrivateIssuers)
        let inputs = arguments.inputs, json = arguments.json
        // Every input is read before anything is printed: one that cannot be read is an I/O error
        // (exit 2) with no partial report.
        let texts: [(String, [UInt8])]
        do {
            texts = try inputs.map { input in (input, try cardText(of: input)) }
        } catch {
            await https.shutdown()
            throw error
        }
        var output = ShcReportWriter(json: json)
        var allValid = true
        do {
            for (input, bytes) in texts {
                let cards: [SHCInput.Card]
                do {
                    cards = try SHCInput.parse(bytes, allowSurroundingWhitespace: input == "-")
                } catch {
                    allValid = false
                    output.inputFailure(input: input, error: "\(error)")
                    continue
                }
                // Cards are verified and formatted on every core; the reports are written in
                // order as each chunk is done, while the next chunks are being verified.
                let count = cards.count
                try await verifier.verifyAll(cards, transform: { index, report -> ShcReportWriter.Formatted in
                    do {
                        return .card(try ShcReportWriter.format(input: input, index: index, of: count, report: report, json: json))
                    } catch {
                        return .failure(error)
                    }
                }) { _, formatted in
                    for card in formatted {
                        switch card {
                        case .card(let card):
                            if !card.isValid { allValid = false }
                            output.append(card)
                        case .failure(let error):
                            throw error
                        }
                    }
                    output.flush()
                }
            }
        } catch {
            await https.shutdown()
            throw error
        }
        await https.shutdown()
        output.finish(valid: allValid)
        // Every card printed as INVALID exits 1, whatever the cause (a card whose issuer's keys
        // could not be fetched is not verified: it is INVALID, with key.resolver-failed).
        if !allValid { throw ExitCode(1) }
    }

    static var cacheDirectory: URL {
        UserDirectories.cacheHome().appendingPathComponent("openhealthkit/shc")
    }
}
