import Foundation

/// The calendar-stepped intervals of a statistics collection query.
///
/// Interval `k` (any integer, negative before the anchor) is
/// `[calendar.date(byAdding: components × k, to: anchor), calendar.date(byAdding: components × (k + 1), to: anchor))`.
/// Every boundary is computed from the anchor by multiplying the components, never by adding
/// an interval to the previous boundary, so a monthly grid anchored on January 31 has its
/// boundaries on Feb 29 (leap year), Mar 31, Apr 30, … and daily intervals in a time zone
/// with daylight saving time are 23 or 25 hours long on the transition days. Hours, minutes
/// and seconds are elapsed time (Foundation's rule), so hourly intervals are always 3600 s.
///
/// Accepted components: `year`, `quarter` (treated as 3 months, which Foundation's
/// `date(byAdding:)` would otherwise ignore), `month`, `weekOfYear` and `weekOfMonth` (each
/// treated as 7 days), `day`, `hour`, `minute`, `second` and `nanosecond`. All must be zero or
/// positive, at least one positive, and the interval at least a millisecond long. `era`,
/// `weekday`, `weekdayOrdinal`, `yearForWeekOfYear`, `dayOfYear` and `isLeapMonth` are
/// rejected. The components' own `calendar` and `timeZone` are ignored: the grid steps with
/// its `calendar` and that calendar's time zone.
///
/// Dates passed in must lie within `Date.distantPast ... Date.distantFuture`.
struct StatisticsIntervalGrid: Sendable, Equatable {
    /// The most intervals one call may produce (about 3.8 years of minutes).
    static let maximumIntervalCount = 2_000_000

    /// The reference-date seconds a date passed in may take.
    static let supportedRange: ClosedRange<Double> =
        Date.distantPast.timeIntervalSinceReferenceDate...Date.distantFuture.timeIntervalSinceReferenceDate

    /// The furthest a computed boundary may lie from the reference date (about 31,700 years).
    private static let boundaryLimit = 1e12

    /// A date on which an interval starts.
    let anchorDate: Date
    /// The interval components as given by the caller.
    let intervalComponents: DateComponents
    /// The calendar, with its time zone, that steps the intervals.
    let calendar: Calendar

    private let years: Int
    private let months: Int
    private let days: Int
    /// Whole seconds of the elapsed-time part (hours, minutes, seconds).
    private let seconds: Int
    private let nanoseconds: Int
    /// True when there are no calendar fields, so interval `k` starts at anchor + k × length.
    private let isFixedLength: Bool
    /// The average interval length in seconds, used to estimate an index.
    private let averageLength: Double
    private let anchor: Double

    /// Creates the grid of a statistics collection query.
    ///
    /// - Parameters:
    ///   - anchorDate: A date on which an interval starts.
    ///   - intervalComponents: The length of each interval.
    ///   - calendar: The calendar and time zone that step the intervals.
    /// - Throws: ``StatisticsError/Code/invalidIntervalComponents`` for unsupported, negative,
    ///   empty or sub-millisecond components; ``StatisticsError/Code/dateOutOfRange`` for an
    ///   anchor outside `Date.distantPast ... Date.distantFuture`.
    init(anchorDate: Date, intervalComponents: DateComponents, calendar: Calendar) throws(StatisticsError) {
        let invalid = StatisticsError(code: .invalidIntervalComponents, intervalComponents: intervalComponents)
        let c = intervalComponents
        if c.era != nil || c.weekday != nil || c.weekdayOrdinal != nil || c.yearForWeekOfYear != nil
            || c.dayOfYear != nil || c.isLeapMonth != nil
        {
            throw invalid
        }
        let fields = [
            c.year, c.quarter, c.month, c.weekOfYear, c.weekOfMonth, c.day, c.hour, c.minute, c.second, c.nanosecond,
        ]
        .map { $0 ?? 0 }
        guard fields.allSatisfy({ $0 >= 0 }), fields.contains(where: { $0 > 0 }) else {
            throw invalid
        }
        // Every field is at most Int.max here; a product that overflows is an invalid interval.
        guard
            let months = Self.add(c.month ?? 0, Self.multiply(c.quarter ?? 0, 3)),
            let weeks = Self.add(c.weekOfYear ?? 0, c.weekOfMonth ?? 0),
            let days = Self.add(c.day ?? 0, Self.multiply(weeks, 7)),
            let hourSeconds = Self.multiply(c.hour ?? 0, 3600),
            let minuteSeconds = Self.multiply(c.minute ?? 0, 60),
            let partial = Self.add(hourSeconds, minuteSeconds),
            let seconds = Self.add(partial, c.second ?? 0)
        else {
            throw invalid
        }
        let years = c.year ?? 0
        let nanoseconds = c.nanosecond ?? 0
        let elapsed = Double(seconds) + Double(nanoseconds) / 1e9
        let average = Double(years) * 365.2425 * 86_400 + Double(months) * 30.436875 * 86_400 + Double(days) * 86_400 + elapsed
        guard average >= 0.001, average.isFinite else {
            throw invalid
        }
        let anchor = anchorDate.timeIntervalSinceReferenceDate
        guard Self.supportedRange.contains(anchor) else {
            throw StatisticsError(code: .dateOutOfRange, intervalComponents: intervalComponents)
        }
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
        self.calendar = calendar
        self.years = years
        self.months = months
        self.days = days
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.isFixedLength = years == 0 && months == 0 && days == 0
        self.averageLength = average
        self.anchor = anchor
    }

