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

    // One stored exponent per axis. Plain stored properties (not a SIMD vector or an
    // array) keep `==`, which every conversion performs, to a few integer compares.
    private var mass: Int = 0
    private var length: Int = 0
    private var time: Int = 0
    private var temperature: Int = 0
    private var current: Int = 0
    private var amountOfSubstance: Int = 0
    private var luminousIntensity: Int = 0
    private var angle: Int = 0
    private var internationalUnit: Int = 0
    private var opticalPower: Int = 0
    private var prismaticPower: Int = 0
    private var hearingLevel: Int = 0
    private var effortScore: Int = 0
    private var soundPressureLevel: Int = 0

    /// The dimension of pure numbers (`count`, `%`, `()`).
    static let dimensionless = UnitDimension()

    private init() {}

    /// Creates a dimension from axis/exponent pairs, e.g. `[.mass: 1, .length: -1, .time: -2]` for pressure.
    init(_ components: KeyValuePairs<Axis, Int>) {
        for (axis, exponent) in components {
            self[axis] += exponent
        }
    }

    /// `self + other × power`, the dimension of `self · other^power`.
    ///
    /// Exponents are bounded by ``HKUnitError/maximumExponentMagnitude`` before they get
    /// here, so wrapping arithmetic never actually wraps.
    func adding(_ other: UnitDimension, raisedTo power: Int) -> UnitDimension {
        var result = self
        for axis in Axis.allCases {
            result[axis] = self[axis] &+ other[axis] &* power
        }
        return result
    }

    /// The exponent of one axis.
    subscript(axis: Axis) -> Int {
        get {
            switch axis {
            case .mass: mass
            case .length: length
            case .time: time
            case .temperature: temperature
            case .current: current
            case .amountOfSubstance: amountOfSubstance
            case .luminousIntensity: luminousIntensity
            case .angle: angle
            case .internationalUnit: internationalUnit
            case .opticalPower: opticalPower
            case .prismaticPower: prismaticPower
            case .hearingLevel: hearingLevel
            case .effortScore: effortScore
            case .soundPressureLevel: soundPressureLevel
            }
        }
        set {
            switch axis {
            case .mass: mass = newValue
            case .length: length = newValue
            case .time: time = newValue
            case .temperature: temperature = newValue
            case .current: current = newValue
            case .amountOfSubstance: amountOfSubstance = newValue
            case .luminousIntensity: luminousIntensity = newValue
            case .angle: angle = newValue
            case .internationalUnit: internationalUnit = newValue
            case .opticalPower: opticalPower = newValue
            case .prismaticPower: prismaticPower = newValue
            case .hearingLevel: hearingLevel = newValue
            case .effortScore: effortScore = newValue
            case .soundPressureLevel: soundPressureLevel = newValue
            }
        }
    }
}
