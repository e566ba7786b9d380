import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// Which resources of one compartment the server may vouch for on a SMART Health Card: those
/// whose origin it knows. A resource is vouched for when its current version was written by one
/// of the operator's card sources (``ServerConfiguration/cardSources``, the writer the store
/// keeps with each version), or when a `Provenance` whose current version a card source wrote
/// targets it: by a versioned reference to its current version (`Immunization/x/_history/2`),
/// or by a plain one (`Immunization/x`) when the Provenance was written after that version.
/// The Provenance's `agent` is not read: anyone may name a source there, and only its writer
/// is known. Everything else (what the patient's wallet or another app wrote, or what was
/// stored before writers were recorded) is not vouched for.
struct HealthCardSources: Sendable {
    /// The card sources.
    let sources: Set<CsiGuid>
    /// The compartment's resources the sources' Provenances target, by `Type/id`: the version
    /// named (nil for a plain reference) and when the Provenance was written.
    let targets: [String: [(version: Int?, recorded: Timestamp)]]

    /// The sources' Provenances of `patient`'s compartment, read once (`baseURL` to read
    /// absolute references to this server's resources).
    static func load(store: any ResourceStore, patient: CsiGuid, sources: Set<CsiGuid>, baseURL: String) async throws(TrustStoreError) -> HealthCardSources {
        guard !sources.isEmpty else { return HealthCardSources(sources: sources, targets: [:]) }
        let writers = try await store.resourceWriters(patient: patient, type: "Provenance")
        guard writers.values.contains(where: { sources.contains($0.writer) }) else { return HealthCardSources(sources: sources, targets: [:]) }
        var targets: [String: [(version: Int?, recorded: Timestamp)]] = [:]
        for record in try await store.resources(patient: patient, type: "Provenance") {
            guard let writer = writers[record.id], writer.versionID == record.versionID, sources.contains(writer.writer),
                  let provenance = try? JSONParser.parse(record.json) else { continue }
            for target in provenance["target"]?.arrayValue ?? [] {
                guard let reference = target["reference"]?.stringValue, let parsed = Self.parse(reference, baseURL: baseURL) else { continue }
                targets[parsed.key, default: []].append((parsed.version, record.lastUpdated))
            }
        }
        return HealthCardSources(sources: sources, targets: targets)
    }

    /// `Type/id` and the version of a reference to a resource of this server (relative, or
    /// absolute under `baseURL/fhir/`), or nil for anything else.
    static func parse(_ reference: String, baseURL: String) -> (key: String, version: Int?)? {
        var text = Substring(reference)
        let absolute = baseURL + "/fhir/"
        if text.hasPrefix(absolute) { text = text.dropFirst(absolute.count) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 || (parts.count == 4 && parts[2] == "_history"),
              ResourceScope(String(parts[0])) != nil, FHIRController.isValidID(String(parts[1])) else { return nil }
        let key = "\(parts[0])/\(parts[1])"
        guard parts.count == 4 else { return (key, nil) }
        guard let version = Int(parts[3]), version > 0 else { return nil }
        return (key, version)
    }

    /// Whether the server vouches for `record`'s version, whose type's last recorded writer is
    /// `writer` (`ResourceStore.resourceWriters(patient:type:)`; counted only if it wrote that
    /// very version).
    func vouches(for record: FHIRResourceRecord, writer: FHIRResourceWriter?) -> Bool {
        if let writer, writer.versionID == record.versionID, sources.contains(writer.writer) { return true }
        return (targets["\(record.type)/\(record.id)"] ?? []).contains { target in
            if let version = target.version { return version == record.versionID }
            return target.recorded > record.lastUpdated
        }
    }
}
