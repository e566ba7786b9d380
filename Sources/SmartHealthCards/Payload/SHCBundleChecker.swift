import ExactJSON

/// Checks a card's FHIR Bundle against rules 20 and 23-30 by walking the payload's JSON tape,
/// collecting findings. Paths name structure only (member names and indexes), never values.
struct SHCBundleChecker {
    private enum Component {
        /// A member name, as the index of its key token.
        case key(Int)
        case index(Int)
    }

    private let tape: JSONTape
    private(set) var findings: [SHCFinding] = []
    private var path: [Component] = []
    /// Token indexes of the entries' fullUrl strings.
    private var fullUrls: [Int] = []
    private let rootPath: String

    init(tape: JSONTape, rootPath: String) {
        self.tape = tape
        self.rootPath = rootPath
        path.reserveCapacity(16)
    }

    private var pathText: String {
        var text = rootPath
        for component in path {
            switch component {
            case .key(let key): text += "." + tape.string(at: key)
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
        guard let resourceType = tape.memberValue(of: bundle, named: "resourceType"), tape.stringEquals(resourceType, "Bundle") else {
            report(.bundleResourceType, "fhirBundle.resourceType is not \"Bundle\"")
            return
        }
        if tape.memberValue(of: bundle, named: "type") == nil {
            report(.bundleType, "Bundle.type is missing (collection is expected unless a more specific type applies)")
        }
        var entryKey = -1
        tape.forEachMember(of: bundle) { key, _ in if tape.stringEquals(key, "entry") { entryKey = key } }
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
        tape.forEachElement(of: entries) { position, entry in
            path.append(.index(position))
            defer { path.removeLast() }
            guard tape.kind(entry) == .object else {
                report(.bundleEntry, "an entry is not an object")
                return
            }
            var fullUrlKey = -1
            tape.forEachMember(of: entry) { key, _ in if tape.stringEquals(key, "fullUrl") { fullUrlKey = key } }
            guard fullUrlKey >= 0, tape.isString(fullUrlKey + 1) else {
                report(.fullURL, "an entry has no fullUrl string")
                return
            }
            let fullUrl = fullUrlKey + 1
            if !isResourceURI(fullUrl) {
                report(.fullURL, "an entry has a fullUrl that is not resource:N", key: fullUrlKey)
            }
            if fullUrls.contains(where: { tape.stringsEqual($0, fullUrl) }) {
                report(.fullURLDuplicate, "an entry repeats the fullUrl of an earlier entry", key: fullUrlKey)
            }
            fullUrls.append(fullUrl)
        }
        // Second pass: resources.
        tape.forEachElement(of: entries) { position, entry in
            guard tape.kind(entry) == .object else { return }
            path.append(.index(position))
            defer { path.removeLast() }
            var resourceKey = -1
            tape.forEachMember(of: entry) { key, _ in if tape.stringEquals(key, "resource") { resourceKey = key } }
            guard resourceKey >= 0, tape.kind(resourceKey + 1) == .object,
                  let type = tape.memberValue(of: resourceKey + 1, named: "resourceType"), tape.isString(type) else {
                report(.bundleEntry, "an entry has no resource with a resourceType")
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
        return tape.withUTF8(ofString: index) { text in
            text.count > 9 && text[9...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
    }

    private mutating func checkResource(_ resource: Int) {
        let typeIndex = tape.memberValue(of: resource, named: "resourceType")
        var resourceType: String { tape.stringValue(at: typeIndex) ?? "resource" }
        tape.forEachMember(of: resource) { key, value in
            if tape.stringEquals(key, "id") {
                report(.minimizationID, "\(resourceType) has an id", key: key)
            } else if tape.stringEquals(key, "meta") {
                var onlySecurity = tape.kind(value) == .object && tape.count(value) == 1
                if onlySecurity { onlySecurity = tape.stringEquals(value + 1, "security") }
                if !onlySecurity {
                    report(.minimizationMeta, "\(resourceType) has meta other than meta.security alone", key: key)
                }
            } else if tape.stringEquals(key, "text") {
                report(.minimizationText, "\(resourceType) has narrative text", key: key)
            }
        }
        if let typeIndex, tape.stringEquals(typeIndex, "Immunization") {
            let status = tape.memberValue(of: resource, named: "status")
            if status == nil || !tape.stringEquals(status ?? 0, "completed") {
                report(.immunizationStatus, "Immunization.status is not \"completed\"")
            }
            let occurrences = (tape.memberValue(of: resource, named: "occurrenceDateTime") != nil ? 1 : 0)
                + (tape.memberValue(of: resource, named: "occurrenceString") != nil ? 1 : 0)
            if occurrences != 1 {
                report(.immunizationOccurrence, "Immunization needs exactly one of occurrenceDateTime and occurrenceString, has \(occurrences)")
            }
        }
        tape.forEachMember(of: resource) { key, value in
            path.append(.key(key))
            walk(value, key: key, parentIsCodingArray: false)
            path.removeLast()
        }
    }

    private mutating func walk(_ value: Int, key: Int, parentIsCodingArray: Bool) {
        switch tape.kind(value) {
        case .string, .escapedString:
            if tape.withUTF8(ofString: value, \.isEmpty) { report(.emptyElement, "empty string") }
        case .array:
            if tape.count(value) == 0 { report(.emptyElement, "empty array") }
            let isCoding = tape.stringEquals(key, "coding")
            let isContained = !isCoding && tape.stringEquals(key, "contained")
            tape.forEachElement(of: value) { position, element in
                path.append(.index(position))
                if isContained, tape.memberValue(of: element, named: "resourceType") != nil {
                    checkResource(element)
                } else {
                    walk(element, key: key, parentIsCodingArray: isCoding)
                }
                path.removeLast()
            }
        case .object:
            if tape.count(value) == 0 { report(.emptyElement, "empty object") }
            let hasCoding = tape.memberValue(of: value, named: "coding") != nil
            tape.forEachMember(of: value) { memberKey, member in
                if parentIsCodingArray, tape.stringEquals(memberKey, "display") {
                    report(.minimizationCodingDisplay, "Coding has display", key: memberKey)
                } else if hasCoding, tape.stringEquals(memberKey, "text") {
                    report(.minimizationCodeableConceptText, "CodeableConcept has text", key: memberKey)
                } else if tape.isString(member), tape.stringEquals(memberKey, "reference") {
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
