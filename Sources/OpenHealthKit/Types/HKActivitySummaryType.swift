import Foundation

/// The identifier of the activity summary type.
public let HKActivitySummaryTypeIdentifier = "HKActivitySummaryTypeIdentifier"

/// The type of activity summaries, the daily move, exercise and stand rings (HealthKit's
/// `HKActivitySummaryType`). Apps read it; only the store's owner writes summaries.
public final class HKActivitySummaryType: HKObjectType, @unchecked Sendable {
    /// The activity summary type (there is exactly one).
    public init() {
        super.init(identifier: HKActivitySummaryTypeIdentifier)
    }
}

extension HKObjectType {
    /// The activity summary type.
    public class func activitySummaryType() -> HKActivitySummaryType { HKActivitySummaryType() }
}

/// How activity summaries are stored: as rows of this sample type, one per day and source.
final class ActivitySummaryStorageType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKActivitySummaryTypeIdentifier)
    }
}
