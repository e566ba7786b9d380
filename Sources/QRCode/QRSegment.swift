/// One segment of QR data: a run of characters encoded in a single mode (ISO/IEC 18004 §7.4).
///
/// A QR code's data is a sequence of segments; each carries a 4-bit mode indicator, a character
/// count whose width depends on the version, and the packed characters. Mixing modes makes
/// data smaller: a SMART Health Card is the byte segment `shc:/` followed by one numeric segment
/// of digits (3⅓ bits per digit instead of 8).
public struct QRSegment: Sendable, Hashable {
    /// How a segment packs its characters.
    public enum Mode: Sendable, Hashable, CaseIterable {
        /// Decimal digits, three to 10 bits.
        case numeric
        /// `0–9 A–Z space $ % * + - . / :`, two to 11 bits.
        case alphanumeric
        /// Any bytes, 8 bits each (text is encoded as UTF-8).
        case byte

        /// The 4-bit mode indicator.
        var indicator: UInt32 {
            switch self {
            case .numeric: 0b0001
            case .alphanumeric: 0b0010
            case .byte: 0b0100
            }
        }

        /// The width of the character count indicator at `version` (ISO/IEC 18004 Table 3).
        func characterCountBits(version: Int) -> Int {
            let group = version <= 9 ? 0 : (version <= 26 ? 1 : 2)
            switch self {
            case .numeric: return [10, 12, 14][group]
            case .alphanumeric: return [9, 11, 13][group]
            case .byte: return [8, 16, 16][group]
            }
        }
    }

    /// The mode of the segment.
    public let mode: Mode
    /// The number of characters (digits, alphanumeric characters or bytes).
    public let characterCount: Int
    /// The packed data bits, without mode indicator or character count.
    let data: QRBitBuffer

    /// The number of data bits, without mode indicator or character count.
    public var dataBitCount: Int { data.count }

    private init(mode: Mode, characterCount: Int, data: QRBitBuffer) {
        self.mode = mode
        self.characterCount = characterCount
        self.data = data
    }

    /// A numeric-mode segment of `digits` (ASCII `0`–`9` only).
    ///
    /// - Throws: ``QRCodeError/invalidNumericCharacter(_:offset:)`` for any other character.
    public static func numeric(_ digits: String) throws(QRCodeError) -> QRSegment {
        var buffer = QRBitBuffer(reservingBits: digits.utf8.count * 10 / 3 + 10)
        var group: UInt32 = 0
        var inGroup = 0
        var count = 0
        for scalar in digits.unicodeScalars {
            guard scalar.value >= 0x30, scalar.value <= 0x39 else {
                throw .invalidNumericCharacter(scalar, offset: count)
            }
            group = group * 10 + (scalar.value - 0x30)
            inGroup += 1
            count += 1
            if inGroup == 3 {
                buffer.append(group, bits: 10)
                group = 0
                inGroup = 0
            }
        }
        if inGroup > 0 {
            buffer.append(group, bits: inGroup * 3 + 1)  // 1 digit → 4 bits, 2 digits → 7 bits
        }
        return QRSegment(mode: .numeric, characterCount: count, data: buffer)
    }

    /// An alphanumeric-mode segment of `text` (`0–9 A–Z space $ % * + - . / :`).
    ///
    /// - Throws: ``QRCodeError/invalidAlphanumericCharacter(_:offset:)`` for any other
    ///   character (including lower-case letters).
    public static func alphanumeric(_ text: String) throws(QRCodeError) -> QRSegment {
        var buffer = QRBitBuffer(reservingBits: text.utf8.count * 11 / 2 + 6)
        var pending: UInt32? = nil
        var count = 0
        for scalar in text.unicodeScalars {
            guard let value = alphanumericValue(scalar) else {
                throw .invalidAlphanumericCharacter(scalar, offset: count)
            }
            count += 1
            if let first = pending {
                buffer.append(first * 45 + value, bits: 11)
                pending = nil
            } else {
                pending = value
            }
        }
        if let last = pending {
            buffer.append(last, bits: 6)
        }
        return QRSegment(mode: .alphanumeric, characterCount: count, data: buffer)
    }

    /// A byte-mode segment of `bytes`.
    public static func bytes(_ bytes: [UInt8]) -> QRSegment {
        var buffer = QRBitBuffer(reservingBits: bytes.count * 8)
        for byte in bytes {
            buffer.append(UInt32(byte), bits: 8)
        }
        return QRSegment(mode: .byte, characterCount: bytes.count, data: buffer)
    }

    /// A byte-mode segment of the UTF-8 encoding of `text`.
    public static func byte(_ text: String) -> QRSegment {
        bytes(Array(text.utf8))
    }

    /// One segment for the whole of `text` in the densest single mode that can hold it:
    /// numeric if it is all digits, alphanumeric if every character is in that set, else byte
    /// (UTF-8).
    public static func automatic(_ text: String) -> QRSegment {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }),
           let segment = try? numeric(text) {
            return segment
        }
        if text.unicodeScalars.allSatisfy({ alphanumericValue($0) != nil }),
           let segment = try? alphanumeric(text) {
            return segment
        }
        return byte(text)
    }

    /// The bits this segment takes at `version`: mode indicator, character count and data; nil
    /// when the character count does not fit the count field at that version.
    func encodedBitCount(version: Int) -> Int? {
        let countBits = mode.characterCountBits(version: version)
        guard characterCount < 1 << countBits else { return nil }
        return 4 + countBits + data.count
    }

    /// The value of `scalar` in the alphanumeric character set, or nil.
    static func alphanumericValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30  // 0–9
        case 0x41...0x5A: return scalar.value - 0x41 + 10  // A–Z
        case 0x20: return 36  // space
        case 0x24: return 37  // $
        case 0x25: return 38  // %
        case 0x2A: return 39  // *
        case 0x2B: return 40  // +
        case 0x2D: return 41  // -
        case 0x2E: return 42  // .
        case 0x2F: return 43  // /
        case 0x3A: return 44  // :
        default: return nil
        }
    }
}
