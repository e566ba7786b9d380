/// The molar mass of glucose in grams per mole, HealthKit's `HKUnitMolarMassBloodGlucose`.
///
/// Use it for blood glucose in mmol/L:
/// `HKUnit.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose).unitDivided(by: .liter())`.
public let HKUnitMolarMassBloodGlucose: Double = 180.15588000005408

// The factory methods carry HealthKit's Swift names. They return `HKUnit` (HealthKit
// declares `Self`, which is the same type for this final class).
extension HKUnit {
    // MARK: - Mass

    /// The gram with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .gram, prefix: prefix))
    }

    /// The gram, `g`.
    ///
    /// - Returns: The unit.
    public static func gram() -> HKUnit {
        Cached.gram
    }

    /// A mole unit for a substance of the given molar mass, e.g. `mol<180.15588000005408>`.
    ///
    /// The molar mass makes a mole unit a mass unit (1 mol<M> = M g), which is how
    /// mmol/L and mg/dL interconvert.
    ///
    /// - Parameter gramsPerMole: The molar mass in grams per mole; must be finite and greater than zero.
    /// - Returns: The mole unit.
    public static func moleUnit(withMolarMass gramsPerMole: Double) -> HKUnit {
        moleUnit(with: .none, molarMass: gramsPerMole)
    }

    /// A prefixed mole unit for a substance of the given molar mass, e.g.
    /// `mmol<180.15588000005408>` for `(.milli, HKUnitMolarMassBloodGlucose)`.
    ///
    /// A molar mass that is not finite and positive is a programmer error and stops the
    /// program, as HealthKit raises an exception. Strings from outside go through
    /// ``HKUnit/parse(_:)``, which reports ``HKUnitError/Kind/invalidMolarMass`` instead.
    ///
    /// - Parameters:
    ///   - prefix: The metric prefix.
    ///   - gramsPerMole: The molar mass in grams per mole.
    /// - Returns: The mole unit.
    public static func moleUnit(with prefix: HKMetricPrefix, molarMass gramsPerMole: Double) -> HKUnit {
        precondition(
            gramsPerMole.isFinite && gramsPerMole > 0,
            "HKUnit.moleUnit: molar mass must be finite and greater than zero, got \(gramsPerMole)"
        )
        return HKUnit(atom: UnitAtom(root: .mole, prefix: prefix, molarMass: gramsPerMole))
    }

    /// The avoirdupois ounce, `oz` (28.349523125 g).
    ///
    /// - Returns: The unit.
    public static func ounce() -> HKUnit {
        Cached.ounce
    }

    /// The avoirdupois pound, `lb` (453.59237 g).
    ///
    /// - Returns: The unit.
    public static func pound() -> HKUnit {
        Cached.pound
    }

    /// The stone, `st` (14 lb = 6350.29318 g).
    ///
    /// - Returns: The unit.
    public static func stone() -> HKUnit {
        Cached.stone
    }

    // MARK: - Length

    /// The meter with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func meterUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .meter, prefix: prefix))
    }

    /// The meter, `m`.
    ///
    /// - Returns: The unit.
    public static func meter() -> HKUnit {
        Cached.meter
    }

    /// The inch, `in` (0.0254 m).
    ///
    /// - Returns: The unit.
    public static func inch() -> HKUnit {
        Cached.inch
    }

    /// The foot, `ft` (0.3048 m).
    ///
    /// - Returns: The unit.
    public static func foot() -> HKUnit {
        Cached.foot
    }

    /// The yard, `yd` (0.9144 m).
    ///
    /// - Returns: The unit.
    public static func yard() -> HKUnit {
        Cached.yard
    }

    /// The statute mile, `mi` (1609.344 m).
    ///
    /// - Returns: The unit.
    public static func mile() -> HKUnit {
        Cached.mile
    }

    // MARK: - Volume

    /// The liter with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func literUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .liter, prefix: prefix))
    }

    /// The liter, `L`.
    ///
    /// - Returns: The unit.
    public static func liter() -> HKUnit {
        Cached.liter
    }

    /// The US fluid ounce, `fl_oz_us` (29.5735295625 mL).
    ///
    /// - Returns: The unit.
    public static func fluidOunceUS() -> HKUnit {
        Cached.fluidOunceUS
    }

    /// The imperial fluid ounce, `fl_oz_imp` (28.4130625 mL).
    ///
    /// - Returns: The unit.
    public static func fluidOunceImperial() -> HKUnit {
        Cached.fluidOunceImperial
    }

    /// The US pint, `pt_us` (473.176473 mL).
    ///
    /// - Returns: The unit.
    public static func pintUS() -> HKUnit {
        Cached.pintUS
    }

    /// The imperial pint, `pt_imp` (568.26125 mL).
    ///
    /// - Returns: The unit.
    public static func pintImperial() -> HKUnit {
        Cached.pintImperial
    }

    /// The US cup, `cup_us` (236.5882365 mL).
    ///
    /// - Returns: The unit.
    public static func cupUS() -> HKUnit {
        Cached.cupUS
    }

    /// The imperial cup, `cup_imp` (284.130625 mL).
    ///
    /// - Returns: The unit.
    public static func cupImperial() -> HKUnit {
        Cached.cupImperial
    }

    // MARK: - Pressure

    /// The pascal with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func pascalUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .pascal, prefix: prefix))
    }

    /// The pascal, `Pa`.
    ///
    /// - Returns: The unit.
    public static func pascal() -> HKUnit {
        Cached.pascal
    }

    /// The millimeter of mercury, `mmHg` (133.322387415 Pa).
    ///
    /// - Returns: The unit.
    public static func millimeterOfMercury() -> HKUnit {
        Cached.millimeterOfMercury
    }

    /// The centimeter of water, `cmAq` (98.0665 Pa).
    ///
    /// - Returns: The unit.
    public static func centimeterOfWater() -> HKUnit {
        Cached.centimeterOfWater
    }

    /// The standard atmosphere, `atm` (101325 Pa).
    ///
    /// - Returns: The unit.
    public static func atmosphere() -> HKUnit {
        Cached.atmosphere
    }

    /// The A-weighted sound pressure level in decibels, `dBASPL`.
    ///
    /// Logarithmic: a level L converts to 2×10⁻⁵ Pa × 10^(L/20).
    ///
    /// - Returns: The unit.
    public static func decibelAWeightedSoundPressureLevel() -> HKUnit {
        Cached.decibelAWeightedSoundPressureLevel
    }

    /// The inch of mercury, `inHg` (25.4 mmHg = 3386.388640341 Pa).
    ///
    /// - Returns: The unit.
    public static func inchesOfMercury() -> HKUnit {
        Cached.inchesOfMercury
    }

    // MARK: - Time

    /// The second with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .second, prefix: prefix))
    }

    /// The second, `s`.
    ///
    /// - Returns: The unit.
    public static func second() -> HKUnit {
        Cached.second
    }

    /// The minute, `min` (60 s).
    ///
    /// - Returns: The unit.
    public static func minute() -> HKUnit {
        Cached.minute
    }

    /// The hour, `hr` (3600 s).
    ///
    /// - Returns: The unit.
    public static func hour() -> HKUnit {
        Cached.hour
    }

    /// The day, `d` (86400 s).
    ///
    /// - Returns: The unit.
    public static func day() -> HKUnit {
        Cached.day
    }

    // MARK: - Energy

    /// The joule with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .joule, prefix: prefix))
    }

    /// The joule, `J`.
    ///
    /// - Returns: The unit.
    public static func joule() -> HKUnit {
        Cached.joule
    }

    /// The kilocalorie, `kcal` (4184 J).
    ///
    /// - Returns: The unit.
    public static func kilocalorie() -> HKUnit {
        Cached.kilocalorie
    }

    /// The small calorie, `cal` (4.184 J).
    ///
    /// - Returns: The unit.
    public static func smallCalorie() -> HKUnit {
        Cached.smallCalorie
    }

    /// The small calorie, `cal` (4.184 J).
    ///
    /// - Returns: The unit.
    @available(*, deprecated, message: "Use smallCalorie or largeCalorie, depending on the desired unit")
    public static func calorie() -> HKUnit {
        Cached.smallCalorie
    }

    /// The large (food) calorie, `Cal` (4184 J).
    ///
    /// - Returns: The unit.
    public static func largeCalorie() -> HKUnit {
        Cached.largeCalorie
    }

    // MARK: - Temperature

    /// The degree Celsius, `degC` (K − 273.15; affine when alone).
    ///
    /// - Returns: The unit.
    public static func degreeCelsius() -> HKUnit {
        Cached.degreeCelsius
    }

    /// The degree Fahrenheit, `degF` (1.8 K − 459.67; affine when alone).
    ///
    /// - Returns: The unit.
    public static func degreeFahrenheit() -> HKUnit {
        Cached.degreeFahrenheit
    }

    /// The kelvin, `K`.
    ///
    /// - Returns: The unit.
    public static func kelvin() -> HKUnit {
        Cached.kelvin
    }

    // MARK: - Electrical conductance, potential and power

    /// The siemens with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func siemenUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .siemens, prefix: prefix))
    }

    /// The siemens, `S`.
    ///
    /// - Returns: The unit.
    public static func siemen() -> HKUnit {
        Cached.siemen
    }

    /// The volt with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func voltUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .volt, prefix: prefix))
    }

    /// The volt, `V`.
    ///
    /// - Returns: The unit.
    public static func volt() -> HKUnit {
        Cached.volt
    }

    /// The watt with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func wattUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .watt, prefix: prefix))
    }

    /// The watt, `W`.
    ///
    /// - Returns: The unit.
    public static func watt() -> HKUnit {
        Cached.watt
    }

    // MARK: - Pharmacology

    /// The international unit, `IU`. It has no conversion to mass.
    ///
    /// - Returns: The unit.
    public static func internationalUnit() -> HKUnit {
        Cached.internationalUnit
    }

    // MARK: - Scalars

    /// The count, `count`: a pure number.
    ///
    /// - Returns: The unit.
    public static func count() -> HKUnit {
        Cached.count
    }

    /// The percent unit, `%`.
    ///
    /// As in HealthKit, values are fractions: 0.2 `%` is twenty percent, and a value
    /// converts 1:1 to ``count()``.
    ///
    /// - Returns: The unit.
    public static func percent() -> HKUnit {
        Cached.percent
    }

    // MARK: - Hearing sensitivity

    /// The decibel hearing level, `dBHL`.
    ///
    /// - Returns: The unit.
    public static func decibelHearingLevel() -> HKUnit {
        Cached.decibelHearingLevel
    }

    // MARK: - Frequency

    /// The hertz with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func hertzUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .hertz, prefix: prefix))
    }

    /// The hertz, `Hz` (1/s).
    ///
    /// - Returns: The unit.
    public static func hertz() -> HKUnit {
        Cached.hertz
    }

    // MARK: - Optics and angles

    /// The diopter, `D`, for lens power.
    ///
    /// - Returns: The unit.
    public static func diopter() -> HKUnit {
        Cached.diopter
    }

    /// The prism diopter, `pD`, for prism power.
    ///
    /// - Returns: The unit.
    public static func prismDiopter() -> HKUnit {
        Cached.prismDiopter
    }

    /// The radian with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func radianAngleUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .radian, prefix: prefix))
    }

    /// The radian, `rad`.
    ///
    /// - Returns: The unit.
    public static func radianAngle() -> HKUnit {
        Cached.radianAngle
    }

    /// The degree of angle, `deg` (π/180 rad).
    ///
    /// - Returns: The unit.
    public static func degreeAngle() -> HKUnit {
        Cached.degreeAngle
    }

    // MARK: - Illuminance

    /// The lux with a metric prefix, e.g. `k` for ``HKMetricPrefix/kilo``.
    ///
    /// - Parameter prefix: The metric prefix.
    /// - Returns: The prefixed unit.
    public static func luxUnit(with prefix: HKMetricPrefix) -> HKUnit {
        HKUnit(atom: UnitAtom(root: .lux, prefix: prefix))
    }

    /// The lux, `lx`.
    ///
    /// - Returns: The unit.
    public static func lux() -> HKUnit {
        Cached.lux
    }

    // MARK: - Effort

    /// Apple's workout effort score, `appleEffortScore`.
    ///
    /// - Returns: The unit.
    public static func appleEffortScore() -> HKUnit {
        Cached.appleEffortScore
    }

}

