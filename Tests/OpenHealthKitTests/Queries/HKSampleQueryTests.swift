import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Sample queries and predicates")
struct HKSampleQueryTests {
    /// Ten heart rates one hour apart, each lasting 10 minutes, values 60…69; odd ones user-entered.
    private func store() async throws -> (HKHealthStore, [HKQuantitySample]) {
        let store = TestStores.memory()
        let samples = (0..<10).map { index in
            Samples.heartRate(60 + Double(index), at: Double(index) * 3600, seconds: 600,
                              metadata: [HKMetadataKeyWasUserEntered: index % 2 == 1, "index": index, "tag": "t\(index % 3)"])
        }
        try await store.save(samples)
        return (store, samples)
    }

    private func values(_ samples: [HKSample]) -> [Double] {
        samples.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: Samples.bpm) }
    }

    @Test("Date predicates follow HealthKit's options")
    func dates() async throws {
        let (store, _) = try await store()
        let type = HKQuantityType(.heartRate)
        // Samples at 1h…1h10m, 2h…2h10m, … A range from 1h05m to 3h05m.
        let start = Samples.reference.addingTimeInterval(3600 + 300)
        let end = Samples.reference.addingTimeInterval(3 * 3600 + 300)
        let sort = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        let overlapping = try await store.runSampleQuery(type, predicate: HKQuery.predicateForSamples(withStart: start, end: end), sort: sort)
        #expect(values(overlapping) == [61, 62, 63])
        let strictStart = try await store.runSampleQuery(type, predicate: HKQuery.predicateForSamples(
            withStart: start, end: end, options: .strictStartDate), sort: sort)
        #expect(values(strictStart) == [62, 63])
        let strictEnd = try await store.runSampleQuery(type, predicate: HKQuery.predicateForSamples(
            withStart: start, end: end, options: .strictEndDate), sort: sort)
        #expect(values(strictEnd) == [61, 62])
        let both = try await store.runSampleQuery(type, predicate: HKQuery.predicateForSamples(
            withStart: start, end: end, options: [.strictStartDate, .strictEndDate]), sort: sort)
        #expect(values(both) == [62])
        let openEnded = try await store.runSampleQuery(type, predicate: HKQuery.predicateForSamples(withStart: end, end: nil), sort: sort)
        #expect(values(openEnded) == [63, 64, 65, 66, 67, 68, 69])
    }

    @Test("Sort descriptors and limits")
    func sortAndLimit() async throws {
        let (store, _) = try await store()
        let newest = try await store.runSampleQuery(HKQuantityType(.heartRate), limit: 3,
                                                    sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
        #expect(values(newest) == [69, 68, 67])
        let byEnd = try await store.runSampleQuery(HKQuantityType(.heartRate), limit: 2,
                                                   sort: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: true)])
        #expect(values(byEnd) == [60, 61])
        let descriptor = HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
                                                 sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)], limit: 4)
        #expect(values(try await descriptor.result(for: store)) == [69, 68, 67, 66])
    }

    @Test("UUID, metadata and source predicates are decided in SQL")
    func sqlPredicates() async throws {
        let (store, samples) = try await store()
        let type = HKQuantityType(.heartRate)
        let sort = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObject(with: samples[4].uuid)).map(\.uuid) == [samples[4].uuid])
        let picked = try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(with: [samples[1].uuid, samples[8].uuid]))
        #expect(Set(picked.map(\.uuid)) == [samples[1].uuid, samples[8].uuid])
        let entered = try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(
            withMetadataKey: HKMetadataKeyWasUserEntered, allowedValues: [true]), sort: sort)
        #expect(values(entered) == [61, 63, 65, 67, 69])
        let tagged = try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(
            withMetadataKey: "tag", operatorType: .equalTo, value: "t0"), sort: sort)
        #expect(values(tagged) == [60, 63, 66, 69])
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(withMetadataKey: "index")).count == 10)
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(withMetadataKey: "absent")).isEmpty)
        let mine = HKSource(name: "Memory", bundleIdentifier: "org.example.memory")
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(from: mine)).count == 10)
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(
            from: HKSource(name: "Other", bundleIdentifier: "com.other"))).isEmpty)
        let revision = HKSourceRevision(source: mine, version: HKSourceRevisionAnyVersion, productType: HKSourceRevisionAnyProductType,
                                        operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
        #expect(try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(from: [revision])).count == 10)
    }

    @Test("Value comparisons on sealed values are checked after decryption, in any unit")
    func sealedComparisons() async throws {
        let (store, _) = try await store()
        let type = HKQuantityType(.heartRate)
        let sort = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        let fast = try await store.runSampleQuery(type, predicate: HKQuery.predicateForQuantitySamples(
            with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: HKUnit(from: "count/s"), doubleValue: 66.0 / 60)), sort: sort)
        #expect(values(fast) == [66, 67, 68, 69])
        let limited = try await store.runSampleQuery(type, predicate: HKQuery.predicateForQuantitySamples(
            with: .lessThan, quantity: HKQuantity(unit: Samples.bpm, doubleValue: 65)), limit: 2, sort: sort)
        #expect(values(limited) == [60, 61])
        let numeric = try await store.runSampleQuery(type, predicate: HKQuery.predicateForObjects(
            withMetadataKey: "index", operatorType: .greaterThan, value: 7), sort: sort)
        #expect(values(numeric) == [68, 69])
    }

    @Test("Compound predicates mix SQL and sealed checks: and, or, not")
    func compound() async throws {
        let (store, _) = try await store()
        let type = HKQuantityType(.heartRate)
        let sort = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        let high = HKQuery.predicateForQuantitySamples(with: .greaterThan, quantity: HKQuantity(unit: Samples.bpm, doubleValue: 64))
        let entered = HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeyWasUserEntered, allowedValues: [true])
        let early = HKQuery.predicateForSamples(withStart: nil, end: Samples.reference.addingTimeInterval(2.5 * 3600))
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [high, entered])
        #expect(values(try await store.runSampleQuery(type, predicate: and, sort: sort)) == [65, 67, 69])
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [early, NSCompoundPredicate(andPredicateWithSubpredicates: [high, entered])])
        let either = values(try await store.runSampleQuery(type, predicate: or, sort: sort))
        #expect(either == [60, 61, 62, 65, 67, 69])
        let notHigh = values(try await store.runSampleQuery(type, predicate: NSCompoundPredicate(notPredicateWithSubpredicate: high), sort: sort))
        #expect(notHigh == [60, 61, 62, 63, 64])
        let notEntered = values(try await store.runSampleQuery(type, predicate: NSCompoundPredicate(notPredicateWithSubpredicate: entered),
                                                               sort: sort))
        #expect(notEntered == [60, 62, 64, 66, 68])
    }

    @Test("Category value predicates")
    func categoryValues() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.sleep(.asleepCore, at: 0, minutes: 30), Samples.sleep(.asleepDeep, at: 1800, minutes: 30),
                              Samples.sleep(.awake, at: 3600, minutes: 5)])
        let type = HKCategoryType(.sleepAnalysis)
        let deep = try await store.runSampleQuery(type, predicate: HKQuery.predicateForCategorySamples(
            with: .equalTo, value: HKCategoryValueSleepAnalysis.asleepDeep.rawValue))
        #expect(deep.count == 1)
        let asleep = try await store.runSampleQuery(type, predicate: HKQuery.predicateForCategorySamples(
            equalTo: [HKCategoryValueSleepAnalysis.asleepCore.rawValue, HKCategoryValueSleepAnalysis.asleepDeep.rawValue]))
        #expect(asleep.count == 2)
    }

    @Test("Queries over several descriptors merge, sort and limit")
    func multipleDescriptors() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.steps(1, at: 0), Samples.heartRate(70, at: 60), Samples.steps(2, at: 120)])
        let samples: [HKSample] = try await withCheckedThrowingContinuation { continuation in
            store.execute(HKSampleQuery(queryDescriptors: [HKQueryDescriptor(sampleType: HKQuantityType(.stepCount), predicate: nil),
                                                           HKQueryDescriptor(sampleType: HKQuantityType(.heartRate), predicate: nil)],
                                        limit: 2, sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]) {
                _, samples, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
            })
        }
        #expect(samples.map(\.sampleType.identifier) == [HKQuantityTypeIdentifier.stepCount.rawValue, HKQuantityTypeIdentifier.heartRate.rawValue])
    }

    @Test("A stopped query never calls its handler")
    func stopped() async throws {
        let (store, _) = try await store()
        let calls = Inbox<Int>()
        let query = HKSampleQuery(sampleType: HKQuantityType(.heartRate), predicate: nil, limit: 0, sortDescriptors: nil) { _, _, _ in
            calls.append(1)
        }
        store.stop(query)
        store.execute(query)
        await query.lifecycle.waitUntilIdle()
        #expect(calls.values.isEmpty)
    }
}

