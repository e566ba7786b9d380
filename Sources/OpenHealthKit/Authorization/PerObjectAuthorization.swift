import CommonSupport
import Foundation
import GRDB

/// What an app asks in `requestPerObjectReadAuthorization(for:predicate:)`: to read some of the
/// objects of a type that is authorized object by object (vision prescriptions).
public struct PerObjectReadRequest: Sendable {
    /// The app asking.
    public var bundleIdentifier: String
    /// The app's display name.
    public var appName: String
    /// The type's identifier (`HKVisionPrescriptionTypeIdentifier`).
    public var typeIdentifier: String
    /// The objects the request covers (those its predicate matches), oldest first.
    public var objects: [HKSample]
    /// The UUIDs among ``objects`` the app may read already (what the sheet shows turned on).
    public var alreadyShared: Set<UUID>

    /// Creates a request.
    public init(bundleIdentifier: String, appName: String, typeIdentifier: String, objects: [HKSample], alreadyShared: Set<UUID>) {
        self.bundleIdentifier = bundleIdentifier
        self.appName = appName
        self.typeIdentifier = typeIdentifier
        self.objects = objects
        self.alreadyShared = alreadyShared
    }
}

extension AuthorizationProvider {
    /// By default a provider lets the app read none of the objects: sharing them is always a
    /// person's or a policy's explicit choice.
    public func decidePerObjectRead(_ request: PerObjectReadRequest) async throws -> Set<UUID> {
        []
    }
}

extension OwnerConsentAuthorizationProvider {
    /// The owner's consent lets the app read every object the request covers, as turning all of them on.
    public func decidePerObjectRead(_ request: PerObjectReadRequest) async throws -> Set<UUID> {
        Set(request.objects.map(\.uuid))
    }
}

extension PolicyFileAuthorizationProvider {
    /// Lets the app read the objects its ``Policy/perObjectReads`` rules match (or, for apps not
    /// listed, the `"*"` entry's); none without a rule.
    public func decidePerObjectRead(_ request: PerObjectReadRequest) async throws -> Set<UUID> {
        guard let rules = policy.perObjectReads?[request.bundleIdentifier] ?? policy.perObjectReads?["*"] else { return [] }
        return Set(request.objects.filter { object in rules.contains { $0.matches(object) } }.map(\.uuid))
    }
}

extension TerminalAuthorizationProvider {
    /// Lists the objects and asks which the app may read: numbers separated by spaces or
    /// commas, `all`, or nothing (or end of input) for none.
    public func decidePerObjectRead(_ request: PerObjectReadRequest) async throws -> Set<UUID> {
        func printable(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        }
        write("\"\(printable(request.appName))\" (\(printable(request.bundleIdentifier))) would like to read your "
               + "\(HealthTypeNames.displayName(for: request.typeIdentifier)):\n")
        for (index, object) in request.objects.enumerated() {
            let date = ISODateText.dayString(secondsSince1970: object.startDate.timeIntervalSince1970)
            let shared = request.alreadyShared.contains(object.uuid) ? " (shared)" : ""
            write("  \(index + 1). \(date) \(PerObjectReadDescription.describe(object))\(shared)\n")
        }
        write("  Allow which? [numbers, all, or nothing for none] ")
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        if answer == "all" || answer == "a" { return Set(request.objects.map(\.uuid)) }
        var chosen = Set<UUID>()
        for token in answer.split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard let number = Int(token), request.objects.indices.contains(number - 1) else { continue }
            chosen.insert(request.objects[number - 1].uuid)
        }
        return chosen
    }
}

/// One line about an object in a per-object prompt.
enum PerObjectReadDescription {
    static func describe(_ object: HKSample) -> String {
        switch object {
        case let contacts as HKContactsPrescription: return "contacts prescription" + (contacts.brand.isEmpty ? "" : " (\(contacts.brand))")
        case is HKGlassesPrescription: return "glasses prescription"
        case let prescription as HKVisionPrescription: return prescription.prescriptionType == .contacts ? "contacts prescription" : "glasses prescription"
        default: return object.sampleType.identifier
        }
    }
}

extension PolicyFileAuthorizationProvider {
    /// Which objects one per-object rule lets an app read: those of one of `types` and among
    /// `records` (UUIDs); an absent field matches anything.
    public struct PerObjectReadRule: Codable, Sendable, Hashable {
        /// Type identifiers (`HKVisionPrescriptionTypeIdentifier`).
        public var types: [String]?
        /// Object UUIDs.
        public var records: [UUID]?

        /// Creates a rule.
        public init(types: [String]? = nil, records: [UUID]? = nil) {
            self.types = types
            self.records = records
        }

        func matches(_ object: HKSample) -> Bool {
            if let types, !types.contains(object.sampleType.identifier) { return false }
            if let records, !records.contains(object.uuid) { return false }
            return true
        }
    }
}

