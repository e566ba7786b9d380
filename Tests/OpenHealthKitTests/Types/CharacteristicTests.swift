import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Characteristics")
struct CharacteristicTests {
    @Test("Raw values match HealthKit")
    func rawValues() {
        #expect(HKBiologicalSex.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(HKBiologicalSex.female.rawValue == 1)
        #expect(HKBiologicalSex.male.rawValue == 2)
        #expect(HKBiologicalSex.other.rawValue == 3)
        #expect(HKBloodType.allCases.map(\.rawValue) == Array(0...8))
        #expect(HKBloodType.aPositive.rawValue == 1)
        #expect(HKBloodType.abNegative.rawValue == 6)
        #expect(HKBloodType.oNegative.rawValue == 8)
        #expect(HKFitzpatrickSkinType.allCases.map(\.rawValue) == Array(0...6))
        #expect(HKFitzpatrickSkinType.I.rawValue == 1)
        #expect(HKFitzpatrickSkinType.VI.rawValue == 6)
        #expect(HKWheelchairUse.notSet.rawValue == 0)
        #expect(HKWheelchairUse.no.rawValue == 1)
        #expect(HKWheelchairUse.yes.rawValue == 2)
        #expect(HKActivityMoveMode.activeEnergy.rawValue == 1)
        #expect(HKActivityMoveMode.appleMoveTime.rawValue == 2)
        #expect(HKActivityMoveMode(rawValue: 0) == nil)
    }

    @Test("Wrapper objects expose their value and compare by it")
    func objects() {
        let sex = HKBiologicalSexObject(biologicalSex: .female)
        #expect(sex.biologicalSex == .female)
        #expect(sex.isEqual(HKBiologicalSexObject(biologicalSex: .female)))
        #expect(!sex.isEqual(HKBiologicalSexObject(biologicalSex: .male)))
        #expect(!sex.isEqual("female"))
        #expect(sex.hash == HKBiologicalSexObject(biologicalSex: .female).hash)

        #expect(HKBloodTypeObject(bloodType: .oPositive).bloodType == .oPositive)
        #expect(HKFitzpatrickSkinTypeObject(skinType: .III).skinType == .III)
        #expect(HKWheelchairUseObject(wheelchairUse: .yes).wheelchairUse == .yes)
        #expect(HKActivityMoveModeObject(activityMoveMode: .appleMoveTime).activityMoveMode == .appleMoveTime)
        #expect(HKBloodTypeObject(bloodType: .abPositive).description == "HKBloodTypeObject(bloodType: abPositive)")
    }
}
