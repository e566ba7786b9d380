/// The FHIR resource types a permission or scope covers: one type, or `*` for all.
public enum ResourceScope: Sendable, Hashable, CustomStringConvertible {
    /// Every resource type.
    case all
    /// One resource type, for example `Patient`.
    case type(String)

    /// Reads `*` or a resource type name (an uppercase ASCII letter then 1–63 ASCII letters).
    public init?(_ text: String) {
        if text == "*" {
            self = .all
            return
        }
        let utf8 = Array(text.utf8)
        guard (2...64).contains(utf8.count), let first = utf8.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first),
              utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
            return nil
        }
        self = .type(text)
    }

    /// Whether this scope includes every type `other` includes.
    public func covers(_ other: ResourceScope) -> Bool {
        switch (self, other) {
        case (.all, _): true
        case (.type, .all): false
        case (.type(let mine), .type(let theirs)): mine == theirs
        }
    }

    /// Whether this scope includes the resource type.
    public func covers(resourceType: String) -> Bool {
        switch self {
        case .all: true
        case .type(let mine): mine == resourceType
        }
    }

    /// The narrower of two scopes, or nil if they share no type.
    public func intersection(_ other: ResourceScope) -> ResourceScope? {
        if covers(other) { return other }
        if other.covers(self) { return self }
        return nil
    }

    /// `*` or the type name.
    public var description: String {
        switch self {
        case .all: "*"
        case .type(let name): name
        }
    }
}
