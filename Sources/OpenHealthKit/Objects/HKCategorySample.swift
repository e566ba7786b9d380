import Foundation

/// A sample holding one value of a category type's enumeration (HealthKit's `HKCategorySample`).
public final class HKCategorySample: HKSample, @unchecked Sendable {
    /// The value, a raw value of the type's enum (e.g. `HKCategoryValueSleepAnalysis.asleepREM.rawValue`).
    public let value: Int

    /// The sample's category type.
    public var categoryType: HKCategoryType {
        sampleType as? HKCategoryType ?? HKCategoryType(HKCategoryTypeIdentifier(rawValue: sampleType.identifier))
    }

    /// Creates a category sample, as HealthKit's `init(type:value:start:end:device:metadata:)`.
    public init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
                device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.value = value
        super.init(sampleType: type, startDate: startDate, endDate: endDate, device: device, metadata: metadata)
    }

    /// Creates a category sample with metadata, as HealthKit's `init(type:value:start:end:metadata:)`.
    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date, metadata: [String: Any]?) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    init(type: HKCategoryType, value: Int, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: [String: Any]?) {
        self.value = value
        super.init(sampleType: type, startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }
}
