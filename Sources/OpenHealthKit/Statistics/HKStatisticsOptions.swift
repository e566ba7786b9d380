import Foundation

/// The statistics that a statistics query or a statistics collection query calculates.
///
/// Mirrors HealthKit's `HKStatisticsOptions`, with the same bit values. Discrete options
/// (``discreteAverage``, ``discreteMin``, ``discreteMax``) apply to discrete quantity types,
/// ``cumulativeSum`` applies to cumulative quantity types, and ``mostRecent``,
/// ``duration`` and ``separateBySource`` apply to both. Asking for a discrete option on a
/// cumulative type, a cumulative option on a discrete type, or both kinds at once is a
/// ``StatisticsError``. The empty set `[]` is valid and calculates nothing.
///
/// See <https://developer.apple.com/documentation/healthkit/hkstatisticsoptions>.
public struct HKStatisticsOptions: OptionSet, Sendable, Hashable {
    /// The bit pattern of the options, identical to HealthKit's.
    public let rawValue: UInt

    /// Creates an option set from HealthKit's bit pattern.
    ///
    /// - Parameter rawValue: The bits; unknown bits are kept and rejected by validation.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Calculates every requested statistic separately for each source, in addition to the
    /// merged value.
    public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)

    /// Calculates the average of a discrete quantity type, using the type's aggregation style.
    public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)

    /// Calculates the minimum value of a discrete quantity type.
    public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)

    /// Calculates the maximum value of a discrete quantity type.
    public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)

    /// Calculates the sum of a cumulative quantity type.
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)

    /// Returns the most recent value and its date interval; valid for every quantity type.
    public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)

    /// The iOS 12 name of ``mostRecent``.
    @available(*, deprecated, renamed: "mostRecent")
    public static let discreteMostRecent = HKStatisticsOptions(rawValue: 1 << 5)

    /// Calculates the total time covered by the samples (overlaps counted once), in seconds.
    public static let duration = HKStatisticsOptions(rawValue: 1 << 6)
}

extension HKStatisticsOptions: CustomStringConvertible {
    /// The option names, e.g. `[discreteAverage, discreteMax]`; unknown bits print as hex.
    public var description: String {
        let names: [(HKStatisticsOptions, String)] = [
            (.separateBySource, "separateBySource"),
            (.discreteAverage, "discreteAverage"),
            (.discreteMin, "discreteMin"),
            (.discreteMax, "discreteMax"),
            (.cumulativeSum, "cumulativeSum"),
            (.mostRecent, "mostRecent"),
            (.duration, "duration"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let unknown = subtracting(HKStatisticsOptions.known)
        if !unknown.isEmpty {
            parts.append("0x" + String(unknown.rawValue, radix: 16))
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
