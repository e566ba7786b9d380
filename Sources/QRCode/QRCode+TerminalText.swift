extension QRCode {
    /// The symbol as text for a terminal, two module rows per line with the half blocks
    /// `▀`, `▄`, `█` and space, so modules come out about square in a monospaced font.
    ///
    /// By default it is drawn for a **dark terminal background with light text** (the common
    /// default): a light module is a lit half block and a dark module is the terminal's dark
    /// background, so a full block `█` is two light modules and a space two dark ones. Pass
    /// `forLightBackground: true` on a terminal with dark text on a light background; the
    /// glyphs then stand for the dark modules. Either way the printed quiet zone is light, as
    /// scanners need.
    ///
    /// - Parameters:
    ///   - border: the quiet zone in modules on each side; ISO/IEC 18004 asks for 4, and 2 is
    ///     usually enough on a screen.
    ///   - forLightBackground: draw the dark modules instead of the light ones.
    /// - Returns: lines joined and ended by `\n`.
    public func terminalText(border: Int = 4, forLightBackground: Bool = false) -> String {
        let border = max(border, 0)
        let dimension = size + 2 * border
        // Whether a module (in bordered coordinates) gets ink.
        func inked(_ x: Int, _ y: Int) -> Bool {
            // Rows below the bordered symbol (the lower half of an odd last line) are never inked.
            guard y < dimension else { return false }
            let dark = self[x - border, y - border]
            return forLightBackground ? dark : !dark
        }
        var text = ""
        text.reserveCapacity((dimension + 1) * (dimension + 1) / 2 * 3)
        var y = 0
        while y < dimension {
            for x in 0..<dimension {
                switch (inked(x, y), inked(x, y + 1)) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            text += "\n"
            y += 2
        }
        return text
    }
}
