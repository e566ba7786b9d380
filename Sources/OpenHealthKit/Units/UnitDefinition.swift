import Foundation

/// One row of the unit table: how a root unit is spelled, what it measures and how it
/// converts to coherent SI base units (kg, m, s, K, A, mol, cd; plus the extra axes of
/// ``UnitDimension``).
///
/// ## Constants
///
/// Exact legal definitions are used where they exist, so conversions are exact to the
/// last bits of a `Double`:
/// - mass: `lb` = 0.45359237 kg, `oz` = `lb`/16, `st` = 14 `lb`;
///   `mol<M>` = M g (the molar mass makes a mole unit a *mass* unit, as in HealthKit).
/// - length: `in` = 0.0254 m, `ft` = 0.3048 m, `yd` = 0.9144 m, `mi` = 1609.344 m.
/// - pressure: `mmHg` = 133.322387415 Pa (conventional), `cmAq` = 98.0665 Pa,
///   `atm` = 101325 Pa, `inHg` = 25.4 `mmHg` = 3386.388640341 Pa;
///   `dBASPL` is logarithmic: p = 2×10⁻⁵ Pa × 10^(dB/20).
/// - volume: `fl_oz_us` = 29.5735295625 mL, `fl_oz_imp` = 28.4130625 mL,
///   `pt_us` = 473.176473 mL, `pt_imp` = 568.26125 mL, `cup_us` = 236.5882365 mL,
///   `cup_imp` = 284.130625 mL (the values in HealthKit's documentation).
/// - time: `min` = 60 s, `hr` = 3600 s, `d` = 86400 s.
/// - energy: `cal` = 4.184 J, `Cal` = `kcal` = 4184 J.
/// - temperature: `degC` = K − 273.15, `degF` = 1.8 K − 459.67 (affine; see ``Conversion``).
/// - angle: `deg` = π/180 `rad`.
/// - scalars: `count` = 1 and `%` = 1. HealthKit's percent unit holds fractions
///   (0.2 `%` is twenty percent), so a value converts 1:1 between `%` and `count`.
struct UnitDefinition: Sendable {
    /// How values in the unit map to the SI base value.
    enum Conversion: Sendable {
        /// base = value × scale.
        case linear
        /// base = (value + offset) × scale, when the unit stands alone (`degC`, `degF`).
        /// Inside a compound unit (`degC/min`) only the scale applies, as HealthKit does for
        /// temperature rates.
        case affine(offset: Double)
        /// base = reference × 10^(value / multiplier), when the unit stands alone (`dBASPL`).
        /// Inside a compound unit the unit is linear with scale 1 along `compoundDimension`,
        /// so `dBASPL/s` converts only to other `dBASPL`-per-time units.
        case logarithmic(reference: Double, multiplier: Double, compoundDimension: UnitDimension)
    }

    /// The unit this row defines.
    let root: UnitRoot
    /// The canonical spelling, e.g. `L`, `degC`, `fl_oz_us`.
    let symbol: String
    /// Other accepted spellings (`l` for liter).
    let aliases: [String]
    /// SI base units per one unit (for affine units: per degree).
    let scale: Double
    /// What the unit measures when it stands alone.
    let dimension: UnitDimension
    /// Linear, affine or logarithmic.
    let conversion: Conversion
    /// Whether metric prefixes may be attached (SI units only).
    let acceptsPrefix: Bool
    /// Whether the unit must be followed by `<molar mass>` (the mole).
    let requiresMolarMass: Bool
    /// Position of the unit's family in canonical strings (lower first), chosen so that
    /// compound units print as HealthKit prints them, e.g. `mL/min·kg` and `kcal/hr·kg`.
    let sortRank: Int

    /// The dimension the unit contributes inside a compound unit.
    var compoundDimension: UnitDimension {
        if case .logarithmic(_, _, let compoundDimension) = conversion {
            return compoundDimension
        }
        return dimension
    }

    /// All rows, indexed by `UnitRoot.rawValue`.
    static let table: [UnitDefinition] = UnitRoot.allCases.map(UnitDefinition.make)

