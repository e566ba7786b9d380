import Foundation

extension HKHealthStore {
    /// Asks for permission to write `typesToShare` and read `typesToRead`, as HealthKit's sheet
    /// does. Only types never asked about are put to the authorization provider; the answers
    /// are stored. Success means the request was handled, not that access was granted.
    /// - Throws: `errorInvalidArgument` for empty requests or types that cannot be shared
    ///   (characteristics are read-only).
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {
        guard !typesToShare.isEmpty || !typesToRead.isEmpty else {
            throw HKError(.errorInvalidArgument, "requestAuthorization needs at least one type")
        }
        try Self.checkRequestable(typesToShare, typesToRead)
        let decisions = try await engine.decisionsAsync()
        let shareAsked = Set(typesToShare.map(\.identifier)).filter { (decisions[$0]?.share ?? .notDetermined) == .notDetermined }
        let readAsked = Set(typesToRead.map(\.identifier)).filter { (decisions[$0]?.read ?? .notDetermined) == .notDetermined }
        guard !shareAsked.isEmpty || !readAsked.isEmpty else { return }
        let request = AuthorizationRequest(bundleIdentifier: engine.bundleIdentifier, appName: engine.configuration.source.name,
                                           share: shareAsked, read: readAsked)
        let decision = try await engine.configuration.authorizationProvider.decide(request)
        var updates: [String: TypeDecision] = [:]
        for type in shareAsked.union(readAsked) {
            var entry = decisions[type] ?? TypeDecision()
            if shareAsked.contains(type) { entry.share = decision.share.contains(type) ? .authorized : .denied }
            if readAsked.contains(type) { entry.read = decision.read.contains(type) ? .authorized : .denied }
            updates[type] = entry
        }
        try await engine.record(updates)
    }

    /// Callback form of `requestAuthorization(toShare:read:)`.
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await requestAuthorization(toShare: typesToShare ?? [], read: typesToRead ?? [])
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Whether asking for these types would show a prompt.
    public func statusForAuthorizationRequest(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws
        -> HKAuthorizationRequestStatus {
        try Self.checkRequestable(typesToShare, typesToRead)
        let decisions = try await engine.decisionsAsync()
        let undecided = typesToShare.contains { (decisions[$0.identifier]?.share ?? .notDetermined) == .notDetermined }
            || typesToRead.contains { (decisions[$0.identifier]?.read ?? .notDetermined) == .notDetermined }
        return undecided ? .shouldRequest : .unnecessary
    }

    /// Callback form of `statusForAuthorizationRequest(toShare:read:)`.
    public func getRequestStatusForAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
                                                 completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void) {
        Task {
            do {
                completion(try await statusForAuthorizationRequest(toShare: typesToShare, read: typesToRead), nil)
            } catch {
                completion(.unknown, error)
            }
        }
    }

    /// HealthKit refuses correlation types in requests: they are authorized through their
    /// member types (systolic and diastolic pressure, the dietary types).
    private static func checkRequestable(_ share: Set<HKSampleType>, _ read: Set<HKObjectType>) throws {
        // Clinical records come from providers: apps read them and never write them.
        let clinical = share.filter { $0 is HKClinicalType }.map(\.identifier)
        guard clinical.isEmpty else {
            throw HKError(.errorInvalidArgument, "clinical types cannot be shared, only read: \(clinical.sorted().joined(separator: ", "))")
        }
        // Electrocardiograms come from Apple Watch (here, the owner's import): apps only read them.
        guard !share.contains(where: { $0 is HKElectrocardiogramType }) else {
            throw HKError(.errorInvalidArgument, "electrocardiograms cannot be shared, only read")
        }
        // Medications and their doses are logged in the Health app (here, by the owner) and read
        // as the person chooses (requestPerObjectReadAuthorization for userAnnotatedMedicationType()).
        guard !share.contains(where: { $0 is HKMedicationDoseEventType }) else {
            throw HKError(.errorInvalidArgument, "medication dose events cannot be shared, only read")
        }
        guard !read.contains(where: { $0 is HKMedicationDoseEventType }) else {
            throw HKError(.errorInvalidArgument,
                          "medication dose events are read with their medications: "
                              + "use requestPerObjectReadAuthorization(for: .userAnnotatedMedicationType(), predicate:)")
        }
        // Vision prescriptions are read object by object (requestPerObjectReadAuthorization).
        let perObject = read.filter { $0.requiresPerObjectAuthorization() }.map(\.identifier)
        guard perObject.isEmpty else {
            throw HKError(.errorInvalidArgument,
                          "\(perObject.sorted().joined(separator: ", ")) is read object by object: use requestPerObjectReadAuthorization(for:predicate:)")
        }
        // Verifiable records are shared record by record through HKVerifiableClinicalRecordQuery.
        guard !share.contains(where: { $0 is HKVerifiableClinicalRecordType }), !read.contains(where: { $0 is HKVerifiableClinicalRecordType }) else {
            throw HKError(.errorInvalidArgument, "verifiable clinical records are shared per record through HKVerifiableClinicalRecordQuery")
        }
        let correlations = (Array(share) as [HKObjectType] + Array(read)).filter { $0 is HKCorrelationType }.map(\.identifier)
        guard correlations.isEmpty else {
            throw HKError(.errorInvalidArgument,
                          "authorization for \(correlations.sorted().joined(separator: ", ")) is requested through its member types")
        }
    }

    /// The caller's permission to write a type. Read permission is never revealed: a denied
    /// read looks exactly like no data.
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
        if engine.isOwner { return .sharingAuthorized }
        guard let decision = try? engine.decisions()[type.identifier] else { return .notDetermined }
        switch decision.share {
        case .notDetermined: return .notDetermined
        case .denied: return .sharingDenied
        case .authorized: return .sharingAuthorized
        }
    }
}
