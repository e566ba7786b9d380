import Foundation

/// The abstract superclass of builders of series samples (HealthKit's `HKSeriesBuilder`).
open class HKSeriesBuilder: NSObject, @unchecked Sendable {
    /// Stops the builder and drops the data given to it; later calls fail.
    open func discard() {}
}
