import Foundation

/// The async form of ``HKWorkoutRouteQuery`` (HealthKit's `HKWorkoutRouteQueryDescriptor`).
///
/// ```swift
/// for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) {
///     // each CLLocation of the route, in time order
/// }
/// ```
///
/// `results(for:)` reads the route once: the sequence yields every location and then ends, as
/// HealthKit's does (a route does not change after it is saved). A route the caller may not
/// read, or one deleted, ends the sequence with `errorNoData`, as the callback query reports it.
public struct HKWorkoutRouteQueryDescriptor: Sendable {
    /// The locations of a route, one element per location (HealthKit's
    /// `HKWorkoutRouteQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<CLLocation>

    /// The route whose locations are read.
    public var workoutRoute: HKWorkoutRoute

    /// Creates a descriptor, as HealthKit's `init(_:)`.
    /// - Parameter workoutRoute: A saved route sample.
    public init(_ workoutRoute: HKWorkoutRoute) {
        self.workoutRoute = workoutRoute
    }

    /// The route's locations, in time order; the sequence ends after the last one.
    public func results(for healthStore: HKHealthStore) -> Results {
        let route = workoutRoute
        let stream = AsyncThrowingStream<CLLocation, any Error> { continuation in
            let query = HKWorkoutRouteQuery(route: route) { _, locations, done, error in
                if let error {
                    continuation.finish(throwing: error)
                    return
                }
                for location in locations ?? [] { continuation.yield(location) }
                if done { continuation.finish() }
            }
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        }
        return Results(stream: stream)
    }
}
