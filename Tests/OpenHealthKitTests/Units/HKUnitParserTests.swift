import Testing

@testable import OpenHealthKit

struct HKUnitParserTests {
    // MARK: - Ambiguous names

    @Test func wholeTokenNamesWinOverPrefixSplitting() throws {
        #expect(try HKUnit.parse("min") == .minute())
        #expect(try HKUnit.parse("mmHg") == .millimeterOfMercury())
        #expect(try HKUnit.parse("cmAq") == .centimeterOfWater())
        #expect(try HKUnit.parse("ft") == .foot())
        #expect(try HKUnit.parse("d") == .day())
        #expect(try HKUnit.parse("dBASPL") == .decibelAWeightedSoundPressureLevel())
        #expect(try HKUnit.parse("dBHL") == .decibelHearingLevel())
        #expect(try HKUnit.parse("pD") == .prismDiopter())
        #expect(try HKUnit.parse("D") == .diopter())
        #expect(try HKUnit.parse("deg") == .degreeAngle())
        #expect(try HKUnit.parse("degC") == .degreeCelsius())
        #expect(try HKUnit.parse("hr") == .hour())
        #expect(try HKUnit.parse("kcal") == .kilocalorie())
        #expect(try HKUnit.parse("Cal") == .largeCalorie())
        #expect(try HKUnit.parse("cal") == .smallCalorie())
        #expect(try HKUnit.parse("st") == .stone())
        #expect(try HKUnit.parse("mi") == .mile())
        #expect(try HKUnit.parse("in") == .inch())
        #expect(try HKUnit.parse("inHg") == .inchesOfMercury())
        #expect(try HKUnit.parse("atm") == .atmosphere())
        #expect(try HKUnit.parse("Pa") == .pascal())
    }

    @Test func prefixSplitting() throws {
        #expect(try HKUnit.parse("m") == .meter())
        #expect(try HKUnit.parse("mm") == .meterUnit(with: .milli))
        #expect(try HKUnit.parse("Mm") == .meterUnit(with: .mega))
        #expect(try HKUnit.parse("dam") == .meterUnit(with: .deca))
        #expect(try HKUnit.parse("dm") == .meterUnit(with: .deci))
        #expect(try HKUnit.parse("cm") == .meterUnit(with: .centi))
        #expect(try HKUnit.parse("fm") == .meterUnit(with: .femto))
        #expect(try HKUnit.parse("dL") == .literUnit(with: .deci))
        #expect(try HKUnit.parse("dl") == .literUnit(with: .deci))
        #expect(try HKUnit.parse("ML") == .literUnit(with: .mega))
        #expect(try HKUnit.parse("ml") == .literUnit(with: .milli))
        #expect(try HKUnit.parse("mcg") == .gramUnit(with: .micro))
        #expect(try HKUnit.parse("µg") == .gramUnit(with: .micro))
        #expect(try HKUnit.parse("dag") == .gramUnit(with: .deca))
        #expect(try HKUnit.parse("hg") == .gramUnit(with: .hecto))
        #expect(try HKUnit.parse("ms") == .secondUnit(with: .milli))
        #expect(try HKUnit.parse("Ms") == .secondUnit(with: .mega))
        #expect(try HKUnit.parse("fs") == .secondUnit(with: .femto))
        #expect(try HKUnit.parse("mS") == .siemenUnit(with: .milli))
        #expect(try HKUnit.parse("mcS") == .siemenUnit(with: .micro))
        #expect(try HKUnit.parse("kPa") == .pascalUnit(with: .kilo))
        #expect(try HKUnit.parse("hPa") == .pascalUnit(with: .hecto))
        #expect(try HKUnit.parse("kJ") == .jouleUnit(with: .kilo))
        #expect(UnitTestSupport.isClose(try HKUnit.convert(1, from: HKUnit.parse("mK"), to: .kelvin()), 1e-3))
        #expect(try HKUnit.parse("GHz") == .hertzUnit(with: .giga))
        #expect(try HKUnit.parse("TW") == .wattUnit(with: .tera))
        #expect(try HKUnit.parse("nV") == .voltUnit(with: .nano))
        #expect(try HKUnit.parse("mrad") == .radianAngleUnit(with: .milli))
        #expect(try HKUnit.parse("klx") == .luxUnit(with: .kilo))
        #expect(try HKUnit.parse("pmol<1>") == .moleUnit(with: .pico, molarMass: 1))
        #expect(try HKUnit.parse("mmol<180.15588000005408>") == .moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose))
    }

