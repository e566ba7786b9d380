import CommonSupport
import Foundation

/// Charts drawn as SVG by Swift code: data in, an SVG string out, with no I/O. Every bar, range
/// and point carries its value in `data-value` (its label in `data-label`), and the page shows
/// the same numbers in a table; the SVG itself is one image with a title.
public enum SVGChart {
    /// The drawing's width in SVG units (it scales to the page).
    public static let width = 640.0
    /// The drawing's height in SVG units.
    public static let height = 260.0
    static let left = 66.0, right = 8.0, top = 14.0, bottom = 36.0

    /// Bars from zero: steps per day.
    public static func bars(_ points: [ChartPoint], id: String, title: String) -> String {
        let values = points.compactMap { finite($0.value) }
        let scale = Scale(low: min(0, values.min() ?? 0), high: max(0, values.max() ?? 0))
        var body = ""
        let slot = plotWidth / Double(max(points.count, 1))
        for (index, point) in points.enumerated() {
            guard let value = finite(point.value) else { continue }
            let y = scale.y(max(value, 0))
            body += "<rect class=\"bar\" x=\"\(n(left + slot * Double(index) + slot * 0.15))\" y=\"\(n(y))\" width=\"\(n(slot * 0.7))\" "
                + "height=\"\(n(scale.y(min(value, 0)) - y))\" data-label=\"\(HTMLText.escape(point.label))\" data-value=\"\(n(value))\"/>"
        }
        return frame(id: id, title: title, scale: scale, labels: points.map(\.label), body: body)
    }

    /// Ranges with an average: heart rate per day (lowest to highest, a dot at the average),
    /// blood pressure (diastolic to systolic).
    public static func ranges(_ points: [ChartPoint], id: String, title: String) -> String {
        let lows = points.compactMap { finite($0.low) ?? finite($0.value) }, highs = points.compactMap { finite($0.high) ?? finite($0.value) }
        let scale = Scale(low: lows.min() ?? 0, high: highs.max() ?? 0)
        var body = ""
        let slot = plotWidth / Double(max(points.count, 1))
        for (index, point) in points.enumerated() {
            let x = left + slot * (Double(index) + 0.5)
            if let low = finite(point.low), let high = finite(point.high) {
                body += "<rect class=\"range\" x=\"\(n(x - max(slot * 0.2, 1)))\" y=\"\(n(scale.y(high)))\" width=\"\(n(max(slot * 0.4, 2)))\" "
                    + "height=\"\(n(max(scale.y(low) - scale.y(high), 1)))\" data-label=\"\(HTMLText.escape(point.label))\" "
                    + "data-low=\"\(n(low))\" data-high=\"\(n(high))\"/>"
            }
            if let value = finite(point.value) {
                body += "<circle class=\"dot\" cx=\"\(n(x))\" cy=\"\(n(scale.y(value)))\" r=\"\(n(min(max(slot * 0.25, 1.5), 4)))\" "
                    + "data-label=\"\(HTMLText.escape(point.label))\" data-value=\"\(n(value))\"/>"
            }
        }
        return frame(id: id, title: title, scale: scale, labels: points.map(\.label), body: body)
    }

    /// A line through the points with data: a weight trend; with `band`, a shaded range behind
    /// it (a lab test's reference range; a missing end reaches the chart's edge).
    /// - Parameters:
    ///   - points: the points, in time order.
    ///   - id: the chart's id (its title's id derives from it).
    ///   - title: the chart's title.
    ///   - band: the range to shade, low and high; nil for none.
    public static func line(_ points: [ChartPoint], id: String, title: String, band: (low: Double?, high: Double?)? = nil) -> String {
        let values = points.compactMap { finite($0.value) }
        let bandValues = [band?.low, band?.high].compactMap { finite($0) }
        let scale = Scale(low: (values + bandValues).min() ?? 0, high: (values + bandValues).max() ?? 0)
        let slot = plotWidth / Double(max(points.count, 1))
        var coordinates: [String] = []
        var dots = ""
        for (index, point) in points.enumerated() {
            guard let value = finite(point.value) else { continue }
            let x = left + slot * (Double(index) + 0.5), y = scale.y(value)
            coordinates.append("\(n(x)),\(n(y))")
            dots += "<circle class=\"dot\" cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(min(max(slot * 0.25, 1.5), 4)))\" "
                + "data-label=\"\(HTMLText.escape(point.label))\" data-value=\"\(n(value))\"/>"
        }
        let path = coordinates.count > 1 ? "<polyline class=\"line\" points=\"\(coordinates.joined(separator: " "))\"/>" : ""
        var shade = ""
        if let band, finite(band.low) != nil || finite(band.high) != nil {
            let upper = finite(band.high).map { scale.y($0) } ?? Self.top, lower = finite(band.low).map { scale.y($0) } ?? (height - Self.bottom)
            shade = "<rect class=\"band\" x=\"\(n(left))\" y=\"\(n(upper))\" width=\"\(n(plotWidth))\" height=\"\(n(max(lower - upper, 1)))\""
                + (finite(band.low).map { " data-low=\"\(n($0))\"" } ?? "") + (finite(band.high).map { " data-high=\"\(n($0))\"" } ?? "") + "/>"
        }
        return frame(id: id, title: title, scale: scale, labels: points.map(\.label), body: shade + path + dots)
    }

