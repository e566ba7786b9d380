import CommonSupport
import Foundation

extension HTTPSKeyResolver {
    /// A cached document used in place of a fetch that failed, although its cache rules asked
    /// for a fresh copy (it was past its freshness lifetime, or marked `no-cache`).
    public struct StaleCopy: Sendable, Hashable, CustomStringConvertible {
        /// The issuer the document belongs to.
        public var issuer: String
        /// The document's URL (`…/.well-known/jwks.json` or `…/.well-known/crl/<kid>.json`).
        public var url: String
        /// When the server last sent or confirmed the copy.
        public var receivedAt: Date
        /// Why the fetch failed.
        public var reason: String

        /// Creates a notice.
        public init(issuer: String, url: String, receivedAt: Date, reason: String) {
            self.issuer = issuer
            self.url = url
            self.receivedAt = receivedAt
            self.reason = reason
        }

        /// A one-line description, such as
        /// `used a stale copy of https://…/jwks.json received 2026-11-20T08:30:00Z: …`.
        public var description: String {
            "used a stale copy of \(url) received \(ISODateText.string(secondsSince1970: receivedAt.timeIntervalSince1970)): \(reason)"
        }
    }
}
