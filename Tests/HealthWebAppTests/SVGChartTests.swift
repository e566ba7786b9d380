import Foundation
import HealthWebApp
import Testing
import TestSupport

@Suite("SVG charts")
struct SVGChartTests {
    @Test("a bar per value, in order, each as tall as its value on the scale; no bar for a day without data")
    func bars() throws {
        let points = [ChartPoint(label: "a", value: 1_000), ChartPoint(label: "b", value: nil), ChartPoint(label: "c", value: 4_000),
                      ChartPoint(label: "d", value: 0)]
        let svg = SVGChart.bars(points, id: "t", title: "Steps")
        #expect(SVGAttributes.values(svg, element: "rect", className: "bar", attribute: "data-value") == ["1000", "4000", "0"])
        #expect(SVGAttributes.values(svg, element: "rect", className: "bar", attribute: "data-label") == ["a", "c", "d"])
        let heights = SVGAttributes.values(svg, element: "rect", className: "bar", attribute: "height").compactMap(Double.init)
        #expect(heights.count == 3)
        #expect(abs(heights[1] - 4 * heights[0]) < 0.05)
        #expect(heights[2] == 0)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("role=\"img\""))
        #expect(svg.contains("<title id=\"t-svg-title\">Steps</title>"))
        #expect(svg.hasSuffix("</svg>"))
    }

    @Test("labels and titles are escaped")
    func escaping() {
        let svg = SVGChart.bars([ChartPoint(label: "<script>&\"'", value: 1)], id: "x\"y", title: "a<b")
        #expect(!svg.contains("<script>"))
        #expect(svg.contains("&lt;script&gt;&amp;&quot;&#39;"))
        #expect(svg.contains("<title id=\"x&quot;y-svg-title\">a&lt;b</title>"))
    }

    @Test("values up to ±greatestFiniteMagnitude and infinite sums (imported ±1.7e308 °C) draw a chart, not a trap in the ticks")
    func extremeValues() {
        let most = Double.greatestFiniteMagnitude
        let points = [ChartPoint(label: "d", value: 0, low: -1.7e308, high: 1.7e308), ChartPoint(label: "e", value: most, low: most, high: most)]
        let ranges = SVGChart.ranges(points, id: "h", title: "Water")
        #expect(ranges.hasSuffix("</svg>") && SVGAttributes.values(ranges, element: "rect", className: "range", attribute: "data-low").count == 2)
        let bars = SVGChart.bars([ChartPoint(label: "a", value: 1.7e308), ChartPoint(label: "b", value: .infinity)], id: "t", title: "Energy")
        #expect(bars.hasSuffix("</svg>"))
        let line = SVGChart.line([ChartPoint(label: "1", value: -most), ChartPoint(label: "2", value: most)], id: "w", title: "Temperature",
                                 band: (low: -most, high: most))
        #expect(SVGAttributes.values(line, element: "circle", className: "dot", attribute: "data-value").count == 2)
        let stacked = SVGChart.stacked([ChartPoint(label: "n", value: nil, segments: [most, most])], series: ["Core", "Deep"], id: "s", title: "Sleep")
        #expect(stacked.hasSuffix("</svg>"))
    }

    @Test("ranges, lines and stacked bars carry their numbers")
    func otherKinds() {
        let ranges = SVGChart.ranges([ChartPoint(label: "d", value: 70, low: 50, high: 120)], id: "h", title: "Heart")
        #expect(SVGAttributes.values(ranges, element: "rect", className: "range", attribute: "data-low") == ["50"])
        #expect(SVGAttributes.values(ranges, element: "rect", className: "range", attribute: "data-high") == ["120"])
        #expect(SVGAttributes.values(ranges, element: "circle", className: "dot", attribute: "data-value") == ["70"])
        let line = SVGChart.line([ChartPoint(label: "1", value: 70.25), ChartPoint(label: "2", value: nil), ChartPoint(label: "3", value: 69.5)],
                                 id: "w", title: "Weight")
        #expect(SVGAttributes.values(line, element: "circle", className: "dot", attribute: "data-value") == ["70.25", "69.5"])
        #expect(line.contains("<polyline class=\"line\""))
        let stacked = SVGChart.stacked([ChartPoint(label: "n", value: nil, segments: [4, 1.5, 0])], series: ["Core", "Deep", "REM"],
                                       id: "s", title: "Sleep")
        #expect(SVGAttributes.values(stacked, element: "rect", className: "s0", attribute: "data-value") == ["4"])
        #expect(SVGAttributes.values(stacked, element: "rect", className: "s1", attribute: "data-series") == ["Deep"])
        #expect(SVGAttributes.values(stacked, element: "rect", className: "s2", attribute: "data-value").isEmpty)
    }

    /// The chart's axis texts: the labels under the bars (`middle`) or the ticks' (`end`), with
    /// their x coordinates, in order.
    /// The axis texts a phone shows (`wide` false) or a wider screen shows (`wide` true): plain
    /// ones, and those in a tspan of class `narrow` or `wide` that the other screen hides.
    static func axisTexts(_ svg: String, anchor: String, wide: Bool = false) -> [(x: Double, text: String)] {
        svg.components(separatedBy: "<text class=\"axis\" x=\"").dropFirst().compactMap { part in
            guard let x = Double(part.prefix { $0 != "\"" }), let close = part.range(of: "</text>"),
                  let tag = part[..<close.lowerBound].range(of: " text-anchor=\"\(anchor)\""),
                  let open = part[tag.upperBound...].firstIndex(of: ">") else { return nil }
            let content = String(part[part.index(after: open)..<close.lowerBound])
            for (screen, shown) in [("narrow", !wide), ("wide", wide)] where content.hasPrefix("<tspan class=\"\(screen)\">") {
                guard shown else { return nil }
                return (x, String(content.dropFirst("<tspan class=\"\(screen)\">".count).dropLast("</tspan>".count)))
            }
            return (x, content)
        }
    }

