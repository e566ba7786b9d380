import Foundation

/// A unit of measure, mirroring HealthKit's `HKUnit`.
///
/// Create units with the factory methods (``gram()``, ``meterUnit(with:)``,
/// ``moleUnit(with:molarMass:)`` …), with the unit algebra (``unitDivided(by:)`` …) or from
/// a unit string:
///
/// ```swift
/// let glucose = HKUnit(from: "mg/dL")                 // traps on a bad string, like HealthKit
/// let checked = try HKUnit.parse(clientString)         // throws HKUnitError instead
/// let vo2Max = HKUnit.literUnit(with: .milli)
///     .unitDivided(by: .gramUnit(with: .kilo).unitMultiplied(by: .minute()))
/// vo2Max.unitString                                   // "mL/min·kg"
/// ```
///
/// ## Canonical strings and equality
///
/// ``unitString`` is canonical: every spelling of a unit prints the same way and parses back
/// to an equal unit (`HKUnit(from: u.unitString) == u`). The format is HealthKit's: factors
/// joined by `·`, one `/`, no parentheses, positive powers as `^n` in the denominator,
/// micro as `mc`, liters as `L`, molar masses with 16 significant digits — so
/// `mg/dl` prints `mg/dL`, `ml/(kg*min)` prints `mL/min·kg`, `kcal/(kg*hr)` prints
/// `kcal/hr·kg` and `mmol<180.15588000005408>/L` prints `mmol<180.1558800000541>/L`,
/// exactly as HealthKit does.
///
/// Two units are equal when they have the same factors with the same exponents. Molar masses
/// compare numerically: they are normalized to 10 significant digits, and values that round
/// like ``HKUnitMolarMassBloodGlucose`` become that constant, so `mmol<180.15588>/L`,
/// `mmol<180.15588000005408>/L` and `mmol<180.1558800000541>/L` are one unit. Units of the same dimension with different
/// factors — `g` and `lb`, `J` and `kg·m^2/s^2`, `kcal` and `Cal` — are not equal but are
/// compatible: quantities convert between them.
///
/// ## Conversions
///
/// Every unit maps to the SI base value of its dimension. Temperatures are affine only when
/// they stand alone (`degC`, `degF`); inside a compound unit such as `degC/min` they convert
/// by their scale alone, as HealthKit does for temperature rates. A bare `dBASPL` converts to
/// pascals logarithmically (p = 2×10⁻⁵ Pa × 10^(dB/20)). A mole unit carries its molar mass
/// and is a *mass* unit, which is how `mg/dL` and `mmol<180.15588000005408>/L` interconvert;
/// this is the only bridge between mass and amount of substance. `%` holds fractions
/// (0.2 `%` is 20 percent) and converts 1:1 to `count`.
///
/// Instances are immutable and safe to share between threads.
public final class HKUnit: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The normalized factors.
    let factorization: UnitFactorization
    /// What the unit measures; equal dimensions mean compatible units.
    let dimension: UnitDimension
    /// How values map to the SI base value.
    let mapping: UnitMapping
    private let cachedHash: Int

    /// The canonical string for the unit, which `HKUnit(from:)` accepts.
    ///
    /// HealthKit: "a unique string representation for the unit that could be used with
    /// unitFromString". See the type documentation for the format.
    public let unitString: String

    /// Creates a unit from a normalized factorization.
    init(factorization: UnitFactorization) {
        self.factorization = factorization
        self.unitString = factorization.canonicalString

        let factors = factorization.factors
        if factors.count == 1, factors[0].exponent == 1 {
            let atom = factors[0].atom
            let definition = atom.root.definition
            self.dimension = definition.dimension
            switch definition.conversion {
            case .linear:
                self.mapping = .linear(scale: atom.scale)
            case .affine(let offset):
                self.mapping = .affine(scale: atom.scale, offset: offset)
            case .logarithmic(let reference, let multiplier, _):
                self.mapping = .logarithmic(reference: reference, multiplier: multiplier)
            }
        } else {
            var dimension = UnitDimension.dimensionless
            var scale = 1.0
            for factor in factors {
                dimension = dimension.adding(factor.atom.root.definition.compoundDimension, raisedTo: factor.exponent)
                switch factor.exponent {
                case 1: scale *= factor.atom.scale
                case -1: scale /= factor.atom.scale
                default: scale *= pow(factor.atom.scale, Double(factor.exponent))
                }
            }
            self.dimension = dimension
            self.mapping = .linear(scale: scale)
        }

        var hasher = Hasher()
        factorization.hash(into: &hasher)
        self.cachedHash = hasher.finalize()
        super.init()
    }

    /// Creates a unit from one atom to the first power.
    convenience init(atom: UnitAtom) {
        self.init(factorization: UnitFactorization(atom: atom))
    }

    private init(copying other: HKUnit) {
        self.factorization = other.factorization
        self.dimension = other.dimension
        self.mapping = other.mapping
        self.cachedHash = other.cachedHash
        self.unitString = other.unitString
        super.init()
    }

    /// Creates a unit from a unit string, e.g. `count/min`, `mg/dL` or `mmol<180.15588000005408>/L`.
    ///
    /// Like HealthKit's initializer this does not throw: HealthKit raises an
    /// `NSInvalidArgumentException` for a string it cannot parse, and this initializer stops
    /// the program with a `preconditionFailure` naming the string and the problem. Use it for
    /// literals in code; for strings that come from outside, use ``parse(_:)``.
    ///
    /// - Parameter string: A unit string in HealthKit's grammar.
    public convenience init(from string: String) {
        let unit: HKUnit
        do {
            unit = try HKUnit.parse(string)
        } catch {
            preconditionFailure("HKUnit(from:) cannot parse the unit string: \(error)")
        }
        self.init(copying: unit)
    }

    /// Parses a unit string, throwing a typed error instead of trapping.
    ///
    /// This is the entry point for every unit string that arrives from outside (clients,
    /// files, databases). Results are cached per exact input string.
    ///
    /// - Parameter string: A unit string in HealthKit's grammar, e.g. `ml/(kg*min)`.
    /// - Returns: The unit.
    /// - Throws: ``HKUnitError`` with the kind of problem and its position.
    public static func parse(_ string: String) throws(HKUnitError) -> HKUnit {
        if let cached = UnitParseCache.shared.unit(for: string) {
            return cached
        }
        let unit = HKUnit(factorization: try UnitParser.parse(string))
        UnitParseCache.shared.store(unit, for: string)
        return unit
    }

    // MARK: - Unit algebra

    /// The product of this unit and another, e.g. `kg` × `min` = `min·kg`.
    ///
    /// - Parameter unit: The unit to multiply by.
    /// - Returns: The product unit.
    public func unitMultiplied(by unit: HKUnit) -> HKUnit {
        HKUnit(factorization: Self.checked(factorization.multiplied(by: unit.factorization), "unitMultiplied(by:)"))
    }

    /// The quotient of this unit by another, e.g. `count` ÷ `min` = `count/min`.
    ///
    /// - Parameter unit: The unit to divide by.
    /// - Returns: The quotient unit.
    public func unitDivided(by unit: HKUnit) -> HKUnit {
        let reciprocal = Self.checked(unit.factorization.raised(to: -1), "unitDivided(by:)")
        return HKUnit(factorization: Self.checked(factorization.multiplied(by: reciprocal), "unitDivided(by:)"))
    }

    /// This unit raised to an integer power, e.g. `m` ^ 3 = `m^3`. A power of 0 gives the null unit.
    ///
    /// Exponents whose magnitude would exceed ``HKUnitError/maximumExponentMagnitude`` are a
    /// programmer error and stop the program.
    ///
    /// - Parameter power: The power.
    /// - Returns: The raised unit.
    public func unitRaised(toPower power: Int) -> HKUnit {
        HKUnit(factorization: Self.checked(factorization.raised(to: power), "unitRaised(toPower:)"))
    }

    /// The reciprocal of this unit, e.g. `1/s` for `s`.
    ///
    /// - Returns: The unit raised to the power −1.
    public func reciprocal() -> HKUnit {
        HKUnit(factorization: Self.checked(factorization.raised(to: -1), "reciprocal()"))
    }

    /// Whether this is the null (dimensionless, factor-free) unit, written `()`.
    ///
    /// - Returns: `true` for the null unit, e.g. the result of `m/m`.
    public func isNull() -> Bool {
        factorization.factors.isEmpty
    }

    private static func checked(_ factorization: UnitFactorization?, _ operation: String) -> UnitFactorization {
        guard let factorization else {
            preconditionFailure("HKUnit.\(operation): exponent exceeds \(HKUnitError.maximumExponentMagnitude) in magnitude")
        }
        return factorization
    }

    // MARK: - NSObject

    /// Whether `object` is an equal unit: same factors and exponents, molar masses equal to 10 significant digits.
    ///
    /// - Parameter object: The object to compare.
    /// - Returns: `true` if `object` is an ``HKUnit`` equal to this one.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKUnit else { return false }
        return isSameUnit(as: other)
    }

    /// ``isEqual(_:)`` without the dynamic cast, for hot paths.
    func isSameUnit(as other: HKUnit) -> Bool {
        other === self || (cachedHash == other.cachedHash && factorization.isEquivalent(to: other.factorization))
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int {
        cachedHash
    }

    /// The ``unitString``.
    public override var description: String {
        unitString
    }

    // MARK: - NSCopying, NSSecureCoding

    /// Returns `self`; units are immutable.
    ///
    /// - Parameter zone: Ignored.
    /// - Returns: This unit.
    public func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// `true`: units decode only from a string.
    public static var supportsSecureCoding: Bool {
        true
    }

    private static let codingKey = "HKUnitStringKey"

    /// Encodes the unit as its ``unitString``.
    ///
    /// - Parameter coder: The coder.
    public func encode(with coder: NSCoder) {
        coder.encode(unitString as NSString, forKey: Self.codingKey)
    }

    /// Decodes a unit from its string; fails if the string is missing or does not parse.
    ///
    /// - Parameter coder: The coder.
    public convenience init?(coder: NSCoder) {
        guard let string = coder.decodeObject(of: NSString.self, forKey: Self.codingKey),
            let unit = try? HKUnit.parse(string as String)
        else {
            return nil
        }
        self.init(copying: unit)
    }
}
