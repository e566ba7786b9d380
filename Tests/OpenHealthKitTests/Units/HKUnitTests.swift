import Foundation
import Testing

@testable import OpenHealthKit

struct HKUnitTests {
    // MARK: - Canonical strings (healthkit.md §1.2)

    /// Every canonical unit string of the quantity-type table, with what HealthKit prints for it.
    static let canonicalUnits: [(input: String, printed: String)] = [
        ("count", "count"),
        ("m", "m"),
        ("kcal", "kcal"),
        ("min", "min"),
        ("count/s", "count/s"),
        ("count/min", "count/min"),
        ("ms", "ms"),
        ("%", "%"),
        ("degC", "degC"),
        ("mmHg", "mmHg"),
        ("mg/dL", "mg/dL"),
        ("kg", "kg"),
        ("ml/(kg*min)", "mL/min·kg"),
        ("S", "S"),
        ("L", "L"),
        ("L/min", "L/min"),
        ("IU", "IU"),
        ("m/s", "m/s"),
        ("W", "W"),
        ("kcal/(kg*hr)", "kcal/hr·kg"),
        ("dBASPL", "dBASPL"),
        ("mL", "mL"),
        ("g", "g"),
        ("appleEffortScore", "appleEffortScore"),
        ("mmol<180.15588000005408>/L", "mmol<180.1558800000541>/L"),
    ]

    @Test func canonicalStringsOfQuantityTypeUnits() throws {
        for (input, printed) in Self.canonicalUnits {
            let unit = try HKUnit.parse(input)
            #expect(unit.unitString == printed, "\(input)")
            let reparsed = try HKUnit.parse(unit.unitString)
            #expect(reparsed == unit, "\(input)")
            #expect(reparsed.unitString == printed, "\(input)")
            #expect(HKUnit(from: printed) == unit, "\(input)")
        }
    }

    @Test func healthKitPrintedFormsParseBack() throws {
        // Strings as they appear in Apple Health exports and HealthKit's prewarm cache.
        #expect(try HKUnit.parse("mL/min·kg") == HKUnit.parse("ml/(kg*min)"))
        #expect(try HKUnit.parse("kcal/hr·kg") == HKUnit.parse("kcal/(kg*hr)"))
        #expect(try HKUnit.parse("mmol<180.1558800000541>/L") == HKUnit.parse("mmol<180.15588000005408>/L"))
        #expect(try HKUnit.parse("km/hr").unitString == "km/hr")
        #expect(try HKUnit.parse("mi/hr").unitString == "mi/hr")
        #expect(try HKUnit.parse("ft/s").unitString == "ft/s")
        #expect(try HKUnit.parse("m^3").unitString == "m^3")
        #expect(try HKUnit.parse("mcS").unitString == "mcS")
        #expect(try HKUnit.parse("1/s").unitString == "1/s")
        #expect(try HKUnit.parse("m/s^2").unitString == "m/s^2")
        #expect(try HKUnit.parse("kg*m^2*s^-3").unitString == "kg·m^2/s^3")
    }

    @Test func nullUnit() throws {
        let null = try HKUnit.parse("()")
        #expect(null.isNull())
        #expect(null.unitString == "()")
        #expect(try HKUnit.parse("1").isNull())
        #expect(try HKUnit.parse("m/m").isNull())
        #expect(try HKUnit.parse("count^0").isNull())
        #expect(HKUnit.meter().unitDivided(by: .meter()) == null)
        #expect(HKUnit.meter().unitRaised(toPower: 0) == null)
        #expect(!HKUnit.count().isNull())
        #expect(null.reciprocal() == null)
    }

    // MARK: - Equality

