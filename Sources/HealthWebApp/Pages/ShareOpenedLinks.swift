import CommonSupport
import Crypto
import Foundation
import HealthSharing
import OpenHealthKit
import Synchronization

/// The links the Share page previewed, kept until their Import so that importing never opens a
/// link a second time.
///
/// Opening a link is a request its sharer sees (an access in their log), it may spend a passcode
/// attempt, and a long-term (`L`) link answers a second manifest request within its poll interval
/// with 429. So "Preview" opens the link once and keeps what it fetched and decrypted here, under
/// a random token the preview's Import form carries; "Import" takes it back (once) and stores it.
/// An entry belongs to one store and one session (its CSRF token): another session's form cannot
/// import it. Entries live ``lifetime`` and at most ``capacity`` are kept (the oldest goes first).
final class ShareOpenedLinks: Sendable {
    /// The keeper of every `health ui` in this process (entries are bound to their store).
    static let shared = ShareOpenedLinks()

    /// How long a preview can be imported.
    static let lifetime: TimeInterval = 30 * 60
    /// The most previews kept.
    static let capacity = 8

    private struct Entry: Sendable {
        let opened: OpenedSharedLink
        let store: ObjectIdentifier
        let session: String
        let kept: Date
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Keeps `opened` for an Import by the same session into the same store; returns its token.
    func keep(_ opened: OpenedSharedLink, store: HKHealthStore, session: String, now: Date) -> String {
        let token = Self.newToken()
        let entry = Entry(opened: opened, store: ObjectIdentifier(store), session: session, kept: now)
        entries.withLock { entries in
            entries = entries.filter { now.timeIntervalSince($0.value.kept) < Self.lifetime }
            while entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.kept < $1.value.kept })?.key {
                entries[oldest] = nil
            }
            entries[token] = entry
        }
        return token
    }

    /// The preview kept under `token` for this session and store, removed (an Import takes it
    /// once); nil when there is none, it expired, or it belongs to another session or store.
    func take(_ token: String, store: HKHealthStore, session: String, now: Date) -> OpenedSharedLink? {
        entries.withLock { entries -> OpenedSharedLink? in
            guard let entry = entries[token], entry.store == ObjectIdentifier(store), entry.session == session else { return nil }
            entries[token] = nil
            return now.timeIntervalSince(entry.kept) < Self.lifetime ? entry.opened : nil
        }
    }

    /// 32 random bytes in hex.
    static func newToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { bytes in HexText.encode(bytes) }
    }
}
