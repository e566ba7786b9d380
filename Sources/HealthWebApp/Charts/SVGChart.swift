import CommonSupport
import Foundation

/// Charts drawn as SVG by Swift code: data in, an SVG string out, with no I/O. Every bar, range
/// and point carries its value in `data-value` (its label in `data-label`), and the page shows
/// the same numbers in a table; the SVG itself is one image with a title.
///
/// The drawing scales to the page, its text with it: the axis text is ``phoneTextSize`` units
/// tall on a phone (the stylesheet's size below 40em), at least 11 CSS px wherever the chart is
/// drawn at least 294 px wide (a 360 px screen; 324 px at 390). The labels under the bars are
/// thinned for that size: no more than six, and never closer than the widest label's estimated
/// width (``charWidth`` em a character) and a gap, so that they cannot collide on a phone. A
/// wider screen (the stylesheet's ``textSize``) shows every label that fits at its size (a year's
/// twelve months, `Jan` to `Dec`); a label only one of the two shows is in a `tspan` of class
/// `narrow` or `wide` that the stylesheet hides on the other.
public enum SVGChart {
    /// The drawing's width in SVG units (it scales to the page).
    public static let width = 640.0
    /// The drawing's height in SVG units.
    public static let height = 260.0
    /// The axis text's size in SVG units on a phone (below 40em wide).
    public static let phoneTextSize = 24.0
    /// The axis text's size in SVG units on a wider screen.
    public static let textSize = 15.0
    /// A character of axis text is taken to be this wide, in ems (wider than most: DejaVu Sans'
    /// digits are 0.64 em), when labels are spaced.
    public static let charWidth = 0.65
    /// The least room between two labels under the bars, in SVG units.
    public static let labelGap = 12.0
    static let right = 8.0, top = 18.0, bottom = 48.0

    /// Bars from zero: steps per day.
    /// - Parameters:
    ///   - points: the bars, in time order.
    ///   - id: the chart's id (its title's id derives from it).
    ///   - title: the chart's title.
    public static func bars(_ points: [ChartPoint], id: String, title: String) -> String {
        let values = points.compactMap { finite($0.value) }
        let layout = Layout(scale: Scale(low: min(0, values.min() ?? 0), high: max(0, values.max() ?? 0)), count: points.count)
        let scale = layout.scale, slot = layout.slot
        var body = ""
        for (index, point) in points.enumerated() {
            guard let value = finite(point.value) else { continue }
            let y = scale.y(max(value, 0))
            body += "<rect class=\"bar\" x=\"\(n(layout.x(index) + slot * 0.15))\" y=\"\(n(y))\" width=\"\(n(slot * 0.7))\" "
                + "height=\"\(n(scale.y(min(value, 0)) - y))\" data-label=\"\(HTMLText.escape(point.label))\" data-value=\"\(n(value))\"/>"
        }
        return frame(id: id, title: title, layout: layout, labels: points.map(\.label), body: body)
    }

