import Foundation

/// A sample type with a predicate, for queries over several types (HealthKit's `HKQueryDescriptor`).
public final class HKQueryDescriptor: NSObject, @unchecked Sendable {
    /// The type to read.
    public let sampleType: HKSampleType
    /// The predicate that limits the samples.
    public let predicate: NSPredicate?

    /// Creates a descriptor.
    public init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        self.predicate = predicate
    }
}
