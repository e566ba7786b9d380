import Foundation

/// Reads the voltage measurements of an electrocardiogram (HealthKit's `HKElectrocardiogramQuery`).
///
/// The handler is called once per measurement, in time order, with the voltage of every lead,
/// then once with `.done`. The electrocardiogram is read again from the store, with the
/// caller's authorization: one deleted, or that the caller may not read, reports
/// `errorNoData`, as if it had never been there.
public final class HKElectrocardiogramQuery: HKQuery, @unchecked Sendable {
    /// Partial results of an electrocardiogram query (HealthKit's `HKElectrocardiogramQuery.Result`).
    public enum Result: @unchecked Sendable {
        /// A single voltage measurement.
        case measurement(HKElectrocardiogram.VoltageMeasurement)
        /// The query has finished returning voltage measurements.
        case done
        /// An error occurred while accessing the voltage measurements.
        case error(any Error)
    }

    /// The electrocardiogram whose voltages are read.
    let electrocardiogram: HKElectrocardiogram
    /// Not `@Sendable`, as Apple declares it: each execution of the query calls it from its own task, one call after
    /// another (a query executed twice at once calls it from two tasks, as HealthKit would from two queues).
    private let handler: (HKElectrocardiogramQuery, Result) -> Void

    /// Creates a query for an electrocardiogram's voltages, as HealthKit's `init(_:dataHandler:)`.
    /// - Parameters:
    ///   - ecg: The electrocardiogram sample whose voltages you want to access.
    ///   - dataHandler: Called with each measurement, then with `.done`, or with `.error`.
    public convenience init(_ ecg: HKElectrocardiogram,
                            dataHandler: @escaping (HKElectrocardiogramQuery, HKElectrocardiogramQuery.Result) -> Void) {
        self.init(ecg: ecg, handler: dataHandler)
    }

    /// Creates a query for an electrocardiogram's voltages, as HealthKit's
    /// `init(electrocardiogram:dataHandler:)`: the handler gets each measurement with `done`
    /// false, then nil with `done` true, or an error.
    /// - Parameters:
    ///   - electrocardiogram: The electrocardiogram sample whose voltages you want to access.
    ///   - dataHandler: Called with each measurement, then with `done` set, or with an error.
    public convenience init(electrocardiogram: HKElectrocardiogram,
                            dataHandler: @escaping (HKElectrocardiogramQuery, HKElectrocardiogram.VoltageMeasurement?, Bool,
                                                    (any Error)?) -> Void) {
        self.init(ecg: electrocardiogram) { query, result in
            switch result {
            case .measurement(let measurement): dataHandler(query, measurement, false, nil)
            case .done: dataHandler(query, nil, true, nil)
            case .error(let error): dataHandler(query, nil, true, error)
            }
        }
    }

    private init(ecg: HKElectrocardiogram, handler: @escaping (HKElectrocardiogramQuery, Result) -> Void) {
        self.electrocardiogram = ecg
        self.handler = handler
        super.init(objectType: HKElectrocardiogramType(), predicate: nil)
    }

    override func start(in store: HKHealthStore) async {
        do {
            for measurement in try await Self.measurements(of: electrocardiogram, in: store) {
                guard !lifecycle.isStopped else { return }
                handler(self, .measurement(measurement))
            }
            guard !lifecycle.isStopped else { return }
            handler(self, .done)
        } catch {
            guard !lifecycle.isStopped else { return }
            handler(self, .error(error))
        }
    }

    /// The measurements of the stored electrocardiogram with `ecg`'s UUID, as the caller may read it.
    static func measurements(of ecg: HKElectrocardiogram, in store: HKHealthStore) async throws -> [HKElectrocardiogram.VoltageMeasurement] {
        let stored = try await store.readSamples(type: HKElectrocardiogramType(), predicate: HKQuery.predicateForObject(with: ecg.uuid),
                                                 order: [], limit: 1)
        guard let stored = stored.first as? HKElectrocardiogram else {
            throw HKError(.errorNoData, "the electrocardiogram is not in the store, or this app may not read it")
        }
        return stored.measurements()
    }
}

/// Reads an electrocardiogram's voltage measurements with Swift concurrency (HealthKit's
/// `HKElectrocardiogramQueryDescriptor`).
public struct HKElectrocardiogramQueryDescriptor: Sendable {
    /// The sequence of measurements ``results(for:)`` returns.
    public typealias Results = AsyncThrowingStream<HKElectrocardiogram.VoltageMeasurement, any Error>

    /// The sample that contains the voltage measurements.
    public var electrocardiogram: HKElectrocardiogram

    /// Creates a descriptor that reads the voltage measurements of an electrocardiogram.
    /// - Parameter electrocardiogram: An electrocardiogram sample that contains voltage measurements.
    public init(_ electrocardiogram: HKElectrocardiogram) {
        self.electrocardiogram = electrocardiogram
    }

    /// The voltage measurements, in time order.
    /// - Parameter healthStore: The store to read from.
    public func results(for healthStore: HKHealthStore) -> Results {
        let ecg = electrocardiogram
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for measurement in try await HKElectrocardiogramQuery.measurements(of: ecg, in: healthStore) {
                        if Task.isCancelled { break }
                        continuation.yield(measurement)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
