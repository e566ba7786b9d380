import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// `batch` and `transaction` Bundles posted to `/fhir`. A batch's entries are independent: each
/// is answered as the same request on its own would be (`POST`, conditional `POST`, `PUT`,
/// conditional `PUT`, `DELETE` of `Type/id`, `GET` read or search). A transaction's writes
/// (`POST`, `PUT`, conditional forms, `DELETE` of `Type/id`) are all checked first, its
/// `urn:uuid` full URLs given ids and the references to them rewritten, then stored in one commit, one database transaction on either store: one entry
/// refused and nothing of it is stored. Every entry passes the same checks as the request on
/// its own, and is audited.
extension FHIRController {
    /// The most entries a Bundle may have.
    static let maximumBundleEntries = 1_000

    /// One entry's request.
    struct BundleRequest {
        var method: String
        /// The type, the id (when the URL names one) and the query (when it has one).
        var type: String
        var id: String?
        var query: String?
        var ifMatch: String?
        var ifNoneExist: String?
        var fullUrl: String?
        var resource: JSONObject?
    }

    /// `POST /fhir` with a Bundle of type `batch` or `transaction`.
    func processBundle(request: ServiceRequest, access: BearerAccess) async -> ServiceResponse {
        guard case .object(let bundle)? = try? JSONParser.parse(request.body, maximumDepth: 96),
              bundle["resourceType"]?.stringValue == "Bundle" else {
            return Self.outcome(status: 400, code: "structure", "POST /fhir takes a Bundle of type batch or transaction")
        }
        let entries = bundle["entry"]?.arrayValue ?? []
        guard entries.count <= Self.maximumBundleEntries else {
            return Self.outcome(status: 413, code: "too-costly", "a Bundle may have at most \(Self.maximumBundleEntries) entries")
        }
        var requests: [Result<BundleRequest, Refusal>] = []
        for (index, entry) in entries.enumerated() {
            requests.append(bundleRequest(entry, index: index))
        }
        switch bundle["type"]?.stringValue {
        case "batch": return await batch(requests, access: access)
        case "transaction": return await transaction(requests, access: access)
        default: return Self.outcome(status: 400, code: "invalid", "POST /fhir takes a Bundle of type batch or transaction")
        }
    }