    @Test func calAndCalAreDifferentUnits() throws {
        let small = try HKUnit.parse("cal")
        let large = try HKUnit.parse("Cal")
        #expect(small != large)
        #expect(UnitTestSupport.isClose(try HKUnit.convert(1, from: large, to: small), 1000))
    }

    // MARK: - Structure

    @Test func parenthesesAndPowers() throws {
        #expect(try HKUnit.parse("(m)") == .meter())
        #expect(try HKUnit.parse("((m))") == .meter())
        #expect(try HKUnit.parse("(())").isNull())
        #expect(try HKUnit.parse("(m/s)^2") == HKUnit.parse("m^2/s^2"))
        #expect(try HKUnit.parse("(kg*m)^-2") == HKUnit.parse("1/kg^2*m^2"))
        #expect(try HKUnit.parse("s^-1") == HKUnit.second().reciprocal())
        #expect(try HKUnit.parse("m^+2") == HKUnit.meter().unitRaised(toPower: 2))
        #expect(try HKUnit.parse("m^0").isNull())
        #expect(try HKUnit.parse("1/(s)") == HKUnit.second().reciprocal())
        #expect(try HKUnit.parse("1/s^2") == HKUnit.second().unitRaised(toPower: -2))
        #expect(try HKUnit.parse("m^1000000").unitString == "m^1000000")
    }

    @Test func multiplicationBindsTighterThanDivision() throws {
        #expect(try HKUnit.parse("kg/m.s^2") == HKUnit.parse("kg.m^-1.s^-2"))
        #expect(try HKUnit.parse("kg/m*s") == HKUnit.parse("kg/(m*s)"))
        #expect(try HKUnit.parse("kg/m*s") != HKUnit.parse("(kg/m)*s"))
    }

    @Test func repeatedDivisionIsReadLeftToRight() throws {
        #expect(try HKUnit.parse("ml/kg/min") == HKUnit.parse("ml/(kg*min)"))
        #expect(try HKUnit.parse("m/s/s") == HKUnit.parse("m/s^2"))
        #expect(try HKUnit.parse("kcal/kg/hr").unitString == "kcal/hr·kg")
    }

    @Test func multiplicationOperators() throws {
        let expected = try HKUnit.parse("kg*m")
        #expect(try HKUnit.parse("kg.m") == expected)
        #expect(try HKUnit.parse("kg·m") == expected)
        #expect(try HKUnit.parse("m*kg") == expected)
        #expect(try HKUnit.parse(" kg * m ") == expected)
        #expect(expected.unitString == "kg·m")
    }

    @Test func whitespaceBetweenTokensIsIgnored() throws {
        #expect(try HKUnit.parse("  count / min  ") == HKUnit.parse("count/min"))
        #expect(try HKUnit.parse("\tmg/dL") == HKUnit.parse("mg/dL"))
        #expect(try HKUnit.parse("( m / s ) ^2") == HKUnit.parse("m^2/s^2"))
    }

    @Test func molarMassForms() throws {
        #expect(try HKUnit.parse("mol<180>") == HKUnit.moleUnit(withMolarMass: 180))
        #expect(try HKUnit.parse("mol<1.8e2>") == HKUnit.moleUnit(withMolarMass: 180))
        #expect(try HKUnit.parse("mol<.5>") == HKUnit.moleUnit(withMolarMass: 0.5))
        #expect(try HKUnit.parse("mol<1e-05>").unitString == "mol<1e-05>")
        #expect(try HKUnit.parse("mol<1e-05>") == HKUnit.moleUnit(withMolarMass: 1e-5))
        #expect(try HKUnit.parse("mmol<180.15588000005408>/L").unitString == "mmol<180.1558800000541>/L")
    }

    // MARK: - Errors, one kind at a time

    @Test func emptyStrings() {
        #expect(UnitTestSupport.parseError("")?.kind == .emptyString)
        #expect(UnitTestSupport.parseError("   ")?.kind == .emptyString)
        #expect(UnitTestSupport.parseError("\t")?.kind == .emptyString)
    }

    @Test func tooLongInput() {
        let error = UnitTestSupport.parseError(String(repeating: "m*", count: 600) + "m")
        #expect(error?.kind == .inputTooLong)
        #expect(UnitTestSupport.parseError(String(repeating: " ", count: 2000) + "m")?.kind == .inputTooLong)
    }

    @Test func unexpectedCharacters() {
        let cases: [(String, Int)] = [
            ("m#", 1), ("m s", 2), ("m^2^3", 3), ("2m", 0), ("10^3", 0), ("m²", 1), ("😀", 0), ("ｍ", 0),
            ("kg-m", 2), ("m,s", 1), ("‰", 0), ("(m s)", 3),
        ]
        for (input, position) in cases {
            let error = UnitTestSupport.parseError(input)
            #expect(error?.kind == .unexpectedCharacter, "\(input): \(String(describing: error))")
            #expect(error?.position == position, "\(input): \(String(describing: error))")
        }
    }

