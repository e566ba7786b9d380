/// A small, fast, seedable random number generator (Steele, Lea and Flood's SplitMix64), so that
/// property and fuzz tests are repeatable: the same seed gives the same cases on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// A value in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    /// `count` decimal digits, the first one not zero when `nonZeroFirst`.
    public mutating func digits(_ count: Int, nonZeroFirst: Bool = false) -> String {
        var text = ""
        for index in 0..<count {
            let low = nonZeroFirst && index == 0 ? 1 : 0
            text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(int(low...9)))))
        }
        return text
    }
}