    @Test func equivalentSpellingsAreEqualAndPrintOneWay() throws {
        let groups: [[String]] = [
            ["mg/dL", "mg/dl", "mg/(dL)", "(mg)/(dL)", "mg*dL^-1", "mg.dL^-1", "mg·dL^-1", " mg / dL ", "dL^-1*mg", "mg/dL^1"],
            ["ml/(kg*min)", "ml/kg/min", "mL/min·kg", "ml*kg^-1*min^-1", "(ml/kg)/min", "mL/(min.kg)", "ml/(kg.min)"],
            ["kg/m.s^2", "kg.m^-1.s^-2", "kg/(m*s^2)", "kg*m^-1/s^2"],
            ["count/min", "count*min^-1", "min^-1*count", "count/(min)", "(1/min)*count"],
            ["1/min*count", "1/(count*min)", "count^-1*min^-1"],
            ["mmol<180.15588000005408>/L", "mmol<180.1558800000541>/L", "mmol<180.15588>/l"],
            ["mcg", "µg", "μg"],
            ["L", "l"],
            ["kcal/(kg*hr)", "kcal/kg/hr", "kcal/hr·kg", "kcal*hr^-1*kg^-1"],
            ["m^2/s^2", "(m/s)^2", "m*m/(s*s)", "(s/m)^-2"],
        ]
        for group in groups {
            let units = try group.map { try HKUnit.parse($0) }
            for (spelling, unit) in zip(group, units) {
                #expect(unit == units[0], "\(spelling) vs \(group[0])")
                #expect(unit.hash == units[0].hash, "\(spelling)")
                #expect(unit.unitString == units[0].unitString, "\(spelling)")
            }
            #expect(Set(units).count == 1)
        }
    }

    @Test func sameDimensionDifferentFactorsAreCompatibleButNotEqual() throws {
        let pairs: [(String, String)] = [
            ("g", "lb"), ("J", "kg*m^2/s^2"), ("kcal", "Cal"), ("1/s", "Hz"), ("count/s", "Hz"),
            ("W", "J/s"), ("%", "count"), ("L", "m^3"), ("Pa", "mmHg"), ("K", "degC"),
            ("mg/dL", "mmol<180.15588000005408>/L"), ("mol<180>", "g"), ("rad", "deg"),
        ]
        for (lhs, rhs) in pairs {
            let left = try HKUnit.parse(lhs)
            let right = try HKUnit.parse(rhs)
            #expect(left != right, "\(lhs) vs \(rhs)")
            #expect(left.isCompatible(with: right), "\(lhs) vs \(rhs)")
            #expect(right.isCompatible(with: left), "\(lhs) vs \(rhs)")
        }
    }

    @Test func molarMassesCompareNumerically() throws {
        let a = HKUnit.moleUnit(with: .milli, molarMass: 180.15588000005408)
        let b = HKUnit.moleUnit(with: .milli, molarMass: 180.1558800000541)
        let c = HKUnit.moleUnit(with: .milli, molarMass: 180.16)
        #expect(a == b)
        #expect(a.hash == b.hash)
        #expect(a != c)
        #expect(a.isCompatible(with: c))
        #expect(a.unitDivided(by: b).isNull())
        #expect(HKUnit(from: "mmol<180.15588>/L").unitString == "mmol<180.1558800000541>/L")
        #expect(HKUnit(from: "mol<58.44>") == HKUnit(from: "mol<58.4400000000001>"))
        #expect(HKUnit(from: "mol<58.4400000000001>").unitString == "mol<58.44>")
        #expect(HKUnit(from: "mol<58.44>") != HKUnit(from: "mol<58.4401>"))
        #expect(a != HKUnit.moleUnit(with: .micro, molarMass: 180.15588000005408))
    }

    @Test func equalityIsNotFooledByOtherTypes() {
        #expect(!HKUnit.gram().isEqual("g"))
        #expect(!HKUnit.gram().isEqual(nil))
        #expect(HKUnit.gram().isEqual(HKUnit.gram()))
    }

    // MARK: - Factories

