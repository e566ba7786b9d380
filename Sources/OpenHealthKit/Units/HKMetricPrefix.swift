/// A metric prefix that scales an SI unit, mirroring HealthKit's `HKMetricPrefix`.
///
/// The raw values are HealthKit's and are **not** in order of magnitude: `femto` was
/// added last (iOS 13) and has raw value 13. Anything that persists a prefix must keep
/// these numbers.
///
/// In unit strings the prefixes are written `p`, `n`, `mc` (micro; `µ` is accepted on
/// input), `m`, `c`, `d`, `da`, `h`, `k`, `M`, `G`, `T` and `f`.
public enum HKMetricPrefix: Int, Sendable {
    /// No prefix; the factor is 1.
    case none = 0
    /// Pico, 10⁻¹² (`p`).
    case pico = 1
    /// Nano, 10⁻⁹ (`n`).
    case nano = 2
    /// Micro, 10⁻⁶ (`mc`).
    case micro = 3
    /// Milli, 10⁻³ (`m`).
    case milli = 4
    /// Centi, 10⁻² (`c`).
    case centi = 5
    /// Deci, 10⁻¹ (`d`).
    case deci = 6
    /// Deca, 10¹ (`da`).
    case deca = 7
    /// Hecto, 10² (`h`).
    case hecto = 8
    /// Kilo, 10³ (`k`).
    case kilo = 9
    /// Mega, 10⁶ (`M`).
    case mega = 10
    /// Giga, 10⁹ (`G`).
    case giga = 11
    /// Tera, 10¹² (`T`).
    case tera = 12
    /// Femto, 10⁻¹⁵ (`f`).
    case femto = 13
}

extension HKMetricPrefix {
    /// Every prefix, in raw-value order.
    static let allPrefixes: [HKMetricPrefix] = [
        .none, .pico, .nano, .micro, .milli, .centi, .deci, .deca, .hecto, .kilo, .mega, .giga, .tera, .femto,
    ]

    /// The multiplier the prefix applies.
    var factor: Double {
        switch self {
        case .none: 1
        case .pico: 1e-12
        case .nano: 1e-9
        case .micro: 1e-6
        case .milli: 1e-3
        case .centi: 1e-2
        case .deci: 1e-1
        case .deca: 1e1
        case .hecto: 1e2
        case .kilo: 1e3
        case .mega: 1e6
        case .giga: 1e9
        case .tera: 1e12
        case .femto: 1e-15
        }
    }

    /// The canonical spelling used in unit strings (`mc` for micro, as HealthKit prints it).
    var symbol: String {
        switch self {
        case .none: ""
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        case .femto: "f"
        }
    }

    /// Spellings accepted when parsing, longest first so that `da` and `mc` win over `d` and `m`.
    ///
    /// `µ` (U+00B5 MICRO SIGN) and `μ` (U+03BC GREEK SMALL LETTER MU) are accepted as input
    /// aliases for micro; the canonical output is always `mc`.
    static let parseSpellings: [(spelling: String, prefix: HKMetricPrefix)] = [
        ("da", .deca), ("mc", .micro), ("\u{00B5}", .micro), ("\u{03BC}", .micro),
        ("p", .pico), ("n", .nano), ("m", .milli), ("c", .centi), ("d", .deci),
        ("h", .hecto), ("k", .kilo), ("M", .mega), ("G", .giga), ("T", .tera), ("f", .femto),
    ]
}