/// Shared instances of the unprefixed units.
private enum Cached {
    static let gram = HKUnit(atom: UnitAtom(root: .gram))
    static let ounce = HKUnit(atom: UnitAtom(root: .ounce))
    static let pound = HKUnit(atom: UnitAtom(root: .pound))
    static let stone = HKUnit(atom: UnitAtom(root: .stone))
    static let meter = HKUnit(atom: UnitAtom(root: .meter))
    static let inch = HKUnit(atom: UnitAtom(root: .inch))
    static let foot = HKUnit(atom: UnitAtom(root: .foot))
    static let yard = HKUnit(atom: UnitAtom(root: .yard))
    static let mile = HKUnit(atom: UnitAtom(root: .mile))
    static let liter = HKUnit(atom: UnitAtom(root: .liter))
    static let fluidOunceUS = HKUnit(atom: UnitAtom(root: .fluidOunceUS))
    static let fluidOunceImperial = HKUnit(atom: UnitAtom(root: .fluidOunceImperial))
    static let pintUS = HKUnit(atom: UnitAtom(root: .pintUS))
    static let pintImperial = HKUnit(atom: UnitAtom(root: .pintImperial))
    static let cupUS = HKUnit(atom: UnitAtom(root: .cupUS))
    static let cupImperial = HKUnit(atom: UnitAtom(root: .cupImperial))
    static let pascal = HKUnit(atom: UnitAtom(root: .pascal))
    static let millimeterOfMercury = HKUnit(atom: UnitAtom(root: .millimeterOfMercury))
    static let centimeterOfWater = HKUnit(atom: UnitAtom(root: .centimeterOfWater))
    static let atmosphere = HKUnit(atom: UnitAtom(root: .atmosphere))
    static let decibelAWeightedSoundPressureLevel = HKUnit(atom: UnitAtom(root: .decibelAWeightedSoundPressureLevel))
    static let inchesOfMercury = HKUnit(atom: UnitAtom(root: .inchOfMercury))
    static let second = HKUnit(atom: UnitAtom(root: .second))
    static let minute = HKUnit(atom: UnitAtom(root: .minute))
    static let hour = HKUnit(atom: UnitAtom(root: .hour))
    static let day = HKUnit(atom: UnitAtom(root: .day))
    static let joule = HKUnit(atom: UnitAtom(root: .joule))
    static let kilocalorie = HKUnit(atom: UnitAtom(root: .kilocalorie))
    static let smallCalorie = HKUnit(atom: UnitAtom(root: .smallCalorie))
    static let largeCalorie = HKUnit(atom: UnitAtom(root: .largeCalorie))
    static let degreeCelsius = HKUnit(atom: UnitAtom(root: .degreeCelsius))
    static let degreeFahrenheit = HKUnit(atom: UnitAtom(root: .degreeFahrenheit))
    static let kelvin = HKUnit(atom: UnitAtom(root: .kelvin))
    static let siemen = HKUnit(atom: UnitAtom(root: .siemens))
    static let volt = HKUnit(atom: UnitAtom(root: .volt))
    static let watt = HKUnit(atom: UnitAtom(root: .watt))
    static let internationalUnit = HKUnit(atom: UnitAtom(root: .internationalUnit))
    static let count = HKUnit(atom: UnitAtom(root: .count))
    static let percent = HKUnit(atom: UnitAtom(root: .percent))
    static let decibelHearingLevel = HKUnit(atom: UnitAtom(root: .decibelHearingLevel))
    static let hertz = HKUnit(atom: UnitAtom(root: .hertz))
    static let diopter = HKUnit(atom: UnitAtom(root: .diopter))
    static let prismDiopter = HKUnit(atom: UnitAtom(root: .prismDiopter))
    static let radianAngle = HKUnit(atom: UnitAtom(root: .radian))
    static let degreeAngle = HKUnit(atom: UnitAtom(root: .degreeAngle))
    static let lux = HKUnit(atom: UnitAtom(root: .lux))
    static let appleEffortScore = HKUnit(atom: UnitAtom(root: .appleEffortScore))
}
