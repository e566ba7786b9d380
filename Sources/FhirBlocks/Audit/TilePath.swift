/// A tile of C2SP `tlog-tiles`: `<L>/<N>[.p/<W>]` under `<prefix>/tile/`.
///
/// `L` (0–63) is the level, `N` the tile's index in that level, written in groups of three
/// digits with every group but the last led by `x` (1234067 is `x001/x234/067`), and `.p/W`
/// (1–255) marks a partial tile of `W` hashes. Tile `N` of level `L` holds hash `i` (0–255) =
/// `MTH` of the `256^L` leaves from `(N · 256 + i) · 256^L`: a full tile is 256 hashes, 8,192 bytes.
public struct TilePath: Sendable, Hashable, CustomStringConvertible {
    /// Hashes in a full tile.
    public static let fullWidth = 256
    /// The tree levels a tile spans.
    public static let height = 8

    /// The level, 0–63.
    public let level: Int
    /// The index within the level, ≥ 0.
    public let index: Int
    /// The width of a partial tile (1–255), nil for a full tile.
    public let partialWidth: Int?

    /// A tile; nil when a part is out of range.
    /// - Parameters:
    ///   - level: 0–63.
    ///   - index: ≥ 0, at most 10^18 − 1.
    ///   - partialWidth: 1–255, or nil for a full tile.
    public init?(level: Int, index: Int, partialWidth: Int? = nil) {
        guard (0...63).contains(level), (0..<1_000_000_000_000_000_000).contains(index) else { return nil }
        if let partialWidth, !(1..<Self.fullWidth).contains(partialWidth) { return nil }
        self.level = level
        self.index = index
        self.partialWidth = partialWidth
    }

    /// Reads the path after `tile/`; only the canonical spelling is accepted (no leading zeroes,
    /// no empty or extra groups), so each tile has one path.
    /// - Parameter path: for example `1/x001/x234/067.p/5`.
    public init?(path: some StringProtocol) {
        let text = String(path)
        guard text.utf8.count <= 64 else { return nil }
        var parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, let level = Self.decimal(parts[0]) else { return nil }
        parts.removeFirst()
        var width: Int?
        if parts.count >= 2, parts[parts.count - 2].hasSuffix(".p") {
            guard let value = Self.decimal(parts[parts.count - 1]) else { return nil }
            width = value
            parts.removeLast()
            parts[parts.count - 1] = parts[parts.count - 1].dropLast(2)
        }
        var index = 0
        for (position, group) in parts.enumerated() {
            let digits = position == parts.count - 1 ? group[...] : (group.hasPrefix("x") ? group.dropFirst() : "")
            guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let value = Int(digits), index <= (Int.max - value) / 1000 else { return nil }
            index = index * 1000 + value
        }
        guard let tile = TilePath(level: level, index: index, partialWidth: width), tile.path == text else { return nil }
        self = tile
    }

    /// A decimal without leading zeroes, at most 3 digits.
    private static func decimal(_ text: Substring) -> Int? {
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              text == "0" || text.first != "0" else { return nil }
        return Int(text)
    }

    /// The path after `tile/`.
    public var path: String {
        var groups: [String] = []
        var rest = index
        repeat {
            let group = String(rest % 1000)
            groups.insert(String(repeating: "0", count: 3 - group.count) + group, at: 0)
            rest /= 1000
        } while rest > 0
        let number = groups.dropLast().map { "x" + $0 + "/" }.joined() + (groups.last ?? "000")
        return "\(level)/\(number)" + (partialWidth.map { ".p/\($0)" } ?? "")
    }

    public var description: String { path }

    /// The number of hashes the tile holds.
    public var width: Int { partialWidth ?? Self.fullWidth }
}