    /// Ranges with an average: heart rate per day (lowest to highest, a dot at the average),
    /// blood pressure (diastolic to systolic).
    /// - Parameters:
    ///   - points: the columns, in time order.
    ///   - id: the chart's id (its title's id derives from it).
    ///   - title: the chart's title.
    public static func ranges(_ points: [ChartPoint], id: String, title: String) -> String {
        let lows = points.compactMap { finite($0.low) ?? finite($0.value) }, highs = points.compactMap { finite($0.high) ?? finite($0.value) }
        let layout = Layout(scale: Scale(low: lows.min() ?? 0, high: highs.max() ?? 0), count: points.count)
        let scale = layout.scale, slot = layout.slot
        var body = ""
        for (index, point) in points.enumerated() {
            let x = layout.x(index) + slot * 0.5
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
        return frame(id: id, title: title, layout: layout, labels: points.map(\.label), body: body)
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
        let layout = Layout(scale: Scale(low: (values + bandValues).min() ?? 0, high: (values + bandValues).max() ?? 0), count: points.count)
        let scale = layout.scale, slot = layout.slot
        var coordinates: [String] = []
        var dots = ""
        for (index, point) in points.enumerated() {
            guard let value = finite(point.value) else { continue }
            let x = layout.x(index) + slot * 0.5, y = scale.y(value)
            coordinates.append("\(n(x)),\(n(y))")
            dots += "<circle class=\"dot\" cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(min(max(slot * 0.25, 1.5), 4)))\" "
                + "data-label=\"\(HTMLText.escape(point.label))\" data-value=\"\(n(value))\"/>"
        }
        let path = coordinates.count > 1 ? "<polyline class=\"line\" points=\"\(coordinates.joined(separator: " "))\"/>" : ""
        var shade = ""
        if let band, finite(band.low) != nil || finite(band.high) != nil {
            let upper = finite(band.high).map { scale.y($0) } ?? Self.top, lower = finite(band.low).map { scale.y($0) } ?? (height - Self.bottom)
            shade = "<rect class=\"band\" x=\"\(n(layout.left))\" y=\"\(n(upper))\" width=\"\(n(layout.plotWidth))\" height=\"\(n(max(lower - upper, 1)))\""
                + (finite(band.low).map { " data-low=\"\(n($0))\"" } ?? "") + (finite(band.high).map { " data-high=\"\(n($0))\"" } ?? "") + "/>"
        }
        return frame(id: id, title: title, layout: layout, labels: points.map(\.label), body: shade + path + dots)
    }

    /// Stacked bars from zero: sleep per night by stage. `series` names the segments, bottom
    /// first; segment `i` gets the class `s<i>`.
    /// - Parameters:
    ///   - points: the bars, in time order, each with its `segments`.
    ///   - series: the segments' names, bottom first.
    ///   - id: the chart's id (its title's id derives from it).
    ///   - title: the chart's title.
    public static func stacked(_ points: [ChartPoint], series: [String], id: String, title: String) -> String {
        let total = points.map { $0.segments.compactMap { finite($0) }.filter { $0 > 0 }.reduce(0, +) }.max() ?? 0
        let layout = Layout(scale: Scale(low: 0, high: total), count: points.count)
        let scale = layout.scale, slot = layout.slot
        var body = ""
        for (index, point) in points.enumerated() {
            var base = 0.0
            for (segment, value) in point.segments.enumerated() where value > 0 && value.isFinite {
                let name = segment < series.count ? series[segment] : ""
                body += "<rect class=\"s\(segment)\" x=\"\(n(layout.x(index) + slot * 0.15))\" y=\"\(n(scale.y(base + value)))\" "
                    + "width=\"\(n(slot * 0.7))\" height=\"\(n(scale.y(base) - scale.y(base + value)))\" "
                    + "data-label=\"\(HTMLText.escape(point.label))\" data-series=\"\(HTMLText.escape(name))\" data-value=\"\(n(value))\"/>"
                base += value
            }
        }
        return frame(id: id, title: title, layout: layout, labels: points.map(\.label), body: body)
    }

    // MARK: Frame and scale

    /// The value when it is a number (not NaN, not infinite).
    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }

    static var plotHeight: Double { height - top - bottom }

    /// How wide `text` is taken to be on a phone (or at text size `size`), in SVG units.
    static func textWidth(_ text: String, size: Double = phoneTextSize) -> Double {
        Double(text.count) * charWidth * size
    }

    /// How many columns apart the labels under the bars are at text size `size`: at least the
    /// widest label and ``labelGap`` between two label centres, and no more than `most` labels
    /// (nil: as many as fit).
    /// - Parameters:
    ///   - labels: the columns' labels.
    ///   - slot: a column's width in SVG units.
    ///   - size: the text size in SVG units.
    ///   - most: the most labels shown.
    static func labelEvery(_ labels: [String], slot: Double, size: Double = phoneTextSize, most: Int? = 6) -> Int {
        let byCount = most.map { Int((Double(labels.count) / Double(max($0, 1))).rounded(.up)) } ?? 1
        let widest = labels.map { textWidth($0, size: size) }.max() ?? 0
        let byWidth = slot > 0 ? Int(((widest + labelGap) / slot).rounded(.up)) : labels.count
        return max(1, byCount, min(byWidth, max(labels.count, 1)))
    }