    @Test("a year's twelve months are named Jan to Dec: every one on a wide screen (apart at its text size), every other one on a phone")
    func yearLabels() {
        let months = (1...12).map { ChartPoint(label: String(format: "2025-%02d", $0), value: Double($0) * 25_000) }
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for svg in [SVGChart.bars(months, id: "b", title: "t"), SVGChart.ranges(months, id: "r", title: "t"),
                    SVGChart.line(months, id: "l", title: "t"), SVGChart.stacked(months, series: ["a"], id: "s", title: "t")] {
            let wide = Self.axisTexts(svg, anchor: "middle", wide: true)
            #expect(wide.map(\.text) == names)
            for (a, b) in zip(wide, wide.dropFirst()) {
                #expect(b.x - a.x >= 3 * SVGChart.charWidth * SVGChart.textSize + SVGChart.labelGap, "\(a) and \(b) collide")
            }
            #expect(Self.axisTexts(svg, anchor: "middle").map(\.text) == ["Jan", "Mar", "May", "Jul", "Sep", "Nov"])
        }
        // The bars keep the month with its year.
        #expect(SVGChart.bars(months, id: "b", title: "t").contains("data-label=\"2025-01\""))
        // Labels that are not months stay as they are.
        for label in ["2025-13", "11-23", "08:00", "2025-1"] {
            let svg = SVGChart.bars([ChartPoint(label: label, value: 1)], id: "x", title: "t")
            #expect(Self.axisTexts(svg, anchor: "middle").map(\.text) == [label])
        }
    }

    @Test("labels under the bars never collide on a phone: no more than six, each at least its width and a gap from the next",
          arguments: [(12, "2025-01"), (24, "08:00"), (7, "11-23"), (30, "11-23"), (31, "11-23"), (12, "Sep 2025 (avg)"), (1, "2025-01"), (400, "x")])
    func labelsApart(count: Int, label: String) {
        // The text is sized for a phone: at 390 px the chart is drawn 324 px wide (the page's and the card's padding).
        #expect(SVGChart.phoneTextSize * 324 / SVGChart.width >= 11)
        let points = (0..<count).map { ChartPoint(label: label + String(repeating: " ", count: $0 % 2), value: Double($0)) }
        for svg in [SVGChart.bars(points, id: "b", title: "t"), SVGChart.ranges(points, id: "r", title: "t"),
                    SVGChart.line(points, id: "l", title: "t"), SVGChart.stacked(points, series: ["a"], id: "s", title: "t")] {
            let labels = Self.axisTexts(svg, anchor: "middle")
            let width = Double(label.count + 1) * SVGChart.charWidth * SVGChart.phoneTextSize
            #expect(!labels.isEmpty && labels.count <= 6, "\(labels.count) labels")
            for (a, b) in zip(labels, labels.dropFirst()) {
                #expect(b.x - a.x >= width + SVGChart.labelGap - 0.02, "\(a) and \(b) collide")
            }
            for label in labels {
                let half = Double(label.text.count) * SVGChart.charWidth * SVGChart.phoneTextSize / 2
                #expect(label.x - half >= -0.01 && label.x + half <= SVGChart.width + 0.01, "\(label) leaves the chart")
            }
            if count == 12, label == "2025-01" { #expect(labels.map(\.text) == ["Jan", "2025-01 ", "Jan", "2025-01 "]) }
        }
    }

    @Test("the ticks' numbers fit left of the plot, however wide (152.5 lb, 250k steps)", arguments: [[150.0, 160], [0, 249_000], [0.1, 0.35], [-3, 1e9]])
    func tickLabelsFit(values: [Double]) {
        let svg = SVGChart.line(values.map { ChartPoint(label: "d", value: $0) }, id: "w", title: "t")
        let ticks = Self.axisTexts(svg, anchor: "end")
        #expect(ticks.count >= 2)
        let plotLeft = SVGAttributes.values(svg, element: "line", className: "grid", attribute: "x1").compactMap(Double.init).first ?? 0
        for tick in ticks {
            #expect(tick.x - Double(tick.text.count) * SVGChart.charWidth * SVGChart.phoneTextSize >= 0, "\(tick.text) leaves the chart")
            #expect(tick.x < plotLeft)
        }
        if values == [150, 160] { #expect(ticks.map(\.text) == ["150", "152.5", "155", "157.5", "160"]) }
    }

    @Test("any values, however odd, give well-formed SVG inside the frame (property test)")
    func property() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let count = random.int(0...400)
            let points = (0..<count).map { index -> ChartPoint in
                let value: Double? = random.chance(0.2) ? nil
                    : [0, -5, 1e-9, 1e12, Double.infinity, .nan][random.below(6)] * (random.chance(0.5) ? 1 : Double(random.int(1...1000)))
                return ChartPoint(label: "\(index)", value: value, low: value.map { $0 - 3 }, high: value.map { $0 + 3 },
                                  segments: value.map { [$0, 1] } ?? [])
            }
            for svg in [SVGChart.bars(points, id: "p", title: "t"), SVGChart.ranges(points, id: "p", title: "t"),
                        SVGChart.line(points, id: "p", title: "t"), SVGChart.stacked(points, series: ["a", "b"], id: "p", title: "t")] {
                #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
                #expect(!svg.contains("\"nan") && !svg.contains("inf\"") && !svg.contains(">nan") && !svg.contains("inf<"))
                for y in SVGAttributes.values(svg, element: "rect", className: "bar", attribute: "y").compactMap(Double.init) {
                    #expect(y >= 0 && y <= SVGChart.height)
                }
            }
        }
    }
}
