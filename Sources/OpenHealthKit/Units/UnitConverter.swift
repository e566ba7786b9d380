/// A precomputed conversion between two compatible units.
///
/// Build one with ``HKUnit/converter(from:to:)`` and reuse it for every value: between
/// linear units a conversion is a single multiplication.
struct UnitConverter: Sendable {
    private enum Operation: Sendable {
        case identity
        case linear(factor: Double)
        case general(source: UnitMapping, target: UnitMapping)
    }

    private let operation: Operation

    /// The converter that returns its input.
    static let identity = UnitConverter(operation: .identity)

    private init(operation: Operation) {
        self.operation = operation
    }

    /// A converter multiplying by `factor`.
    static func linear(factor: Double) -> UnitConverter {
        UnitConverter(operation: .linear(factor: factor))
    }

    /// A converter through the SI base value: `target.fromBase(source.toBase(value))`.
    static func general(from source: UnitMapping, to target: UnitMapping) -> UnitConverter {
        UnitConverter(operation: .general(source: source, target: target))
    }

    /// Converts one value.
    @inline(__always)
    func convert(_ value: Double) -> Double {
        switch operation {
        case .identity:
            value
        case .linear(let factor):
            value * factor
        case .general(let source, let target):
            target.fromBase(source.toBase(value))
        }
    }

    /// The multiplication factor, when the conversion is linear (or the identity, factor 1).
    var linearFactor: Double? {
        switch operation {
        case .identity: 1
        case .linear(let factor): factor
        case .general: nil
        }
    }
}
