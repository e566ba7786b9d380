import CommonSupport
import FHIRCore
import Foundation
import OpenHealthKit

/// The person records are about: a FHIR Patient's name and birth date, or a health card's
/// subject, compared with the store owner's profile (`HKOwnerProfile`) so that one store
/// holds one person's records.
///
/// The rule (``matches(_:)``): the birth dates must be the same day (a partial birth date, a
/// year or a year and month, must agree as far as it goes); the words of one family name must
/// be the words of the other or appear in it in order ("García" matches "García Márquez",
/// "Smith" matches "Smith-Jones") and the first given names must be equal or one must be the
/// other's initial, all compared without regard to case, diacritics, hyphens, apostrophes and
/// spaces ("José-María" matches "jose maria", "J." matches "Jane"). A name that is one text is
/// read as "Given Family" or, with a comma, as "Family, Given". What either side leaves out is
/// not compared: a Patient without a birth date is compared by name only, and one with neither
/// is not refused.
public struct HealthRecordPerson: Sendable, Hashable {
    /// The given names, in order (first, then middle names).
    public var givenNames: [String]
    /// The family name; for a name known only as one text, the whole text is in ``text``.
    public var familyName: String?
    /// The name as one text, when the source gave only that (`HumanName.text`).
    public var text: String?
    /// The birth date as FHIR writes it: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    public var birthDate: String?

    /// Creates a person.
    /// - Parameters:
    ///   - givenNames: the given names, in order.
    ///   - familyName: the family name.
    ///   - text: the name as one text, when there are no parts.
    ///   - birthDate: the birth date (`YYYY-MM-DD`, or partial).
    public init(givenNames: [String] = [], familyName: String? = nil, text: String? = nil, birthDate: String? = nil) {
        self.givenNames = givenNames
        self.familyName = familyName
        self.text = text
        self.birthDate = birthDate
    }

    /// The person of an owner's profile; nil when the profile names nobody (no name, no date of
    /// birth).
    /// - Parameter profile: the store owner's profile.
    public init?(profile: HKOwnerProfile) {
        guard profile.identifiesPerson else { return nil }
        let given = profile.givenName.split(whereSeparator: \.isWhitespace).map(String.init)
        self.init(givenNames: given, familyName: profile.familyName.isEmpty ? nil : profile.familyName,
                  birthDate: profile.dateOfBirth.flatMap { components in
                      guard let year = components.year, let month = components.month, let day = components.day else { return nil }
                      return ISODateText.string(year: year, month: month, day: day)
                  })
    }

