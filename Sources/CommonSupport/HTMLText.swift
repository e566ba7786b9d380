/// HTML escaping for text that code writes into HTML or SVG itself (the FhirBlocks server's
/// authorization pages, `health ui`'s charts).
public enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
