/// The error-correction level of a QR code (ISO/IEC 18004 §6.5.1).
///
/// Higher levels spend more codewords on Reed–Solomon redundancy, so the symbol survives more
/// damage but holds less data. SMART Health Cards use ``low`` (rule 48: the 1195-character JWS
/// limit assumes level L).
public enum QRErrorCorrection: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Level L: recovers about 7 % of the codewords.
    case low = 0
    /// Level M: recovers about 15 % of the codewords.
    case medium = 1
    /// Level Q: recovers about 25 % of the codewords.
    case quartile = 2
    /// Level H: recovers about 30 % of the codewords.
    case high = 3

    /// The ISO letter of the level: `L`, `M`, `Q` or `H`.
    public var letter: Character {
        switch self {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }

    /// The letter of the level, as in `"L"`.
    public var description: String { String(letter) }

    /// The two error-correction bits of the format information (ISO/IEC 18004 Table 12):
    /// L = 01, M = 00, Q = 11, H = 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
