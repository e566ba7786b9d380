import Foundation

/// An error raised when statistics options or collection intervals are invalid.
///
/// HealthKit raises an Objective-C exception in these cases; OpenHealthKit throws this typed
/// error instead. It carries only the query's shape (options, aggregation style, interval
/// components, a date bound), never sample values.
public struct StatisticsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unknownOption
            case mixedDiscreteAndCumulative
            case optionNotAllowedForStyle
            case invalidIntervalComponents
            case dateOutOfRange
            case tooManyIntervals
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The options contain bits that HealthKit does not define.
        public static let unknownOption = Code(.unknownOption)
        /// Discrete options (average, min, max) were combined with `cumulativeSum`.
        public static let mixedDiscreteAndCumulative = Code(.mixedDiscreteAndCumulative)
        /// An option does not apply to the quantity type's aggregation style.
        public static let optionNotAllowedForStyle = Code(.optionNotAllowedForStyle)
        /// The interval components are empty, negative, unsupported or shorter than a millisecond.
        public static let invalidIntervalComponents = Code(.invalidIntervalComponents)
        /// A date or interval lies outside `Date.distantPast ... Date.distantFuture`.
        public static let dateOutOfRange = Code(.dateOutOfRange)
        /// The requested range spans more intervals than a collection may hold.
        public static let tooManyIntervals = Code(.tooManyIntervals)

        /// The code's name.
        public var description: String {
            switch base {
            case .unknownOption: "unknownOption"
            case .mixedDiscreteAndCumulative: "mixedDiscreteAndCumulative"
            case .optionNotAllowedForStyle: "optionNotAllowedForStyle"
            case .invalidIntervalComponents: "invalidIntervalComponents"
            case .dateOutOfRange: "dateOutOfRange"
            case .tooManyIntervals: "tooManyIntervals"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The offending options, for option errors.
    public let options: HKStatisticsOptions?
    /// The aggregation style of the queried type, for option errors.
    public let aggregationStyle: HKQuantityAggregationStyle?
    /// The interval components as given by the caller, for interval errors.
    public let intervalComponents: DateComponents?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - options: The offending options, if the error is about options.
    ///   - aggregationStyle: The aggregation style, if the error is about options.
    ///   - intervalComponents: The interval components, if the error is about intervals.
    public init(
        code: Code,
        options: HKStatisticsOptions? = nil,
        aggregationStyle: HKQuantityAggregationStyle? = nil,
        intervalComponents: DateComponents? = nil
    ) {
        self.code = code
        self.options = options
        self.aggregationStyle = aggregationStyle
        self.intervalComponents = intervalComponents
    }

    /// A one-line description naming the code and its context.
    public var description: String {
        var text = "StatisticsError.\(code)"
        if let options {
            text += " options: \(options)"
        }
        if let aggregationStyle {
            text += " aggregationStyle: \(aggregationStyle)"
        }
        if let intervalComponents {
            text += " intervalComponents: \(intervalComponents)"
        }
        return text
    }
}
