@testable import health
import Testing
import TestSupport

/// `health shc verify`'s plain command lines are read without the argument parser; what that
/// reader accepts must be read exactly as the parser reads it.
@Suite("health shc verify command lines read without the argument parser")
struct ShcVerifyArgumentsTests {
    /// Tokens of command lines: inputs, options with and without values, and what the reader
    /// must leave to the parser.
    static let common = ["a.smart-health-card", "b.json", "verify", "shc", "--issuer", "https://x.example=issuer", "--issuer",
                         "https://y.example=other", "--trust-directory", "vci-issuers.json", "--at", "2025-01-01T00:00:00Z",
                         "--at", "now", "--allow-private-issuers", "--json"]
    static let rare = ["-", "--", "-h", "--help", "--issuer=a=b", "--at=2025-01-01", "-x", "", "--unknown", "--version",
                       "--experimental-dump-help", "help"]

    /// The values the argument parser reads from `line`, or nil when it does not read an
    /// `shc verify` command.
    static func parsed(_ line: [String]) -> ShcVerifyArguments? {
        guard let command = (try? HealthCommand.parseAsRoot(line)) as? ShcVerifyCommand else { return nil }
        let options = command.verification
        return ShcVerifyArguments(inputs: command.inputs, issuers: options.issuers, trustDirectory: options.trustDirectory,
                                  at: options.at, allowPrivateIssuers: options.allowPrivateIssuers, json: command.json)
    }

    @Test("what the reader accepts, the parser reads the same way (random command lines)")
    func agreesWithTheParser() {
        var random = SplitMix64(seed: 0x5C_2013)
        var accepted = 0
        for _ in 0..<600 {
            var line = ["shc", "verify"]
            for _ in 0..<random.int(0...8) {
                line.append(random.chance(0.9) ? Self.common[random.below(Self.common.count)] : Self.rare[random.below(Self.rare.count)])
            }
            guard let fast = ShcVerifyArguments(commandLine: line) else { continue }
            accepted += 1
            #expect(Self.parsed(line) == fast, "\(line)")
        }
        #expect(accepted > 60)
    }

    @Test("the benchmark's command line is read; help, other commands and unusual spellings are left to the parser")
    func plainAndDeclined() {
        let line = ["shc", "verify", "cards.smart-health-card", "--at", "2025-01-01T00:00:00Z", "--issuer", "https://i.example=dir", "--json"]
        let expected = ShcVerifyArguments(inputs: ["cards.smart-health-card"], issuers: ["https://i.example=dir"], trustDirectory: nil,
                                          at: "2025-01-01T00:00:00Z", allowPrivateIssuers: false, json: true)
        #expect(ShcVerifyArguments(commandLine: line) == expected)
        #expect(Self.parsed(line) == expected)
        let declined: [[String]] = [
            ["shc", "verify"], ["shc", "verify", "--help"], ["shc", "verify", "a", "-h"], ["shc", "verify", "a", "--at"],
            ["shc", "verify", "a", "--at", "-1"], ["shc", "verify", "--at", "x", "--at", "y", "a"], ["shc", "verify", "--json", "--json", "a"],
            ["shc", "verify", "-", "a"], ["shc", "verify", "a", "--", "b"], ["shc", "verify", "--at=x", "a"], ["shc", "decode", "a"],
            ["store", "verify", "a"], ["shc", "verify", "a", "--issuer", ""], ["shc", "verify", "a", "help"],
        ]
        for line in declined { #expect(ShcVerifyArguments(commandLine: line) == nil, "\(line)") }
    }
}
