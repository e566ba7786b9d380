import ExactJSON
import Foundation

/// What the token endpoint granted (RFC 6749 §5.1 with SMART's `patient`).
public struct TokenGrant: Sendable, Hashable, Codable {
    /// The bearer token.
    public var accessToken: String
    /// When the access token stops working, by this machine's clock (receipt + `expires_in`),
    /// nil when the server did not say.
    public var expiresAt: Date?
    /// The refresh token, when `offline_access` (or `online_access`) was granted.
    public var refreshToken: String?
    /// The granted scope.
    public var scope: String?
    /// The patient in context (SMART `patient`).
    public var patient: String?

    /// Creates a grant.
    public init(accessToken: String, expiresAt: Date?, refreshToken: String?, scope: String?, patient: String?) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scope = scope
        self.patient = patient
    }

    /// Reads a successful token response received at `now`.
    public static func parse(_ bytes: [UInt8], now: Date) throws(RecordsSyncError) -> TokenGrant {
        guard let object = (try? JSONParser.parse(bytes))?.objectValue, let token = object["access_token"]?.stringValue, !token.isEmpty else {
            throw .malformedResponse("the token response has no access_token")
        }
        if let type = object["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw .unsupported("token_type \(type)")
        }
        let expiresIn = object["expires_in"]?.doubleValue
        return TokenGrant(accessToken: token, expiresAt: expiresIn.map { now.addingTimeInterval($0) }, refreshToken: object["refresh_token"]?.stringValue,
                          scope: object["scope"]?.stringValue, patient: object["patient"]?.stringValue)
    }

    /// An OAuth error body's `error` and `error_description` (RFC 6749 §5.2).
    static func oauthError(_ bytes: [UInt8]) -> (error: String, description: String?)? {
        guard let object = (try? JSONParser.parse(bytes))?.objectValue, let error = object["error"]?.stringValue else { return nil }
        return (error, object["error_description"]?.stringValue)
    }
}
