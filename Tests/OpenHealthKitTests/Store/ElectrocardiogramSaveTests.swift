import Foundation
import Testing
@testable import OpenHealthKit

/// An invalid electrocardiogram on the save path is refused with `errorInvalidArgument` and its
/// reason, never a trap (issue 36).
@Suite("Electrocardiogram save validation")
struct ElectrocardiogramSaveTests {
    static let lead = HKElectrocardiogram.Lead.appleWatchSimilarToLeadI

    static func ecg(hertz: Double? = 512, bpm: Double? = 70, voltages: ElectrocardiogramVoltages,
                    start: Date = Samples.reference, end: Date? = nil) -> HKElectrocardiogram {
        HKElectrocardiogram(start: start, end: end ?? start.addingTimeInterval(30), classification: .sinusRhythm, symptomsStatus: .none,
                            averageHeartRate: bpm.map { HKQuantity(unit: Samples.bpm, doubleValue: $0) },
                            samplingFrequency: hertz.map { HKQuantity(unit: .hertz(), doubleValue: $0) },
                            voltages: voltages, uuid: UUID(), sourceRevision: nil, device: nil, metadata: nil)
    }

    /// The message of the `errorInvalidArgument` saving `object` throws, or nil when it is saved.
    static func refusal(_ object: HKObject, in store: HKHealthStore) async -> String? {
        await SampleValidityTests.refusal(object, in: store)
    }

    @Test("An electrocardiogram with billions of voltages, or more than a day at 1 kHz, is refused, not a trap")
    func ecgCountsAreRefused() async throws {
        let store = TestStores.memory()
        // Before: UInt32(count) trapped while encoding (5e9 > UInt32.max); 86,400,001 was saved and then unreadable.
        for count in [5_000_000_000, ElectrocardiogramDetails.maximumCount + 1, Int.max] {
            let message = await Self.refusal(Self.ecg(voltages: ElectrocardiogramVoltages(leads: [Self.lead], count: count, values: [])), in: store)
            #expect(message?.contains("at most 86400000 voltages") == true, "\(count): \(message ?? "saved")")
        }
        // Voltages that do not fill the lead, and two leads of the same kind.
        let short = ElectrocardiogramVoltages(leads: [Self.lead], count: 3, values: [1, 2])
        #expect(await Self.refusal(Self.ecg(voltages: short), in: store)?.contains("same number of voltages") == true)
        let twice = ElectrocardiogramVoltages(leads: [Self.lead, Self.lead], count: 1, values: [1, 2])
        #expect(await Self.refusal(Self.ecg(voltages: twice), in: store)?.contains("same number of voltages") == true)
        let notFinite = ElectrocardiogramVoltages(leads: [Self.lead], count: 2, values: [1, .nan])
        #expect(await Self.refusal(Self.ecg(voltages: notFinite), in: store)?.contains("finite") == true)
    }

    @Test("An electrocardiogram's sampling frequency, heart rate and dates are checked on save")
    func ecgValuesAreRefused() async throws {
        let store = TestStores.memory()
        let two = ElectrocardiogramVoltages(leads: [Self.lead], count: 2, values: [1, 2])
        for hertz in [0, -5, .infinity, -.infinity, .nan] as [Double] {
            let message = await Self.refusal(Self.ecg(hertz: hertz, voltages: two), in: store)
            #expect(message?.contains("sampling frequency must be a finite number of hertz above zero") == true, "\(hertz): \(message ?? "saved")")
        }
        for bpm in [-1, .infinity, .nan] as [Double] {
            let message = await Self.refusal(Self.ecg(bpm: bpm, voltages: two), in: store)
            #expect(message?.contains("average heart rate must be a finite count/min") == true, "\(bpm): \(message ?? "saved")")
        }
        let early = Self.ecg(voltages: two, end: Samples.reference.addingTimeInterval(-1))
        #expect(await Self.refusal(early, in: store)?.contains("end date is before the start date") == true)

        // Still saved: no voltages, no lead, a huge (finite) frequency, no frequency or heart rate.
        for valid in [Self.ecg(voltages: .empty), Self.ecg(voltages: ElectrocardiogramVoltages(leads: [Self.lead], count: 0, values: [])),
                      Self.ecg(hertz: 1e308, voltages: two), Self.ecg(hertz: nil, bpm: nil, voltages: two)] {
            #expect(await Self.refusal(valid, in: store) == nil)
        }
        let fast = Self.ecg(hertz: 1e308, voltages: two)
        try await store.save(fast)
        #expect(try await HKElectrocardiogramQuery.measurements(of: fast, in: store).map(\.timeSinceSampleStart) == [0, 1 / 1e308])
    }
}
