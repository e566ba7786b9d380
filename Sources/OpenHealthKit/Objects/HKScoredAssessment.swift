import Foundation

/// Identifies a kind of scored assessment (HealthKit's `HKScoredAssessmentTypeIdentifier`).
public struct HKScoredAssessmentTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    /// Wraps an identifier string.
    /// - Parameter rawValue: The identifier, e.g. `HKScoredAssessmentTypeIdentifierGAD7`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The GAD-7 anxiety assessment.
    public static let GAD7 = HKScoredAssessmentTypeIdentifier(rawValue: "HKScoredAssessmentTypeIdentifierGAD7")
    /// The PHQ-9 depression assessment.
    public static let PHQ9 = HKScoredAssessmentTypeIdentifier(rawValue: "HKScoredAssessmentTypeIdentifierPHQ9")

    static let allKnown: [HKScoredAssessmentTypeIdentifier] = [.GAD7, .PHQ9]
}

/// The type of a scored assessment's samples (HealthKit's `HKScoredAssessmentType`).
public final class HKScoredAssessmentType: HKSampleType, @unchecked Sendable {
    /// Creates the type for an identifier, as HealthKit's `init(_:)`.
    /// - Parameter identifier: `.GAD7` or `.PHQ9`.
    public init(_ identifier: HKScoredAssessmentTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }
}

extension HKObjectType {
    /// The scored assessment type for an identifier, or nil for one HealthKit does not define
    /// (HealthKit's `scoredAssessmentType(forIdentifier:)`).
    /// - Parameter identifier: `.GAD7` or `.PHQ9`.
    public class func scoredAssessmentType(forIdentifier identifier: HKScoredAssessmentTypeIdentifier) -> HKScoredAssessmentType? {
        HKScoredAssessmentTypeIdentifier.allKnown.contains(identifier) ? HKScoredAssessmentType(identifier) : nil
    }
}

/// The result of a scored assessment: a questionnaire's total score (HealthKit's abstract
/// `HKScoredAssessment`; its concrete kinds are ``HKGAD7Assessment`` and ``HKPHQ9Assessment``).
///
/// An assessment is an instant: its start and end dates are the date it was taken.
public class HKScoredAssessment: HKSample, @unchecked Sendable {
    /// The score the answers add up to.
    public let score: Int

    init(type: HKScoredAssessmentType, date: Date, score: Int, uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?,
         metadata: [String: Any]?) {
        self.score = score
        super.init(sampleType: type, startDate: date, endDate: date, uuid: uuid, sourceRevision: sourceRevision, device: device,
                   metadata: metadata)
    }
}

/// A GAD-7 anxiety assessment: seven answers, each scoring 0–3, their sum and the risk it
/// means (HealthKit's `HKGAD7Assessment`).
///
/// The risk follows the published GAD-7 bands: 0–4 none to minimal, 5–9 mild, 10–14 moderate,
/// 15–21 severe. Saving an assessment without exactly seven answers fails with
/// `HKError.errorInvalidArgument` (HealthKit raises an exception).
public final class HKGAD7Assessment: HKScoredAssessment, @unchecked Sendable {
    /// An answer to one GAD-7 question (HealthKit's `HKGAD7Assessment.Answer`); its raw value is
    /// its score.
    public enum Answer: Int, Sendable, Hashable, CaseIterable, Codable {
        case notAtAll = 0
        case severalDays = 1
        case moreThanHalfTheDays = 2
        case nearlyEveryDay = 3
    }

    /// The anxiety risk a GAD-7 score means (HealthKit's `HKGAD7Assessment.Risk`).
    public enum Risk: Int, Sendable, Hashable, CaseIterable, Codable {
        case noneToMinimal = 1
        case mild = 2
        case moderate = 3
        case severe = 4

        /// The scores of the band, both ends included.
        var scores: ClosedRange<Int> {
            switch self {
            case .noneToMinimal: return 0...4
            case .mild: return 5...9
            case .moderate: return 10...14
            case .severe: return 15...21
            }
        }

        init(score: Int) {
            self = Self.allCases.first { $0.scores.contains(score) } ?? (score < 0 ? .noneToMinimal : .severe)
        }
    }

    /// The seven answers, in question order.
    public let answers: [HKGAD7Assessment.Answer]

    /// The risk the score means.
    public var risk: HKGAD7Assessment.Risk { Risk(score: score) }

