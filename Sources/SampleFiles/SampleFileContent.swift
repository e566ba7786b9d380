import CommonSupport
import Crypto
import Foundation

/// What one row of a sample file says, as read: its type, dates, value (with its unit, for a
/// quantity) and metadata. Its ``derivedSyncIdentifier`` is a digest of exactly these fields, so
/// the same row gives the same identifier in every run and any change to a field gives another.
public struct SampleFileContent: Hashable, Sendable {
    /// The type's HealthKit identifier (`HKQuantityTypeIdentifierHeartRate`), whatever name the row used.
    public var type: String
    /// The start.
    public var start: Date
    /// The end (the start when the row has none).
    public var end: Date
    /// The value as written: a quantity in ``unit``, or a category's raw value.
    public var value: Double
    /// The unit's HealthKit string for a quantity (the type's display unit when the row has none); nil for a category.
    public var unit: String?
    /// The row's metadata, without the sync identifier and version.
    public var metadata: [String: SampleFileMetadataValue]

    /// A row's content.
    /// - Parameters:
    ///   - type: The type's HealthKit identifier.
    ///   - start: The start.
    ///   - end: The end.
    ///   - value: The value as written.
    ///   - unit: The unit's HealthKit string for a quantity; nil for a category.
    ///   - metadata: The metadata, without the sync identifier and version.
    public init(type: String, start: Date, end: Date, value: Double, unit: String?, metadata: [String: SampleFileMetadataValue] = [:]) {
        self.type = type
        self.start = start
        self.end = end
        self.value = value
        self.unit = unit
        self.metadata = metadata
    }

    /// The prefix of the sync identifiers derived from rows.
    public static let syncIdentifierPrefix = "sample-file:"

    /// `sample-file:` and the SHA-256 (hex) of the fields, each length-prefixed, metadata in key
    /// order, dates and numbers by their exact bits: the same content gives the same identifier
    /// in every run and on every machine. The store keys a sync identifier by the source that
    /// saves it, so the source is part of what makes a sample "already there".
    public var derivedSyncIdentifier: String {
        var hasher = SHA256()
        func feed(_ bytes: [UInt8]) {
            var length = UInt64(bytes.count).bigEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(data: bytes)
        }
        func feed(_ text: String) { feed(Array(text.utf8)) }
        func feed(bits: UInt64) {
            var value = bits.bigEndian
            withUnsafeBytes(of: &value) { feed(Array($0)) }
        }
        // -0 and 0 are the same value.
        func bits(_ number: Double) -> UInt64 { number == 0 ? 0 : number.bitPattern }
        feed("sample-file/1")
        feed(type)
        feed(bits: bits(start.timeIntervalSinceReferenceDate))
        feed(bits: bits(end.timeIntervalSinceReferenceDate))
        feed(bits: bits(value))
        feed(unit.map { "u" + $0 } ?? "-")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            feed(key)
            switch value {
            case .text(let text): feed("s" + text)
            case .integer(let integer): feed("i" + String(integer))
            case .number(let number):
                feed("d")
                feed(bits: bits(number))
            }
        }
        return Self.syncIdentifierPrefix + HexText.encode(hasher.finalize())
    }
}

/// A metadata value a sample file may hold: text or a number (JSON's `true` and `false` are the numbers 1 and 0).
public enum SampleFileMetadataValue: Hashable, Sendable {
    /// Text.
    case text(String)
    /// A whole number.
    case integer(Int64)
    /// A number with a fraction (or too large to be a whole `Int64`).
    case number(Double)

    /// The value as HealthKit metadata takes it (`String` or `NSNumber`).
    var metadataValue: Any {
        switch self {
        case .text(let text): return text
        case .integer(let integer): return NSNumber(value: integer)
        case .number(let number): return NSNumber(value: number)
        }
    }
}
