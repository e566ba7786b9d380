import Foundation
import Testing
@testable import HealthWebApp

/// The stylesheet's text and background pairs meet WCAG 2 AA (contrast ≥ 4.5:1), computed from
/// the colours the stylesheet declares.
@Suite("Stylesheet contrast")
struct StylesheetContrastTests {
    /// Text colour, background colour, where they meet.
    static let pairs: [(text: String, background: String, place: String)] = [
        ("#1b1b1f", "#f6f6f9", "body text on the page"), ("#1b1b1f", "#fff", "text in a card"),
        ("#4a4a55", "#fff", "captions and chart axes"), ("#4a4a55", "#f6f6f9", "muted text on the page"),
        ("#0b57d0", "#fff", "links in a card"), ("#0b57d0", "#f6f6f9", "links on the page"),
        ("#fff", "#0b57d0", "the chosen period"), ("#1b1b1f", "#e8f0fe", "notices"),
        ("#b3261e", "#fff", "buttons"), ("#5c0f0b", "#fce8e6", "problems"), ("#0d4f23", "#e6f4ea", "a verified audit log"),
        ("#1b1b1f", "#f6f6f9", "FHIR JSON"),
    ]

    @Test("every text/background pair has contrast ≥ 4.5:1, and every colour is one the stylesheet uses")
    func contrast() throws {
        let css = Stylesheet.css.lowercased()
        for pair in Self.pairs {
            #expect(css.contains(pair.text + ";") || css.contains(pair.text + " ") || css.contains(pair.text + ")"), "\(pair.text) is not in the stylesheet")
            #expect(css.contains(pair.background), "\(pair.background) is not in the stylesheet")
            let ratio = try Self.contrast(Self.color(pair.text), Self.color(pair.background))
            #expect(ratio >= 4.5, "\(pair.place): \(pair.text) on \(pair.background) is \(ratio):1")
        }
    }

    @Test("the contrast formula gives WCAG's known values")
    func formula() throws {
        #expect(abs(try Self.contrast(Self.color("#000"), Self.color("#fff")) - 21) < 1e-9)
        #expect(abs(try Self.contrast(Self.color("#777777"), Self.color("#ffffff")) - 4.478) < 0.001)
        #expect(try Self.contrast(Self.color("#fff"), Self.color("#fff")) == 1)
    }

    struct BadColor: Error { let text: String }

    /// `#rgb` or `#rrggbb` as sRGB components 0…1.
    static func color(_ text: String) throws -> [Double] {
        var hex = Array(text.dropFirst())
        if hex.count == 3 { hex = hex.flatMap { [$0, $0] } }
        guard text.hasPrefix("#"), hex.count == 6 else { throw BadColor(text: text) }
        return try stride(from: 0, to: 6, by: 2).map { index in
            guard let value = UInt8(String(hex[index...index + 1]), radix: 16) else { throw BadColor(text: text) }
            return Double(value) / 255
        }
    }

    /// WCAG 2 relative luminance contrast ratio.
    static func contrast(_ first: [Double], _ second: [Double]) -> Double {
        func luminance(_ rgb: [Double]) -> Double {
            let linear = rgb.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        let (light, dark) = (max(luminance(first), luminance(second)), min(luminance(first), luminance(second)))
        return (light + 0.05) / (dark + 0.05)
    }
}