    /// Rows for units that take no prefix, by every accepted spelling.
    static let unprefixedBySpelling: [String: UnitDefinition] = spellingIndex(prefixable: false)

    /// Rows for SI units that take prefixes, by every accepted spelling.
    static let prefixableBySpelling: [String: UnitDefinition] = spellingIndex(prefixable: true)

    private static func spellingIndex(prefixable: Bool) -> [String: UnitDefinition] {
        var index: [String: UnitDefinition] = [:]
        for definition in table where definition.acceptsPrefix == prefixable {
            for spelling in [definition.symbol] + definition.aliases {
                index[spelling] = definition
            }
        }
        return index
    }

    // Families, in canonical print order.
    private enum Rank {
        static let scalar = 0
        static let pharmacology = 1
        static let energy = 2
        static let power = 3
        static let volume = 4
        static let pressure = 5
        static let time = 6
        static let mass = 7
        static let length = 8
        static let temperature = 9
        static let electrical = 10
        static let frequency = 11
        static let light = 12
        static let angle = 13
        static let optics = 14
        static let hearing = 15
        static let effort = 16
    }

    // Dimensions.
    private static let mass = UnitDimension([.mass: 1])
    private static let length = UnitDimension([.length: 1])
    private static let volume = UnitDimension([.length: 3])
    private static let time = UnitDimension([.time: 1])
    private static let pressure = UnitDimension([.mass: 1, .length: -1, .time: -2])
    private static let energy = UnitDimension([.mass: 1, .length: 2, .time: -2])
    private static let power = UnitDimension([.mass: 1, .length: 2, .time: -3])
    private static let temperature = UnitDimension([.temperature: 1])

    private static let poundInKilograms = 0.45359237
    private static let millimeterOfMercuryInPascals = 133.322387415

