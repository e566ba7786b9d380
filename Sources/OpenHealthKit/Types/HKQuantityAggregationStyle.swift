import Foundation

/// How samples of a quantity type combine over an interval.
///
/// Cumulative types support only the sum; discrete types support average, minimum, maximum and
/// most recent. The three discrete styles differ in how the average is computed.
public enum HKQuantityAggregationStyle: Int, Sendable, Codable, CaseIterable {
    /// Samples are summed over an interval (step count, energy burned).
    case cumulative = 0

    /// Samples are averaged with the arithmetic mean (body mass, blood glucose).
    case discreteArithmetic = 1

    /// Samples are averaged weighted by their duration (heart rate, AFib burden).
    case discreteTemporallyWeighted = 2

    /// Samples are combined as an equivalent continuous sound level, an energy average of dB values (audio exposure).
    case discreteEquivalentContinuousLevel = 3

    /// The pre-iOS 13 name of `discreteArithmetic`.
    @available(*, deprecated, renamed: "discreteArithmetic")
    public static let discrete = HKQuantityAggregationStyle.discreteArithmetic
}
