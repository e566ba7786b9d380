import Foundation

/// A sample that groups other samples, such as a blood-pressure reading made of a systolic and
/// a diastolic sample (HealthKit's `HKCorrelation`).
public final class HKCorrelation: HKSample, @unchecked Sendable {
    /// The samples the correlation holds.
    public let objects: Set<HKSample>

    /// The correlation's type.
    public var correlationType: HKCorrelationType {
        sampleType as? HKCorrelationType ?? HKCorrelationType(HKCorrelationTypeIdentifier(rawValue: sampleType.identifier))
    }

    /// Creates a correlation, as HealthKit's `init(type:start:end:objects:device:metadata:)`.
    public init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
                device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.objects = objects
        super.init(sampleType: correlationType, startDate: startDate, endDate: endDate, device: device, metadata: metadata)
    }

    /// Creates a correlation with metadata, as HealthKit's `init(type:start:end:objects:metadata:)`.
    public convenience init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
                            objects: Set<HKSample>, metadata: [String: Any]?) {
        self.init(type: correlationType, start: startDate, end: endDate, objects: objects, device: nil, metadata: metadata)
    }

    init(type: HKCorrelationType, start: Date, end: Date, objects: Set<HKSample>, uuid: UUID,
         sourceRevision: HKSourceRevision, device: HKDevice?, metadata: [String: Any]?) {
        self.objects = objects
        super.init(sampleType: type, startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }

    /// The member samples of one type.
    public func objects(for objectType: HKObjectType) -> Set<HKSample> {
        objects.filter { $0.sampleType == objectType }
    }
}
