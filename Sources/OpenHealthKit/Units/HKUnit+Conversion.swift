/// The conversion helpers the rest of OpenHealthKit uses (store, statistics, queries).
///
/// Hot paths should build a ``UnitConverter`` once with ``HKUnit/converter(from:to:)`` and
/// call ``UnitConverter/convert(_:)`` per value; between linear units that is one
/// multiplication.
extension HKUnit {
    /// Whether values in this unit convert to `unit` (the dimensions are equal).
    ///
    /// - Parameter unit: The other unit.
    /// - Returns: `true` if the units measure the same kind of quantity.
    func isCompatible(with unit: HKUnit) -> Bool {
        dimension == unit.dimension
    }

    /// A reusable converter from `source` to `target`.
    ///
    /// - Parameters:
    ///   - source: The unit values are in.
    ///   - target: The unit values are wanted in.
    /// - Returns: The converter.
    /// - Throws: ``HKUnitError/Kind/incompatibleUnits`` if the dimensions differ;
    ///   ``HKUnitError/Kind/conversionOutOfRange`` if the factor is not a finite non-zero `Double`.
    static func converter(from source: HKUnit, to target: HKUnit) throws(HKUnitError) -> UnitConverter {
        if source.isSameUnit(as: target) {
            return .identity
        }
        guard source.dimension == target.dimension else {
            throw HKUnitError(
                kind: .incompatibleUnits,
                unitString: source.unitString,
                targetUnitString: target.unitString,
                message: "units measure different quantities"
            )
        }
        if let sourceScale = source.mapping.linearScale, let targetScale = target.mapping.linearScale {
            let factor = sourceScale / targetScale
            guard factor.isFinite, factor != 0 else {
                throw HKUnitError(
                    kind: .conversionOutOfRange,
                    unitString: source.unitString,
                    targetUnitString: target.unitString,
                    message: "conversion factor is not representable as a Double"
                )
            }
            return factor == 1 ? .identity : .linear(factor: factor)
        }
        return .general(from: source.mapping, to: target.mapping)
    }

    /// Converts one value from `source` to `target`.
    ///
    /// - Parameters:
    ///   - value: The value in `source`.
    ///   - source: The unit of `value`.
    ///   - target: The unit wanted.
    /// - Returns: The value in `target`.
    /// - Throws: ``HKUnitError`` as ``converter(from:to:)`` does.
    static func convert(_ value: Double, from source: HKUnit, to target: HKUnit) throws(HKUnitError) -> Double {
        try converter(from: source, to: target).convert(value)
    }

    /// The value expressed in the SI base unit of this unit's dimension (kg, m, s, K, Pa for
    /// `dBASPL`, m³ for volumes, kg for mole units through their molar mass, …).
    ///
    /// - Parameter value: A value in this unit.
    /// - Returns: The base value.
    func baseValue(of value: Double) -> Double {
        mapping.toBase(value)
    }

    /// The value in this unit of an SI base value; the inverse of ``baseValue(of:)``.
    ///
    /// - Parameter baseValue: A value in the SI base unit of this unit's dimension.
    /// - Returns: The value in this unit.
    func value(fromBaseValue baseValue: Double) -> Double {
        mapping.fromBase(baseValue)
    }
}
