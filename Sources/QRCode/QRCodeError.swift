/// Why a QR code could not be built.
///
/// Every case carries what is needed to explain the failure; ``description`` says it in one
/// sentence.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The segments need `requiredBits` data bits (mode indicators, character counts and data,
    /// counted for `maxVersion`), but version `maxVersion` at `errorCorrection` holds only
    /// `capacityBits`.
    case dataTooLong(maxVersion: Int, errorCorrection: QRErrorCorrection, capacityBits: Int, requiredBits: Int)
    /// A SMART Health Card's numeric part of `digits` digits does not fit version `maxVersion`
    /// at error-correction level L beside its byte-mode `prefix`; at most `maxDigits` digits fit
    /// (an even number: every two digits stand for one JWS character). At version 22 with
    /// `shc:/` that is 2390 digits, the 1195 characters of SMART Health Cards rule 48.
    case smartHealthCardTooLong(maxVersion: Int, prefix: String, digits: Int, maxDigits: Int)
    /// A numeric segment was given a character that is not an ASCII digit, at `offset`
    /// (counted in Unicode scalars from the start of the segment's text).
    case invalidNumericCharacter(Unicode.Scalar, offset: Int)
    /// An alphanumeric segment was given a character outside `0–9 A–Z space $ % * + - . / :`,
    /// at `offset` (counted in Unicode scalars).
    case invalidAlphanumericCharacter(Unicode.Scalar, offset: Int)
    /// The version range is not `1 ≤ minVersion ≤ maxVersion ≤ 40`.
    case invalidVersionRange(minVersion: Int, maxVersion: Int)
    /// A forced mask is not in `0...7`.
    case invalidMask(Int)
    /// A SMART Health Card's numeric part has an odd number of digits (rule 47: two digits per
    /// JWS character).
    case oddDigitCount(Int)
    /// A SMART Health Card's digit pair at `offset` (in digits) is above 77, so it stands for no
    /// JWS character (rule 47: `ord(c) − 45` for `c` in `-`…`z`).
    case digitPairOutOfRange(pair: Int, offset: Int)
    /// A SMART Health Card prefix is neither `shc:/` nor a chunk prefix `shc:/C/N/` with
    /// `1 ≤ C ≤ N` (rules 47 and 49).
    case invalidSmartHealthCardPrefix(String)

    /// One sentence naming the problem and, for the size errors, the excess.
    public var description: String {
        switch self {
        case let .dataTooLong(maxVersion, ecl, capacity, required):
            let excess = required - capacity
            return "data needs \(required) bits but QR version \(maxVersion)-\(ecl) holds \(capacity) data bits: "
                + "\(excess) bit\(excess == 1 ? "" : "s") (\((excess + 7) / 8) byte\((excess + 7) / 8 == 1 ? "" : "s")) too long"
        case let .smartHealthCardTooLong(maxVersion, prefix, digits, maxDigits):
            let excess = digits - maxDigits
            let excessCharacters = (excess + 1) / 2
            return "SMART Health Card data of \(digits) digits (\(digits / 2) JWS characters) after \"\(prefix)\" "
                + "does not fit QR version \(maxVersion)-L, which holds at most \(maxDigits) digits "
                + "(\(maxDigits / 2) JWS characters): \(excess) digit\(excess == 1 ? "" : "s") "
                + "(\(excessCharacters) character\(excessCharacters == 1 ? "" : "s")) too long"
        case let .invalidNumericCharacter(scalar, offset):
            return "numeric segment: \(Self.quoted(scalar)) at offset \(offset) is not a digit 0-9"
        case let .invalidAlphanumericCharacter(scalar, offset):
            return "alphanumeric segment: \(Self.quoted(scalar)) at offset \(offset) is not one of 0-9 A-Z space $%*+-./:"
        case let .invalidVersionRange(minVersion, maxVersion):
            return "invalid QR version range \(minVersion)...\(maxVersion): need 1 ≤ minVersion ≤ maxVersion ≤ 40"
        case let .invalidMask(mask):
            return "invalid QR mask \(mask): masks are 0...7"
        case let .oddDigitCount(count):
            return "SMART Health Card numeric data has \(count) digits, an odd count: every JWS character is two digits"
        case let .digitPairOutOfRange(pair, offset):
            return "SMART Health Card digit pair \(pair) at digit offset \(offset) is above 77 and stands for no JWS character"
        case let .invalidSmartHealthCardPrefix(prefix):
            return "invalid SMART Health Card prefix \"\(prefix)\": expected \"shc:/\" or \"shc:/C/N/\" with 1 ≤ C ≤ N"
        }
    }

    /// `"x"` for a visible character, `U+0020` for spaces and control characters.
    private static func quoted(_ scalar: Unicode.Scalar) -> String {
        guard scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F else {
            return "\"\(Character(scalar))\""
        }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
