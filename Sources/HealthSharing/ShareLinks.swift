import FhirBlocksClient
import Foundation
import OpenHealthKit

/// When a shared link stops opening.
public enum ShareExpiry: Sendable, Hashable {
    /// At this instant.
    case at(Date)
    /// This long after the link is created (`health share create` defaults to 30 days).
    case after(Duration)
    /// Never: the link opens until it is revoked.
    case never

    /// The instant the link expires when it is created at `now`; nil for ``never``.
    ///
    /// - Parameter now: The instant the link is created.
    public func date(from now: Date) -> Date? {
        switch self {
        case .at(let date): date
        case .after(let duration):
            now.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        case .never: nil
        }
    }
}

/// What a person shares by one link, and how the link opens.
public struct ShareOptions: Sendable, Hashable {
    /// What the link carries (at least one part).
    public var contents: [ShareContent]
    /// The passcode a receiver gives (flag `P`); nil for none.
    public var passcode: String?
    /// How many wrong passcodes the link accepts in its lifetime; nil for the server's default (10).
    public var attempts: Int?
    /// When the link stops opening.
    public var expiry: ShareExpiry
    /// A short description a receiver sees (at most 80 characters).
    public var label: String?
    /// A long-term link (flag `L`): `update` replaces its files with today's content.
    public var longTerm: Bool
    /// A direct link (flag `U`): one file, fetched without a manifest; refused with a passcode.
    public var direct: Bool

    /// Options for a link carrying `contents`.
    ///
    /// - Parameters:
    ///   - contents: What the link carries.
    ///   - passcode: The passcode a receiver gives, or nil.
    ///   - attempts: How many wrong passcodes the link accepts, or nil for the server's default.
    ///   - expiry: When the link stops opening (30 days after it is created by default).
    ///   - label: A short description a receiver sees, at most 80 characters.
    ///   - longTerm: Whether `update` may replace the link's files with today's content.
    ///   - direct: Whether the link is a direct (`U`) link to its single file.
    public init(contents: [ShareContent], passcode: String? = nil, attempts: Int? = nil,
                expiry: ShareExpiry = .after(.seconds(30 * 86_400)), label: String? = nil,
                longTerm: Bool = false, direct: Bool = false) {
        self.contents = contents
        self.passcode = passcode
        self.attempts = attempts
        self.expiry = expiry
        self.label = label
        self.longTerm = longTerm
        self.direct = direct
    }

    /// The longest label a link carries, in characters.
    public static let maximumLabelLength = 80
}

/// A link just created: what to hand the receiver, and the server's record of it.
public struct CreatedShareLink: Sendable {
    /// The link, `shlink:/…`.
    public var link: String
    /// The link inside the server's viewer, `{public-url}/viewer#shlink:/…`.
    public var viewerLink: String
    /// The server's record of the link (its id, flags, expiry).
    public var record: SharedLinkRecord

    /// A created link.
    ///
    /// - Parameters:
    ///   - link: The `shlink:/` link.
    ///   - viewerLink: The viewer address carrying the link in its fragment.
    ///   - record: The server's record of the link.
    public init(link: String, viewerLink: String, record: SharedLinkRecord) {
        self.link = link
        self.viewerLink = viewerLink
        self.record = record
    }
}

/// Why sharing by a link failed, in words a person reads.
public enum ShareError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The options are not a link the server can host (a label too long, a direct link with a
    /// passcode, an expiry in the past, no contents, attempts below 1).
    case invalidOptions(String)
    /// Nothing in the store matches what was chosen (no records of a type, an unknown UUID, no cards).
    case nothingToShare(String)
    /// The person's store could not be read or written.
    case store(String)
    /// The store keeps no key for this link (it was created from another store), so it cannot be updated.
    case unknownLink(String)
    /// The link is not long-term (flag `L`), so its files cannot be replaced.
    case notLongTerm(String)
    /// A file could not be encrypted.
    case encryption(String)
    /// The server refused the request (it answered 4xx): `status` and its words.
    case refused(status: Int, reason: String)
    /// The server could not be reached, failed, or answered something unexpected.
    case server(String)

    /// Whether the server judged the request and refused it (as opposed to bad options, a store
    /// failure or an unreachable server).
    public var isRefusal: Bool {
        if case .refused = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .invalidOptions(let reason): reason
        case .nothingToShare(let reason): "nothing to share: \(reason)"
        case .store(let reason): "the store: \(reason)"
        case .unknownLink(let id): "this store keeps no key for link \(id) (it was created from another store)"
        case .notLongTerm(let id): "link \(id) is not a long-term link (create it with --long-term to update it)"
        case .encryption(let reason): "cannot encrypt a file: \(reason)"
        case .refused(let status, let reason): "the server refused (HTTP \(status)): \(reason)"
        case .server(let reason): reason
        }
    }

    /// The error of a failed call to the wallet's server: ``refused(status:reason:)`` for an
    /// answer of 400–499, ``server(_:)`` for anything else.
    ///
    /// - Parameter clientError: The client's error.
    public init(clientError: FhirBlocksClientError) {
        if case .http(_, let status, let code, let text) = clientError, (400..<500).contains(status) {
            self = .refused(status: status, reason: [code, text].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": "))
        } else {
            self = .server(clientError.description)
        }
    }

}

/// Creates, lists, updates and revokes a person's SMART Health Links, hosted by their wallet's server.
///
/// Files are built from the person's store and encrypted here with a fresh 32-byte key per link;
/// the key and the chosen contents are kept sealed in the store (so ``update(id:)`` re-encrypts
/// today's content with the same key) and never sent to the server.
public struct ShareLinks: Sendable {
    /// The owner's store the shared content is read from and the link keys are kept in.
    public let store: HKHealthStore
    /// The wallet the links are hosted through.
    public let wallet: WalletClient

    /// Links of the person of `store`, hosted through `wallet`.
    ///
    /// - Parameters:
    ///   - store: The owner's store (content and sealed link keys).
    ///   - wallet: The person's registered wallet on the server that hosts the links.
    public init(store: HKHealthStore, wallet: WalletClient) {
        self.store = store
        self.wallet = wallet
    }
}

extension ShareLinks {
    /// Builds the chosen files from the store, encrypts them with a fresh key, has the server host
    /// them, and keeps the key and the choice sealed in the store.
    ///
    /// - Parameter options: What to share and how the link opens.
    /// - Returns: The link, its viewer address and the server's record of it.
    public func create(_ options: ShareOptions) async throws(ShareError) -> CreatedShareLink {
        try await createLink(options)
    }

    /// The person's links as the server keeps them (status, remaining attempts, who opened them).
    public func list() async throws(ShareError) -> [SharedLinkRecord] {
        do {
            return try await wallet.links()
        } catch {
            throw ShareError(clientError: error)
        }
    }

    /// Replaces a long-term link's files with today's content of the same choice, encrypted with
    /// the link's own key (the link itself does not change).
    ///
    /// - Parameter id: The link's id (its manifest URL's last segment).
    /// - Returns: The server's record of the updated link.
    public func update(id: String) async throws(ShareError) -> SharedLinkRecord {
        try await updateLink(id: id)
    }

    /// Revokes a link: it no longer opens, and the store forgets its key.
    ///
    /// - Parameter id: The link's id (its manifest URL's last segment).
    public func revoke(id: String) async throws(ShareError) {
        try await revokeLink(id: id)
    }
}
