import Foundation
@testable import health
import SmartHealthLinks
import Testing
import TestSupport

/// `health share create --expires-in`: its units read directly (`ShareCreateCommand.duration`), a
/// property check over whole numbers and units and over arbitrary text, and one run of the command
/// against a real `health serve` on 127.0.0.1.
@Suite("health share create --expires-in: durations in s, m, h, d, w")
struct ShareExpiresInTests {
    static func seconds(_ text: String) throws -> Int64 {
        try ShareCreateCommand.duration(text).components.seconds
    }

    static func usageError(_ text: String) -> String? {
        do {
            _ = try ShareCreateCommand.duration(text)
            return nil
        } catch {
            return (error as? UsageError)?.description ?? "not a usage error: \(error)"
        }
    }

    @Test("12h, 90m, 2w, 7d, 45s and 30d are the seconds they name; case and surrounding spaces do not matter")
    func units() throws {
        #expect(try Self.seconds("12h") == 12 * 3_600)
        #expect(try Self.seconds("90m") == 90 * 60)
        #expect(try Self.seconds("2w") == 14 * 86_400)
        #expect(try Self.seconds("7d") == 7 * 86_400)
        #expect(try Self.seconds("45s") == 45)
        #expect(try Self.seconds("30d") == 30 * 86_400)
        #expect(try Self.seconds(" 7D ") == 7 * 86_400)
        // The longest accepted: 100 years, in each unit.
        #expect(try Self.seconds("36500d") == ShareCreateCommand.longestExpiry)
        #expect(try Self.seconds("5214w") == 5_214 * 604_800)
    }

    @Test("0d, overflow and garbage are usage errors that say what is wrong")
    func refusals() {
        for zero in ["0d", "0h", "000m"] {
            let message = Self.usageError(zero)
            #expect(message?.contains("no time at all") == true, "\(zero): \(String(describing: message))")
        }
        for tooLong in ["36501d", "5215w", "99999999999999999999d", "9223372036854775807s", "153722867280912931m"] {
            let message = Self.usageError(tooLong)
            #expect(message?.contains("too long; at most 100 years") == true, "\(tooLong): \(String(describing: message))")
        }
        for garbage in ["", "d", "7", "7y", "soon", "-7d", "+7d", "7 d", "1.5h", "7dd", "0x10d", "٧d", "7d12h"] {
            let message = Self.usageError(garbage)
            #expect(message?.contains("is not a duration such as 30d, 12h, 90m or 2w") == true, "\(garbage): \(String(describing: message))")
        }
    }

    @Test("property: every whole number up to the limit in every unit reads back; arbitrary text never traps")
    func property() throws {
        var generator = SystemRandomNumberGenerator()
        let units: [(Character, Int64)] = [("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800)]
        for _ in 0..<2_000 {
            let (unit, seconds) = try #require(units.randomElement(using: &generator))
            let count = Int64.random(in: 1...(ShareCreateCommand.longestExpiry / seconds), using: &generator)
            #expect(try Self.seconds("\(count)\(unit)") == count * seconds)
        }
        let alphabet = Array("0123456789smhdwSMHDW -+.x٧\u{0}é")
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0...24, using: &generator)).compactMap { _ in alphabet.randomElement(using: &generator) })
            do {
                let seconds = try Self.seconds(text)
                #expect(seconds > 0 && seconds <= ShareCreateCommand.longestExpiry, "\(text)")
            } catch {
                #expect(error is UsageError, "\(text): \(error)")
            }
        }
    }

    @Test("through the command line: --expires-in 12h is the link's exp 12 hours after creation; 0d and an overflow exit 2")
    func commandLine() async throws {
        let fixture = try await ShareLinkCommandTests.Fixture.start()
        defer { fixture.stop() }
        let create = ["share", "create"] + fixture.wallet + ["--summary"]
        let before = Int64(Date().timeIntervalSince1970)
        let created = try await fixture.run(create + ["--expires-in", "12h"])
        let after = Int64(Date().timeIntervalSince1970)
        #expect(created.status == 0, "\(created.output)\(created.error)")
        let link = try #require(created.output.split(separator: "\n").first.map(String.init))
        let exp = try #require(try SHLink.parse(link).expiration)
        #expect(exp >= before + 43_200 - 1 && exp <= after + 43_200, "exp \(exp), created between \(before) and \(after)")
        for (value, words) in [("0d", "no time at all"), ("99999999999999999999d", "too long"), ("soon", "is not a duration")] {
            let refused = try await fixture.run(create + ["--expires-in", value])
            #expect(refused.status == 2 && refused.error.contains(words), "\(value): \(refused.status) \(refused.error)")
            #expect(refused.output.isEmpty, "\(value): nothing on standard output")
        }
    }
}