    /// Creates an assessment, as HealthKit's `init(date:answers:metadata:)`.
    /// - Parameters:
    ///   - date: When the assessment was taken.
    ///   - answers: Exactly seven answers, in question order.
    ///   - metadata: Metadata to keep with the sample; an empty dictionary keeps none.
    public convenience init(date: Date, answers: [HKGAD7Assessment.Answer], metadata: [String: Any]? = [:]) {
        self.init(date: date, answers: answers, uuid: UUID(), sourceRevision: nil, device: nil,
                  metadata: metadata.flatMap { $0.isEmpty ? nil : $0 })
    }

    init(date: Date, answers: [HKGAD7Assessment.Answer], uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?,
         metadata: [String: Any]?) {
        self.answers = answers
        super.init(type: HKScoredAssessmentType(.GAD7), date: date, score: answers.reduce(0) { $0 + $1.rawValue }, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }
}

/// A PHQ-9 depression assessment: nine answers, each scoring 0–3, their sum and the risk it
/// means (HealthKit's `HKPHQ9Assessment`).
///
/// The ninth question may be declined (`preferNotToAnswer`, which scores 0). The risk follows
/// the published PHQ-9 bands: 0–4 none to minimal, 5–9 mild, 10–14 moderate, 15–19 moderately
/// severe, 20–27 severe. Saving an assessment without exactly nine answers, or declining any
/// question but the ninth, fails with `HKError.errorInvalidArgument`.
public final class HKPHQ9Assessment: HKScoredAssessment, @unchecked Sendable {
    /// An answer to one PHQ-9 question (HealthKit's `HKPHQ9Assessment.Answer`).
    public enum Answer: Int, Sendable, Hashable, CaseIterable, Codable {
        case notAtAll = 0
        case severalDays = 1
        case moreThanHalfTheDays = 2
        case nearlyEveryDay = 3
        /// The question was not answered; only allowed for the ninth question.
        case preferNotToAnswer = 4

        /// What the answer adds to the score.
        var points: Int { self == .preferNotToAnswer ? 0 : rawValue }
    }

    /// The depression risk a PHQ-9 score means (HealthKit's `HKPHQ9Assessment.Risk`).
    public enum Risk: Int, Sendable, Hashable, CaseIterable, Codable {
        case noneToMinimal = 1
        case mild = 2
        case moderate = 3
        case moderatelySevere = 4
        case severe = 5

        /// The scores of the band, both ends included.
        var scores: ClosedRange<Int> {
            switch self {
            case .noneToMinimal: return 0...4
            case .mild: return 5...9
            case .moderate: return 10...14
            case .moderatelySevere: return 15...19
            case .severe: return 20...27
            }
        }

        init(score: Int) {
            self = Self.allCases.first { $0.scores.contains(score) } ?? (score < 0 ? .noneToMinimal : .severe)
        }
    }

    /// The nine answers, in question order.
    public let answers: [HKPHQ9Assessment.Answer]

    /// The risk the score means.
    public var risk: HKPHQ9Assessment.Risk { Risk(score: score) }

    /// Creates an assessment, as HealthKit's `init(date:answers:metadata:)`.
    /// - Parameters:
    ///   - date: When the assessment was taken.
    ///   - answers: Exactly nine answers, in question order; only the ninth may be `preferNotToAnswer`.
    ///   - metadata: Metadata to keep with the sample; an empty dictionary keeps none.
    public convenience init(date: Date, answers: [HKPHQ9Assessment.Answer], metadata: [String: Any]? = [:]) {
        self.init(date: date, answers: answers, uuid: UUID(), sourceRevision: nil, device: nil,
                  metadata: metadata.flatMap { $0.isEmpty ? nil : $0 })
    }

    init(date: Date, answers: [HKPHQ9Assessment.Answer], uuid: UUID, sourceRevision: HKSourceRevision?, device: HKDevice?,
         metadata: [String: Any]?) {
        self.answers = answers
        super.init(type: HKScoredAssessmentType(.PHQ9), date: date, score: answers.reduce(0) { $0 + $1.points }, uuid: uuid,
                   sourceRevision: sourceRevision, device: device, metadata: metadata)
    }
}

/// What a stored assessment keeps besides its score (the sealed record's primary value): its
/// answers by their HealthKit raw values.
struct ScoredAssessmentDetails: Codable, Sendable {
    var answers: [Int]
}
