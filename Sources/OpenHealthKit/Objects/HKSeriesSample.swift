import Foundation

/// The abstract superclass of samples that hold a series of data (HealthKit's `HKSeriesSample`).
open class HKSeriesSample: HKSample, @unchecked Sendable {
    /// The number of elements in the series.
    public let count: Int

    init(type: HKSeriesType, count: Int, start: Date, end: Date, uuid: UUID = .timeOrdered(), sourceRevision: HKSourceRevision? = nil,
         device: HKDevice?, metadata: [String: Any]?) {
        self.count = count
        super.init(sampleType: type, startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision, device: device,
                   metadata: metadata)
    }
}
