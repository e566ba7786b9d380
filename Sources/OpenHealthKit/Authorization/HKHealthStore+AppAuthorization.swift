import Foundation

// The Health app's per-app settings, for the store's owner (OpenHealthKit API): which apps asked
// for which types, what was answered, and changing or revoking it. An app's store object sees a
// change at its next call, in this process or another.

/// One app's recorded decision about one type.
public struct HKAppAuthorizationDecision: Sendable, Hashable {
    /// An answer to a request to read or to share a type.
    public enum Answer: String, Sendable, Hashable, CaseIterable {
        /// The app never asked, or its decision was forgotten.
        case notDetermined
        /// Refused.
        case denied
        /// Allowed.
        case authorized
    }

    /// The app.
    public let bundleIdentifier: String
    /// The type's identifier (`HKQuantityTypeIdentifierStepCount`).
    public let typeIdentifier: String
    /// Whether the app may save the type.
    public let share: Answer
    /// Whether the app may read other sources' samples of the type.
    public let read: Answer
    /// When the decision was last made or changed.
    public let decidedAt: Date
}

extension TypeDecision.Answer {
    init(_ answer: HKAppAuthorizationDecision.Answer) {
        switch answer {
        case .notDetermined: self = .notDetermined
        case .denied: self = .denied
        case .authorized: self = .authorized
        }
    }

    var publicAnswer: HKAppAuthorizationDecision.Answer {
        switch self {
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .authorized: .authorized
        }
    }
}

extension HKHealthStore {
    private func requireOwner(_ what: String) throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may \(what)")
        }
    }

    /// Every decision every app has on record, by app and type (owner only).
    public func appAuthorizationDecisions() throws -> [HKAppAuthorizationDecision] {
        try requireOwner("list apps' authorization")
        return try engine.database().allDecisions().map { row in
            HKAppAuthorizationDecision(bundleIdentifier: row.bundleIdentifier, typeIdentifier: row.type,
                                       share: row.decision.share.publicAnswer, read: row.decision.read.publicAnswer,
                                       decidedAt: row.decidedAt)
        }
    }

    /// Changes an app's decision about `type` (owner only); a nil answer keeps the current one.
    /// Sharing applies to sample types only; characteristic types can only be read.
    public func setAppAuthorization(bundleIdentifier: String, type: HKObjectType,
                                    share: HKAppAuthorizationDecision.Answer? = nil,
                                    read: HKAppAuthorizationDecision.Answer? = nil) throws {
        try requireOwner("change apps' authorization")
        if let share, share != .notDetermined, !(type is HKSampleType) {
            throw HKError(.errorInvalidArgument, "\(type.identifier) cannot be shared, only read")
        }
        let database = try engine.database()
        var decision = try database.decisions(for: bundleIdentifier)[type.identifier] ?? TypeDecision()
        if let share { decision.share = TypeDecision.Answer(share) }
        if let read { decision.read = TypeDecision.Answer(read) }
        try database.record([type.identifier: decision], for: bundleIdentifier)
    }

    /// Denies an app every type it has a decision about, reading and sharing (owner only), as
    /// turning everything off in the Health app. Its samples stay in the store.
    public func revokeAppAuthorization(bundleIdentifier: String) throws {
        try requireOwner("revoke apps' authorization")
        let database = try engine.database()
        let current = try database.decisions(for: bundleIdentifier)
        var denied: [String: TypeDecision] = [:]
        for type in current.keys {
            denied[type] = TypeDecision(share: current[type]?.share == .notDetermined ? .notDetermined : .denied, read: .denied)
        }
        try database.record(denied, for: bundleIdentifier)
    }

    /// Forgets an app's decisions, so its next request asks again (owner only).
    public func resetAppAuthorization(bundleIdentifier: String) throws {
        try requireOwner("reset apps' authorization")
        try engine.database().forgetDecisions(for: bundleIdentifier)
    }
}
