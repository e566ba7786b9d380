import Foundation

/// A root unit with its prefix and, for moles, its molar mass: one factor of a unit such as
/// `mg`, `dL`, `kcal` or `mmol<180.1558800000541>`.
///
/// ## Molar masses
///
/// Molar masses are compared numerically, not as text. To keep equality transitive, hashing
/// consistent and the printed form unique, every molar mass is normalized when an atom is
/// created: it is rounded to ``molarMassSignificantDigits`` significant digits, and a value
/// that rounds like ``HKUnitMolarMassBloodGlucose`` becomes exactly that constant. So
/// `mmol<180.1558800000541>`, `mmol<180.15588000005408>` and `mmol<180.15588>` are one unit
/// that prints `mmol<180.1558800000541>` as HealthKit does, while `mmol<180.16>` is another.
/// The rounding moves a conversion by at most 5×10⁻¹¹ relative.
struct UnitAtom: Sendable {
    /// Significant digits kept in a molar mass (a relative resolution of about 10⁻⁹).
    static let molarMassSignificantDigits = 10

    /// The unprefixed unit.
    let root: UnitRoot
    /// The metric prefix (`.none` for units that take none).
    let prefix: HKMetricPrefix
    /// Grams per mole, for mole units only.
    let molarMass: Double?
    /// The canonical spelling, e.g. `mcg`, `mL`, `mmol<180.1558800000541>`.
    let text: String
    /// Prefix and symbol without the molar mass; used to order factors.
    let name: String
    /// SI base units per one of this unit, prefix and molar mass included (linear part only).
    let scale: Double

    /// Creates an atom. The caller guarantees that `prefix` is `.none` unless the root takes
    /// prefixes, and that `molarMass` is a finite positive number exactly when the root is the mole.
    init(root: UnitRoot, prefix: HKMetricPrefix = .none, molarMass: Double? = nil) {
        let definition = root.definition
        let molarMass = molarMass.map(Self.normalize(molarMass:))
        self.root = root
        self.prefix = prefix
        self.molarMass = molarMass
        let name = prefix.symbol + definition.symbol
        self.name = name
        if let molarMass {
            self.text = "\(name)<\(Self.format(molarMass: molarMass))>"
            self.scale = definition.scale * prefix.factor * molarMass
        } else {
            self.text = name
            self.scale = definition.scale * prefix.factor
        }
    }

    /// Whether two atoms are the same unit: same root, prefix and (normalized) molar mass.
    func isEquivalent(to other: UnitAtom) -> Bool {
        root == other.root && prefix == other.prefix && molarMass == other.molarMass
    }

    /// Rounds a molar mass to ``molarMassSignificantDigits`` significant digits, snapping
    /// values that round like ``HKUnitMolarMassBloodGlucose`` to that exact constant.
    static func normalize(molarMass: Double) -> Double {
        let rounded = round(molarMass)
        return rounded == glucoseRounded ? HKUnitMolarMassBloodGlucose : rounded
    }

    private static let glucoseRounded = round(HKUnitMolarMassBloodGlucose)

    private static func round(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        return Double(String(format: "%.\(molarMassSignificantDigits)g", value)) ?? value
    }

    /// Formats a molar mass as HealthKit's `unitString` does: 16 significant digits
    /// (`%.16g`), so `HKUnitMolarMassBloodGlucose` prints as `180.1558800000541`.
    static func format(molarMass: Double) -> String {
        String(format: "%.16g", molarMass)
    }

    /// Canonical order of atoms inside a unit string: family rank, then name, then molar mass.
    static func precedes(_ lhs: UnitAtom, _ rhs: UnitAtom) -> Bool {
        let lhsRank = lhs.root.definition.sortRank
        let rhsRank = rhs.root.definition.sortRank
        if lhsRank != rhsRank {
            return lhsRank < rhsRank
        }
        if lhs.name != rhs.name {
            return lhs.name < rhs.name
        }
        return (lhs.molarMass ?? 0) < (rhs.molarMass ?? 0)
    }
}
