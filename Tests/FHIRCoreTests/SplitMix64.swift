/// A tiny deterministic pseudo-random generator (SplitMix64) so property and fuzz tests are
/// reproducible from their seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    mutating func digits(_ count: Int, nonZeroFirst: Bool = false) -> String {
        var text = ""
        for index in 0..<count {
            let low = nonZeroFirst && index == 0 ? 1 : 0
            text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(int(low...9)))))
        }
        return text
    }
}