    @Test func factoriesMatchTheirStrings() throws {
        let table: [(HKUnit, String, String)] = [
            (.gram(), "g", "g"),
            (.gramUnit(with: .kilo), "kg", "kg"),
            (.gramUnit(with: .milli), "mg", "mg"),
            (.gramUnit(with: .micro), "mcg", "mcg"),
            (.ounce(), "oz", "oz"),
            (.pound(), "lb", "lb"),
            (.stone(), "st", "st"),
            (.moleUnit(withMolarMass: 180.15588000005408), "mol<180.15588000005408>", "mol<180.1558800000541>"),
            (.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose), "mmol<180.15588000005408>", "mmol<180.1558800000541>"),
            (.moleUnit(with: .milli, molarMass: 58.44), "mmol<58.44>", "mmol<58.44>"),
            (.meter(), "m", "m"),
            (.meterUnit(with: .centi), "cm", "cm"),
            (.meterUnit(with: .kilo), "km", "km"),
            (.inch(), "in", "in"),
            (.foot(), "ft", "ft"),
            (.yard(), "yd", "yd"),
            (.mile(), "mi", "mi"),
            (.liter(), "L", "L"),
            (.literUnit(with: .milli), "mL", "mL"),
            (.literUnit(with: .deci), "dL", "dL"),
            (.fluidOunceUS(), "fl_oz_us", "fl_oz_us"),
            (.fluidOunceImperial(), "fl_oz_imp", "fl_oz_imp"),
            (.pintUS(), "pt_us", "pt_us"),
            (.pintImperial(), "pt_imp", "pt_imp"),
            (.cupUS(), "cup_us", "cup_us"),
            (.cupImperial(), "cup_imp", "cup_imp"),
            (.pascal(), "Pa", "Pa"),
            (.pascalUnit(with: .kilo), "kPa", "kPa"),
            (.millimeterOfMercury(), "mmHg", "mmHg"),
            (.centimeterOfWater(), "cmAq", "cmAq"),
            (.atmosphere(), "atm", "atm"),
            (.decibelAWeightedSoundPressureLevel(), "dBASPL", "dBASPL"),
            (.inchesOfMercury(), "inHg", "inHg"),
            (.second(), "s", "s"),
            (.secondUnit(with: .milli), "ms", "ms"),
            (.minute(), "min", "min"),
            (.hour(), "hr", "hr"),
            (.day(), "d", "d"),
            (.joule(), "J", "J"),
            (.jouleUnit(with: .kilo), "kJ", "kJ"),
            (.kilocalorie(), "kcal", "kcal"),
            (.smallCalorie(), "cal", "cal"),
            (.largeCalorie(), "Cal", "Cal"),
            (.degreeCelsius(), "degC", "degC"),
            (.degreeFahrenheit(), "degF", "degF"),
            (.kelvin(), "K", "K"),
            (.siemen(), "S", "S"),
            (.siemenUnit(with: .micro), "mcS", "mcS"),
            (.internationalUnit(), "IU", "IU"),
            (.count(), "count", "count"),
            (.percent(), "%", "%"),
            (.decibelHearingLevel(), "dBHL", "dBHL"),
            (.hertz(), "Hz", "Hz"),
            (.hertzUnit(with: .kilo), "kHz", "kHz"),
            (.volt(), "V", "V"),
            (.voltUnit(with: .milli), "mV", "mV"),
            (.watt(), "W", "W"),
            (.wattUnit(with: .kilo), "kW", "kW"),
            (.diopter(), "D", "D"),
            (.prismDiopter(), "pD", "pD"),
            (.radianAngle(), "rad", "rad"),
            (.radianAngleUnit(with: .milli), "mrad", "mrad"),
            (.degreeAngle(), "deg", "deg"),
            (.lux(), "lx", "lx"),
            (.luxUnit(with: .kilo), "klx", "klx"),
            (.appleEffortScore(), "appleEffortScore", "appleEffortScore"),
        ]
        for (factory, string, printed) in table {
            #expect(factory == HKUnit(from: string), "\(string)")
            #expect(factory.unitString == printed, "\(string)")
            #expect(HKUnit(from: factory.unitString) == factory, "\(string)")
        }
    }

    @Test func compoundFactoriesMatchStrings() {
        #expect(HKUnit.gramUnit(with: .milli).unitDivided(by: .literUnit(with: .deci)) == HKUnit(from: "mg/dL"))
        #expect(
            HKUnit.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose).unitDivided(by: .liter())
                == HKUnit(from: "mmol<180.15588000005408>/L")
        )
        #expect(HKUnit.count().unitDivided(by: .minute()) == HKUnit(from: "count/min"))
        #expect(HKUnit.count().unitDivided(by: .second()).unitString == "count/s")
        let vo2Max = HKUnit.literUnit(with: .milli).unitDivided(by: .gramUnit(with: .kilo).unitMultiplied(by: .minute()))
        #expect(vo2Max == HKUnit(from: "ml/(kg*min)"))
        #expect(vo2Max.unitString == "mL/min·kg")
        let effort = HKUnit.kilocalorie().unitDivided(by: .gramUnit(with: .kilo).unitMultiplied(by: .hour()))
        #expect(effort == HKUnit(from: "kcal/(kg*hr)"))
        #expect(effort.unitString == "kcal/hr·kg")
        #expect(HKUnit.meter().unitRaised(toPower: 3) == HKUnit(from: "m^3"))
        #expect(HKUnit.second().reciprocal() == HKUnit(from: "s^-1"))
        #expect(HKUnit.second().reciprocal().unitString == "1/s")
        #expect(HKUnit.meter().unitDivided(by: .second().unitRaised(toPower: 2)).unitString == "m/s^2")
    }

    @Test func everyPrefixRoundTrips() throws {
        for prefix in HKMetricPrefix.allPrefixes {
            let unit = HKUnit.gramUnit(with: prefix)
            #expect(unit.unitString == prefix.symbol + "g")
            #expect(try HKUnit.parse(unit.unitString) == unit)
            #expect(UnitTestSupport.isClose(try HKUnit.convert(1, from: unit, to: .gram()), prefix.factor, relative: 1e-12))
        }
    }

    @Test func metricPrefixRawValuesMatchHealthKit() {
        let expected: [(HKMetricPrefix, Int)] = [
            (.none, 0), (.pico, 1), (.nano, 2), (.micro, 3), (.milli, 4), (.centi, 5), (.deci, 6),
            (.deca, 7), (.hecto, 8), (.kilo, 9), (.mega, 10), (.giga, 11), (.tera, 12), (.femto, 13),
        ]
        for (prefix, raw) in expected {
            #expect(prefix.rawValue == raw)
            #expect(HKMetricPrefix(rawValue: raw) == prefix)
        }
        #expect(HKMetricPrefix(rawValue: 14) == nil)
        #expect(HKMetricPrefix(rawValue: -1) == nil)
    }

    @Test func molarMassConstant() {
        #expect(HKUnitMolarMassBloodGlucose == 180.15588000005408)
    }

    // MARK: - Algebra

    @Test func unitAlgebra() throws {
        let kg = HKUnit.gramUnit(with: .kilo)
        #expect(kg.unitMultiplied(by: kg) == HKUnit(from: "kg^2"))
        #expect(kg.unitMultiplied(by: kg.reciprocal()).isNull())
        #expect(HKUnit(from: "m/s").unitRaised(toPower: -2) == HKUnit(from: "s^2/m^2"))
        #expect(HKUnit(from: "m/s").unitRaised(toPower: -2).unitString == "s^2/m^2")
        #expect(HKUnit.count().unitDivided(by: .minute()).reciprocal() == HKUnit(from: "min/count"))
        #expect(HKUnit.count().unitMultiplied(by: .percent()).unitString == "%·count")
    }

    // MARK: - Conversions to 1e-9

    @Test func massAndLengthConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "lb", "kg"), 0.45359237))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(70, "kg", "lb"), 70 / 0.45359237))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "oz", "g"), 28.349523125))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "st", "lb"), 14))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mi", "m"), 1609.344))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(5000, "m", "mi"), 5000 / 1609.344))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mi", "km"), 1.609344))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "ft", "in"), 12))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "yd", "ft"), 3))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "in", "cm"), 2.54))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "dam", "m"), 10))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mcg", "mg"), 1e-3))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "fg", "pg"), 1e-3))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "Tg", "Gg"), 1e3))
    }

    @Test func temperatureConversionsAreAffineWhenAlone() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(37, "degC", "degF"), 98.6))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(98.6, "degF", "degC"), 37))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(37, "degC", "K"), 310.15))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(98.6, "degF", "K"), 310.15))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(310.15, "K", "degF"), 98.6))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(-40, "degC", "degF"), -40))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(0, "K", "degC"), -273.15))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(0, "K", "degF"), -459.67))
        #expect(abs(try UnitTestSupport.convert(32, "degF", "degC")) < 1e-12)
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mK", "K"), 1e-3))
    }

    @Test func temperatureRatesConvertMultiplicatively() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "degC/min", "K/min"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "degF/min", "K/min"), 5.0 / 9.0))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1.8, "degF/hr", "degC/hr"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(60, "degC/hr", "degC/min"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "degC^2", "K^2"), 1))
    }

    @Test func bloodGlucoseConvertsThroughMolarMass() throws {
        let mgPerDL = "mg/dL"
        let mmolPerL = "mmol<180.15588000005408>/L"
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(100, mgPerDL, mmolPerL), 1000 / 180.15588000005408))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(100, mgPerDL, mmolPerL), 5.5507, relative: 1e-4))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(5.5, mmolPerL, mgPerDL), 5.5 * 18.015588000005408))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(100, mgPerDL, "mmol<180.1558800000541>/L"), 1000 / 180.15588000005408))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mol<180.15588000005408>", "g"), 180.15588000005408))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mg/dL", "g/L"), 0.01))
        // Sodium, 58.44 g/mol: 140 mmol/L = 818.16 mg/dL.
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(140, "mmol<58.44>/L", "mg/dL"), 818.16))
    }

    @Test func rateConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1.2, "count/s", "count/min"), 72))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(72, "count/min", "count/s"), 1.2))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "Hz", "count/min"), 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "count/min", "1/hr"), 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "m/s", "km/hr"), 3.6))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(60, "mi/hr", "m/s"), 26.8224))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "L/min", "mL/s"), 1000.0 / 60.0))
    }

    @Test func energyConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kcal", "kJ"), 4.184))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(4.184, "kJ", "kcal"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kcal", "Cal"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "Cal", "cal"), 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "cal", "J"), 4.184))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(2000, "kcal", "MJ"), 8.368))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "W", "J/s"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kg*m^2/s^2", "J"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kW*hr", "MJ"), 3.6))
    }

    @Test func volumeConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "fl_oz_us", "mL"), 29.5735295625))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "fl_oz_imp", "mL"), 28.4130625))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "cup_us", "fl_oz_us"), 8))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "pt_us", "fl_oz_us"), 16))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "pt_imp", "fl_oz_imp"), 20))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "cup_imp", "fl_oz_imp"), 10))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "L", "m^3"), 1e-3))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mL", "cm^3"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "dL", "mL"), 100))
    }

    @Test func pressureConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(120, "mmHg", "kPa"), 120 * 0.133322387415))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "atm", "Pa"), 101_325))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "atm", "mmHg"), 101_325 / 133.322387415))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "inHg", "mmHg"), 25.4))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "cmAq", "Pa"), 98.0665))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "hPa", "Pa"), 100))
    }

    @Test func soundPressureLevelIsLogarithmic() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(0, "dBASPL", "Pa"), 2e-5))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(20, "dBASPL", "Pa"), 2e-4))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(94, "dBASPL", "Pa"), 2e-5 * pow(10, 94.0 / 20.0)))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "Pa", "dBASPL"), 20 * log10(1 / 2e-5)))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(2e-2, "Pa", "dBASPL"), 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(2e-2, "kPa", "dBASPL"), 120))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(60, "dBASPL", "mmHg"), 2e-2 / 133.322387415))
        #expect(try UnitTestSupport.convert(85, "dBASPL", "dBASPL") == 85)
        // Inside a compound unit dBASPL is linear and only converts to itself per time.
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(60, "dBASPL/min", "dBASPL/s"), 1))
        #expect(UnitTestSupport.conversionError("dBASPL/s", "Pa/s")?.kind == .incompatibleUnits)
    }

    @Test func oxygenConsumptionVariants() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(42, "ml/(kg*min)", "L/(kg*hr)"), 42 * 60 / 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(42, "ml/kg/min", "mL/min·kg"), 42))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(42, "ml/(kg*min)", "ml/(lb*min)"), 42 * 0.45359237))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(3.5, "ml/(kg*min)", "m^3/(kg*s)"), 3.5e-6 / 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kcal/(kg*hr)", "W/kg"), 4184.0 / 3600.0))
    }

    @Test func scalarsAndAngles() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(0.2, "%", "count"), 0.2))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "count", "%"), 1))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(180, "deg", "rad"), Double.pi))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "krad", "rad"), 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "klx", "lx"), 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "mS", "mcS"), 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "kV", "mV"), 1e6))
    }

    @Test func timeConversions() throws {
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "d", "hr"), 24))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "hr", "min"), 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "min", "s"), 60))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "s", "ms"), 1000))
        #expect(UnitTestSupport.isClose(try UnitTestSupport.convert(1, "Ms", "ks"), 1000))
    }

    @Test func incompatibleConversionsThrowTypedErrors() {
        let pairs: [(String, String)] = [
            ("kg", "m"), ("IU", "mg"), ("count", "s"), ("dBHL", "dBASPL"), ("degC", "count"),
            ("appleEffortScore", "count"), ("D", "1/m"), ("pD", "D"), ("mg/dL", "mg"), ("count/min", "count"),
            ("rad", "count"), ("%", "IU"), ("V", "W"), ("S", "1/V"),
        ]
        for (source, target) in pairs {
            let error = UnitTestSupport.conversionError(source, target)
            #expect(error?.kind == .incompatibleUnits, "\(source) -> \(target)")
            #expect(error?.targetUnitString != nil)
        }
        let error = UnitTestSupport.conversionError("kg", "m")
        #expect(error?.unitString == "kg")
        #expect(error?.targetUnitString == "m")
    }

    @Test func absurdScalesThrowInsteadOfReturningInfinity() {
        #expect(UnitTestSupport.conversionError("km^400", "m^400")?.kind == .conversionOutOfRange)
        #expect(UnitTestSupport.conversionError("pm^30", "Tm^30")?.kind == .conversionOutOfRange)
    }

    // MARK: - Internal helpers

    @Test func converterIsLinearBetweenLinearUnits() throws {
        let glucose = try HKUnit.converter(from: HKUnit.parse("mg/dL"), to: HKUnit.parse("mmol<180.15588000005408>/L"))
        let factor = try #require(glucose.linearFactor)
        #expect(UnitTestSupport.isClose(factor, 10 / 180.15588000005408))
        #expect(try HKUnit.converter(from: .gram(), to: HKUnit.parse("g")).linearFactor == 1)
        #expect(try HKUnit.converter(from: .degreeCelsius(), to: .degreeFahrenheit()).linearFactor == nil)
        let heart = try HKUnit.converter(from: HKUnit.parse("count/s"), to: HKUnit.parse("count/min"))
        #expect(UnitTestSupport.isClose(heart.convert(1.2), 72))
    }

    @Test func baseValues() throws {
        #expect(UnitTestSupport.isClose(HKUnit.degreeCelsius().baseValue(of: 37), 310.15))
        #expect(UnitTestSupport.isClose(HKUnit.degreeFahrenheit().value(fromBaseValue: 310.15), 98.6))
        #expect(UnitTestSupport.isClose(HKUnit.pound().baseValue(of: 1), 0.45359237))
        #expect(UnitTestSupport.isClose(try HKUnit.parse("mmol<180.15588000005408>").baseValue(of: 1), 180.15588000005408e-6))
    }

    @Test func parseCacheReturnsEqualUnits() throws {
        // The shared cache is used by every test at once, so only equality is stable there.
        #expect(try HKUnit.parse("mg/dL") == HKUnit.parse("mg/dL"))
        #expect(UnitParseCache.shared.count > 0)
        let bounded = UnitParseCache(capacity: 1)
        bounded.store(.gram(), for: "g")
        #expect(bounded.unit(for: "g") === bounded.unit(for: "g"))
        bounded.store(.meter(), for: "m")
        #expect(bounded.count == 1)
        #expect(bounded.unit(for: "g") == nil && bounded.unit(for: "m") == .meter())
    }

    @Test func concurrentParsingIsSafe() async throws {
        let strings = Self.canonicalUnits.map(\.input) + ["kg/m.s^2", "ml/kg/min", "mcg", "degF", "fl_oz_us"]
        let results = await withTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var printed: [String] = []
                    for round in 0..<50 {
                        let string = strings[(task + round) % strings.count]
                        if let unit = try? HKUnit.parse(string) {
                            printed.append(unit.unitString)
                        }
                    }
                    return printed
                }
            }
            var all: [String] = []
            for await batch in group {
                all += batch
            }
            return all
        }
        #expect(results.count == 8 * 50)
    }

    // MARK: - Foundation conformances

    @Test func descriptionIsTheUnitString() throws {
        #expect(HKUnit(from: "mg/dl").description == "mg/dL")
        #expect("\(HKUnit.count().unitDivided(by: .minute()))" == "count/min")
    }

    @Test func secureCodingRoundTrip() throws {
        let unit = HKUnit(from: "mmol<180.15588000005408>/L")
        let data = try NSKeyedArchiver.archivedData(withRootObject: unit, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKUnit.self, from: data))
        #expect(decoded == unit)
        #expect((unit.copy() as? HKUnit) === unit)
    }

    @Test func formatterUnitBridges() {
        let masses: [MassFormatter.Unit] = [.gram, .kilogram, .ounce, .pound, .stone]
        for unit in masses {
            #expect(HKUnit.massFormatterUnit(from: HKUnit(from: unit)) == unit)
        }
        #expect(HKUnit(from: MassFormatter.Unit.kilogram) == HKUnit(from: "kg"))
        let lengths: [LengthFormatter.Unit] = [.millimeter, .centimeter, .meter, .kilometer, .inch, .foot, .yard, .mile]
        for unit in lengths {
            #expect(HKUnit.lengthFormatterUnit(from: HKUnit(from: unit)) == unit)
        }
        #expect(HKUnit(from: LengthFormatter.Unit.foot) == HKUnit.foot())
        let energies: [EnergyFormatter.Unit] = [.joule, .kilojoule, .calorie, .kilocalorie]
        for unit in energies {
            #expect(HKUnit.energyFormatterUnit(from: HKUnit(from: unit)) == unit)
        }
        #expect(HKUnit.energyFormatterUnit(from: .largeCalorie()) == .kilocalorie)
        #expect(HKUnit(from: EnergyFormatter.Unit.calorie) == HKUnit.smallCalorie())
    }
}