    private static func make(_ root: UnitRoot) -> UnitDefinition {
        func row(
            _ symbol: String,
            _ scale: Double,
            _ dimension: UnitDimension,
            rank: Int,
            prefix: Bool = false,
            aliases: [String] = [],
            conversion: Conversion = .linear,
            molarMass: Bool = false
        ) -> UnitDefinition {
            UnitDefinition(
                root: root,
                symbol: symbol,
                aliases: aliases,
                scale: scale,
                dimension: dimension,
                conversion: conversion,
                acceptsPrefix: prefix,
                requiresMolarMass: molarMass,
                sortRank: rank
            )
        }

        switch root {
        // SI units (prefixable).
        case .gram:
            return row("g", 1e-3, mass, rank: Rank.mass, prefix: true)
        case .meter:
            return row("m", 1, length, rank: Rank.length, prefix: true)
        case .liter:
            return row("L", 1e-3, volume, rank: Rank.volume, prefix: true, aliases: ["l"])
        case .pascal:
            return row("Pa", 1, pressure, rank: Rank.pressure, prefix: true)
        case .second:
            return row("s", 1, time, rank: Rank.time, prefix: true)
        case .joule:
            return row("J", 1, energy, rank: Rank.energy, prefix: true)
        case .kelvin:
            return row("K", 1, temperature, rank: Rank.temperature, prefix: true)
        case .siemens:
            return row("S", 1, UnitDimension([.mass: -1, .length: -2, .time: 3, .current: 2]), rank: Rank.electrical, prefix: true)
        case .hertz:
            return row("Hz", 1, UnitDimension([.time: -1]), rank: Rank.frequency, prefix: true)
        case .volt:
            return row("V", 1, UnitDimension([.mass: 1, .length: 2, .time: -3, .current: -1]), rank: Rank.electrical, prefix: true)
        case .watt:
            return row("W", 1, power, rank: Rank.power, prefix: true)
        case .mole:
            // 1 mol<M> = M grams: the scale is multiplied by the molar mass in UnitAtom.
            return row("mol", 1e-3, mass, rank: Rank.mass, prefix: true, molarMass: true)
        case .lux:
            return row("lx", 1, UnitDimension([.luminousIntensity: 1, .length: -2]), rank: Rank.light, prefix: true)
        case .radian:
            return row("rad", 1, UnitDimension([.angle: 1]), rank: Rank.angle, prefix: true)

        // Mass.
        case .ounce:
            return row("oz", poundInKilograms / 16, mass, rank: Rank.mass)
        case .pound:
            return row("lb", poundInKilograms, mass, rank: Rank.mass)
        case .stone:
            return row("st", poundInKilograms * 14, mass, rank: Rank.mass)

        // Length.
        case .inch:
            return row("in", 0.0254, length, rank: Rank.length)
        case .foot:
            return row("ft", 0.3048, length, rank: Rank.length)
        case .yard:
            return row("yd", 0.9144, length, rank: Rank.length)
        case .mile:
            return row("mi", 1609.344, length, rank: Rank.length)

        // Pressure.
        case .millimeterOfMercury:
            return row("mmHg", millimeterOfMercuryInPascals, pressure, rank: Rank.pressure)
        case .centimeterOfWater:
            return row("cmAq", 98.0665, pressure, rank: Rank.pressure)
        case .atmosphere:
            return row("atm", 101_325, pressure, rank: Rank.pressure)
        case .inchOfMercury:
            return row("inHg", millimeterOfMercuryInPascals * 25.4, pressure, rank: Rank.pressure)
        case .decibelAWeightedSoundPressureLevel:
            return row(
                "dBASPL", 1, pressure, rank: Rank.pressure,
                conversion: .logarithmic(reference: 2e-5, multiplier: 20, compoundDimension: UnitDimension([.soundPressureLevel: 1]))
            )

        // Volume.
        case .fluidOunceUS:
            return row("fl_oz_us", 29.5735295625e-6, volume, rank: Rank.volume)
        case .fluidOunceImperial:
            return row("fl_oz_imp", 28.4130625e-6, volume, rank: Rank.volume)
        case .pintUS:
            return row("pt_us", 473.176473e-6, volume, rank: Rank.volume)
        case .pintImperial:
            return row("pt_imp", 568.26125e-6, volume, rank: Rank.volume)
        case .cupUS:
            return row("cup_us", 236.5882365e-6, volume, rank: Rank.volume)
        case .cupImperial:
            return row("cup_imp", 284.130625e-6, volume, rank: Rank.volume)

        // Time.
        case .minute:
            return row("min", 60, time, rank: Rank.time)
        case .hour:
            return row("hr", 3600, time, rank: Rank.time)
        case .day:
            return row("d", 86400, time, rank: Rank.time)

        // Energy.
        case .smallCalorie:
            return row("cal", 4.184, energy, rank: Rank.energy)
        case .largeCalorie:
            return row("Cal", 4184, energy, rank: Rank.energy)
        case .kilocalorie:
            return row("kcal", 4184, energy, rank: Rank.energy)

        // Temperature.
        case .degreeCelsius:
            return row("degC", 1, temperature, rank: Rank.temperature, conversion: .affine(offset: 273.15))
        case .degreeFahrenheit:
            return row("degF", 5.0 / 9.0, temperature, rank: Rank.temperature, conversion: .affine(offset: 459.67))

        // Scalars and HealthKit-specific quantities.
        case .internationalUnit:
            return row("IU", 1, UnitDimension([.internationalUnit: 1]), rank: Rank.pharmacology)
        case .count:
            return row("count", 1, .dimensionless, rank: Rank.scalar)
        case .percent:
            return row("%", 1, .dimensionless, rank: Rank.scalar)
        case .decibelHearingLevel:
            return row("dBHL", 1, UnitDimension([.hearingLevel: 1]), rank: Rank.hearing)
        case .diopter:
            return row("D", 1, UnitDimension([.opticalPower: 1]), rank: Rank.optics)
        case .prismDiopter:
            return row("pD", 1, UnitDimension([.prismaticPower: 1]), rank: Rank.optics)
        case .degreeAngle:
            return row("deg", Double.pi / 180, UnitDimension([.angle: 1]), rank: Rank.angle)
        case .appleEffortScore:
            return row("appleEffortScore", 1, UnitDimension([.effortScore: 1]), rank: Rank.effort)
        }
    }
}
