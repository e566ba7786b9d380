/// One atom raised to a non-zero integer power.
struct UnitFactor: Sendable {
    /// The unit being raised.
    let atom: UnitAtom
    /// The power; never zero in a normalized factorization.
    var exponent: Int
}

/// A unit as a normalized product of atoms with integer exponents: the one internal form
/// behind equality, hashing and the canonical `unitString`.
///
/// Normalization merges equivalent atoms (so `mg/(dL)`, `mg/dl` and `mg*dL^-1` agree),
/// drops zero exponents, and sorts the factors by ``UnitAtom/precedes(_:_:)``.
struct UnitFactorization: Sendable {
    /// The normalized factors.
    let factors: [UnitFactor]

    /// The null unit, `()`.
    static let empty = UnitFactorization(normalizedFactors: [])

    private init(normalizedFactors: [UnitFactor]) {
        self.factors = normalizedFactors
    }

    /// A factorization of one atom to the first power.
    init(atom: UnitAtom) {
        self.factors = [UnitFactor(atom: atom, exponent: 1)]
    }

    /// Normalizes raw factors. Returns `nil` when an exponent overflows or its magnitude
    /// exceeds ``HKUnitError/maximumExponentMagnitude``.
    static func normalizing(_ raw: [UnitFactor]) -> UnitFactorization? {
        var merged: [UnitFactor] = []
        merged.reserveCapacity(raw.count)
        for factor in raw {
            if let index = merged.firstIndex(where: { $0.atom.isEquivalent(to: factor.atom) }) {
                let (sum, overflow) = merged[index].exponent.addingReportingOverflow(factor.exponent)
                if overflow { return nil }
                merged[index].exponent = sum
            } else {
                merged.append(factor)
            }
        }
        merged.removeAll { $0.exponent == 0 }
        for factor in merged where factor.exponent.magnitude > UInt(HKUnitError.maximumExponentMagnitude) {
            return nil
        }
        merged.sort { UnitAtom.precedes($0.atom, $1.atom) }
        return UnitFactorization(normalizedFactors: merged)
    }

    /// `self · other`, or `nil` on exponent overflow.
    func multiplied(by other: UnitFactorization) -> UnitFactorization? {
        Self.normalizing(factors + other.factors)
    }

    /// `self ^ power`, or `nil` on exponent overflow.
    func raised(to power: Int) -> UnitFactorization? {
        var raw: [UnitFactor] = []
        raw.reserveCapacity(factors.count)
        for factor in factors {
            let (product, overflow) = factor.exponent.multipliedReportingOverflow(by: power)
            if overflow { return nil }
            raw.append(UnitFactor(atom: factor.atom, exponent: product))
        }
        return Self.normalizing(raw)
    }

    /// Whether two normalized factorizations denote the same unit.
    func isEquivalent(to other: UnitFactorization) -> Bool {
        guard factors.count == other.factors.count else { return false }
        for (lhs, rhs) in zip(factors, other.factors) {
            guard lhs.exponent == rhs.exponent, lhs.atom.isEquivalent(to: rhs.atom) else { return false }
        }
        return true
    }

    /// Hashes exactly what ``isEquivalent(to:)`` compares.
    func hash(into hasher: inout Hasher) {
        hasher.combine(factors.count)
        for factor in factors {
            hasher.combine(factor.atom.root)
            hasher.combine(factor.atom.prefix)
            hasher.combine(factor.atom.molarMass)
            hasher.combine(factor.exponent)
        }
    }

    /// The canonical string, in HealthKit's format: numerator factors joined by `·`, one
    /// `/`, denominator factors joined by `·` with positive exponents, `^n` for powers other
    /// than 1, `1/…` when there is no numerator and `()` for the null unit.
    /// Examples: `mg/dL`, `count/min`, `mL/min·kg`, `kg·m^2/s^3`, `1/s`.
    var canonicalString: String {
        var numerator: [String] = []
        var denominator: [String] = []
        for factor in factors {
            let power = factor.exponent.magnitude
            let text = power == 1 ? factor.atom.text : "\(factor.atom.text)^\(power)"
            if factor.exponent > 0 {
                numerator.append(text)
            } else {
                denominator.append(text)
            }
        }
        let separator = "\u{00B7}"
        switch (numerator.isEmpty, denominator.isEmpty) {
        case (true, true):
            return "()"
        case (false, true):
            return numerator.joined(separator: separator)
        case (true, false):
            return "1/" + denominator.joined(separator: separator)
        case (false, false):
            return numerator.joined(separator: separator) + "/" + denominator.joined(separator: separator)
        }
    }
}
