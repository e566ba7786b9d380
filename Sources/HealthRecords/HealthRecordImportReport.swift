import Foundation
import OpenHealthKit

/// What one import stored, skipped and refused.
public struct HealthRecordImportReport: Sendable {
    /// One resource or card that was not stored, and why.
    public struct Refusal: Sendable, Hashable {
        /// The input it came from.
        public var input: String
        /// Where in the input: `entry[3] Observation/abc`, `card 1`…
        public var location: String
        /// Why: the validator's problems, the verifier's findings, or another reason.
        public var reasons: [String]

        /// Creates a refusal.
        public init(input: String, location: String, reasons: [String]) {
            self.input = input
            self.location = location
            self.reasons = reasons
        }
    }

    /// The records stored, in input order (not those the store already had).
    public var stored: [HKSample] = []
    /// Records the store already had from the same provider with the same content (an input
    /// imported again), by clinical type identifier (and `HKVerifiableClinicalRecordTypeIdentifier`
    /// for cards): not stored again.
    public var alreadyStored: [String: Int] = [:]
    /// Resources that are not clinical records (Patient, Encounter…), counted by resource type.
    public var skipped: [String: Int] = [:]
    /// What was refused.
    public var refusals: [Refusal] = []
    /// Inputs that could not be read at all, with the reason.
    public var unreadable: [(input: String, reason: String)] = []
    /// Cards that could not be judged because their issuer's keys could not be fetched.
    public var unreachableIssuers = 0
    /// The people the input is about (each FHIR Patient's and card subject's first name), in
    /// the order met.
    public var people: [HealthRecordPerson] = []
    /// The people whose records were refused because they are not the store's owner (a refusal
    /// for each names both).
    public var otherPeople: [HealthRecordPerson] = []

    /// Creates an empty report.
    public init() {}

    /// How many records were stored per clinical type identifier (and
    /// `HKVerifiableClinicalRecordTypeIdentifier` for cards).
    public var storedByType: [String: Int] {
        var counts: [String: Int] = [:]
        for sample in stored { counts[sample.sampleType.identifier, default: 0] += 1 }
        return counts
    }

    /// All records the store already had.
    public var alreadyStoredCount: Int { alreadyStored.values.reduce(0, +) }

    /// Adds records a save was given: to ``stored``, or to ``alreadyStored`` for those the
    /// store already had.
    /// - Parameters:
    ///   - records: The records given to the save.
    ///   - counts: What the save reported.
    public mutating func add(_ records: [HKSample], saved counts: HKSaveCounts) {
        for record in records {
            if counts.alreadyStoredObjects.contains(record.uuid) {
                alreadyStored[record.sampleType.identifier, default: 0] += 1
            } else {
                stored.append(record)
            }
        }
    }

    /// Whether everything was stored.
    public var isComplete: Bool { refusals.isEmpty && unreadable.isEmpty && unreachableIssuers == 0 }
}
