/// The SMART v2 interactions (§2.5): create, read, update, delete, search.
///
/// HEART/SMART v1 `read` is `rs`, `write` is `cud`, `*` is `cruds`.
public struct AccessRights: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    /// `c`: create.
    public static let create = AccessRights(rawValue: 1)
    /// `r`: read, vread, instance history.
    public static let read = AccessRights(rawValue: 2)
    /// `u`: update, patch.
    public static let update = AccessRights(rawValue: 4)
    /// `d`: delete.
    public static let delete = AccessRights(rawValue: 8)
    /// `s`: search and type/system history.
    public static let search = AccessRights(rawValue: 16)

    /// v1 `read` = `rs`.
    public static let v1Read: AccessRights = [.read, .search]
    /// v1 `write` = `cud`.
    public static let v1Write: AccessRights = [.create, .update, .delete]
    /// `cruds`.
    public static let all: AccessRights = [.create, .read, .update, .delete, .search]

    private static let letters: [(Character, AccessRights)] = [("c", .create), ("r", .read), ("u", .update), ("d", .delete), ("s", .search)]

    /// Reads a v1 suffix (`read`, `write`, `*`) or v2 letters (a non-empty subsequence of `cruds`,
    /// in that order). Returns nil otherwise (such scopes are never reinterpreted).
    public init?(scopeSuffix text: String) {
        switch text {
        case "read": self = .v1Read
        case "write": self = .v1Write
        case "*": self = .all
        default:
            guard let rights = Self.v2(text) else { return nil }
            self = rights
        }
    }

    /// Reads v2 letters only.
    public static func v2(_ text: String) -> AccessRights? {
        var rights: AccessRights = []
        var next = 0
        for character in text {
            guard let index = letters[next...].firstIndex(where: { $0.0 == character }) else { return nil }
            rights.insert(letters[index].1)
            next = index + 1
        }
        return rights.isEmpty ? nil : rights
    }

    /// The v2 letters, in `cruds` order (empty for no rights).
    public var v2Text: String { String(Self.letters.filter { contains($0.1) }.map(\.0)) }

    /// `read`, `write` or `*` when the rights are exactly one v1 suffix.
    public var v1Text: String? {
        switch self {
        case .v1Read: "read"
        case .v1Write: "write"
        case .all: "*"
        default: nil
        }
    }

    /// The `accessType` text of a HEART scope: v1 when possible, else v2 letters.
    public var accessTypeText: String { v1Text ?? v2Text }

    public var description: String { v2Text }
}
