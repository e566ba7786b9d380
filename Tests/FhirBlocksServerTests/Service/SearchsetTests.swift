import FHIRCore
import Testing
import TestSupport
@testable import FhirBlocksServer

/// A search page splices each stored resource's bytes into its entry unparsed: the cheap check
/// it makes of them (``TrustService/isDelimitedObject(_:)``) keeps exactly the JSON values the
/// validating tape it replaced kept (objects), so the Bundle of the same stored resources is
/// byte for byte what it was.
@Suite struct SearchsetTests {
    /// A random JSON value: mostly an Observation (``StoredLabelsTests/resource(_:)``), else an
    /// array, a string, a number, a literal, an empty object; with or without whitespace around.
    static func value(_ random: inout SplitMix64) -> String {
        let core: String
        switch random.below(8) {
        case 0: core = "[" + StoredLabelsTests.resource(&random) + "]"
        case 1: core = #""{ not an object }""#
        case 2: core = String(random.int(-100...100))
        case 3: core = ["true", "false", "null"][random.below(3)]
        case 4: core = random.chance(0.5) ? "{}" : "{ }"
        default: core = StoredLabelsTests.resource(&random)
        }
        let spaces = [" ", "\n", "\r\n", "\t", ""]
        return (random.chance(0.3) ? spaces[random.below(spaces.count)] : "") + core + (random.chance(0.3) ? spaces[random.below(spaces.count)] : "")
    }

    @Test func keepsWhatTheValidatingTapeKept() throws {
        var random = SplitMix64(seed: 1504)
        for _ in 0..<1_000 {
            let json = Array(Self.value(&random).utf8)
            let tape = try JSONTape(json, maximumDepth: 512, allowsByteOrderMark: false)
            #expect(TrustService.isDelimitedObject(json) == (tape.kind(0) == .object), "\(String(decoding: json, as: UTF8.self))")
        }
    }

    @Test func refusesWhatCannotBeOneObject() {
        for text in ["", " ", "{", "}", "[]", "\"x\"", "{\"a\":1", "\"a\":1}"] {
            #expect(!TrustService.isDelimitedObject(Array(text.utf8)), "\(text)")
        }
    }
}
