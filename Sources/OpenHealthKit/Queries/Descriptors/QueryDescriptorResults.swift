/// What a query descriptor's `results(for:)` returns: the query's deliveries in order, ending
/// when the query has delivered everything (for the one-shot descriptors) or when the consuming
/// task stops iterating or is cancelled (for the long-running ones, whose query stops then).
///
/// HealthKit declares a `Results` structure in each descriptor; here each descriptor's
/// `Results` names this one sequence with its own element, so code that iterates them, or
/// names `HKAnchoredObjectQueryDescriptor<HKQuantitySample>.Results`, reads the same.
public struct QueryDescriptorResults<Element: Sendable>: AsyncSequence, Sendable {
    let stream: AsyncThrowingStream<Element, any Error>

    /// Iterates the deliveries.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator

        /// The next delivery, or nil once the sequence ended.
        public mutating func next() async throws -> Element? {
            try await base.next()
        }

        /// The next delivery on the caller's isolation, or nil once the sequence ended.
        /// - Parameter actor: The caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Element? {
            try await base.next(isolation: actor)
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }
}