extension HKHealthStore {
    /// Asks the person which objects of a per-object type (vision prescriptions) this app may
    /// read, as HealthKit's `requestPerObjectReadAuthorization(for:predicate:)`. The store's
    /// authorization provider answers (``AuthorizationProvider/decidePerObjectRead(_:)``) every
    /// time, even when asked before; the objects the predicate matches that it does not choose
    /// are no longer readable. The app's own objects stay readable while it may share the type.
    /// For the store's owner, who reads everything, this does nothing.
    /// - Parameters:
    ///   - objectType: The data type you want to read; it must require per-object authorization.
    ///   - predicate: A predicate that further restricts the objects offered; nil for all of them.
    /// - Throws: `HKError.errorInvalidArgument` for a type that does not require per-object
    ///   authorization, or the provider's error.
    public func requestPerObjectReadAuthorization(for objectType: HKObjectType, predicate: NSPredicate?) async throws {
        guard objectType.requiresPerObjectAuthorization() else {
            throw HKError(.errorInvalidArgument, "\(objectType.identifier) does not require per-object authorization: use requestAuthorization(toShare:read:)")
        }
        guard !engine.isOwner else { return }
        if objectType is HKUserAnnotatedMedicationType { return try await requestMedicationReadAuthorization() }
        let database = try await engine.databaseAsync()
        let node = try HKQueryPredicate.node(from: predicate)
        let fetch = SampleFetch(types: [objectType.identifier], predicate: SQLPredicate(node, cipher: database.cipher), scope: .everything,
                                order: [SampleOrder(key: .startDate, ascending: true)])
        let bundle = engine.bundleIdentifier
        let objects = try await database.fetchSamples(fetch).filter { $0.sourceRevision.source.bundleIdentifier != bundle }
        let shared = try await database.objectReadGrants(for: bundle, type: objectType.identifier)
        let request = PerObjectReadRequest(bundleIdentifier: bundle, appName: engine.configuration.source.name,
                                           typeIdentifier: objectType.identifier, objects: objects,
                                           alreadyShared: shared.intersection(objects.map(\.uuid)))
        let chosen = try await engine.configuration.authorizationProvider.decidePerObjectRead(request)
        let offered = Set(objects.map(\.uuid))
        try await database.recordObjectReadGrants(for: bundle, type: objectType.identifier, granted: chosen.intersection(offered),
                                                  revoked: offered.subtracting(chosen))
    }

    /// Callback form of ``requestPerObjectReadAuthorization(for:predicate:)``, as HealthKit's
    /// `requestPerObjectReadAuthorization(for:predicate:completion:)`.
    /// - Parameters:
    ///   - objectType: The data type you want to read; it must require per-object authorization.
    ///   - predicate: A predicate that further restricts the objects offered; nil for all of them.
    ///   - completion: Called with `true` once the request was handled (not that anything was
    ///     shared), or `false` and the error.
    public func requestPerObjectReadAuthorization(for objectType: HKObjectType, predicate: NSPredicate?,
                                                  completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        // NSPredicate is immutable once built; it is only read by the request.
        nonisolated(unsafe) let predicate = predicate
        Task {
            do {
                try await requestPerObjectReadAuthorization(for: objectType, predicate: predicate)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// For a per-object type read by an app: the predicate narrowed to its own objects (while it
    /// may share the type) and the objects the person chose, with the type's scope lifted to
    /// everything, and the same objects as the deletions it may see; otherwise the predicate and
    /// scope unchanged and no deletion restriction. A denied object looks like no data.
    func perObjectRestriction(_ type: HKObjectType, node: PredicateNode, scope: ReadScope) async throws
        -> (PredicateNode, ReadScope, PerObjectDeletions?) {
        guard type.requiresPerObjectAuthorization(), !engine.isOwner else { return (node, scope, nil) }
        let database = try await engine.databaseAsync()
        let granted = try await database.objectReadGrants(for: engine.bundleIdentifier, type: type.identifier)
        var allowed: [PredicateNode] = [.uuids(granted)]
        var own = Set<String>()
        if case .sources(let sources) = scope {
            allowed.append(.sources(sources))
            own = sources
        }
        return (.and([node, .or(allowed)]), .everything, PerObjectDeletions(granted: granted, sources: own))
    }
}

/// The deletions of a per-object type an app may learn of: those of objects the person chose
/// for it and those its own sources saved. Any other deletion would reveal an object it was
/// never shown.
struct PerObjectDeletions: Sendable, Equatable {
    /// The objects the person chose for the app.
    var granted: Set<UUID>
    /// The app's own sources' bundle identifiers.
    var sources: Set<String>

    /// Whether the deletion of `uuid`, saved by `source`, may be reported.
    func admits(uuid: UUID, source: String) -> Bool {
        granted.contains(uuid) || sources.contains(source)
    }
}

extension HealthDatabase {
    /// The UUIDs of the objects of `type` an app may read, as the person chose them.
    func objectReadGrants(for bundleIdentifier: String, type: String) async throws -> Set<UUID> {
        try await readAsync { db in
            let blobs = try Data.fetchAll(db, sql: "SELECT uuid FROM object_read_grant WHERE bundle_identifier = ? AND type = ?",
                                          arguments: [bundleIdentifier, type])
            return Set(blobs.compactMap(UUID.init(databaseBlob:)))
        }
    }

    /// Records the person's choice: `granted` become readable, `revoked` no longer are.
    func recordObjectReadGrants(for bundleIdentifier: String, type: String, granted: Set<UUID>, revoked: Set<UUID>) async throws {
        let now = now().timeIntervalSinceReferenceDate
        try await writeAsync { db in
            for uuid in revoked {
                try db.execute(sql: "DELETE FROM object_read_grant WHERE bundle_identifier = ? AND uuid = ?",
                               arguments: [bundleIdentifier, uuid.databaseBlob])
            }
            for uuid in granted {
                try db.execute(sql: """
                    INSERT INTO object_read_grant (bundle_identifier, uuid, type, granted_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (bundle_identifier, uuid) DO UPDATE SET granted_at = excluded.granted_at
                    """, arguments: [bundleIdentifier, uuid.databaseBlob, type, now])
            }
            try Self.bumpAuthorizationVersion(db)
        }
    }
}
