extension QRCode {
    /// A PNG file of the symbol: 1-bit grayscale, black modules on white, `moduleSize` pixels per
    /// module and a `border`-module quiet zone. Written by hand (stored deflate blocks, no
    /// compression), so the file is about (size + 2 × border)² × moduleSize² / 8 bytes: about
    /// 100 KB for version 22 at 8 pixels per module.
    ///
    /// - Parameters:
    ///   - moduleSize: pixels per module (at least 1).
    ///   - border: the quiet zone in modules on each side; ISO/IEC 18004 asks for 4.
    /// - Returns: the bytes of the PNG file.
    public func png(moduleSize: Int = 8, border: Int = 4) -> [UInt8] {
        let scale = max(moduleSize, 1)
        let border = max(border, 0)
        let dimension = size + 2 * border
        let width = dimension * scale
        let rowBytes = 1 + (width + 7) / 8
        var scanlines = [UInt8](repeating: 0, count: rowBytes * width)
        var row = [UInt8](repeating: 0, count: rowBytes)
        for moduleY in 0..<dimension {
            // One scanline per module row (filter byte 0, then pixels, 1 = white), repeated
            // `scale` times. Light modules are set run by run.
            for i in 0..<rowBytes { row[i] = 0 }
            var moduleX = 0
            while moduleX < dimension {
                guard !self[moduleX - border, moduleY - border] else {
                    moduleX += 1
                    continue
                }
                let start = moduleX
                while moduleX < dimension, !self[moduleX - border, moduleY - border] { moduleX += 1 }
                Self.setBits(&row, from: 8 + start * scale, to: 8 + moduleX * scale)  // after the filter byte
            }
            for repeatY in 0..<scale {
                let start = (moduleY * scale + repeatY) * rowBytes
                scanlines.replaceSubrange(start..<(start + rowBytes), with: row)
            }
        }
        return QRPNGWriter.png(width: width, height: width, scanlines: scanlines)
    }

    /// Sets bits `from..<to` of `bytes`, bit 0 being the most significant bit of byte 0.
    private static func setBits(_ bytes: inout [UInt8], from: Int, to: Int) {
        var bit = from
        while bit < to, bit & 7 != 0 {
            bytes[bit >> 3] |= 0x80 >> UInt8(bit & 7)
            bit += 1
        }
        while bit + 8 <= to {
            bytes[bit >> 3] = 0xFF
            bit += 8
        }
        while bit < to {
            bytes[bit >> 3] |= 0x80 >> UInt8(bit & 7)
            bit += 1
        }
    }
}
