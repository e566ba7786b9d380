import Foundation

/// An exact sum of `Double`s, rounded once when read: Shewchuk's non-overlapping partials,
/// as Python's `math.fsum` keeps them.
///
/// The value does not depend on the order in which terms are added, nor on how they are
/// grouped: adding the partials of another sum (``add(_:)-(ExactSum)``) gives the same value as
/// adding its terms one by one. That is what lets statistics combine per-grain rollups with raw
/// samples and still return, bit for bit, what one pass over every sample returns.
///
/// Non-finite terms are kept apart and summed plainly (`inf + -inf` is NaN in any order).
///
/// Overflow: a sum of finite terms beyond ±`Double.greatestFiniteMagnitude` (two step counts of
/// 1.7e308) saturates there: the sum is clamped to the largest finite `Double` of its sign,
/// never infinite, nor NaN as Shewchuk's steps alone give (an overflowing pair's low part is
/// `-inf`, added later to its `+inf`). The store
/// keeps finite quantities only, so a statistic is always a finite number every client can
/// show and convert. Only past saturation does the order of terms matter (finite terms beyond
/// the range, of both signs, cancel from the clamped value).
///
/// Cost: O(number of partials) per term; partials stay few (at most a handful for values of
/// similar magnitude), and the array is allocated once per sum, not per term.
struct ExactSum: Sendable, Hashable {
    /// Non-overlapping partials, increasing in magnitude; their exact sum is the sum.
    private(set) var partials: [Double] = []
    /// The sum of the non-finite terms (0 when there were none).
    private(set) var special = 0.0

    init() {}

    /// A sum whose partials are `partials` (as read back from a rollup) and whose non-finite
    /// part is `special`. Partials that are finite, non-zero and strictly increasing in
    /// magnitude are kept as they are (every list ``partials`` produces is); any other list is
    /// re-added term by term.
    init(partials: [Double], special: Double) {
        var isCanonical = true
        var previous = 0.0
        for partial in partials {
            guard partial.isFinite, partial != 0, abs(partial) > abs(previous) else {
                isCanonical = false
                break
            }
            previous = partial
        }
        if isCanonical {
            self.partials = partials
        } else {
            for partial in partials {
                add(partial)
            }
        }
        self.special = special
    }

    /// Adds one term.
    @inline(__always)
    mutating func add(_ term: Double) {
        guard term.isFinite else {
            special += term
            return
        }
        var x = term
        var kept = 0
        let count = partials.count
        if count > 0 {
            partials.withUnsafeMutableBufferPointer { partials in
                for i in 0..<count {
                    var y = partials[i]
                    if abs(x) < abs(y) {
                        swap(&x, &y)
                    }
                    var hi = x + y
                    var lo = y - (hi - x)
                    if !hi.isFinite {
                        // Beyond the largest Double: saturate (see Overflow above).
                        hi = Self.clamped(hi)
                        lo = 0
                    }
                    if lo != 0 {
                        partials[kept] = lo
                        kept += 1
                    }
                    x = hi
                }
            }
            partials.removeLast(count - kept)
        }
        partials.append(x)
    }

    /// Adds every term of `other`.
    mutating func add(_ other: ExactSum) {
        for partial in other.partials {
            add(partial)
        }
        if other.special != 0 || other.special.isNaN {
            special += other.special
        }
    }

    /// The exact sum, correctly rounded to the nearest `Double` (ties to even), as `math.fsum`.
    var value: Double {
        if special != 0 || special.isNaN {
            return special
        }
        var n = partials.count
        guard n > 0 else {
            return 0
        }
        n -= 1
        var hi = partials[n]
        var lo = 0.0
        while n > 0 {
            let x = hi
            n -= 1
            let y = partials[n]
            hi = x + y
            let yr = hi - x
            lo = y - yr
            if lo != 0 {
                break
            }
        }
        // Half-way case: the rest of the partials decide the direction of rounding.
        if n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0)) {
            let y = lo * 2
            let x = hi + y
            let yr = x - hi
            if y == yr {
                hi = x
            }
        }
        return Self.clamped(hi)
    }

    /// `value` clamped to ±`Double.greatestFiniteMagnitude` (a finite value is returned as is).
    @inline(__always)
    static func clamped(_ value: Double) -> Double {
        guard !value.isFinite, !value.isNaN else { return value }
        return value < 0 ? -Double.greatestFiniteMagnitude : Double.greatestFiniteMagnitude
    }
}
