import Foundation

extension HKStatisticsOptions {
    /// The options that only apply to discrete quantity types.
    static let discreteOnly: HKStatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]

    /// The options that only apply to cumulative quantity types.
    static let cumulativeOnly: HKStatisticsOptions = [.cumulativeSum]

    /// The options that apply to every quantity type.
    static let anyStyle: HKStatisticsOptions = [.separateBySource, .mostRecent, .duration]

    /// Every bit this implementation knows.
    static let known: HKStatisticsOptions = discreteOnly.union(cumulativeOnly).union(anyStyle)

    /// Checks that `options` may be used with a quantity type of the given aggregation style.
    ///
    /// The rules, in the order they are checked:
    /// 1. Bits outside the known options are rejected (``StatisticsError/Code/unknownOption``).
    /// 2. Discrete options mixed with ``cumulativeSum`` are rejected whatever the style
    ///    (``StatisticsError/Code/mixedDiscreteAndCumulative``).
    /// 3. ``cumulativeSum`` on a discrete style, or a discrete option on the cumulative style,
    ///    is rejected (``StatisticsError/Code/optionNotAllowedForStyle``).
    ///
    /// ``mostRecent``, ``duration`` and ``separateBySource`` are allowed for every style:
    /// HealthKit renamed `discreteMostRecent` to `mostRecent` in iOS 13 when it opened the
    /// option to cumulative types. The empty set is allowed.
    ///
    /// - Parameters:
    ///   - options: The requested options.
    ///   - style: The aggregation style of the queried quantity type.
    /// - Throws: A ``StatisticsError`` naming the offending options and the style.
    static func validate(_ options: HKStatisticsOptions, for style: HKQuantityAggregationStyle) throws(StatisticsError) {
        let unknown = options.subtracting(known)
        if !unknown.isEmpty {
            throw StatisticsError(code: .unknownOption, options: unknown, aggregationStyle: style)
        }
        let discrete = options.intersection(discreteOnly)
        let cumulative = options.intersection(cumulativeOnly)
        if !discrete.isEmpty && !cumulative.isEmpty {
            throw StatisticsError(
                code: .mixedDiscreteAndCumulative,
                options: discrete.union(cumulative),
                aggregationStyle: style
            )
        }
        switch style {
        case .cumulative:
            if !discrete.isEmpty {
                throw StatisticsError(code: .optionNotAllowedForStyle, options: discrete, aggregationStyle: style)
            }
        case .discreteArithmetic, .discreteTemporallyWeighted, .discreteEquivalentContinuousLevel:
            if !cumulative.isEmpty {
                throw StatisticsError(code: .optionNotAllowedForStyle, options: cumulative, aggregationStyle: style)
            }
        }
    }
}
