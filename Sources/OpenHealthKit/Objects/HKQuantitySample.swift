import Foundation

/// A sample holding one quantity (HealthKit's `HKQuantitySample`).
public class HKQuantitySample: HKSample, @unchecked Sendable {
    /// The sample's quantity, in the unit it was saved with.
    public let quantity: HKQuantity
    /// The number of quantities the sample aggregates (1 for an ordinary sample).
    public let count: Int

    /// The sample's quantity type.
    public var quantityType: HKQuantityType {
        // Always built from an HKQuantityType in every initializer.
        sampleType as? HKQuantityType ?? HKQuantityType(HKQuantityTypeIdentifier(rawValue: sampleType.identifier))
    }

    /// Creates a quantity sample, as HealthKit's `init(type:quantity:start:end:device:metadata:)`.
    public init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.quantity = quantity
        self.count = 1
        self.seriesSummary = nil
        super.init(sampleType: quantityType, startDate: startDate, endDate: endDate, device: device, metadata: metadata)
    }

    /// Creates a quantity sample with metadata, as HealthKit's `init(type:quantity:start:end:metadata:)`.
    public convenience init(type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
                            metadata: [String: Any]?) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    /// For a series (``count`` above 1) of a discrete type: its minimum, maximum and most recent
    /// quantity; nil for a single quantity.
    let seriesSummary: QuantitySeriesSummary?

    init(type quantityType: HKQuantityType, quantity: HKQuantity, count: Int, start: Date, end: Date, uuid: UUID,
         sourceRevision: HKSourceRevision?, device: HKDevice?, metadata: [String: Any]?, seriesSummary: QuantitySeriesSummary? = nil) {
        self.quantity = quantity
        self.count = count
        self.seriesSummary = seriesSummary
        super.init(sampleType: quantityType, startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }

    public override var description: String {
        "\(quantity) \(sampleType.identifier) \(startDate) - \(endDate)"
    }
}

/// A quantity sample of a cumulative type, as the store returns it (HealthKit's
/// `HKCumulativeQuantitySample`).
public final class HKCumulativeQuantitySample: HKQuantitySample, @unchecked Sendable {
    /// The sum of the quantities (for a series, of all its quantities); for a single sample, its quantity.
    public var sumQuantity: HKQuantity { quantity }
}

/// A quantity sample of a discrete type, as the store returns it (HealthKit's
/// `HKDiscreteQuantitySample`).
public final class HKDiscreteQuantitySample: HKQuantitySample, @unchecked Sendable {
    /// The minimum quantity; for a single sample, its quantity.
    public var minimumQuantity: HKQuantity { seriesSummary?.minimum ?? quantity }
    /// The maximum quantity; for a single sample, its quantity.
    public var maximumQuantity: HKQuantity { seriesSummary?.maximum ?? quantity }
    /// The average quantity (for a series, the mean of its quantities); for a single sample, its quantity.
    public var averageQuantity: HKQuantity { quantity }
    /// The most recent quantity; for a single sample, its quantity.
    public var mostRecentQuantity: HKQuantity { seriesSummary?.mostRecent ?? quantity }
    /// The interval of the most recent quantity; for a single sample, its own.
    public var mostRecentQuantityDateInterval: DateInterval {
        seriesSummary?.mostRecentInterval ?? DateInterval(start: startDate, end: endDate)
    }
}
