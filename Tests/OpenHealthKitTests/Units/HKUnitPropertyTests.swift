import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// Property tests: unit expressions generated from the grammar must parse to the unit built
/// with the algebra and round-trip through `unitString`; garbage must throw, never trap.
struct HKUnitPropertyTests {
    /// A generated expression: its text and the unit it must denote.
    private struct Expression {
        var text: String
        var unit: HKUnit
    }

    private static let prefixableRoots = UnitRoot.allCases.filter { $0.definition.acceptsPrefix }
    private static let molarMasses: [Double] = [HKUnitMolarMassBloodGlucose, 180.1558800000541, 58.44, 1, 0.5, 1e-5, 342.2965, 6.02e23]

    private static func randomAtom(_ rng: inout UnitTestSupport.SplitMix64) -> Expression {
        let root = UnitRoot.allCases.randomElement(using: &rng) ?? .gram
        let definition = root.definition
        var prefix = HKMetricPrefix.none
        if definition.acceptsPrefix, Bool.random(using: &rng) {
            prefix = HKMetricPrefix.allPrefixes.randomElement(using: &rng) ?? .kilo
        }
        var spellings = [definition.symbol] + definition.aliases
        if root == .liter, Bool.random(using: &rng) {
            spellings = ["l"]
        }
        let symbol = spellings.randomElement(using: &rng) ?? definition.symbol
        var prefixText = prefix.symbol
        if prefix == .micro, Int.random(in: 0..<3, using: &rng) == 0 {
            prefixText = "µ"
        }
        if definition.requiresMolarMass {
            let molarMass = molarMasses.randomElement(using: &rng) ?? 1
            return Expression(
                text: "\(prefixText)\(symbol)<\(molarMass)>",
                unit: HKUnit(atom: UnitAtom(root: root, prefix: prefix, molarMass: molarMass))
            )
        }
        return Expression(text: prefixText + symbol, unit: HKUnit(atom: UnitAtom(root: root, prefix: prefix)))
    }

    private static func space(_ rng: inout UnitTestSupport.SplitMix64) -> String {
        Int.random(in: 0..<6, using: &rng) == 0 ? " " : ""
    }

