extension QRCode {
    /// An SVG document of the symbol: a white background and a single `<path>` covering the dark
    /// modules, one subpath per horizontal run, in module units (`viewBox`), scaled to
    /// `moduleSize` pixels per module.
    ///
    /// - Parameters:
    ///   - moduleSize: pixels per module for the `width` and `height` attributes (at least 1).
    ///   - border: the quiet zone in modules on each side; ISO/IEC 18004 asks for 4.
    public func svg(moduleSize: Int = 8, border: Int = 4) -> String {
        let border = max(border, 0)
        let dimension = size + 2 * border
        let pixels = dimension * max(moduleSize, 1)
        // The path is built as ASCII bytes: "M{x} {y}h{w}v1h-{w}z" per run of dark modules.
        var path: [UInt8] = []
        path.reserveCapacity(size * size * 2)
        func append(_ value: Int) {
            if value >= 10 { append(value / 10) }
            path.append(UInt8(0x30 + value % 10))
        }
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] != 0 else {
                    x += 1
                    continue
                }
                let start = x
                while x < size, modules[y * size + x] != 0 { x += 1 }
                path.append(UInt8(ascii: "M"))
                append(start + border)
                path.append(UInt8(ascii: " "))
                append(y + border)
                path.append(UInt8(ascii: "h"))
                append(x - start)
                path.append(contentsOf: "v1h-".utf8)
                append(x - start)
                path.append(UInt8(ascii: "z"))
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(dimension) \(dimension)" shape-rendering="crispEdges">
            <rect width="\(dimension)" height="\(dimension)" fill="#ffffff"/>
            <path fill="#000000" d="\(String(decoding: path, as: UTF8.self))"/>
            </svg>

            """
    }
}
