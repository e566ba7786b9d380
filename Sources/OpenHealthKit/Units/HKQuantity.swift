import Foundation

/// An amount in a unit, mirroring HealthKit's `HKQuantity`.
///
/// ```swift
/// let heartRate = HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 72)
/// heartRate.doubleValue(for: HKUnit(from: "count/s"))   // 1.2
/// try heartRate.value(in: .meter())                     // throws HKUnitError.incompatibleUnits
/// ```
///
/// Instances are immutable and safe to share between threads.
public final class HKQuantity: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// Relative difference below which ``compare(_:)`` reports `.orderedSame`, so that
    /// conversion rounding (37 degC vs 98.6 degF) does not decide an ordering.
    static let comparisonRelativeTolerance = 1e-12

    /// The unit the quantity was created with.
    let storedUnit: HKUnit
    /// The value in ``storedUnit``.
    let storedValue: Double
    /// The value in the SI base unit of the dimension (see ``HKUnit/baseValue(of:)``).
    let baseValue: Double

    /// Creates a quantity.
    ///
    /// - Parameters:
    ///   - unit: The unit of `value`.
    ///   - value: The amount, e.g. `0.97` with ``HKUnit/percent()`` for 97 %.
    public init(unit: HKUnit, doubleValue value: Double) {
        self.storedUnit = unit
        self.storedValue = value
        self.baseValue = unit.baseValue(of: value)
        super.init()
    }

    /// Whether the quantity can be expressed in `unit`.
    ///
    /// - Parameter unit: A unit.
    /// - Returns: `true` if the quantity's unit and `unit` measure the same kind of quantity.
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        storedUnit.isCompatible(with: unit)
    }

    /// The value of the quantity in `unit`.
    ///
    /// Like HealthKit (which raises an exception), asking for an incompatible unit is a
    /// programmer error and stops the program. Use ``value(in:)`` when the unit comes from
    /// outside.
    ///
    /// - Parameter unit: A unit compatible with the quantity's unit.
    /// - Returns: The value in `unit`.
    public func doubleValue(for unit: HKUnit) -> Double {
        do {
            return try value(in: unit)
        } catch {
            preconditionFailure("HKQuantity.doubleValue(for:): \(error)")
        }
    }

    /// The value of the quantity in `unit`, throwing for an incompatible unit.
    ///
    /// - Parameter unit: The unit wanted.
    /// - Returns: The value in `unit`.
    /// - Throws: ``HKUnitError/Kind/incompatibleUnits`` if the dimensions differ,
    ///   ``HKUnitError/Kind/conversionOutOfRange`` for absurd scale factors.
    public func value(in unit: HKUnit) throws(HKUnitError) -> Double {
        if unit === storedUnit {
            return storedValue
        }
        return try HKUnit.convert(storedValue, from: storedUnit, to: unit)
    }

    /// Orders two compatible quantities.
    ///
    /// The other quantity is converted to this quantity's unit; values within a relative
    /// 10⁻¹² of each other are `.orderedSame`. NaN values compare as `.orderedSame`.
    /// Comparing incompatible quantities is a programmer error and stops the program, as
    /// HealthKit raises an exception; use ``compare(to:)`` to get an error instead.
    ///
    /// - Parameter quantity: A quantity compatible with this one.
    /// - Returns: `.orderedAscending` if this quantity is smaller.
    public func compare(_ quantity: HKQuantity) -> ComparisonResult {
        do {
            return try compare(to: quantity)
        } catch {
            preconditionFailure("HKQuantity.compare(_:): \(error)")
        }
    }

    /// Orders two quantities, throwing if they are incompatible.
    ///
    /// - Parameter quantity: Another quantity.
    /// - Returns: The ordering, as ``compare(_:)`` computes it.
    /// - Throws: ``HKUnitError/Kind/incompatibleUnits`` if the quantities measure different things.
    public func compare(to quantity: HKQuantity) throws(HKUnitError) -> ComparisonResult {
        let lhs = storedValue
        let rhs = try quantity.value(in: storedUnit)
        if lhs == rhs || abs(lhs - rhs) <= Self.comparisonRelativeTolerance * max(abs(lhs), abs(rhs)) {
            return .orderedSame
        }
        if lhs < rhs {
            return .orderedAscending
        }
        if lhs > rhs {
            return .orderedDescending
        }
        return .orderedSame
    }

    // MARK: - NSObject

    /// Whether `object` is a quantity of the same dimension with exactly the same SI base value.
    ///
    /// Equality is exact (1 kg equals 1000 g) so that it agrees with ``hash``; use
    /// ``compare(_:)`` for a comparison that tolerates conversion rounding.
    ///
    /// - Parameter object: The object to compare.
    /// - Returns: `true` for an equal quantity.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKQuantity else { return false }
        if other === self {
            return true
        }
        return storedUnit.dimension == other.storedUnit.dimension && baseValue == other.baseValue
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(storedUnit.dimension)
        hasher.combine(baseValue == 0 ? 0 : baseValue)
        return hasher.finalize()
    }

    /// The value and unit string, as HealthKit prints them, e.g. `72 count/min`.
    public override var description: String {
        var number = storedValue.description
        if number.hasSuffix(".0") {
            number.removeLast(2)
        }
        return "\(number) \(storedUnit.unitString)"
    }

    // MARK: - NSCopying, NSSecureCoding

    /// Returns `self`; quantities are immutable.
    ///
    /// - Parameter zone: Ignored.
    /// - Returns: This quantity.
    public func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// `true`: quantities decode from a unit string and a number.
    public static var supportsSecureCoding: Bool {
        true
    }

    private static let unitKey = "HKQuantityUnitKey"
    private static let valueKey = "HKQuantityValueKey"

    /// Encodes the unit string and the value.
    ///
    /// - Parameter coder: The coder.
    public func encode(with coder: NSCoder) {
        coder.encode(storedUnit.unitString as NSString, forKey: Self.unitKey)
        coder.encode(storedValue, forKey: Self.valueKey)
    }

    /// Decodes a quantity; fails if the unit is missing or does not parse.
    ///
    /// - Parameter coder: The coder.
    public convenience init?(coder: NSCoder) {
        guard let string = coder.decodeObject(of: NSString.self, forKey: Self.unitKey),
            let unit = try? HKUnit.parse(string as String)
        else {
            return nil
        }
        self.init(unit: unit, doubleValue: coder.decodeDouble(forKey: Self.valueKey))
    }
}
