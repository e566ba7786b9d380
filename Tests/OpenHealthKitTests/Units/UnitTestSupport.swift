import Foundation

@testable import OpenHealthKit
import TestSupport

/// Helpers shared by the unit-engine tests.
enum UnitTestSupport {
    /// Whether two values agree to a relative tolerance (absolute near zero).
    static func isClose(_ actual: Double, _ expected: Double, relative tolerance: Double = 1e-9) -> Bool {
        if actual == expected {
            return true
        }
        let scale = max(abs(actual), abs(expected))
        if scale < 1e-300 {
            return true
        }
        return abs(actual - expected) <= tolerance * scale
    }

    /// The error `HKUnit.parse` throws for `string`, or `nil` if it parses.
    static func parseError(_ string: String) -> HKUnitError? {
        do {
            _ = try HKUnit.parse(string)
            return nil
        } catch {
            return error
        }
    }

    /// Converts through the internal helper the store uses.
    static func convert(_ value: Double, _ source: String, _ target: String) throws -> Double {
        try HKUnit.convert(value, from: HKUnit.parse(source), to: HKUnit.parse(target))
    }

    /// The error a conversion throws, or `nil`.
    static func conversionError(_ source: String, _ target: String) -> HKUnitError? {
        do {
            _ = try HKUnit.convert(1, from: HKUnit.parse(source), to: HKUnit.parse(target))
            return nil
        } catch {
            return error
        }
    }

    /// The shared seeded generator.
    typealias SplitMix64 = TestSupport.SplitMix64
}
