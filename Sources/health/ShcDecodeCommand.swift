import ArgumentParser
import FHIRCore
import Foundation
import SmartHealthCards

/// `health shc decode INPUT`: header, claims and bundle, without verifying.
struct ShcDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print a card's JWS header, claims and FHIR bundle, pretty-printed (no verification).")

    @Argument(help: "A file in any card form, or - for standard input.")
    var input: String

    func run() async throws {
        let bytes = try cardText(of: input)
        let cards: [SHCInput.Card]
        do {
            cards = try SHCInput.parse(bytes, allowSurroundingWhitespace: true)
        } catch {
            throw UsageError("\(input): \(error)")
        }
        // A verifier with no keys decodes everything it can; the signature is left unchecked.
        let decoder = SHCVerifier(resolver: StaticKeyResolver([:]), now: Date())
        var failed = false
        for (index, card) in cards.enumerated() {
            if cards.count > 1 { print("# card \(index + 1) of \(cards.count)") }
            let report = await decoder.verify(card)
            guard let header = report.header, let payload = report.payload else {
                failed = true
                let reason = report.errors.first.map(\.message) ?? "not a decodable card"
                try? FileHandle.standardError.write(contentsOf: Data("\(input): \(reason)\n".utf8))
                continue
            }
            print("header:")
            var members: [JSONMember] = []
            for (name, value) in [("zip", header.zip), ("alg", header.alg), ("kid", header.kid), ("typ", header.typ)] {
                if let value { members.append(.init(name, .string(value))) }
            }
            print(JSONWriter.string(.object(members: members), style: .pretty))
            print("claims:")
            print(JSONWriter.string(payload, style: .pretty))
        }
        if failed { throw ExitCode(1) }
    }
}