    /// Reads one entry's request (its URL relative, or under this server's `/fhir`).
    func bundleRequest(_ entry: JSONValue, index: Int) -> Result<BundleRequest, Refusal> {
        func refused(_ text: String) -> Result<BundleRequest, Refusal> {
            .failure(Refusal(response: Self.outcome(status: 400, code: "invalid", "entry \(index): \(text)")))
        }
        guard let object = entry.objectValue, let requestObject = object["request"]?.objectValue,
              let method = requestObject["method"]?.stringValue, var url = requestObject["url"]?.stringValue else {
            return refused("an entry needs request.method and request.url")
        }
        let base = baseURL + "/fhir/"
        if url.hasPrefix(base) { url = String(url.dropFirst(base.count)) }
        if url.hasPrefix("/") { url = String(url.dropFirst()) }
        var query: String?
        if let question = url.firstIndex(of: "?") {
            query = String(url[url.index(after: question)...])
            url = String(url[..<question])
        }
        let parts = url.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count), ResourceScope(parts[0]) != nil else { return refused("\(url) is not Type or Type/id") }
        if parts.count == 2, !Self.isValidID(parts[1]) { return refused("\(parts[1]) is not a FHIR id") }
        let resource = object["resource"]?.objectValue
        if method == "POST" || method == "PUT" {
            guard let resource else { return refused("\(method) needs a resource") }
            guard resource["resourceType"]?.stringValue == parts[0] else { return refused("the resource is not a \(parts[0])") }
        }
        return .success(BundleRequest(method: method, type: parts[0], id: parts.count == 2 ? parts[1] : nil, query: query,
                                      ifMatch: requestObject["ifMatch"]?.stringValue, ifNoneExist: requestObject["ifNoneExist"]?.stringValue,
                                      fullUrl: object["fullUrl"]?.stringValue, resource: resource))
    }

    // MARK: Batch

    func batch(_ requests: [Result<BundleRequest, Refusal>], access: BearerAccess) async -> ServiceResponse {
        var entries: [JSONValue] = []
        for request in requests {
            let response: ServiceResponse
            switch request {
            case .failure(let refusal): response = refusal.response
            case .success(let entry): response = await batchEntry(entry, access: access)
            }
            entries.append(Self.responseEntry(response))
        }
        return Self.responseBundle("batch-response", entries)
    }

    /// One batch entry, as the request on its own.
    func batchEntry(_ entry: BundleRequest, access: BearerAccess) async -> ServiceResponse {
        let body = entry.resource.map { JSONWriter.serialize(.object($0)) } ?? []
        var headers: [String: String] = [:]
        if let ifMatch = entry.ifMatch { headers["if-match"] = ifMatch }
        if let ifNoneExist = entry.ifNoneExist { headers["if-none-exist"] = ifNoneExist }
        let request = ServiceRequest(method: entry.method, path: "/fhir/\(entry.type)", rawQuery: entry.query ?? "", headers: headers, body: body)
        switch (entry.method, entry.id) {
        case ("GET", let id?): return await read(type: entry.type, id: id, access: access, request: request)
        case ("GET", nil): return await search(type: entry.type, request: request, access: access)
        case ("POST", nil): return await create(type: entry.type, request: request, access: access)
        case ("PUT", let id?): return await write(type: entry.type, id: id, body: body, access: access, ifMatch: entry.ifMatch)
        case ("PUT", nil): return await conditionalUpdate(type: entry.type, request: request, access: access)
        case ("DELETE", let id?): return await delete(type: entry.type, id: id, access: access, ifMatch: entry.ifMatch)
        default: return Self.outcome(status: 405, code: "not-supported", "\(entry.method) on \(entry.type)\(entry.id.map { "/\($0)" } ?? "") is not supported")
        }
    }

    // MARK: Transaction

    func transaction(_ requests: [Result<BundleRequest, Refusal>], access: BearerAccess) async -> ServiceResponse {
        var entries: [BundleRequest] = []
        for (index, request) in requests.enumerated() {
            switch request {
            case .failure(let refusal): return refusal.response
            case .success(let entry):
                guard entry.method == "POST" || entry.method == "PUT" || (entry.method == "DELETE" && entry.id != nil) else {
                    return Self.outcome(status: 400, code: "not-supported",
                                        "entry \(index): a transaction takes POST, PUT and DELETE (of Type/id) entries only")
                }
                entries.append(entry)
            }
        }
        // Each entry's target: a new id, an existing match (conditional create), or its URL's id.
        var targets: [(id: String, existing: FHIRResourceRecord?)] = []
        var references: [String: String] = [:]
        for (index, entry) in entries.enumerated() {
            var target: (id: String, existing: FHIRResourceRecord?)
            if let id = entry.id {
                guard entry.method != "POST" else { return Self.outcome(status: 400, code: "invalid", "entry \(index): POST takes a type, not an id") }
                target = (id, nil)
            } else if entry.method == "POST", let condition = entry.ifNoneExist {
                switch await conditionMatches(type: entry.type, query: Self.conditionQuery(condition), access: access) {
                case .failure(let refusal): return refusal.response
                case .success(let matches):
                    guard matches.total <= 1 else { return Self.outcome(status: 412, code: "duplicate", "entry \(index): ifNoneExist matches several") }
                    target = matches.records.first.map { ($0.id, $0) } ?? (newResourceID(), nil)
                }
            } else if entry.method == "PUT" {
                guard let query = entry.query, !query.isEmpty else {
                    return Self.outcome(status: 400, code: "invalid", "entry \(index): PUT needs an id or search parameters")
                }
                switch await conditionMatches(type: entry.type, query: query, access: access) {
                case .failure(let refusal): return refusal.response
                case .success(let matches):
                    guard matches.total <= 1 else {
                        return Self.outcome(status: 412, code: "multiple-matches", "entry \(index): the conditional update matches several")
                    }
                    target = (matches.records.first?.id ?? entry.resource?["id"]?.stringValue ?? newResourceID(), nil)
                }
            } else {
                target = (newResourceID(), nil)
            }
            if let fullUrl = entry.fullUrl, fullUrl.hasPrefix("urn:uuid:") || fullUrl.hasPrefix("urn:oid:") {
                guard references.updateValue("\(entry.type)/\(target.id)", forKey: fullUrl) == nil else {
                    return Self.outcome(status: 400, code: "invalid", "entry \(index): fullUrl \(fullUrl) is used twice")
                }
            }
            targets.append(target)
        }
        var keys = Set<String>()
        var prepared: [PreparedWrite?] = []
        for (index, (entry, target)) in zip(entries, targets).enumerated() {
            guard keys.insert("\(entry.type)/\(target.id)").inserted else {
                return Self.outcome(status: 400, code: "invalid", "entry \(index): \(entry.type)/\(target.id) is written twice")
            }
            if target.existing != nil {
                prepared.append(nil)   // a conditional create that found its resource
                continue
            }
            if entry.method == "DELETE" {
                switch await prepareDelete(type: entry.type, id: target.id, access: access, ifMatch: entry.ifMatch) {
                case .failure(let refusal): return Self.prefixed(refusal.response, "entry \(index): ")
                case .success(let deletion): prepared.append(deletion)   // nil: deleted before
                }
                continue
            }
            var resource = entry.resource ?? JSONObject()
            switch Self.rewritingReferences(.object(resource), references) {
            case .failure(let dangling):
                return Self.outcome(status: 400, code: "invalid", "entry \(index): \(dangling.reference) names no entry of the transaction")
            case .success(let rewritten): resource = rewritten.objectValue ?? resource
            }
            if entry.method == "POST" { resource["id"] = nil }
            let body = JSONWriter.serialize(.object(resource))
            let result = entry.method == "POST"
                ? await prepareWrite(type: entry.type, id: nil, body: body, access: access, assignedID: target.id)
                : await prepareWrite(type: entry.type, id: target.id, body: body, access: access, ifMatch: entry.ifMatch)
            switch result {
            case .failure(let refusal): return Self.prefixed(refusal.response, "entry \(index): ")
            case .success(let write): prepared.append(write)
            }
        }
        var change = TrustChange()
        change.resources = prepared.compactMap { $0?.write }
        change.auditEntries = prepared.compactMap { $0?.audit }
        if !change.resources.isEmpty {
            do {
                try await storeCommit(change)
            } catch .conflict(let what) {
                return Self.outcome(status: 409, code: "conflict", "\(what) was written concurrently; nothing of the transaction was stored")
            } catch {
                return Self.outcome(status: 500, code: "exception", "the transaction could not be stored")
            }
        }
        var responseEntries: [JSONValue] = []
        for (write, target) in zip(prepared, targets) {
            if let write {
                responseEntries.append(Self.responseEntry(writeResponse(write)))
            } else if let existing = target.existing {
                responseEntries.append(Self.responseEntry(ServiceResponse(status: 200, contentType: Self.fhirJSON,
                                                                          headers: Self.versionHeaders(existing), body: existing.json)))
            } else {
                // A DELETE of a resource deleted before.
                responseEntries.append(Self.responseEntry(ServiceResponse(status: 204, contentType: Self.fhirJSON, body: [])))
            }
        }
        return Self.responseBundle("transaction-response", responseEntries)
    }

    /// An `ifNoneExist` value without a leading `Type?`.
    static func conditionQuery(_ condition: String) -> String {
        guard let question = condition.firstIndex(of: "?") else { return condition }
        return String(condition[condition.index(after: question)...])
    }

    /// A `urn:` reference that no entry's fullUrl names.
    struct DanglingReference: Error {
        var reference: String
    }

    /// `value` with every `reference` string that `references` maps replaced; a `urn:uuid:`
    /// or `urn:oid:` reference it does not map is refused.
    static func rewritingReferences(_ value: JSONValue, _ references: [String: String]) -> Result<JSONValue, DanglingReference> {
        switch value {
        case .object(var object):
            for index in object.members.indices {
                let member = object.members[index]
                if member.key == "reference", case .string(let text) = member.value {
                    if let target = references[text] {
                        object.members[index].value = .string(target)
                    } else if text.hasPrefix("urn:uuid:") || text.hasPrefix("urn:oid:") {
                        return .failure(DanglingReference(reference: text))
                    }
                    continue
                }
                switch rewritingReferences(member.value, references) {
                case .failure(let dangling): return .failure(dangling)
                case .success(let rewritten): object.members[index].value = rewritten
                }
            }
            return .success(.object(object))
        case .array(var values):
            for index in values.indices {
                switch rewritingReferences(values[index], references) {
                case .failure(let dangling): return .failure(dangling)
                case .success(let rewritten): values[index] = rewritten
                }
            }
            return .success(.array(values))
        default:
            return .success(value)
        }
    }

    // MARK: Response Bundles

    /// A response's OperationOutcome with `prefix` before each diagnostics.
    static func prefixed(_ response: ServiceResponse, _ prefix: String) -> ServiceResponse {
        guard case .object(var outcome)? = try? JSONParser.parse(response.body), case .array(var issues)? = outcome["issue"] else { return response }
        for index in issues.indices {
            guard case .object(var issue) = issues[index], let text = issue["diagnostics"]?.stringValue else { continue }
            issue["diagnostics"] = .string(prefix + text)
            issues[index] = .object(issue)
        }
        outcome["issue"] = .array(issues)
        return .json(.object(outcome), status: response.status, contentType: response.contentType, headers: response.headers)
    }

    /// A response Bundle's entry for one answer: `response` (status, location, etag,
    /// lastModified; the OperationOutcome of a refusal) and the resource of a success.
    static func responseEntry(_ response: ServiceResponse) -> JSONValue {
        var result = JSONObject()
        result.append("status", .string(String(response.status)))
        func header(_ name: String) -> String? { response.headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        if let location = header("Location") { result.append("location", .string(location)) }
        if let etag = header("ETag") { result.append("etag", .string(etag)) }
        let body = try? JSONParser.parse(response.body)
        if response.status < 400, let modified = body?.objectValue?["meta"]?.objectValue?["lastUpdated"] { result.append("lastModified", modified) }
        var entry = JSONObject()
        if response.status >= 400 {
            if let body { result.append("outcome", body) }
        } else if let body {
            entry.append("resource", body)
        }
        entry.append("response", .object(result))
        return .object(entry)
    }

    static func responseBundle(_ type: String, _ entries: [JSONValue]) -> ServiceResponse {
        var bundle = JSONObject()
        bundle.append("resourceType", "Bundle")
        bundle.append("type", .string(type))
        if !entries.isEmpty { bundle.append("entry", .array(entries)) }
        return .json(.object(bundle), contentType: fhirJSON)
    }
}