    /// The index of the interval that contains `date` (`start <= date < end`).
    ///
    /// Estimates the index from the average interval length, then corrects it against the
    /// exact calendar boundaries (a few calendar calls).
    ///
    /// - Parameter date: A date within `Date.distantPast ... Date.distantFuture`.
    /// - Returns: The interval index; negative before the anchor.
    /// - Throws: ``StatisticsError/Code/dateOutOfRange``.
    func index(containing date: Date) throws(StatisticsError) -> Int {
        try index(containingSeconds: date.timeIntervalSinceReferenceDate)
    }

    /// The interval at `index`.
    ///
    /// - Parameter index: The interval index; 0 starts at the anchor date.
    /// - Returns: The half-open interval `[start, end)` (DateInterval's end is exclusive here).
    /// - Throws: ``StatisticsError/Code/dateOutOfRange`` when a boundary cannot be computed.
    func interval(at index: Int) throws(StatisticsError) -> DateInterval {
        guard index < Int.max else {
            throw outOfRange()
        }
        let start = try boundary(index)
        let end = try boundary(index + 1)
        return DateInterval(
            start: Date(timeIntervalSinceReferenceDate: start),
            duration: max(0, end - start)
        )
    }

    /// Every interval that overlaps `[start, end)` with positive length, in order.
    ///
    /// - Parameters:
    ///   - start: The start of the range.
    ///   - end: The end of the range (exclusive); an empty or reversed range gives no intervals.
    /// - Returns: The intervals, chronologically.
    /// - Throws: ``StatisticsError/Code/dateOutOfRange``, or
    ///   ``StatisticsError/Code/tooManyIntervals`` beyond ``maximumIntervalCount``.
    func intervals(from start: Date, to end: Date) throws(StatisticsError) -> [DateInterval] {
        let (_, bounds) = try boundaries(
            from: start.timeIntervalSinceReferenceDate,
            to: end.timeIntervalSinceReferenceDate
        )
        guard bounds.count > 1 else {
            return []
        }
        var result: [DateInterval] = []
        result.reserveCapacity(bounds.count - 1)
        for j in 0..<(bounds.count - 1) {
            result.append(
                DateInterval(
                    start: Date(timeIntervalSinceReferenceDate: bounds[j]),
                    duration: max(0, bounds[j + 1] - bounds[j])
                )
            )
        }
        return result
    }

    /// The boundaries of every interval overlapping `[start, end)` with positive length.
    ///
    /// - Parameters:
    ///   - start: Reference-date seconds.
    ///   - end: Reference-date seconds (exclusive).
    /// - Returns: The index of the first interval and its `count + 1` boundaries in
    ///   reference-date seconds; no boundaries when `end <= start`.
    func boundaries(from start: Double, to end: Double) throws(StatisticsError) -> (firstIndex: Int, boundaries: [Double]) {
        guard end > start else {
            return (0, [])
        }
        let first = try index(containingSeconds: start)
        var last = try index(containingSeconds: end)
        if try boundary(last) >= end {
            last -= 1
        }
        return (first, try boundaries(first: first, last: last))
    }