    /// The names of a FHIR Patient resource (R4 or DSTU2), the official one first; empty when
    /// it has none. Each carries the Patient's birth date.
    /// - Parameter patient: the Patient resource.
    public static func people(inPatient patient: JSONObject) -> [HealthRecordPerson] {
        let birthDate = patient["birthDate"]?.stringValue.map { String($0.prefix(10)) }
        var people: [HealthRecordPerson] = []
        var official: [HealthRecordPerson] = []
        for name in patient["name"]?.arrayValue ?? [] {
            guard let name = name.objectValue else { continue }
            let given = (name["given"]?.arrayValue ?? []).compactMap(\.stringValue)
            let family: String? = name["family"]?.stringValue
                ?? name["family"]?.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: " ") }  // DSTU2
            var person = HealthRecordPerson(givenNames: given, familyName: family.flatMap { $0.isEmpty ? nil : $0 }, birthDate: birthDate)
            if given.isEmpty, person.familyName == nil {
                guard let text = name["text"]?.stringValue, !text.isEmpty else { continue }
                person.text = text
            }
            if name["use"]?.stringValue == "official" { official.append(person) } else { people.append(person) }
        }
        let all = official + people
        if all.isEmpty, birthDate != nil { return [HealthRecordPerson(birthDate: birthDate)] }
        return all
    }

    /// The people of the Patient resources among the entries of a FHIR Bundle (a health card's
    /// `fhirBundle`), one list per Patient.
    /// - Parameter bundle: the Bundle.
    public static func patients(inBundle bundle: JSONValue) -> [[HealthRecordPerson]] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry in
            guard let resource = entry["resource"]?.objectValue, resource["resourceType"]?.stringValue == "Patient" else { return nil }
            let people = people(inPatient: resource)
            return people.isEmpty ? nil : people
        }
    }

    /// The name as a person reads it: the given names then the family name (or the text).
    public var displayName: String {
        if let text, givenNames.isEmpty, familyName == nil { return text }
        return (givenNames + [familyName].compactMap { $0 }).joined(separator: " ")
    }

    /// The name and birth date, for messages: `Jane Doe (born 1980-04-02)`.
    public var description: String {
        let name = displayName.isEmpty ? "a person without a name" : displayName
        return birthDate.map { "\(name) (born \($0))" } ?? name
    }

    /// Whether this person and `other` may be the same person, by the rule above.
    /// - Parameter other: the person to compare with.
    public func matches(_ other: HealthRecordPerson) -> Bool {
        if let mine = birthDate, let theirs = other.birthDate {
            let length = min(mine.count, theirs.count)
            guard mine.prefix(length) == theirs.prefix(length) else { return false }
        }
        return namesMatch(other)
    }

    private func namesMatch(_ other: HealthRecordPerson) -> Bool {
        let mine = words()
        let theirs = other.words()
        switch (mine.isText, theirs.isText) {
        case (false, false):
            if let myFamily = mine.family, let theirFamily = theirs.family, !Self.familiesMatch(myFamily, theirFamily) { return false }
            return Self.firstGivenMatch(mine.given, theirs.given)
        case (false, true): return Self.textMatch(given: mine.given, family: mine.family, text: theirs.given)
        case (true, false): return Self.textMatch(given: theirs.given, family: theirs.family, text: mine.given)
        case (true, true):
            if let myLast = mine.given.last, let theirLast = theirs.given.last, myLast != theirLast { return false }
            return Self.firstGivenMatch(mine.given, theirs.given)
        }
    }

    /// A name in parts against a name that is one text ("Given Family"): the text's last words are
    /// a family name that matches, and the words before them start with a matching given name.
    private static func textMatch(given: [String], family: [String]?, text: [String]) -> Bool {
        guard let family, !family.isEmpty else { return firstGivenMatch(given, text) }
        return (0..<text.count).contains { split in
            familiesMatch(family, Array(text[split...])) && firstGivenMatch(given, Array(text[..<split]))
        }
    }

    /// Two family names' words: the shorter one's words appear in the longer one, in order and
    /// together ("garcia" in "garcia marquez"); a family name without words is not compared.
    private static func familiesMatch(_ mine: [String], _ theirs: [String]) -> Bool {
        guard !mine.isEmpty, !theirs.isEmpty else { return true }
        let (short, long) = mine.count <= theirs.count ? (mine, theirs) : (theirs, mine)
        return (0...(long.count - short.count)).contains { long[$0..<($0 + short.count)].elementsEqual(short) }
    }

    /// The first given name: equal, or one is the other's initial; not compared when either is missing.
    private static func firstGivenMatch(_ mine: [String], _ theirs: [String]) -> Bool {
        guard let first = mine.first, let other = theirs.first else { return true }
        if first == other { return true }
        if first.count == 1 { return other.hasPrefix(first) }
        if other.count == 1 { return first.hasPrefix(other) }
        return false
    }

    /// The normalised words of the given names and of the family name; for a name that is one
    /// text, all its words are in `given` and `isText` is true, unless a comma parts it as
    /// "Family, Given".
    private func words() -> (given: [String], family: [String]?, isText: Bool) {
        if let text, givenNames.isEmpty, familyName == nil {
            if let comma = text.firstIndex(of: ",") {
                let family = Self.normalized(String(text[..<comma]))
                if !family.isEmpty { return (Self.normalized(String(text[text.index(after: comma)...])), family, false) }
            }
            return (Self.normalized(text), nil, true)
        }
        return (givenNames.flatMap(Self.normalized), familyName.map(Self.normalized), false)
    }

    /// Lowercased, without diacritics, split at anything that is not a letter or a digit.
    static func normalized(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split { !($0.isLetter || $0.isNumber) }
            .map(String.init)
    }
}
