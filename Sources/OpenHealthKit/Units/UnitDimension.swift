/// The exponents of a unit over the base dimensions the unit engine knows.
///
/// Two units are compatible (convertible) exactly when their dimensions are equal. Besides
/// the SI base quantities the vector has axes for quantities HealthKit treats as their own
/// kind: international units (IU), angles, optical and prismatic power (diopters), hearing
/// level (dBHL), Apple's effort score, and a sound-pressure-level axis used for `dBASPL`
/// inside compound units (a bare `dBASPL` has the dimension of pressure instead, see
/// ``UnitDefinition/Conversion/logarithmic(reference:multiplier:compoundDimension:)``).
struct UnitDimension: Hashable, Sendable {
    /// One axis of the dimension vector.
    enum Axis: Int, CaseIterable, Sendable {
        case mass
        case length
        case time
        case temperature
        case current
        case amountOfSubstance
        case luminousIntensity
        case angle
        case internationalUnit
        case opticalPower
        case prismaticPower
        case hearingLevel
        case effortScore
        case soundPressureLevel
    }

    /// Exponent per axis, indexed by `Axis.rawValue`; unused lanes stay zero.
    private(set) var exponents: SIMD16<Int64>

    /// The dimension of pure numbers (`count`, `%`, `()`).
    static let dimensionless = UnitDimension(exponents: .zero)

    private init(exponents: SIMD16<Int64>) {
        self.exponents = exponents
    }

    /// Creates a dimension from axis/exponent pairs, e.g. `[.mass: 1, .length: -1, .time: -2]` for pressure.
    init(_ components: KeyValuePairs<Axis, Int>) {
        var exponents = SIMD16<Int64>.zero
        for (axis, exponent) in components {
            exponents[axis.rawValue] &+= Int64(exponent)
        }
        self.exponents = exponents
    }

    /// `self + other × power`, the dimension of `self · other^power`.
    ///
    /// Exponents are bounded by ``HKUnitError/maximumExponentMagnitude`` before they get
    /// here, so wrapping arithmetic never actually wraps.
    func adding(_ other: UnitDimension, raisedTo power: Int) -> UnitDimension {
        UnitDimension(exponents: exponents &+ other.exponents &* SIMD16(repeating: Int64(power)))
    }

    /// The exponent of one axis.
    subscript(axis: Axis) -> Int64 {
        exponents[axis.rawValue]
    }
}