    /// The label under a column as the axis writes it: a month (`2025-01`) by its name (`Jan`;
    /// the period's range says the year), any other label as it is.
    static func axisLabel(_ label: String) -> String {
        let parts = label.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber),
              parts[1].count == 2, let month = Int(parts[1]), (1...12).contains(month) else { return label }
        return monthNames[month - 1]
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Where the labels under the columns go at text size `size` (by column): thinned by
    /// ``labelEvery(_:slot:size:most:)``; a label near an edge moves in so that it stays whole,
    /// and one that would then come too close to the one before is left out.
    static func labelPlaces(_ labels: [String], layout: Layout, size: Double, most: Int?) -> [Int: Double] {
        let every = labelEvery(labels, slot: layout.slot, size: size, most: most)
        let apart = (labels.map { textWidth($0, size: size) }.max() ?? 0) + labelGap
        var previous = -Double.infinity
        var places: [Int: Double] = [:]
        for (index, label) in labels.enumerated() where index % every == 0 {
            let half = min(textWidth(label, size: size), width) / 2
            let x = min(max(layout.x(index) + layout.slot * 0.5, half), width - half)
            guard x - previous >= apart else { continue }
            previous = x
            places[index] = x
        }
        return places
    }

    /// Where the columns go: the plot starts right of the widest tick label (on a phone) and
    /// its width is shared by the columns.
    struct Layout {
        let scale: Scale
        let count: Int
        let left: Double

        init(scale: Scale, count: Int) {
            self.scale = scale
            self.count = count
            let widest = scale.ticks.map { SVGChart.textWidth(SVGChart.axisText($0)) }.max() ?? 0
            left = min(SVGChart.width / 2, max(40, (widest + 10).rounded(.up)))
        }

        var plotWidth: Double { SVGChart.width - left - SVGChart.right }
        /// A column's width.
        var slot: Double { plotWidth / Double(max(count, 1)) }
        /// The left edge of column `index`.
        func x(_ index: Int) -> Double { left + slot * Double(index) }
    }

    /// The vertical scale: from a rounded-down low to a rounded-up high, with a gridline at
    /// every multiple of a round step (1, 2, 2.5 or 5 × a power of ten; about four of them).
    struct Scale {
        let low: Double
        let high: Double
        let step: Double

        /// The largest magnitude a scale reaches: values beyond it (an imported water temperature of
        /// ±1.7e308 °C) are drawn off the plot, so that the span, the step and the top stay finite
        /// (an infinite span made `ticks` convert NaN to `Int` and trap the page's server).
        static let largest = 1e300

        init(low: Double, high: Double) {
            let low = low.isNaN ? 0 : min(max(low, -Self.largest), Self.largest)
            let high = high.isNaN ? 0 : min(max(high, -Self.largest), Self.largest)
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
            let ratio = ((high - low) / step).rounded()
            let count = ratio.isFinite ? Int(min(max(ratio, 1), 1_000)) : 1
            return (0...count).map { low + step * Double($0) }
        }
    }

    static func frame(id: String, title: String, layout: Layout, labels: [String], body: String) -> String {
        var grid = ""
        let left = layout.left
        for tick in layout.scale.ticks {
            let y = n(layout.scale.y(tick))
            grid += "<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(y)\" x2=\"\(n(width - right))\" y2=\"\(y)\"/>"
                + "<text class=\"axis\" x=\"\(n(left - 6))\" y=\"\(y)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(axisText(tick))</text>"
        }
        // The labels a phone shows (no more than six) and those a wider screen shows (as many as
        // fit at its text size); one only one of them shows is in a tspan the other hides.
        let axisLabels = labels.map(axisLabel)
        let phone = labelPlaces(axisLabels, layout: layout, size: phoneTextSize, most: 6)
        let wide = labelPlaces(axisLabels, layout: layout, size: textSize, most: nil)
        func label(_ index: Int, x: Double, only: String?) -> String {
            let text = HTMLText.escape(axisLabels[index])
            return "<text class=\"axis\" x=\"\(n(x))\" y=\"\(n(height - 10))\" text-anchor=\"middle\">"
                + (only.map { "<tspan class=\"\($0)\">\(text)</tspan>" } ?? text) + "</text>"
        }
        for index in axisLabels.indices {
            switch (phone[index], wide[index]) {
            case let (onPhone?, onWide?) where n(onPhone) == n(onWide): grid += label(index, x: onPhone, only: nil)
            case let (onPhone?, onWide?): grid += label(index, x: onPhone, only: "narrow") + label(index, x: onWide, only: "wide")
            case let (onPhone?, nil): grid += label(index, x: onPhone, only: "narrow")
            case let (nil, onWide?): grid += label(index, x: onWide, only: "wide")
            case (nil, nil): break
            }
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
