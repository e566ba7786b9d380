/// A finding repeated for many places, said once: `… in 500 entries: entry[0], entry[1],
/// entry[2] and 497 more`.
enum RepeatedFindings {
    /// How many places are named before "and N more".
    static let placesShown = 3

    /// The bundle entry a JSON path points into (`entry[3]` in
    /// `vc.credentialSubject.fhirBundle.entry[3].resource.id`), or nil.
    static func entryPlace(_ path: String?) -> Substring? {
        guard let path, let start = path.range(of: "entry[", options: .backwards) else { return nil }
        guard let close = path[start.upperBound...].firstIndex(of: "]") else { return nil }
        return path[start.lowerBound...close]
    }

    /// The words appended to a finding's message for the places it was found at: `(entry[3])`
    /// for one place; ` in 500 entries: entry[0], entry[1], entry[2] and 497 more` for several;
    /// ` (500 times)` when the places are not entries; nothing for one finding without a place.
    static func suffix(count: Int, places: [Substring]) -> String {
        if places.count == count, count > 0 {
            if count == 1 { return " (\(places[0]))" }
            let shown = places.prefix(placesShown).joined(separator: ", ")
            if count <= placesShown {
                let last = places[count - 1]
                return " in \(count) entries: " + places.prefix(count - 1).joined(separator: ", ") + " and \(last)"
            }
            return " in \(count) entries: \(shown) and \(count - placesShown) more"
        }
        return count > 1 ? " (\(count) times)" : ""
    }

    /// Findings grouped by what they say (`key`), in the order each first appears, with the
    /// places each was found at (`place`: an entry, a line, or nil).
    static func grouped<Finding>(_ findings: [Finding], key: (Finding) -> String,
                                 place: (Finding) -> Substring?) -> [(first: Finding, count: Int, places: [Substring])] {
        var groups: [(first: Finding, count: Int, places: [Substring])] = []
        var indexByKey: [String: Int] = [:]
        for finding in findings {
            let found = place(finding)
            if let index = indexByKey[key(finding)] {
                groups[index].count += 1
                if let found { groups[index].places.append(found) }
            } else {
                indexByKey[key(finding)] = groups.count
                groups.append((finding, 1, found.map { [$0] } ?? []))
            }
        }
        return groups
    }
}
