@testable import health
import Testing

@Suite("health store stats' bar chart")
struct BarChartTests {
    @Test("a bar is as long as its value is of the largest; a value whose ratio is infinite (-1e300 against 1e-300) draws no bar, not a trap")
    func extremeRatios() {
        let lines = BarChart.lines([("a", -1e300), ("b", 1e-300), ("c", 0.5e-300), ("d", nil)], width: 10, format: { _ in "v" })
        #expect(lines == ["a              v", "b  ██████████  v", "c  █████       v", "d              –"])
        let huge = BarChart.lines([("x", 1.7e308), ("y", -1.7e308)], width: 4, format: { _ in "v" })
        #expect(huge == ["x  ████  v", "y        v"])
    }
}