    /// Stacked bars from zero: sleep per night by stage. `series` names the segments, bottom
    /// first; segment `i` gets the class `s<i>`.
    public static func stacked(_ points: [ChartPoint], series: [String], id: String, title: String) -> String {
        let scale = Scale(low: 0, high: points.map { $0.segments.compactMap { finite($0) }.filter { $0 > 0 }.reduce(0, +) }.max() ?? 0)
        let slot = plotWidth / Double(max(points.count, 1))
        var body = ""
        for (index, point) in points.enumerated() {
            var base = 0.0
            for (segment, value) in point.segments.enumerated() where value > 0 && value.isFinite {
                let name = segment < series.count ? series[segment] : ""
                body += "<rect class=\"s\(segment)\" x=\"\(n(left + slot * Double(index) + slot * 0.15))\" y=\"\(n(scale.y(base + value)))\" "
                    + "width=\"\(n(slot * 0.7))\" height=\"\(n(scale.y(base) - scale.y(base + value)))\" "
                    + "data-label=\"\(HTMLText.escape(point.label))\" data-series=\"\(HTMLText.escape(name))\" data-value=\"\(n(value))\"/>"
                base += value
            }
        }
        return frame(id: id, title: title, scale: scale, labels: points.map(\.label), body: body)
    }

    // MARK: Frame and scale

    /// The value when it is a number (not NaN, not infinite).
    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }

    static var plotWidth: Double { width - left - right }
    static var plotHeight: Double { height - top - bottom }

    /// The vertical scale: from a rounded-down low to a rounded-up high, with a gridline at
    /// every multiple of a round step (1, 2, 2.5 or 5 × a power of ten; about four of them).
    struct Scale {
        let low: Double
        let high: Double
        let step: Double

        init(low: Double, high: Double) {
            let span = high - low
            let step = SVGChart.niceCeiling(span > 0 ? span / 4 : max(abs(high) * 0.1, 1))
            let bottom = low == 0 ? 0 : SVGChart.niceFloor(low, step: step)
            self.low = bottom
            self.high = bottom + max(1, ((high - bottom) / step).rounded(.up)) * step
            self.step = step
        }

        func y(_ value: Double) -> Double {
            SVGChart.top + SVGChart.plotHeight * (1 - (value - low) / (high - low))
        }

        var ticks: [Double] {
            let count = Int(((high - low) / step).rounded())
            return (0...max(count, 1)).map { low + step * Double($0) }
        }
    }

    static func frame(id: String, title: String, scale: Scale, labels: [String], body: String) -> String {
        var grid = ""
        for tick in scale.ticks {
            let y = n(scale.y(tick))
            grid += "<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(y)\" x2=\"\(n(width - right))\" y2=\"\(y)\"/>"
                + "<text class=\"axis\" x=\"\(n(left - 6))\" y=\"\(y)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(axisText(tick))</text>"
        }
        let slot = plotWidth / Double(max(labels.count, 1))
        let every = max(1, Int((Double(labels.count) / 6).rounded(.up)))
        for (index, label) in labels.enumerated() where index % every == 0 {
            grid += "<text class=\"axis\" x=\"\(n(left + slot * (Double(index) + 0.5)))\" y=\"\(n(height - 6))\" "
                + "text-anchor=\"middle\">\(HTMLText.escape(label))</text>"
        }
        let titleID = HTMLText.escape(id) + "-svg-title"
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" "
            + "aria-labelledby=\"\(titleID)\"><title id=\"\(titleID)\">\(HTMLText.escape(title))</title>\(grid)\(body)</svg>"
    }

    /// The smallest of 1, 2, 2.5, 5 × a power of ten that is at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(value)))
        for multiple in [1, 2, 2.5, 5, 10] where multiple * magnitude >= value * (1 - 1e-12) { return multiple * magnitude }
        return 10 * magnitude
    }

    static func niceFloor(_ value: Double, step: Double) -> Double {
        (value / step).rounded(.down) * step
    }

    /// A coordinate or value with at most two decimals ("12", "12.5", "12.25").
    static func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(rounded)
    }

    static func axisText(_ value: Double) -> String {
        if abs(value) >= 10_000 { return n((value / 1_000).rounded()) + "k" }
        return n(value)
    }
}