    @Test func expectedUnit() {
        let cases: [(String, Int)] = [("m*", 2), ("/s", 0), ("kg**m", 3), ("m/", 2), ("*", 0), ("^2", 0), ("m·", 2), ("(/s)", 1)]
        for (input, position) in cases {
            let error = UnitTestSupport.parseError(input)
            #expect(error?.kind == .expectedUnit, "\(input): \(String(describing: error))")
            #expect(error?.position == position, "\(input)")
        }
    }

    @Test func unknownUnits() {
        for input in ["furlong", "xyz", "Kcal", "counts", "h", "µ", "G", "MG/DL", "Degc", "kg/furlong", "mol_"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .unknownUnit, "\(input)")
        }
        #expect(UnitTestSupport.parseError("kg/furlong")?.position == 3)
    }

    @Test func prefixesOnUnitsThatTakeNone() {
        for input in ["kmin", "klb", "mcal", "kcount", "mdegC", "kCal", "cin", "MdBASPL", "mcd"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .prefixNotAllowed, "\(input)")
        }
    }

    @Test func missingMolarMass() {
        for input in ["mmol/L", "mol", "mol/L", "kmol"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .missingMolarMass, "\(input)")
        }
    }

    @Test func invalidMolarMass() {
        let inputs = [
            "mol<abc>", "mol<>", "mol<0>", "mol<-5>", "mol<180", "mol<inf>", "mol<nan>", "mol<1e999>", "mol<0x10>", "mol< 180>",
            "mmol<1.2.3>/L", "m<",
        ]
        for input in inputs {
            #expect(UnitTestSupport.parseError(input)?.kind == .invalidMolarMass, "\(input)")
        }
        #expect(UnitTestSupport.parseError("mol<abc>")?.position == 4)
        #expect(UnitTestSupport.parseError("mol<180")?.position == 3)
    }

    @Test func molarMassOnOtherUnits() {
        for input in ["g<180>", "mg<180>/dL", "count<2>"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .unexpectedMolarMass, "\(input)")
        }
    }

    @Test func missingExponents() {
        for input in ["m^", "m^-", "m^+", "m^x", "m^ 2", "(m)^", "m^/s"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .missingExponent, "\(input)")
        }
        #expect(UnitTestSupport.parseError("kg^")?.position == 3)
    }

    @Test func exponentsOutOfRange() {
        for input in ["m^99999999999999999999", "m^1000001", "m^-1000001", "(m^1000000)^2", "m^1000000*m", "(m^999999)^-999999"] {
            #expect(UnitTestSupport.parseError(input)?.kind == .exponentOutOfRange, "\(input)")
        }
    }

    @Test func unbalancedParentheses() {
        let cases: [(String, Int?)] = [("(m", 0), ("m)", 1), ("((m)", 0), ("(m/s", 0), ("ml/(kg*min", 3), (")", nil)]
        for (input, position) in cases {
            let error = UnitTestSupport.parseError(input)
            if input == ")" {
                #expect(error?.kind == .expectedUnit)
                continue
            }
            #expect(error?.kind == .unbalancedParentheses, "\(input): \(String(describing: error))")
            #expect(error?.position == position, "\(input)")
        }
    }

    @Test func deepNesting() {
        let deep = String(repeating: "(", count: 40) + "m" + String(repeating: ")", count: 40)
        #expect(UnitTestSupport.parseError(deep)?.kind == .nestingTooDeep)
        let allowed = String(repeating: "(", count: 30) + "m" + String(repeating: ")", count: 30)
        #expect(UnitTestSupport.parseError(allowed) == nil)
        #expect(UnitTestSupport.parseError(String(repeating: "(", count: 5000))?.kind == .inputTooLong)
        #expect(UnitTestSupport.parseError(String(repeating: "(", count: 1000))?.kind == .nestingTooDeep)
    }

    @Test func errorsDescribeThemselves() {
        let error = UnitTestSupport.parseError("mol<abc>/L")
        #expect(error?.description.contains("invalidMolarMass") == true)
        #expect(error?.description.contains("mol<abc>/L") == true)
        #expect(error?.unitString == "mol<abc>/L")
        #expect(error?.targetUnitString == nil)
        let long = UnitTestSupport.parseError(String(repeating: "x", count: 200))
        #expect(long?.kind == .unknownUnit)
        #expect((long?.description.count ?? 0) < 200)
    }
}
