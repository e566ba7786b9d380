import ExactJSON

/// Minimizes a FHIR Bundle for a card (rules 23-29): removes `Resource.id`, `Resource.meta`
/// (except `meta.security`, unless asked), `DomainResource.text`, `CodeableConcept.text` and
/// `Coding.display`; numbers entries `resource:0`, `resource:1`… and rewrites every
/// `Reference.reference` that points at an entry (by `fullUrl`, by `Type/id`, or by an absolute
/// URL ending in `Type/id`) to that entry's `resource:N`.
///
/// Without a FHIR type model, CodeableConcepts are recognised as objects that have `coding`, and
/// Codings as the objects inside a `coding` array; a text-only CodeableConcept keeps its text.
/// `Reference.display` is kept (the spec allows it).
public struct SHCBundleMinimizer: Sendable {
    /// What to do with a reference that matches no entry.
    public enum UnresolvedReferences: Sendable, Hashable {
        /// Fail with ``SHCIssueError/unresolvableReference(path:)`` (the default: the card would break rule 29).
        case fail
        /// Leave the reference as it is (what the spec's example generator does).
        case keep
        /// Remove the `reference` member (keeping, say, `display`).
        case remove
    }

    /// The policy for references that match no entry.
    public var unresolvedReferences: UnresolvedReferences
    /// Whether `meta.security` (identity-assurance codes) is kept; other `meta` is always removed.
    public var keepMetaSecurity: Bool

    /// Creates a minimizer.
    public init(unresolvedReferences: UnresolvedReferences = .fail, keepMetaSecurity: Bool = true) {
        self.unresolvedReferences = unresolvedReferences
        self.keepMetaSecurity = keepMetaSecurity
    }

    /// The minimized bundle.
    public func minimize(_ bundle: JSONValue) throws(SHCIssueError) -> JSONValue {
        guard case .object(let object) = bundle else { throw .notABundle("not a JSON object") }
        guard bundle["resourceType"]?.stringValue == "Bundle" else { throw .notABundle("resourceType is not Bundle") }
        let entries = bundle["entry"]?.arrayValue ?? []
        var targets: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            guard case .object = entry, let resource = entry["resource"], case .object = resource else {
                throw .notABundle("entry \(position) has no resource object")
            }
            if let fullUrl = entry["fullUrl"]?.stringValue, targets[fullUrl] == nil { targets[fullUrl] = position }
            if let type = resource["resourceType"]?.stringValue, let id = resource["id"]?.stringValue,
               targets["\(type)/\(id)"] == nil {
                targets["\(type)/\(id)"] = position
            }
        }
        let context = Context(targets: targets, policy: unresolvedReferences, keepMetaSecurity: keepMetaSecurity)
        var output: [JSONMember] = []
        for member in object.members {
            switch member.key {
            case "id", "text":
                continue
            case "meta":
                if let meta = context.minimizedMeta(member.value) { output.append(.init("meta", meta)) }
            case "entry":
                var newEntries: [JSONValue] = []
                for (position, entry) in entries.enumerated() {
                    var entryMembers: [JSONMember] = [.init("fullUrl", .string("resource:\(position)"))]
                    for entryMember in entry.objectValue?.members ?? [] where entryMember.key != "fullUrl" {
                        if entryMember.key == "resource" {
                            let path = "entry[\(position)].resource"
                            entryMembers.append(.init("resource", try context.minimizeResource(entryMember.value, path: path)))
                        } else {
                            entryMembers.append(entryMember)
                        }
                    }
                    newEntries.append(.object(members: entryMembers))
                }
                output.append(.init("entry", .array(newEntries)))
            default:
                output.append(member)
            }
        }
        if bundle["type"] == nil {
            output.insert(.init("type", .string("collection")), at: min(1, output.count))
        }
        return .object(members: output)
    }

    private struct Context {
        let targets: [String: Int]
        let policy: UnresolvedReferences
        let keepMetaSecurity: Bool

        func minimizedMeta(_ meta: JSONValue) -> JSONValue? {
            guard keepMetaSecurity, let security = meta["security"] else { return nil }
            return .object(members: [.init("security", security)])
        }

        func minimizeResource(_ resource: JSONValue, path: String) throws(SHCIssueError) -> JSONValue {
            guard case .object(let object) = resource else { return resource }
            var output: [JSONMember] = []
            for member in object.members {
                switch member.key {
                case "id", "text":
                    continue
                case "meta":
                    if let meta = minimizedMeta(member.value) { output.append(.init("meta", meta)) }
                default:
                    if let value = try minimize(member.value, key: member.key, inCoding: false, path: path + "." + member.key) {
                        output.append(.init(member.key, value))
                    }
                }
            }
            return .object(members: output)
        }

        /// The minimized value, or nil when it should be dropped.
        func minimize(_ value: JSONValue, key: String, inCoding: Bool, path: String) throws(SHCIssueError) -> JSONValue? {
            switch value {
            case .array(let elements):
                var output: [JSONValue] = []
                for (position, element) in elements.enumerated() {
                    let elementPath = "\(path)[\(position)]"
                    if key == "contained", element["resourceType"] != nil {
                        output.append(try minimizeResource(element, path: elementPath))
                    } else if let minimized = try minimize(element, key: key, inCoding: key == "coding", path: elementPath) {
                        output.append(minimized)
                    }
                }
                return output.isEmpty && !elements.isEmpty ? nil : .array(output)
            case .object(let object):
                let members = object.members
                let hasCoding = members.contains { $0.key == "coding" }
                var output: [JSONMember] = []
                for member in members {
                    if inCoding, member.key == "display" { continue }
                    if hasCoding, member.key == "text" { continue }
                    if member.key == "reference", case .string(let reference) = member.value {
                        if let target = resolve(reference) {
                            output.append(.init("reference", .string("resource:\(target)")))
                        } else {
                            switch policy {
                            case .fail: throw .unresolvableReference(path: path + ".reference")
                            case .keep: output.append(member)
                            case .remove: break
                            }
                        }
                        continue
                    }
                    if let minimized = try minimize(member.value, key: member.key, inCoding: false, path: path + "." + member.key) {
                        output.append(.init(member.key, minimized))
                    }
                }
                return output.isEmpty && !members.isEmpty ? nil : .object(members: output)
            default:
                return value
            }
        }

        /// The entry a reference points at: by exact `fullUrl`, by `Type/id`, or by an absolute or
        /// versioned URL whose last segments are `Type/id`.
        func resolve(_ reference: String) -> Int? {
            if let target = targets[reference] { return target }
            var segments = reference.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if segments.count >= 4, segments[segments.count - 2] == "_history" { segments.removeLast(2) }
            guard segments.count >= 2 else { return nil }
            return targets["\(segments[segments.count - 2])/\(segments[segments.count - 1])"]
        }
    }
}
