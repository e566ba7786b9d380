import FHIRCore

/// One FHIR resource found in an input, with its JSON exactly as the input writes it.
public struct FHIRResourceSlice: Sendable {
    /// Where it was found: `"resource"`, `"entry[3]"` or `"line 5"`.
    public var location: String
    /// The resource's JSON, byte for byte as in the input.
    public var bytes: [UInt8]
    /// The resource as a JSON tree.
    public var resource: JSONObject
    /// The Bundle entry's `fullUrl`, when the resource came from a Bundle.
    public var fullURL: String?
    /// The problems the validator found in this resource (R4 only).
    public var issues: [String]

    /// The resource type.
    public var resourceType: String { resource["resourceType"]?.stringValue ?? "" }
}

/// What an input holds: FHIR resources, or health cards (in any form `SHCInput` reads).
public enum HealthRecordInput: Sendable {
    /// The most bytes one JSON document (a resource, a Bundle, a card file) and one NDJSON line
    /// may have: 16 MiB, more than any clinical record a provider sends (a resource with a
    /// scanned document attached is a few MB). Parsing and validating a document takes several
    /// times its size in memory, so the limit bounds an import's memory; NDJSON is read line by
    /// line, so a larger collection of resources comes as NDJSON.
    public static let maximumDocumentSize = 16 << 20

    /// FHIR resources: one resource, a Bundle's entries, or NDJSON lines; `problems` are those
    /// of the document itself (a Bundle's own errors, unreadable NDJSON lines).
    case resources([FHIRResourceSlice], problems: [String])
    /// Health cards: the input's bytes, for `SHCInput`.
    case cards([UInt8])

