import Foundation

/// How a complete unit maps its values onto the SI base value of its dimension.
enum UnitMapping: Sendable {
    /// base = value × scale. Every compound unit and every non-temperature, non-decibel unit.
    case linear(scale: Double)
    /// base = (value + offset) × scale. Only a bare `degC` or `degF`.
    case affine(scale: Double, offset: Double)
    /// base = reference × 10^(value / multiplier). Only a bare `dBASPL` (base: pascal).
    case logarithmic(reference: Double, multiplier: Double)

    /// Converts a value in the unit to the SI base value.
    @inline(__always)
    func toBase(_ value: Double) -> Double {
        switch self {
        case .linear(let scale):
            value * scale
        case .affine(let scale, let offset):
            (value + offset) * scale
        case .logarithmic(let reference, let multiplier):
            reference * pow(10, value / multiplier)
        }
    }

    /// Converts an SI base value to a value in the unit.
    ///
    /// For a logarithmic unit a base value of zero gives `-infinity` and a negative base
    /// value gives NaN, as the logarithm does.
    @inline(__always)
    func fromBase(_ base: Double) -> Double {
        switch self {
        case .linear(let scale):
            base / scale
        case .affine(let scale, let offset):
            base / scale - offset
        case .logarithmic(let reference, let multiplier):
            multiplier * log10(base / reference)
        }
    }

    /// The linear scale, if the mapping is linear.
    var linearScale: Double? {
        if case .linear(let scale) = self {
            return scale
        }
        return nil
    }
}
