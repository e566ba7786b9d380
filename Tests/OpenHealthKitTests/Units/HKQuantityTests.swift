import Foundation
import Testing

@testable import OpenHealthKit

struct HKQuantityTests {
    @Test func storesAndConvertsItsValue() throws {
        let heartRate = HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 72)
        #expect(heartRate.doubleValue(for: HKUnit(from: "count/min")) == 72)
        #expect(UnitTestSupport.isClose(heartRate.doubleValue(for: HKUnit(from: "count/s")), 1.2))
        #expect(UnitTestSupport.isClose(try heartRate.value(in: .hertz()), 1.2))
        let glucose = HKQuantity(unit: HKUnit(from: "mg/dL"), doubleValue: 100)
        #expect(UnitTestSupport.isClose(glucose.doubleValue(for: HKUnit(from: "mmol<180.1558800000541>/L")), 1000 / HKUnitMolarMassBloodGlucose))
        let temperature = HKQuantity(unit: .degreeCelsius(), doubleValue: 37)
        #expect(UnitTestSupport.isClose(temperature.doubleValue(for: .degreeFahrenheit()), 98.6))
        #expect(UnitTestSupport.isClose(temperature.doubleValue(for: .kelvin()), 310.15))
    }

    @Test func sameUnitReturnsTheStoredValueExactly() throws {
        let value = 0.1 + 0.2
        let quantity = HKQuantity(unit: HKUnit(from: "mg/dL"), doubleValue: value)
        #expect(try quantity.value(in: HKUnit(from: "mg/dl")) == value)
        #expect(quantity.doubleValue(for: HKUnit.gramUnit(with: .milli).unitDivided(by: .literUnit(with: .deci))) == value)
    }

    @Test func percentHoldsFractions() {
        let bodyFat = HKQuantity(unit: .percent(), doubleValue: 0.2)
        #expect(bodyFat.doubleValue(for: .percent()) == 0.2)
        #expect(bodyFat.doubleValue(for: .count()) == 0.2)
        #expect(bodyFat.description == "0.2 %")
    }

    @Test func compatibility() {
        let mass = HKQuantity(unit: .pound(), doubleValue: 150)
        #expect(mass.is(compatibleWith: .gramUnit(with: .kilo)))
        #expect(mass.is(compatibleWith: .moleUnit(withMolarMass: 18)))
        #expect(!mass.is(compatibleWith: .meter()))
        #expect(!mass.is(compatibleWith: .internationalUnit()))
        let sound = HKQuantity(unit: .decibelAWeightedSoundPressureLevel(), doubleValue: 80)
        #expect(sound.is(compatibleWith: .pascal()))
        #expect(!sound.is(compatibleWith: .decibelHearingLevel()))
    }

    @Test func incompatibleValueThrows() {
        let mass = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 70)
        #expect(throws: HKUnitError.self) { try mass.value(in: .meter()) }
        do {
            _ = try mass.value(in: .internationalUnit())
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .incompatibleUnits)
            #expect(error.unitString == "kg")
            #expect(error.targetUnitString == "IU")
        }
    }

    @Test func comparison() throws {
        let kilogram = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 1)
        let grams = HKQuantity(unit: .gram(), doubleValue: 1000)
        let pound = HKQuantity(unit: .pound(), doubleValue: 1)
        #expect(kilogram.compare(grams) == .orderedSame)
        #expect(pound.compare(kilogram) == .orderedAscending)
        #expect(kilogram.compare(pound) == .orderedDescending)
        let celsius = HKQuantity(unit: .degreeCelsius(), doubleValue: 37)
        let fahrenheit = HKQuantity(unit: .degreeFahrenheit(), doubleValue: 98.6)
        #expect(celsius.compare(fahrenheit) == .orderedSame)
        #expect(fahrenheit.compare(celsius) == .orderedSame)
        #expect(celsius.compare(HKQuantity(unit: .degreeFahrenheit(), doubleValue: 98.7)) == .orderedAscending)
        let loud = HKQuantity(unit: .decibelAWeightedSoundPressureLevel(), doubleValue: 90)
        let pascal = HKQuantity(unit: .pascal(), doubleValue: 0.02)  // 60 dBASPL
        #expect(loud.compare(pascal) == .orderedDescending)
        #expect(pascal.compare(loud) == .orderedAscending)
        #expect(try kilogram.compare(to: grams) == .orderedSame)
    }

    @Test func comparingIncompatibleQuantitiesThrows() {
        let mass = HKQuantity(unit: .gram(), doubleValue: 1)
        let length = HKQuantity(unit: .meter(), doubleValue: 1)
        do {
            _ = try mass.compare(to: length)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .incompatibleUnits)
        }
    }

    @Test func equalityAndHashAgree() {
        let kilogram = HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 1)
        let grams = HKQuantity(unit: .gram(), doubleValue: 1000)
        let meter = HKQuantity(unit: .meter(), doubleValue: 1)
        let sameSpelling = HKQuantity(unit: HKUnit(from: "mg/dl"), doubleValue: 100)
        let otherSpelling = HKQuantity(unit: HKUnit(from: "mg/(dL)"), doubleValue: 100)
        #expect(kilogram == grams)
        #expect(kilogram.hash == grams.hash)
        #expect(kilogram != meter)
        #expect(sameSpelling == otherSpelling)
        #expect(sameSpelling.hash == otherSpelling.hash)
        #expect(kilogram != HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: 2))
        #expect(Set([kilogram, grams, meter, sameSpelling, otherSpelling]).count == 3)
        #expect(!kilogram.isEqual("1 kg"))
        #expect(HKQuantity(unit: .count(), doubleValue: 0) == HKQuantity(unit: .count(), doubleValue: -0.0))
        #expect(HKQuantity(unit: .count(), doubleValue: 0).hash == HKQuantity(unit: .count(), doubleValue: -0.0).hash)
    }

    @Test func descriptionLooksLikeHealthKit() {
        #expect(HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 72).description == "72 count/min")
        #expect(HKQuantity(unit: HKUnit(from: "ml/(kg*min)"), doubleValue: 48.5).description == "48.5 mL/min·kg")
        #expect(HKQuantity(unit: .degreeFahrenheit(), doubleValue: 98.6).description == "98.6 degF")
        #expect(HKQuantity(unit: .count(), doubleValue: -3).description == "-3 count")
    }

    @Test func secureCodingAndCopying() throws {
        let quantity = HKQuantity(unit: HKUnit(from: "mmol<180.15588000005408>/L"), doubleValue: 5.5)
        let data = try NSKeyedArchiver.archivedData(withRootObject: quantity, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQuantity.self, from: data))
        #expect(decoded == quantity)
        #expect(decoded.doubleValue(for: HKUnit(from: "mmol<180.15588000005408>/L")) == 5.5)
        #expect((quantity.copy() as? HKQuantity) === quantity)
    }

    @Test func nonFiniteValuesDoNotTrap() {
        let nan = HKQuantity(unit: .gram(), doubleValue: .nan)
        #expect(nan.doubleValue(for: .gramUnit(with: .kilo)).isNaN)
        #expect(nan.compare(HKQuantity(unit: .gram(), doubleValue: 1)) == .orderedSame)
        let infinite = HKQuantity(unit: .gram(), doubleValue: .infinity)
        #expect(infinite.doubleValue(for: .pound()) == .infinity)
        let silence = HKQuantity(unit: .pascal(), doubleValue: 0)
        #expect(silence.doubleValue(for: .decibelAWeightedSoundPressureLevel()) == -.infinity)
    }
}
