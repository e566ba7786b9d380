/// Every unprefixed unit the engine knows, one case per row of the definition table.
///
/// The raw values index ``UnitDefinition/table`` and are not persisted anywhere; unit
/// strings are the stable, persistable form.
enum UnitRoot: Int, CaseIterable, Sendable {
    // SI units; these take metric prefixes.
    case gram
    case meter
    case liter
    case pascal
    case second
    case joule
    case kelvin
    case siemens
    case hertz
    case volt
    case watt
    case mole
    case lux
    case radian

    // Units that take no prefix.
    case ounce
    case pound
    case stone
    case inch
    case foot
    case yard
    case mile
    case millimeterOfMercury
    case centimeterOfWater
    case atmosphere
    case inchOfMercury
    case decibelAWeightedSoundPressureLevel
    case fluidOunceUS
    case fluidOunceImperial
    case pintUS
    case pintImperial
    case cupUS
    case cupImperial
    case minute
    case hour
    case day
    case smallCalorie
    case largeCalorie
    case kilocalorie
    case degreeCelsius
    case degreeFahrenheit
    case internationalUnit
    case count
    case percent
    case decibelHearingLevel
    case diopter
    case prismDiopter
    case degreeAngle
    case appleEffortScore

    /// The definition row for this unit.
    var definition: UnitDefinition {
        UnitDefinition.table[rawValue]
    }
}