    /// The boundaries of every interval from the one containing `first` through the one
    /// containing `last` (both inclusive, so a zero-length sample at `last` has its interval).
    ///
    /// - Parameters:
    ///   - first: Reference-date seconds.
    ///   - last: Reference-date seconds, at least `first`.
    /// - Returns: The index of the first interval and its `count + 1` boundaries.
    func boundaries(covering first: Double, through last: Double) throws(StatisticsError) -> (firstIndex: Int, boundaries: [Double]) {
        let firstIndex = try index(containingSeconds: first)
        let lastIndex = try index(containingSeconds: max(first, last))
        return (firstIndex, try boundaries(first: firstIndex, last: lastIndex))
    }

    /// The boundaries of intervals `first...last`: `last - first + 2` values.
    private func boundaries(first: Int, last: Int) throws(StatisticsError) -> [Double] {
        guard last >= first else {
            return []
        }
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, span < Self.maximumIntervalCount else {
            throw StatisticsError(code: .tooManyIntervals, intervalComponents: intervalComponents)
        }
        var result: [Double] = []
        result.reserveCapacity(span + 2)
        for k in first...(last + 1) {
            result.append(try boundary(k))
        }
        return result
    }

    /// The start of interval `k` in reference-date seconds.
    func boundary(_ k: Int) throws(StatisticsError) -> Double {
        let value: Double
        if isFixedLength {
            guard let whole = Self.multiply(seconds, k), let nanos = Self.multiply(nanoseconds, k) else {
                throw outOfRange()
            }
            value = anchor + Double(whole) + Double(nanos) / 1e9
        } else {
            guard
                let y = Self.multiply(years, k),
                let m = Self.multiply(months, k),
                let d = Self.multiply(days, k),
                let s = Self.multiply(seconds, k),
                let n = Self.multiply(nanoseconds, k)
            else {
                throw outOfRange()
            }
            // Only far-away multiples fail here; Foundation handles years beyond ±30,000.
            guard abs(Double(y)) < 50_000, abs(Double(m)) < 600_000, abs(Double(d)) < 20_000_000 else {
                throw outOfRange()
            }
            var step = DateComponents()
            if y != 0 { step.year = y }
            if m != 0 { step.month = m }
            if d != 0 { step.day = d }
            if s != 0 { step.second = s }
            if n != 0 { step.nanosecond = n }
            guard let date = calendar.date(byAdding: step, to: anchorDate) else {
                throw outOfRange()
            }
            value = date.timeIntervalSinceReferenceDate
        }
        guard value.isFinite, abs(value) < Self.boundaryLimit else {
            throw outOfRange()
        }
        return value
    }

    /// The index of the interval containing `t` (reference-date seconds).
    private func index(containingSeconds t: Double) throws(StatisticsError) -> Int {
        guard Self.supportedRange.contains(t) else {
            throw outOfRange()
        }
        // |t - anchor| < 1.3e11 and averageLength >= 1e-3, so the estimate fits an Int.
        let estimate = Int(((t - anchor) / averageLength).rounded(.down))
        // Find lo, hi with boundary(lo) <= t < boundary(hi), galloping from the estimate,
        // then bisect. Boundaries increase with k because every component is non-negative.
        var lo = estimate
        var hi = estimate + 1
        var step = 1
        while try boundary(lo) > t {
            hi = lo
            lo -= step
            step *= 2
        }
        step = 1
        while try boundary(hi) <= t {
            lo = hi
            hi += step
            step *= 2
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if try boundary(mid) <= t {
                lo = mid
            } else {
                hi = mid
            }
        }
        return lo
    }

    private func outOfRange() -> StatisticsError {
        StatisticsError(code: .dateOutOfRange, intervalComponents: intervalComponents)
    }

    private static func multiply(_ a: Int, _ b: Int) -> Int? {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : product
    }

    private static func add(_ a: Int, _ b: Int?) -> Int? {
        guard let b else {
            return nil
        }
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }
}
