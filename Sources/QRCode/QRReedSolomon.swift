/// Reed–Solomon error correction over GF(2⁸) with the QR field polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (0x11D) and generator roots α⁰…αⁿ⁻¹ (ISO/IEC 18004 §7.5.2, Annex A).
enum QRReedSolomon {
    /// αⁱ for i in 0..<510 (doubled so that a sum of two logarithms needs no modulo).
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// log_α(x) for x in 1...255 (entry 0 is unused).
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 {
            table[Int(exp[i])] = i
        }
        return table
    }()

    /// The product of `a` and `b` in GF(2⁸).
    @inline(__always)
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[log[Int(a)] + log[Int(b)]]
    }

    /// The coefficients of the generator polynomial ∏(x − αⁱ), i < `degree`, highest power first
    /// with the leading 1 left out: `degree` values.
    static func generator(degree: Int) -> [UInt8] {
        // Start from the polynomial 1 and multiply by (x − αⁱ) in turn; kept with the leading
        // coefficient implicit, lowest index = next-highest power.
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree {
                    coefficients[j] ^= coefficients[j + 1]
                }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The `generator.count` error-correction codewords of `data`: the remainder of
    /// data(x)·xⁿ divided by the generator polynomial.
    static func remainder(of data: ArraySlice<UInt8>, generator: [UInt8]) -> [UInt8] {
        let degree = generator.count
        var result = [UInt8](repeating: 0, count: degree)
        // Local copies: reading the global tables in the loop would check their lazy
        // initialisation on every access.
        let exp = self.exp
        let log = self.log
        let generatorLogs = generator.map { $0 == 0 ? -1 : log[Int($0)] }
        exp.withUnsafeBufferPointer { exp in
            log.withUnsafeBufferPointer { log in
                generatorLogs.withUnsafeBufferPointer { generatorLogs in
                    result.withUnsafeMutableBufferPointer { result in
                        for byte in data {
                            let factor = byte ^ result[0]
                            // Shift left by one coefficient, then add factor × generator.
                            for j in 0..<(degree - 1) {
                                result[j] = result[j + 1]
                            }
                            result[degree - 1] = 0
                            guard factor != 0 else { continue }
                            let factorLog = log[Int(factor)]
                            for j in 0..<degree where generatorLogs[j] >= 0 {
                                result[j] ^= exp[generatorLogs[j] + factorLog]
                            }
                        }
                    }
                }
            }
        }
        return result
    }
}