@Suite("HealthKit conveniences")
struct HealthKitConvenienceTests {
    @Test("Sleep predicates and HKError bridging behave as in HealthKit")
    func conveniences() async throws {
        let store = TestStores.memory()
        try await store.save([Samples.sleep(.inBed, at: 0, minutes: 480), Samples.sleep(.asleepREM, at: 60, minutes: 30),
                              Samples.sleep(.awake, at: 3_600, minutes: 5)])
        let asleepPredicate = HKCategoryValueSleepAnalysis.predicateForSamples(equalTo: HKCategoryValueSleepAnalysis.allAsleepValues)
        let asleep = try await store.runSampleQuery(HKCategoryType(.sleepAnalysis), predicate: asleepPredicate)
        #expect(asleep.compactMap { ($0 as? HKCategorySample)?.value } == [HKCategoryValueSleepAnalysis.asleepREM.rawValue])
        let error = HKError(.errorNoData)
        let bridged = error as NSError
        #expect(bridged.domain == HKErrorDomain && bridged.code == HKError.Code.errorNoData.rawValue)
        #expect(HKError(.errorInvalidArgument, userInfo: [NSLocalizedDescriptionKey: "why"]).message == "why")
        do {
            throw error
        } catch HKError.errorNoData {
            // Pattern matching on codes, as `catch HKError.errorNoData` does on Apple platforms.
        } catch {
            Issue.record("the code pattern did not match")
        }
    }
}
