/// One column of a chart: a day's steps (``value``), a day's heart-rate range (``low`` to
/// ``high``, ``value`` the average), or a night's sleep by stage (``segments``).
public struct ChartPoint: Sendable, Equatable {
    /// The column's label ("Mon 23").
    public var label: String
    /// The bar's height, the average's dot, or the line's point; nil for no data.
    public var value: Double?
    /// The bottom of a range.
    public var low: Double?
    /// The top of a range.
    public var high: Double?
    /// The parts of a stacked bar, bottom first (in the order of the chart's series).
    public var segments: [Double]

    /// A column.
    public init(label: String, value: Double?, low: Double? = nil, high: Double? = nil, segments: [Double] = []) {
        self.label = label
        self.value = value
        self.low = low
        self.high = high
        self.segments = segments
    }
}