    private static func randomPrimary(_ rng: inout UnitTestSupport.SplitMix64, depth: Int) -> Expression {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0 where depth < 3:
            let inner = randomQuotient(&rng, depth: depth + 1)
            return Expression(text: "(" + space(&rng) + inner.text + space(&rng) + ")", unit: inner.unit)
        case 1:
            return Expression(text: Bool.random(using: &rng) ? "1" : "()", unit: HKUnit(factorization: .empty))
        default:
            return randomAtom(&rng)
        }
    }

    private static func randomPower(_ rng: inout UnitTestSupport.SplitMix64, depth: Int) -> Expression {
        var primary = randomPrimary(&rng, depth: depth)
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let power = Int.random(in: -4...4, using: &rng)
            let sign = power < 0 ? "-" : (Bool.random(using: &rng) ? "+" : "")
            primary.text += space(&rng) + "^\(sign)\(abs(power))"
            primary.unit = primary.unit.unitRaised(toPower: power)
        }
        return primary
    }

    private static func randomProduct(_ rng: inout UnitTestSupport.SplitMix64, depth: Int) -> Expression {
        var product = randomPower(&rng, depth: depth)
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let factor = randomPower(&rng, depth: depth)
            let operatorText = ["*", ".", "·"].randomElement(using: &rng) ?? "*"
            product.text += space(&rng) + operatorText + space(&rng) + factor.text
            product.unit = product.unit.unitMultiplied(by: factor.unit)
        }
        return product
    }

    private static func randomQuotient(_ rng: inout UnitTestSupport.SplitMix64, depth: Int) -> Expression {
        var quotient = randomProduct(&rng, depth: depth)
        let divisions = Int.random(in: 0..<10, using: &rng) < 6 ? 1 : Int.random(in: 0...2, using: &rng)
        for _ in 0..<divisions {
            let divisor = randomProduct(&rng, depth: depth)
            quotient.text += space(&rng) + "/" + space(&rng) + divisor.text
            quotient.unit = quotient.unit.unitDivided(by: divisor.unit)
        }
        return quotient
    }

    @Test(arguments: [UInt64(1), 42, 0xDEAD_BEEF, 2026])
    func generatedExpressionsParseToTheirUnitAndRoundTrip(seed: UInt64) throws {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        for _ in 0..<500 {
            let expression = Self.randomQuotient(&rng, depth: 0)
            let parsed = try HKUnit.parse(expression.text)
            #expect(parsed == expression.unit, "\(expression.text) -> \(parsed.unitString) vs \(expression.unit.unitString)")
            #expect(parsed.hash == expression.unit.hash, "\(expression.text)")
            let reparsed = try HKUnit.parse(parsed.unitString)
            #expect(reparsed == parsed, "\(expression.text) -> \(parsed.unitString)")
            #expect(reparsed.unitString == parsed.unitString, "\(parsed.unitString)")
            #expect(HKUnit(from: parsed.unitString) == parsed)
            #expect(parsed.isCompatible(with: reparsed))
        }
    }

    /// Roots grouped by the dimension they contribute inside compound units. The logarithmic
    /// `dBASPL` is left out: alone it measures pressure, inside a compound its own axis, which
    /// the explicit tests cover.
    private static let compatibleRoots: [[UnitRoot]] = {
        var groups: [UnitDimension: [UnitRoot]] = [:]
        for root in UnitRoot.allCases where root != .decibelAWeightedSoundPressureLevel {
            groups[root.definition.compoundDimension, default: []].append(root)
        }
        return groups.values.sorted { $0[0].rawValue < $1[0].rawValue }
    }()

    private static func randomAtom(from roots: [UnitRoot], _ rng: inout UnitTestSupport.SplitMix64) -> UnitAtom {
        let root = roots.randomElement(using: &rng) ?? roots[0]
        let definition = root.definition
        let prefix = definition.acceptsPrefix ? (HKMetricPrefix.allPrefixes.randomElement(using: &rng) ?? .none) : .none
        let molarMass = definition.requiresMolarMass ? molarMasses.randomElement(using: &rng) : nil
        return UnitAtom(root: root, prefix: prefix, molarMass: molarMass)
    }

    @Test(arguments: [UInt64(7), 99, 31337])
    func conversionsBetweenCompatibleUnitsRoundTripAndMatchTheirFactors(seed: UInt64) throws {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        for _ in 0..<500 {
            var first = HKUnit(factorization: .empty)
            var second = HKUnit(factorization: .empty)
            var expectedFactor = 1.0
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let group = Self.compatibleRoots.randomElement(using: &rng) ?? Self.compatibleRoots[0]
                let a = Self.randomAtom(from: group, &rng)
                let b = Self.randomAtom(from: group, &rng)
                let power = [-2, -1, 1, 2].randomElement(using: &rng) ?? 1
                first = first.unitMultiplied(by: HKUnit(atom: a).unitRaised(toPower: power))
                second = second.unitMultiplied(by: HKUnit(atom: b).unitRaised(toPower: power))
                expectedFactor *= pow(a.scale / b.scale, Double(power))
            }
            // Respell both through their canonical strings, as a client would send them.
            let source = try HKUnit.parse(first.unitString)
            let target = try HKUnit.parse(second.unitString)
            #expect(source.isCompatible(with: target), "\(source.unitString) vs \(target.unitString)")
            let value = Double.random(in: 1...1000, using: &rng)
            guard let there = try? HKUnit.convert(value, from: source, to: target) else { continue }
            let back = try HKUnit.convert(there, from: target, to: source)
            guard source.mapping.linearScale != nil, target.mapping.linearScale != nil else {
                // Affine round trips lose digits to cancellation (258 nK -> -273.1499997 degC),
                // so only check them through the SI base value.
                #expect(UnitTestSupport.isClose(target.baseValue(of: there), source.baseValue(of: value), relative: 1e-9))
                continue
            }
            #expect(UnitTestSupport.isClose(back, value, relative: 1e-9), "\(source.unitString) <-> \(target.unitString)")
            if expectedFactor.isFinite, expectedFactor != 0 {
                #expect(UnitTestSupport.isClose(there, value * expectedFactor, relative: 1e-9), "\(source.unitString) -> \(target.unitString)")
            }
        }
    }

    @Test(arguments: [UInt64(21), 4242])
    func incompatibleRandomUnitsThrow(seed: UInt64) {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        var thrown = 0
        for _ in 0..<400 {
            let first = Self.randomQuotient(&rng, depth: 0).unit
            let second = Self.randomQuotient(&rng, depth: 0).unit
            guard !first.isCompatible(with: second) else { continue }
            do {
                _ = try HKUnit.convert(1, from: first, to: second)
                Issue.record("\(first.unitString) -> \(second.unitString) should not convert")
            } catch {
                #expect(error.kind == .incompatibleUnits)
                thrown += 1
            }
        }
        #expect(thrown > 100)
    }

    @Test(arguments: [UInt64(3), 11, 12345])
    func randomGarbageThrowsOrRoundTrips(seed: UInt64) {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        let alphabet: [Character] = Array(
            "gmLlsKSVWHzPaJdcknpfMGTµ%<>()^*./·-+0123456789 _#@!~,;:é😀\u{0}\u{7F}\u{200B}molcountminhrdegCFIUBASPLx"
        )
        var parsedCount = 0
        var thrownCount = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 0...24, using: &rng)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &rng) ?? "x" })
            do {
                let unit = try HKUnit.parse(text)
                parsedCount += 1
                #expect(HKUnit(from: unit.unitString) == unit, "\(text)")
            } catch {
                thrownCount += 1
                if let position = error.position {
                    #expect(position >= 0 && position <= text.unicodeScalars.count, "\(text): \(error)")
                }
                #expect(!error.message.isEmpty)
            }
        }
        #expect(thrownCount > 0)
        #expect(parsedCount + thrownCount == 3000)
    }

    @Test(arguments: [UInt64(5), 77])
    func stringsWithAForbiddenCharacterAlwaysThrow(seed: UInt64) {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        let forbidden: [Character] = ["#", "@", "!", "?", "=", "\u{0}", "😀", "²", "\\", "\"", "'", "$", "&", "|", "~", ","]
        for _ in 0..<1000 {
            var scalars = Array(Self.randomQuotient(&rng, depth: 0).text)
            let position = Int.random(in: 0...scalars.count, using: &rng)
            scalars.insert(forbidden.randomElement(using: &rng) ?? "#", at: position)
            let text = String(scalars)
            #expect(UnitTestSupport.parseError(text) != nil, "\(text)")
        }
    }

    @Test(arguments: [UInt64(8), 1234])
    func mutatedExpressionsNeverTrap(seed: UInt64) {
        var rng = UnitTestSupport.SplitMix64(seed: seed)
        let inserts: [Character] = Array("()^*/.·-+0123456789<>mgL %µ")
        for _ in 0..<1500 {
            var characters = Array(Self.randomQuotient(&rng, depth: 0).text)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !characters.isEmpty:
                    characters.remove(at: Int.random(in: 0..<characters.count, using: &rng))
                case 1:
                    characters.insert(inserts.randomElement(using: &rng) ?? "(", at: Int.random(in: 0...characters.count, using: &rng))
                default:
                    if characters.count > 1 {
                        characters.swapAt(
                            Int.random(in: 0..<characters.count, using: &rng),
                            Int.random(in: 0..<characters.count, using: &rng)
                        )
                    }
                }
            }
            let text = String(characters)
            if let unit = try? HKUnit.parse(text) {
                #expect(HKUnit(from: unit.unitString) == unit, "\(text)")
            }
        }
    }

    @Test func randomUnicodeNeverTraps() {
        var rng = UnitTestSupport.SplitMix64(seed: 0xC0FFEE)
        for _ in 0..<2000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...16, using: &rng) {
                let value = UInt32.random(in: 0...0x10FFFF, using: &rng)
                if let scalar = Unicode.Scalar(value) {
                    view.append(scalar)
                }
            }
            let text = String(view)
            if let unit = try? HKUnit.parse(text) {
                #expect(HKUnit(from: unit.unitString) == unit)
            }
        }
    }
}
