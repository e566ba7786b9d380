extension QRCode {
    /// The byte-mode prefix of every SMART Health Card QR code (rule 47).
    public static let smartHealthCardPrefix = "shc:/"

    /// A SMART Health Card QR code: exactly two segments, byte mode `shc:/` (or the chunk prefix
    /// `shc:/C/N/`) then numeric mode digits, at error-correction level L, in the smallest
    /// version up to `maxVersion` (SMART Health Cards rules 46–49).
    ///
    /// `numeric` is either the bare digits (two per JWS character, `ord(c) − 45`) or the whole
    /// numeric QR text as published, such as the contents of `example-00-f-qr-code-numeric-value-0.txt`
    /// (`shc:/5676…` or `shc:/1/3/5676…`), whose prefix is then used as the byte segment.
    ///
    /// - Parameters:
    ///   - numeric: the digits, with or without their `shc:/` prefix.
    ///   - maxVersion: the largest version allowed; rule 46 caps it at 22 for printing.
    /// - Throws: ``QRCodeError/smartHealthCardTooLong(maxVersion:prefix:digits:maxDigits:)`` when
    ///   the digits do not fit `maxVersion`-L (saying by how many digits), and for malformed
    ///   input ``QRCodeError/invalidNumericCharacter(_:offset:)``,
    ///   ``QRCodeError/oddDigitCount(_:)``, ``QRCodeError/digitPairOutOfRange(pair:offset:)`` or
    ///   ``QRCodeError/invalidSmartHealthCardPrefix(_:)``.
    public static func smartHealthCard(numeric: String, maxVersion: Int = 22) throws(QRCodeError) -> QRCode {
        guard numeric.hasPrefix(smartHealthCardPrefix) else {
            return try smartHealthCard(prefix: smartHealthCardPrefix, numeric: numeric, maxVersion: maxVersion)
        }
        // "shc:/" then optionally "C/N/": the prefix ends after the last "/" that precedes the
        // digits of the JWS.
        let scalars = numeric.unicodeScalars
        var prefixEnd = scalars.index(scalars.startIndex, offsetBy: smartHealthCardPrefix.unicodeScalars.count)
        var probe = prefixEnd
        var slashes = 0
        while probe < scalars.endIndex, slashes < 2 {
            let scalar = scalars[probe]
            if scalar == "/" {
                slashes += 1
                if slashes == 2 { prefixEnd = scalars.index(after: probe) }
            } else if !(scalar.value >= 0x30 && scalar.value <= 0x39) {
                break
            }
            probe = scalars.index(after: probe)
        }
        let prefix = String(scalars[..<prefixEnd])
        let digits = String(scalars[prefixEnd...])
        return try smartHealthCard(prefix: prefix, numeric: digits, maxVersion: maxVersion)
    }

    /// A SMART Health Card QR code with an explicit byte-mode `prefix` (`shc:/`, or `shc:/C/N/`
    /// for chunk C of N) and numeric-mode `numeric` digits, at level L, in the smallest version up
    /// to `maxVersion`. See ``smartHealthCard(numeric:maxVersion:)``.
    public static func smartHealthCard(prefix: String, numeric: String, maxVersion: Int = 22) throws(QRCodeError) -> QRCode {
        try validateSmartHealthCardPrefix(prefix)
        let digitSegment = try QRSegment.numeric(numeric)
        try validateSmartHealthCardDigits(numeric)
        let prefixSegment = QRSegment.byte(prefix)
        guard (QRTables.minVersion...QRTables.maxVersion).contains(maxVersion) else {
            throw .invalidVersionRange(minVersion: 1, maxVersion: maxVersion)
        }
        do {
            return try encode(segments: [prefixSegment, digitSegment], errorCorrection: .low,
                              minVersion: 1, maxVersion: maxVersion)
        } catch {
            guard case .dataTooLong = error else { throw error }
            let capacity = dataCapacityBits(version: maxVersion, errorCorrection: .low)
            let countBits = QRSegment.Mode.numeric.characterCountBits(version: maxVersion)
            let available = capacity - (prefixSegment.encodedBitCount(version: maxVersion) ?? capacity) - 4 - countBits
            throw .smartHealthCardTooLong(
                maxVersion: maxVersion, prefix: prefix, digits: digitSegment.characterCount,
                maxDigits: min(maxDigits(inBits: available), (1 << countBits) - 1) & ~1)
        }
    }

    /// The most digits whose numeric-mode data fits `bits` (10 bits per 3 digits, 7 for 2, 4 for 1).
    static func maxDigits(inBits bits: Int) -> Int {
        guard bits > 0 else { return 0 }
        let rest = bits % 10
        return bits / 10 * 3 + (rest >= 7 ? 2 : rest >= 4 ? 1 : 0)
    }

    private static func validateSmartHealthCardPrefix(_ prefix: String) throws(QRCodeError) {
        guard prefix.hasPrefix(smartHealthCardPrefix) else { throw .invalidSmartHealthCardPrefix(prefix) }
        let rest = prefix.dropFirst(smartHealthCardPrefix.count)
        if rest.isEmpty { return }
        // "C/N/" with 1 ≤ C ≤ N, decimal without leading zeros.
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty,
              let chunk = positiveInteger(parts[0]), let total = positiveInteger(parts[1]), chunk <= total
        else { throw .invalidSmartHealthCardPrefix(prefix) }
    }

    private static func positiveInteger(_ text: Substring) -> Int? {
        guard let first = text.first, first != "0", text.count <= 9,
              text.unicodeScalars.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// Rule 47: an even number of digits, each pair 00...77. Assumes ASCII digits only.
    private static func validateSmartHealthCardDigits(_ digits: String) throws(QRCodeError) {
        var count = 0
        var high: UInt8 = 0
        for byte in digits.utf8 {
            let value = byte &- 0x30
            if count % 2 == 0 {
                high = value
            } else if Int(high) * 10 + Int(value) > 77 {
                throw .digitPairOutOfRange(pair: Int(high) * 10 + Int(value), offset: count - 1)
            }
            count += 1
        }
        guard count % 2 == 0 else { throw .oddDigitCount(count) }
    }
}
