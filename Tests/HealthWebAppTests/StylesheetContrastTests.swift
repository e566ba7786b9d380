import Foundation
import Testing
@testable import HealthWebApp

/// The stylesheet's text and background pairs meet WCAG 2 AA (contrast ≥ 4.5:1), computed from
/// the colours the stylesheet declares.
@Suite("Stylesheet contrast")
struct StylesheetContrastTests {
    /// Text colour, background colour (the stylesheet's custom properties), where they meet.
    static let pairs: [(text: String, background: String, place: String)] = [
        ("--ink", "--bg", "body text on the page"), ("--ink", "--surface", "text in a card"),
        ("--muted", "--surface", "captions and chart axes"), ("--muted", "--bg", "muted text on the page"),
        ("--accent", "--surface", "links and secondary buttons in a card"), ("--accent", "--bg", "links on the page"),
        ("--on-accent", "--accent", "the chosen period and primary buttons"), ("--ink", "--notice", "notices"),
        ("--accent", "--notice", "links in a notice"),
        ("--danger", "--surface", "a Delete button that asks first"), ("--on-danger", "--danger", "the Delete button that deletes"),
        ("--problem-ink", "--problem", "problems"), ("--ok-ink", "--ok", "a verified audit log"),
        ("--ok-ink", "--surface", "a trend up"), ("--problem-ink", "--surface", "a trend down"),
        ("--ink", "--bg", "FHIR JSON"),
    ]

    /// The custom properties of the light theme (`:root`) and of the dark one (the
    /// `prefers-color-scheme: dark` block), each as the stylesheet declares them.
    static func themes() throws -> [(name: String, colors: [String: String])] {
        let css = Stylesheet.css.lowercased()
        guard let darkStart = css.range(of: "@media (prefers-color-scheme: dark)") else { throw BadColor(text: "no dark theme") }
        let light = String(css[..<darkStart.lowerBound])
        let dark = String(css[darkStart.upperBound...].prefix { $0 != "}" })
        func properties(_ text: String) -> [String: String] {
            var result: [String: String] = [:]
            for declaration in text.split(separator: ";") {
                let parts = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard parts.count == 2, let name = parts[0].split(separator: " ").last, name.hasPrefix("--") else { continue }
                result[String(name)] = parts[1]
            }
            return result
        }
        return [("light", properties(light)), ("dark", properties(dark))]
    }

    @Test("every text/background pair has contrast ≥ 4.5:1 in the light and the dark theme")
    func contrast() throws {
        let themes = try Self.themes()
        #expect(themes.count == 2)
        for theme in themes {
            for pair in Self.pairs {
                guard let text = theme.colors[pair.text], let background = theme.colors[pair.background] else {
                    Issue.record("\(theme.name): \(pair.text) or \(pair.background) is not declared")
                    continue
                }
                let ratio = try Self.contrast(Self.color(text), Self.color(background))
                #expect(ratio >= 4.5, "\(theme.name), \(pair.place): \(text) on \(background) is \(ratio):1")
            }
        }
    }

    @Test("the dark theme declares every colour the light one does, and the rules use the properties, not fixed colours")
    func darkThemeComplete() throws {
        let themes = try Self.themes()
        #expect(Set(themes[0].colors.keys).subtracting(["color-scheme"]) == Set(themes[1].colors.keys).subtracting(["color-scheme"]))
        // Past the two theme blocks, colours are custom properties (the QR code keeps its white quiet zone).
        let css = Stylesheet.css.lowercased()
        let rules = css.components(separatedBy: "* { box-sizing").dropFirst().joined()
        let fixed = rules.components(separatedBy: "#").dropFirst().map { String($0.prefix(6)) }.filter { $0.allSatisfy(\.isHexDigit) }
        #expect(fixed == ["ffffff"], "fixed colours outside the themes: \(fixed)")
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
