/// The short code the patient types into their wallet to approve an app's `/authorize`
/// request: eight letters from an alphabet without vowels or look-alikes (20⁸ ≈ 2.6 × 10¹⁰
/// codes), shown as `BCDF-GHJK`. Codes live minutes and guesses are rate limited.
public enum UserCode {
    /// The letters a code is made of.
    public static let alphabet: [Character] = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// A new random code in its stored form (eight letters, no dash).
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The code as shown: `BCDF-GHJK`.
    public static func display(_ code: String) -> String {
        guard code.count == 8 else { return code }
        return "\(code.prefix(4))-\(code.suffix(4))"
    }

    /// The stored form of what a person typed (case, dashes and spaces ignored), or nil when it
    /// cannot be a code.
    public static func normalize(_ typed: String) -> String? {
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
