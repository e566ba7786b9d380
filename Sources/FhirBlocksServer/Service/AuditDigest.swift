import Crypto
import FhirBlocks

/// The digests audit entries name instead of what they stand for.
enum AuditDigest {
    /// Lowercase hex SHA-256 of `bytes` (a request body's hash).
    static func hexSHA256(_ bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }

    /// Lowercase hex SHA-256 of the signature's base64 text as sent (what `audit/validate`
    /// looks up).
    static func signature(_ signature: String) -> String {
        hexSHA256(Array(signature.utf8))
    }

    /// A short identifier of a secret (the first 16 hex digits of its SHA-256), for audit
    /// entries that must name a code without revealing it.
    static func identifier(of secret: String) -> String {
        String(hexSHA256(Array(secret.utf8)).prefix(16))
    }
}

extension Array where Element == CompatQuirk {
    /// Sorted, without repeats (the audit entry's form).
    var sortedUnique: [CompatQuirk] { count < 2 ? self : Array(Set(self)).sorted() }
}
