import Foundation
import HealthPresentation
import OpenHealthKit
import Testing

/// `HealthFormatter.value(of:)` for states of mind, assessments, ECGs, audiograms, vision
/// prescriptions, heartbeat series and medication doses: words and units, never "".
@Suite("Measurement values in words")
struct MeasurementValueTests {
    static let date = Date(timeIntervalSince1970: 1_764_158_400)
    static let formatter = HealthFormatter(units: [:], timeZone: TimeZone(identifier: "UTC") ?? .current)

    @Test("A state of mind, a GAD-7, a PHQ-9, an ECG, an audiogram, prescriptions and a heartbeat series in words")
    func values() throws {
        let mind = HKStateOfMind(date: Self.date, kind: .momentaryEmotion, valence: -0.9, labels: [.stressed], associations: [.work, .selfCare])
        #expect(Self.formatter.value(of: mind) == "Momentary Emotion: Very Unpleasant; Stressed; Work, Self Care")
        let calm = HKStateOfMind(date: Self.date, kind: .dailyMood, valence: 0, labels: [], associations: [])
        #expect(Self.formatter.value(of: calm) == "Daily Mood: Neither Pleasant nor Unpleasant")

        let gad7 = HKGAD7Assessment(date: Self.date, answers: Array(repeating: .nearlyEveryDay, count: 7))
        #expect(Self.formatter.value(of: gad7) == "GAD-7 score 21 of 21: severe anxiety risk")
        let phq9 = HKPHQ9Assessment(date: Self.date, answers: Array(repeating: .moreThanHalfTheDays, count: 8) + [.preferNotToAnswer])
        #expect(Self.formatter.value(of: phq9) == "PHQ-9 score 16 of 27: moderately severe depression risk")

        let ecg = try HKElectrocardiogram(start: Self.date, end: Self.date.addingTimeInterval(30), classification: .atrialFibrillation,
                                          symptomsStatus: .present, averageHeartRate: HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 96),
                                          samplingFrequency: HKQuantity(unit: .hertz(), doubleValue: 512),
                                          microvolts: [.appleWatchSimilarToLeadI: [1, 2, 3]], device: nil, metadata: nil)
        #expect(Self.formatter.value(of: ecg) == "Atrial Fibrillation, 96 bpm average")

        let dBHL = HKUnit.decibelHearingLevel()
        let point = try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: .hertz(), doubleValue: 1000),
                                                    leftEarSensitivity: HKQuantity(unit: dBHL, doubleValue: 15), rightEarSensitivity: nil)
        let audiogram = HKAudiogramSample(sensitivityPoints: [point], start: Self.date, end: Self.date, device: nil, metadata: nil)
        #expect(Self.formatter.value(of: audiogram) == "Left 15 dBHL average, 1 frequency")

        let lens = HKContactsLensSpecification(sphere: HKQuantity(unit: .diopter(), doubleValue: 1.5), cylinder: nil, axis: nil, addPower: nil,
                                               baseCurve: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 8.6),
                                               diameter: HKQuantity(unit: .meterUnit(with: .milli), doubleValue: 14.2))
        let contacts = HKContactsPrescription(rightEyeSpecification: lens, leftEyeSpecification: nil, brand: "Acuvue", dateIssued: Self.date,
                                              expirationDate: nil, device: nil, metadata: nil)
        #expect(Self.formatter.value(of: contacts) == "Contacts (Acuvue): right +1.50 sphere, base curve 8.6 mm, diameter 14.2 mm")

        let series = try HKHeartbeatSeriesSample.imported(beats: [(0, false), (0.8, false), (1.7, true)], start: Self.date, device: nil, metadata: nil)
        #expect(Self.formatter.value(of: series) == "3 beats in 2 s")
    }

    @Test("Every valence classification, ECG classification and dose status has words of its own")
    func everyWord() {
        let valences = HKStateOfMind.ValenceClassification.allCases.map(HealthFormatter.valenceName)
        #expect(Set(valences).count == 7 && valences.contains("Slightly Pleasant") && valences.contains("Very Unpleasant"))
        let statuses = HKMedicationDoseEvent.LogStatus.allCases.map(HealthFormatter.doseStatus)
        #expect(Set(statuses).count == statuses.count && statuses.contains("Taken") && statuses.contains("Skipped"))
        let labels = HKStateOfMind.Label.allCases.map(HealthFormatter.labelName)
        #expect(labels.allSatisfy { $0.first?.isUppercase == true } && Set(labels).count == labels.count)
        #expect(HealthFormatter.associationName(.currentEvents) == "Current Events")
    }

    @Test("A medication dose in words: its status, amount and schedule")
    func dose() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"),
                                                       role: .owner))
        try store.open()
        let medication = try await store.addMedication(displayText: "Metformin 500 mg tablet")
        let taken = try await store.logMedicationDose(of: medication, status: .taken, doseQuantity: 1, date: Self.date,
                                                      scheduledDate: Self.date, scheduledDoseQuantity: 1)
        #expect(Self.formatter.value(of: taken) == "Taken, 1 (scheduled)")
        let skipped = try await store.logMedicationDose(of: medication, status: .skipped, doseQuantity: nil, date: Self.date)
        #expect(Self.formatter.value(of: skipped) == "Skipped (as needed)")
    }
}
