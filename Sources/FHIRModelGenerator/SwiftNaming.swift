/// Turning FHIR names and codes into Swift identifiers.
enum SwiftNaming {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
        "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
        "Type", "Protocol", "some", "any",
    ]

    /// Wraps a keyword in backticks.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    static func upperFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    static func lowerFirst(_ text: String) -> String {
        // Lower the leading run of capitals ("URLPart" → "urlPart", "CodeableConcept" → "codeableConcept").
        let characters = Array(text)
        var index = 0
        while index < characters.count, characters[index].isUppercase { index += 1 }
        if index == 0 { return text }
        let lowered = index == 1 || index == characters.count ? index : index - 1
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// A type name from any text: words split on non-alphanumerics, each capitalised.
    static func typeName(_ text: String) -> String {
        let words = text.split { !$0.isLetter && !$0.isNumber }
        var name = words.map { upperFirst(String($0)) }.joined()
        if let first = name.first, first.isNumber { name = "_" + name }
        return name
    }

    /// An enum case name for a code: `entered-in-error` → `enteredInError`, `>=` → from the display.
    static func caseName(code: String, display: String?) -> String {
        var source = code
        if !code.contains(where: { $0.isLetter || $0.isNumber }), let display, !display.isEmpty { source = display }
        let words = source.split { !($0.isLetter || $0.isNumber) || !$0.isASCII }
        guard !words.isEmpty else { return "code\(code.unicodeScalars.map { String($0.value) }.joined())" }
        var name = lowerFirst(String(words[0])) + words.dropFirst().map { upperFirst(String($0)) }.joined()
        if let first = name.first, first.isNumber { name = "_" + name }
        return name
    }
}
