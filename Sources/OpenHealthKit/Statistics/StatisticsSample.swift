import Foundation

/// One quantity sample as the statistics engine sees it: a time span, a value already
/// converted to the quantity type's canonical unit, and an opaque source number.
///
/// Times are `timeIntervalSinceReferenceDate` seconds. `end` should be at least `start`; an
/// end before the start is treated as a zero-length sample at `start`.
struct StatisticsSample: Sendable, Hashable {
    /// The start of the sample, in reference-date seconds.
    var start: Double
    /// The end of the sample, in reference-date seconds.
    var end: Double
    /// The value in the quantity type's canonical unit (dB for sound levels).
    var value: Double
    /// A small integer the store assigns to each source; the engine only compares them.
    var source: Int32

    /// Creates a sample.
    ///
    /// - Parameters:
    ///   - start: Reference-date seconds.
    ///   - end: Reference-date seconds, at least `start`.
    ///   - value: The value in canonical units.
    ///   - source: The store's number for the sample's source.
    init(start: Double, end: Double, value: Double, source: Int32 = 0) {
        self.start = start
        self.end = end
        self.value = value
        self.source = source
    }
}
