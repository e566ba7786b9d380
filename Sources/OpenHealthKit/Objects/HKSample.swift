import Foundation

/// An object with a type and a time interval (HealthKit's `HKSample`).
open class HKSample: HKObject, @unchecked Sendable {
    /// The sample's type.
    public let sampleType: HKSampleType
    /// When the sample starts.
    public let startDate: Date
    /// When the sample ends (equal to `startDate` for an instant).
    public let endDate: Date

    /// Whether the sample has an undetermined duration (always false here).
    public var hasUndeterminedDuration: Bool { false }

    init(sampleType: HKSampleType, startDate: Date, endDate: Date, uuid: UUID = .timeOrdered(),
         sourceRevision: HKSourceRevision? = nil, device: HKDevice?, metadata: [String: Any]?) {
        self.sampleType = sampleType
        self.startDate = startDate
        self.endDate = endDate
        super.init(uuid: uuid, sourceRevision: sourceRevision ?? HKObject.defaultRevision(), device: device, metadata: metadata)
    }
}

/// The sort key HealthKit sorts samples by start date with.
public let HKSampleSortIdentifierStartDate = "startDate"
/// The sort key HealthKit sorts samples by end date with.
public let HKSampleSortIdentifierEndDate = "endDate"
/// The predicate key path of a sample's start date.
public let HKPredicateKeyPathStartDate = "startDate"
/// The predicate key path of a sample's end date.
public let HKPredicateKeyPathEndDate = "endDate"

extension NSSortDescriptor {
    /// HealthKit's way of sorting samples: `NSSortDescriptor(key: HKSampleSortIdentifierStartDate,
    /// ascending: false)`. swift-corelibs-foundation has no key-value coding, so OpenHealthKit maps
    /// its sample sort keys (`startDate`, `endDate`) onto key paths; other keys sort by start date.
    public convenience init(key: String, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierEndDate:
            self.init(keyPath: \HKSample.endDate, ascending: ascending)
        default:
            self.init(keyPath: \HKSample.startDate, ascending: ascending)
        }
    }
}
