import Foundation
@testable import health
import Testing
import TestSupport

/// The numbers `health shc verify`'s text report writes (a card's number, a rule, a date of
/// birth's year, month and day) through `[UInt8].append(decimal:width:)`.
@Suite struct ReportDecimalTests {
    static func written(_ value: Int, width: Int) -> String {
        var bytes: [UInt8] = []
        bytes.append(decimal: value, width: width)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("A negative number is padded after its sign, as %0*ld pads it: -005, not 00-5")
    func negativeNumbers() {
        #expect(Self.written(-5, width: 4) == "-005")
        #expect(Self.written(-5, width: 2) == "-5")
        #expect(Self.written(-5, width: 1) == "-5")
        #expect(Self.written(-12, width: 4) == "-012")
        #expect(Self.written(-1234, width: 4) == "-1234")
        #expect(Self.written(Int.min, width: 1) == "-9223372036854775808")
        #expect(Self.written(Int.min, width: 22) == "-009223372036854775808")
        #expect(Self.written(7, width: 4) == "0007")
        #expect(Self.written(0, width: 2) == "00")
        #expect(Self.written(Int.max, width: 21) == "009223372036854775807")
    }

    @Test("10,000 random numbers of every size and sign, widths 0 to 24: the same text as String(format: \"%0Nld\")")
    func sameAsPrintf() {
        var generator = SplitMix64(seed: 0xD3C1)
        for _ in 0..<10_000 {
            let value = switch generator.below(4) {
            case 0: generator.int(-99...99)
            case 1: generator.int(-99_999...99_999)
            case 2: Int(truncatingIfNeeded: generator.next())
            default: Int(truncatingIfNeeded: generator.next()) >> generator.int(0...63)
            }
            let width = generator.int(0...24)
            let format = width == 0 ? "%ld" : "%0\(width)ld"
            #expect(Self.written(value, width: width) == String(format: format, value), "\(value) in \(width)")
        }
    }
}
