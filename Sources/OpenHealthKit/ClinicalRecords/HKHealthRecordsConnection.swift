import Foundation

/// A connection to a health-records provider (a SMART on FHIR server), kept sealed in the store
/// by its owner (OpenHealthKit API; HealthKit keeps its provider accounts out of reach).
///
/// The store treats `state` as opaque bytes: the client that connects (the `RecordsSync`
/// module) keeps its endpoint, patient, tokens and per-type sync marks there. The whole row,
/// name included, is sealed under its own key; the name is found through a keyed hash.
public struct HKHealthRecordsConnection: Sendable, Hashable {
    /// The connection's name, unique in the store.
    public var name: String
    /// What the client keeps about the connection.
    public var state: Data

    /// Creates a connection.
    public init(name: String, state: Data) {
        self.name = name
        self.state = state
    }
}
