/// Checks a card's FHIR Bundle against rules 20 and 23-30 by walking the payload's JSON tape,
/// collecting findings. Paths name structure only (member names and indexes), never values.
struct SHCBundleChecker {
    private enum Component {
        /// A member name, as the index of its key token.
        case key(Int)
        case index(Int)
    }

    private let tape: SHCJSONTape
    private(set) var findings: [SHCFinding] = []
    private var path: [Component] = []
    /// Token indexes of the entries' fullUrl strings.
    private var fullUrls: [Int] = []
    private let rootPath: String

    init(tape: SHCJSONTape, rootPath: String) {
        self.tape = tape
        self.rootPath = rootPath
        path.reserveCapacity(16)
    }

    private var pathText: String {
        var text = rootPath
        for component in path {
            switch component {
            case .key(let key): text += "." + tape.string(key)
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    private mutating func report(_ code: SHCFindingCode, _ message: String, key: Int? = nil) {
        if let key { path.append(.key(key)) }
        findings.append(SHCFinding(code, message, path: pathText))
        if key != nil { path.removeLast() }
    }

    mutating func check(_ bundle: Int) {
        guard tape.kind(bundle) == .object else {
            report(.bundleMissing, "fhirBundle is not an object")
            return
        }
        guard let resourceType = tape.member(bundle, .resourceType), tape.stringEquals(resourceType, "Bundle") else {
            report(.bundleResourceType, "fhirBundle.resourceType is not \"Bundle\"")
            return
        }
        if tape.member(bundle, .type) == nil {
            report(.bundleType, "Bundle.type is missing (collection is expected unless a more specific type applies)")
        }
        var entryKey = -1
        tape.forEachMember(bundle) { key, _ in if tape.key(key) == .entry { entryKey = key } }
        guard entryKey >= 0 else { return }
        let entries = entryKey + 1
        path.append(.key(entryKey))
        defer { path.removeLast() }
        guard tape.kind(entries) == .array else {
            report(.bundleEntry, "Bundle.entry is not an array")
            return
        }
        // First pass: fullUrls, so that references resolve in any order.
        fullUrls.reserveCapacity(tape.count(entries))
        tape.forEachElement(entries) { position, entry in
            path.append(.index(position))
            defer { path.removeLast() }
            guard tape.kind(entry) == .object else {
                report(.bundleEntry, "entry \(position) is not an object")
                return
            }
            var fullUrlKey = -1
            tape.forEachMember(entry) { key, _ in if tape.key(key) == .fullUrl { fullUrlKey = key } }
            guard fullUrlKey >= 0, tape.kind(fullUrlKey + 1) == .string else {
                report(.fullURL, "entry \(position) has no fullUrl string")
                return
            }
            let fullUrl = fullUrlKey + 1
            if !isResourceURI(fullUrl) {
                report(.fullURL, "entry \(position) has a fullUrl that is not resource:N", key: fullUrlKey)
            }
            if fullUrls.contains(where: { tape.stringsEqual($0, fullUrl) }) {
                report(.fullURLDuplicate, "entry \(position) repeats the fullUrl of an earlier entry", key: fullUrlKey)
            }
            fullUrls.append(fullUrl)
        }
        // Second pass: resources.
        tape.forEachElement(entries) { position, entry in
            guard tape.kind(entry) == .object else { return }
            path.append(.index(position))
            defer { path.removeLast() }
            var resourceKey = -1
            tape.forEachMember(entry) { key, _ in if tape.key(key) == .resource { resourceKey = key } }
            guard resourceKey >= 0, tape.kind(resourceKey + 1) == .object,
                  let type = tape.member(resourceKey + 1, .resourceType), tape.kind(type) == .string else {
                report(.bundleEntry, "entry \(position) has no resource with a resourceType")
                return
            }
            path.append(.key(resourceKey))
            checkResource(resourceKey + 1)
            path.removeLast()
        }
    }

    /// `resource:` followed by decimal digits.
    private func isResourceURI(_ index: Int) -> Bool {
        guard tape.stringHasPrefix(index, "resource:") else { return false }
        let text = tape.string(index).utf8.dropFirst(9)
        return !text.isEmpty && text.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private mutating func checkResource(_ resource: Int) {
        let typeIndex = tape.member(resource, .resourceType)
        var resourceType: String { tape.stringValue(typeIndex) ?? "resource" }
        tape.forEachMember(resource) { key, value in
            switch tape.key(key) {
            case .id:
                report(.minimizationID, "\(resourceType) has an id", key: key)
            case .meta:
                var onlySecurity = tape.kind(value) == .object && tape.count(value) == 1
                if onlySecurity { onlySecurity = tape.key(value + 1) == .security }
                if !onlySecurity {
                    report(.minimizationMeta, "\(resourceType) has meta other than meta.security alone", key: key)
                }
            case .text:
                report(.minimizationText, "\(resourceType) has narrative text", key: key)
            default:
                break
            }
        }
        if let typeIndex, tape.stringEquals(typeIndex, "Immunization") {
            let status = tape.member(resource, .status)
            if status == nil || !tape.stringEquals(status ?? 0, "completed") {
                report(.immunizationStatus, "Immunization.status is not \"completed\"")
            }
            let occurrences = (tape.member(resource, .occurrenceDateTime) != nil ? 1 : 0)
                + (tape.member(resource, .occurrenceString) != nil ? 1 : 0)
            if occurrences != 1 {
                report(.immunizationOccurrence, "Immunization needs exactly one of occurrenceDateTime and occurrenceString, has \(occurrences)")
            }
        }
        tape.forEachMember(resource) { key, value in
            path.append(.key(key))
            walk(value, key: key, parentIsCodingArray: false)
            path.removeLast()
        }
    }

    private mutating func walk(_ value: Int, key: Int, parentIsCodingArray: Bool) {
        switch tape.kind(value) {
        case .string:
            if tape.stringIsEmpty(value) { report(.emptyElement, "empty string") }
        case .array:
            if tape.count(value) == 0 { report(.emptyElement, "empty array") }
            let isCoding = tape.key(key) == .coding
            let isContained = !isCoding && tape.key(key) == .contained
            tape.forEachElement(value) { position, element in
                path.append(.index(position))
                if isContained, tape.member(element, .resourceType) != nil {
                    checkResource(element)
                } else {
                    walk(element, key: key, parentIsCodingArray: isCoding)
                }
                path.removeLast()
            }
        case .object:
            if tape.count(value) == 0 { report(.emptyElement, "empty object") }
            let hasCoding = tape.member(value, .coding) != nil
            tape.forEachMember(value) { memberKey, member in
                if parentIsCodingArray, tape.key(memberKey) == .display {
                    report(.minimizationCodingDisplay, "Coding has display", key: memberKey)
                } else if hasCoding, tape.key(memberKey) == .text {
                    report(.minimizationCodeableConceptText, "CodeableConcept has text", key: memberKey)
                } else if tape.kind(member) == .string, tape.key(memberKey) == .reference {
                    if !isResourceURI(member) {
                        report(.reference, "Reference.reference is not a resource:N reference", key: memberKey)
                    } else if !fullUrls.contains(where: { tape.stringsEqual($0, member) }) {
                        report(.reference, "Reference.reference matches no entry's fullUrl", key: memberKey)
                    }
                }
                path.append(.key(memberKey))
                walk(member, key: memberKey, parentIsCodingArray: false)
                path.removeLast()
            }
        case .null, .true, .false, .number:
            break
        }
    }
}
