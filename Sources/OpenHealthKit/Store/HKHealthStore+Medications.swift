import Foundation

extension HKHealthStore {
    /// Adds a medication the person tracks (OpenHealthKit API, for the store's owner; HealthKit
    /// apps cannot add medications: the Health app does). The concept's identifier comes from
    /// its RxNorm code (else another coding, else its name), so adding the same medication again
    /// returns the one already tracked, unchanged.
    /// - Parameters:
    ///   - displayText: The medication's name, as a person reads it (not empty).
    ///   - generalForm: The form it is manufactured in.
    ///   - relatedCodings: Its clinical codings, such as RxNorm codes.
    ///   - nickname: The name the person gives it, if any.
    ///   - hasSchedule: Whether it has a reminder schedule.
    /// - Returns: The medication tracked (the existing one when the concept was already there).
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` for an empty name.
    @discardableResult
    public func addMedication(displayText: String, generalForm: HKMedicationGeneralForm = .unknown, relatedCodings: Set<HKClinicalCoding> = [],
                              nickname: String? = nil, hasSchedule: Bool = false) async throws -> HKUserAnnotatedMedication {
        try requireMedicationOwner()
        let name = displayText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw HKError(.errorInvalidArgument, "a medication needs a name") }
        let concept = HKMedicationConcept(identifier: HKMedicationConcept.identifier(displayText: name, codings: relatedCodings), displayText: name,
                                          generalForm: generalForm, relatedCodings: relatedCodings)
        let medication = HKUserAnnotatedMedication(nickname: nickname.flatMap { $0.isEmpty ? nil : $0 }, isArchived: false,
                                                   hasSchedule: hasSchedule, medication: concept)
        let database = try await engine.databaseAsync()
        if try await database.saveMedication(medication, replace: false) { return medication }
        return try await database.medication(concept: concept.identifier.value) ?? medication
    }

    /// Archives a medication the person no longer takes, or brings it back (OpenHealthKit API,
    /// for the store's owner). Its dose events stay.
    /// - Parameters:
    ///   - medication: The medication, as the store returned it.
    ///   - isArchived: Whether it is archived.
    /// - Returns: The medication as stored now.
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` when the store does
    ///   not track the medication.
    @discardableResult
    public func setMedication(_ medication: HKUserAnnotatedMedication, archived isArchived: Bool) async throws -> HKUserAnnotatedMedication {
        try requireMedicationOwner()
        let database = try await engine.databaseAsync()
        guard let stored = try await database.medication(concept: medication.medication.identifier.value) else {
            throw HKError(.errorInvalidArgument, "the store does not track \(medication.medication.displayText)")
        }
        let updated = HKUserAnnotatedMedication(nickname: stored.nickname, isArchived: isArchived, hasSchedule: stored.hasSchedule,
                                                medication: stored.medication)
        _ = try await database.saveMedication(updated, replace: true)
        return updated
    }

    /// Logs a dose of a tracked medication, as the Health app does (OpenHealthKit API, for the
    /// store's owner): saves an ``HKMedicationDoseEvent`` apps can read.
    /// - Parameters:
    ///   - medication: The medication, as the store returned it.
    ///   - status: How the dose was logged (taken, skipped…).
    ///   - doseQuantity: The quantity taken, in `unit`, if any.
    ///   - unit: The unit of the quantities (a count of tablets by default).
    ///   - date: When the dose was logged.
    ///   - scheduledDate: When it was scheduled, for a scheduled dose (nil: taken as needed).
    ///   - scheduledDoseQuantity: The quantity scheduled, for a scheduled dose.
    /// - Returns: The saved dose event.
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` for an untracked
    ///   medication, a quantity that is negative or not finite, or a scheduled quantity for a dose
    ///   taken as needed (Apple's as-needed doses carry neither a scheduled date nor a scheduled quantity).
    @discardableResult
    public func logMedicationDose(of medication: HKUserAnnotatedMedication, status: HKMedicationDoseEvent.LogStatus, doseQuantity: Double?,
                                  unit: HKUnit = .count(), date: Date, scheduledDate: Date? = nil, scheduledDoseQuantity: Double? = nil)
        async throws -> HKMedicationDoseEvent {
        try requireMedicationOwner()
        if scheduledDate == nil, scheduledDoseQuantity != nil {
            throw HKError(.errorInvalidArgument, "a dose taken as needed has no scheduled quantity: give its scheduled date too, or no scheduled quantity")
        }
        guard try await engine.databaseAsync().medication(concept: medication.medication.identifier.value) != nil else {
            throw HKError(.errorInvalidArgument, "the store does not track \(medication.medication.displayText)")
        }
        let event = HKMedicationDoseEvent(concept: medication.medication.identifier, logStatus: status,
                                          scheduleType: scheduledDate == nil ? .asNeeded : .schedule, scheduledDate: scheduledDate,
                                          scheduledDoseQuantity: scheduledDoseQuantity, doseQuantity: doseQuantity, unit: unit, start: date,
                                          end: date)
        try await save(event)
        return event
    }

    private func requireMedicationOwner() throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "medications are read-only for apps: only the store's owner adds or logs them")
        }
    }

    /// The medications the caller may read that `predicate` matches, at most `limit`: all for
    /// the owner, all for an app the person let read medications, none otherwise (a denied read
    /// looks like no data).
    func userAnnotatedMedications(predicate: NSPredicate?, limit: Int?) async throws -> [HKUserAnnotatedMedication] {
        let node = try HKQueryPredicate.node(from: predicate)
        if let limit, limit < 0 { throw HKError(.errorInvalidArgument, "a medication query's limit cannot be negative") }
        guard case .everything = try await engine.readScopeAsync(for: HKDataTypeIdentifierUserAnnotatedMedicationConcept) else { return [] }
        var matched: [HKUserAnnotatedMedication] = []
        for medication in try await engine.databaseAsync().medications() where try node.matches(medication: medication) {
            if let limit, limit > 0, matched.count >= limit { break }
            matched.append(medication)
        }
        return matched
    }

    /// Lets an app read medications and their dose events, as the person decides: the medication
    /// form of `requestPerObjectReadAuthorization(for:predicate:)`. The store's authorization
    /// provider is asked every time, for both types; its answer replaces the last.
    func requestMedicationReadAuthorization() async throws {
        guard !engine.isOwner else { return }
        let types: Set<String> = [HKDataTypeIdentifierUserAnnotatedMedicationConcept, HKMedicationDoseEventTypeIdentifierMedicationDoseEvent]
        let request = AuthorizationRequest(bundleIdentifier: engine.bundleIdentifier, appName: engine.configuration.source.name, share: [],
                                           read: types)
        let decision = try await engine.configuration.authorizationProvider.decide(request)
        let decisions = try await engine.decisionsAsync()
        var updates: [String: TypeDecision] = [:]
        for type in types {
            var entry = decisions[type] ?? TypeDecision()
            entry.read = decision.read.contains(type) ? .authorized : .denied
            updates[type] = entry
        }
        try await engine.record(updates)
    }
}
