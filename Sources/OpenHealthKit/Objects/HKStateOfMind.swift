import Foundation

/// The type identifier HealthKit reports for state-of-mind samples (`HKStateOfMindType`'s
/// `identifier` at run time).
let HKStateOfMindTypeIdentifierString = "HKDataTypeStateOfMind"

/// The identifier of the state-of-mind type (HealthKit's `HKDataTypeIdentifierStateOfMind`, iOS 18).
public let HKDataTypeIdentifierStateOfMind = HKStateOfMindTypeIdentifierString

/// How one feels at a moment or over a day: a valence from −1 (very unpleasant) to +1 (very
/// pleasant), the words chosen for it and what it is associated with (HealthKit's
/// `HKStateOfMind`, iOS 18).
///
/// ```swift
/// let mood = HKStateOfMind(date: .now, kind: .dailyMood, valence: 0.4,
///                          labels: [.content, .grateful], associations: [.family])
/// try await store.save(mood)
/// ```
///
/// A state of mind is an instant: its start and end dates are `date`. Saving one whose valence
/// lies outside −1…+1 fails with `HKError.errorInvalidArgument`, where HealthKit raises an
/// exception.
public final class HKStateOfMind: HKSample, @unchecked Sendable {
    /// The kind of feeling a state of mind records, by the period it concerns (HealthKit's
    /// `HKStateOfMind.Kind`).
    public enum Kind: Int, Sendable, Hashable, CaseIterable, Codable {
        /// How one feels right now.
        case momentaryEmotion = 1
        /// How one has felt over the day.
        case dailyMood = 2
    }

    /// A general region of pleasantness derived from the valence (HealthKit's
    /// `HKStateOfMind.ValenceClassification`).
    public enum ValenceClassification: Int, Sendable, Hashable, CaseIterable, Codable {
        case veryUnpleasant = 1
        case unpleasant = 2
        case slightlyUnpleasant = 3
        case neutral = 4
        case slightlyPleasant = 5
        case pleasant = 6
        case veryPleasant = 7

        /// The classification of a valence, or nil when the valence lies outside −1…+1 (as
        /// HealthKit's `init?(valence:)`).
        ///
        /// Apple does not publish the band boundaries; OpenHealthKit divides −1…+1 into seven
        /// equal bands (each 2/7 wide, the Health app's seven slider regions), a boundary
        /// belonging to the band nearer neutral.
        public init?(valence: Double) {
            guard valence.isFinite, valence >= -1, valence <= 1 else { return nil }
            let width = 2.0 / 7.0
            let distance = abs(valence)
            let steps: Int
            if distance <= width / 2 {
                steps = 0
            } else if distance <= width * 1.5 {
                steps = 1
            } else if distance <= width * 2.5 {
                steps = 2
            } else {
                steps = 3
            }
            self.init(rawValue: valence < 0 ? 4 - steps : 4 + steps)
        }
    }

    /// A word describing a feeling (HealthKit's `HKStateOfMind.Label`).
    public enum Label: Int, Sendable, Hashable, CaseIterable, Codable {
        case amazed = 1
        case amused
        case angry
        case anxious
        case ashamed
        case brave
        case calm
        case content
        case disappointed
        case discouraged
        case disgusted
        case embarrassed
        case excited
        case frustrated
        case grateful
        case guilty
        case happy
        case hopeless
        case irritated
        case jealous
        case joyful
        case lonely
        case passionate
        case peaceful
        case proud
        case relieved
        case sad
        case scared
        case stressed
        case surprised
        case worried
        case annoyed
        case confident
        case drained
        case hopeful
        case indifferent
        case overwhelmed
        case satisfied
    }

    /// A facet of life a feeling is associated with (HealthKit's `HKStateOfMind.Association`).
    public enum Association: Int, Sendable, Hashable, CaseIterable, Codable {
        case community = 1
        case currentEvents
        case dating
        case education
        case family
        case fitness
        case friends
        case health
        case hobbies
        case identity
        case money
        case partner
        case selfCare
        case spirituality
        case tasks
        case travel
        case work
        case weather
    }

    /// Whether this records a momentary emotion or a daily mood.
    public let kind: HKStateOfMind.Kind
    /// How positive or negative the feeling is, from −1 to +1.
    public let valence: Double
    /// The words chosen for the feeling (zero or more).
    public let labels: [HKStateOfMind.Label]
    /// The facets of life the feeling is associated with (zero or more).
    public let associations: [HKStateOfMind.Association]

    /// The region of pleasantness of ``valence``.
    public var valenceClassification: HKStateOfMind.ValenceClassification {
        ValenceClassification(valence: valence) ?? (valence < 0 ? .veryUnpleasant : .veryPleasant)
    }

    /// Creates a state of mind at a moment, as HealthKit's
    /// `init(date:kind:valence:labels:associations:metadata:)`.
    /// - Parameters:
    ///   - date: When the feeling was felt (the sample's start and end).
    ///   - kind: A momentary emotion or a daily mood.
    ///   - valence: How pleasant the feeling is, from −1 to +1.
    ///   - labels: Words describing the feeling.
    ///   - associations: Facets of life the feeling is associated with.
    ///   - metadata: Metadata to keep with the sample; an empty dictionary keeps none.
    public convenience init(date: Date, kind: HKStateOfMind.Kind, valence: Double, labels: [HKStateOfMind.Label],
                            associations: [HKStateOfMind.Association], metadata: [String: Any]? = [:]) {
        self.init(date: date, kind: kind, valence: valence, labels: labels, associations: associations, uuid: UUID(),
                  sourceRevision: nil, device: nil, metadata: metadata.flatMap { $0.isEmpty ? nil : $0 })
    }

    init(date: Date, kind: HKStateOfMind.Kind, valence: Double, labels: [HKStateOfMind.Label],
         associations: [HKStateOfMind.Association], uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?,
         metadata: [String: Any]?) {
        self.kind = kind
        self.valence = valence
        self.labels = labels
        self.associations = associations
        super.init(sampleType: HKStateOfMindType(), startDate: date, endDate: date, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }
}

/// The type of state-of-mind samples (HealthKit's `HKStateOfMindType`).
public final class HKStateOfMindType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKStateOfMindTypeIdentifierString)
    }
}

extension HKObjectType {
    /// The state-of-mind type, as HealthKit's `stateOfMindType()`.
    public class func stateOfMindType() -> HKStateOfMindType { HKStateOfMindType() }
}

/// What a stored state of mind keeps besides its valence (the sealed record's primary value):
/// kind, labels and associations by their HealthKit raw values.
struct StateOfMindDetails: Codable, Sendable {
    var kind: Int
    var labels: [Int]
    var associations: [Int]
}