    /// Reads an input, detecting its form by content: a JSON object with `resourceType` is a
    /// resource or a Bundle, unless it is a `$health-cards-issue` `Parameters` response; a JSON
    /// object with `verifiableCredential` is a `.smart-health-card` file; several JSON objects,
    /// one per line, are NDJSON; anything else is handed to the card reader (JWS, `shc:/` text).
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - validator: checks each resource (R4's or DSTU2's, see `HealthRecordImporter.validator(for:)`);
    ///     nil reads resources without validating them.
    /// - Throws: ``HealthRecordImportError``; `tooLarge` for a document over ``maximumDocumentSize``
    ///   (NDJSON of any size is read, each line held to the limit).
    public static func read(_ bytes: [UInt8], validate validator: (@Sendable (JSONValue) -> [ValidationProblem])?) throws(HealthRecordImportError)
        -> HealthRecordInput {
        guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }) else { throw .empty }
        if bytes.count > maximumDocumentSize {
            // Only NDJSON may be larger (each line within the limit); a document is refused before it is parsed.
            guard bytes[first] == UInt8(ascii: "{"), bytes.contains(UInt8(ascii: "\n")),
                  let lines = try? ndjson(bytes, firstLine: 1, validator: validator) else { throw .tooLarge(maximumDocumentSize) }
            return lines
        }
        guard bytes[first] == UInt8(ascii: "{") else { return .cards(bytes) }
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes)
        } catch {
            // More than one JSON value: NDJSON, one resource per line.
            if bytes.contains(UInt8(ascii: "\n")), let lines = try? ndjson(bytes, firstLine: 1, validator: validator) { return lines }
            throw .malformedJSON(error.description)
        }
        guard let root = tape.value(at: 0).objectValue else { throw .notFHIR }
        if root["verifiableCredential"] != nil { return .cards(bytes) }
        guard let resourceType = root["resourceType"]?.stringValue else { throw .notFHIR }
        if resourceType == "Parameters",
           root["parameter"]?.arrayValue?.contains(where: { $0.objectValue?["name"]?.stringValue == "verifiableCredential" }) ?? false {
            return .cards(bytes)
        }
        let problems = validator?(.object(root)) ?? []
        guard resourceType == "Bundle" else {
            let slice = FHIRResourceSlice(location: "resource", bytes: Array(bytes[tape.byteRange(of: 0)]), resource: root, fullURL: nil,
                                          issues: problems.filter(\.isError).map(\.text))
            return .resources([slice], problems: [])
        }
        // A Bundle: each entry's resource, with the problems found under its path.
        var byEntry: [Int: [String]] = [:]
        var bundleProblems: [String] = []
        for problem in problems where problem.isError {
            if let entry = problem.entryIndex { byEntry[entry, default: []].append(problem.text) } else { bundleProblems.append(problem.text) }
        }
        var slices: [FHIRResourceSlice] = []
        let entries = root["entry"]?.arrayValue ?? []
        let entryNodes = tape.elements(of: tape.member(of: 0, named: "entry"))
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue, let resource = object["resource"]?.objectValue, index < entryNodes.count,
                  let node = tape.member(of: entryNodes[index], named: "resource") else { continue }
            slices.append(FHIRResourceSlice(location: "entry[\(index)]", bytes: Array(tape.bytes[tape.byteRange(of: node)]), resource: resource,
                                            fullURL: object["fullUrl"]?.stringValue, issues: byEntry[index] ?? []))
        }
        return .resources(slices, problems: bundleProblems)
    }

    /// Reads one page of FHIR search results (a `searchset` Bundle) the way a sync stores it:
    /// each entry's resource validated on its own, as the server's resource, not as part of a
    /// document (a page's references need not resolve inside it, and an empty page is an empty
    /// page). Entries whose `search.mode` is `outcome` (an OperationOutcome about the search) are
    /// left out.
    public static func searchPage(_ bytes: [UInt8], validate validator: (@Sendable (JSONValue) -> [ValidationProblem])?) throws(HealthRecordImportError)
        -> [FHIRResourceSlice] {
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes)
        } catch {
            throw .malformedJSON(error.description)
        }
        guard let root = tape.value(at: 0).objectValue, root["resourceType"]?.stringValue == "Bundle" else { throw .notFHIR }
        var slices: [FHIRResourceSlice] = []
        let entries = root["entry"]?.arrayValue ?? []
        let entryNodes = tape.elements(of: tape.member(of: 0, named: "entry"))
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue, let resource = object["resource"]?.objectValue, index < entryNodes.count,
                  object["search"]?["mode"]?.stringValue != "outcome",
                  let node = tape.member(of: entryNodes[index], named: "resource") else { continue }
            let issues = validator?(.object(resource)).filter(\.isError).map(\.text) ?? []
            slices.append(FHIRResourceSlice(location: "entry[\(index)]", bytes: Array(tape.bytes[tape.byteRange(of: node)]), resource: resource,
                                            fullURL: object["fullUrl"]?.stringValue, issues: issues))
        }
        return slices
    }

    /// The resources of NDJSON lines, the first of them line `firstLine` of the input (a file
    /// read in parts), and the problems of the lines that are not resources (blank lines are
    /// skipped; a line over ``maximumDocumentSize`` is a problem, not parsed).
    public static func ndjsonLines(_ bytes: [UInt8], firstLine: Int, validate validator: (@Sendable (JSONValue) -> [ValidationProblem])?)
        -> (resources: [FHIRResourceSlice], problems: [String]) {
        var slices: [FHIRResourceSlice] = []
        var problems: [String] = []
        var lineNumber = firstLine - 1
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { !isSpace($0) }) else { continue }
            guard line.count <= maximumDocumentSize else {
                problems.append("line \(lineNumber): \(HealthRecordImportError.tooLarge(maximumDocumentSize))")
                continue
            }
            do {
                let tape = try JSONTape(Array(line))
                guard let resource = tape.value(at: 0).objectValue, resource["resourceType"]?.stringValue != nil else {
                    problems.append("line \(lineNumber): not a FHIR resource")
                    continue
                }
                let issues = validator?(.object(resource)).filter(\.isError).map(\.text) ?? []
                slices.append(FHIRResourceSlice(location: "line \(lineNumber)", bytes: Array(tape.bytes[tape.byteRange(of: 0)]),
                                                resource: resource, fullURL: nil, issues: issues))
            } catch {
                problems.append("line \(lineNumber): \(error)")
            }
        }
        return (slices, problems)
    }

    private static func ndjson(_ bytes: [UInt8], firstLine: Int, validator: (@Sendable (JSONValue) -> [ValidationProblem])?)
        throws(HealthRecordImportError) -> HealthRecordInput {
        let (slices, problems) = ndjsonLines(bytes, firstLine: firstLine, validate: validator)
        guard !slices.isEmpty else { throw .notFHIR }
        return .resources(slices, problems: problems)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0xEF || byte == 0xBB || byte == 0xBF
    }
}

/// One problem a validator found, with its path.
public struct ValidationProblem: Sendable, Hashable {
    /// Whether it invalidates the resource (warnings do not).
    public var isError: Bool
    /// Where: `Observation.code` or `Bundle.entry[3].resource.code`.
    public var path: String
    /// What.
    public var message: String

    /// Creates a problem.
    public init(isError: Bool, path: String, message: String) {
        self.isError = isError
        self.path = path
        self.message = message
    }

    var text: String { "\(path): \(message)" }

    /// The Bundle entry the path is under, if any.
    var entryIndex: Int? {
        guard path.hasPrefix("Bundle.entry[") else { return nil }
        let digits = path.dropFirst("Bundle.entry[".count).prefix { $0.isNumber }
        return Int(digits)
    }
}

extension JSONTape {
    /// The value node of an object's member, or nil.
    func member(of object: Int?, named name: String) -> Int? {
        guard let object, nodes[object].kind == .object else { return nil }
        var child = object + 1
        for _ in 0..<Int(nodes[object].length) {
            if keyEquals(child, name) { return child + 1 }
            child = Int(nodes[child + 1].end)
        }
        return nil
    }

    /// The element nodes of an array (empty for anything else).
    func elements(of array: Int?) -> [Int] {
        guard let array, nodes[array].kind == .array else { return [] }
        var result: [Int] = []
        var child = array + 1
        for _ in 0..<Int(nodes[array].length) {
            result.append(child)
            child = Int(nodes[child].end)
        }
        return result
    }
}
