import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit

/// The store side of the import benchmarks (ImportBenchmarks and `import-probe save`): the
/// samples importing the generated large export stores, built directly.
public enum StoreSide {
    /// The samples the import of the generated export stores, in batches of 10,000, each with
    /// the source revision it is recorded under.
    public static func sampleBatches(count: Int) -> [(samples: [HKObject], revisions: [HKSourceRevision])] {
        let heartRate = HKQuantityType(.heartRate)
        let steps = HKQuantityType(.stepCount)
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        let watch = HKDevice(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,1",
                             firmwareVersion: nil, softwareVersion: "7.0", localIdentifier: nil, udiDeviceIdentifier: nil)
        var revisions: [String: HKSourceRevision] = [:]
        var batches: [(samples: [HKObject], revisions: [HKSourceRevision])] = []
        var batch: (samples: [HKObject], revisions: [HKSourceRevision]) = ([], [])
        for index in 0..<count {
            let record = AppleHealthExportGenerator.largeRecord(index)
            let start = Date(timeIntervalSince1970: TimeInterval(record.start))
            let isHeart = index % 2 == 0
            // A sync identifier as long as the importer's (prefix and 64 hex digits).
            let syncIdentifier = AppleHealthImporter.syncIdentifierPrefix + String(repeating: "0", count: 48)
                + String(String(index, radix: 16).suffix(16)).leftPadded(to: 16)
            let sample = HKQuantitySample(
                type: isHeart ? heartRate : steps,
                quantity: HKQuantity(unit: isHeart ? perMinute : .count(), doubleValue: record.value),
                start: start, end: start.addingTimeInterval(60), device: isHeart ? watch : nil,
                metadata: [HKMetadataKeySyncIdentifier: syncIdentifier, HKMetadataKeySyncVersion: 1])
            let revision = revisions[record.source] ?? HKSourceRevision(
                source: AppleHealthImporter.source(named: record.source), version: "14.2", productType: nil,
                operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
            revisions[record.source] = revision
            batch.samples.append(sample)
            batch.revisions.append(revision)
            if batch.samples.count == 10_000 {
                batches.append(batch)
                batch = ([], [])
            }
        }
        if !batch.samples.isEmpty { batches.append(batch) }
        return batches
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
