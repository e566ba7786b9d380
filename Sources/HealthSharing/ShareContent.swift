import Foundation

/// One part of what a person shares by a SMART Health Link.
///
/// A link carries one or more parts: a patient summary, clinical records chosen by type or one by
/// one, and health cards, all or one by one. Each part becomes one or more encrypted files.
public enum ShareContent: Sendable, Hashable {
    /// A patient summary shaped as the International Patient Summary (a FHIR `document` Bundle).
    case summary
    /// The clinical records of these types (HealthKit identifiers such as
    /// `HKClinicalTypeIdentifierAllergyRecord`, or the short names `health records list` prints).
    case records(types: [String])
    /// One clinical record, by its sample UUID.
    case record(UUID)
    /// Every stored health card.
    case cards
    /// One stored health card, by its sample UUID.
    case card(UUID)
}
