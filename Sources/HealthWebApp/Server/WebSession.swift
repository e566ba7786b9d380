import CommonSupport
import Crypto
import Foundation
import Synchronization

/// The browser session of one `health ui` run: a one-time start secret (in the URL the command
/// prints), traded once for a session cookie, and the CSRF token every state-changing form carries.
public final class WebSession: Sendable {
    /// The name of the session cookie.
    public static let cookieName = "ohk_session"
    /// The name of the form field that carries the CSRF token.
    public static let csrfField = "csrf"

    /// The secret the printed URL carries; it opens one session, once.
    public let startSecret: String

    private struct State {
        var secretUsed = false
        var sessionIDs: Set<String> = []
    }

    private let state = Mutex(State())
    private let csrfKey = SymmetricKey(size: .bits256)

    /// A session with a fresh random start secret.
    public init() {
        startSecret = Self.randomToken()
    }

    /// Trades the start secret for a new session identifier (the cookie's value).
    /// - Returns: nil when the secret is wrong or was already used.
    public func exchange(secret: String) -> String? {
        let matches = Self.constantTimeEqual(secret, startSecret)
        return state.withLock { state in
            guard matches, !state.secretUsed else { return nil }
            state.secretUsed = true
            let sessionID = Self.randomToken()
            state.sessionIDs.insert(sessionID)
            return sessionID
        }
    }

    /// Whether a cookie's value is a session this run opened.
    public func isValid(sessionID: String) -> Bool {
        state.withLock { $0.sessionIDs.contains(sessionID) }
    }

    /// The CSRF token of a session: an HMAC of its identifier under a key that never leaves the process.
    public func csrfToken(for sessionID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(sessionID.utf8), using: csrfKey)
        return HexText.encode(code)
    }

    /// Whether `token` is the CSRF token of the session.
    public func verify(csrfToken token: String, sessionID: String) -> Bool {
        Self.constantTimeEqual(token, csrfToken(for: sessionID))
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return HexText.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
