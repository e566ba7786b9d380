#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Finds the records Apple writes twice: every `Record` inside a `Correlation` also appears as a
/// top-level `Record` (the DTD says so), and top-level records come first. Before the import
/// reads the export, this pass scans its bytes for `<Correlation` … `</Correlation>` and keys
/// each member by its content (``ExportElement/contentDigest``), so the import stores the
/// member once, inside its correlation, and skips its top-level twin.
///
/// Memory stays bounded: one fragment of at most ``maximumFragment`` bytes at a time, and at
/// most ``maximumMembers`` keys (members beyond are imported as the export lists them, and
/// counted). A fragment that does not parse is ignored here; the import itself reports it.
struct CorrelationMemberScanner {
    /// The longest correlation element considered.
    var maximumFragment = 4 << 20
    /// The most member keys kept.
    var maximumMembers = 1_000_000

    /// The content keys of the members of every correlation in `source`, and whether some were
    /// left out (over ``maximumMembers``).
    func memberKeys(in source: any ExportByteSource) throws -> (keys: Set<ContentKey>, overflowed: Bool) {
        let open = Array("<Correlation".utf8)
        let close = Array("</Correlation>".utf8)
        var keys = Set<ContentKey>()
        var overflowed = false
        var buffer: [UInt8] = []
        var capturing = false
        var searchFrom = 0
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
            buffer.append(contentsOf: chunk)
            while true {
                if !capturing {
                    guard let start = Self.find(open, in: buffer, from: 0) else {
                        buffer.removeFirst(max(0, buffer.count - (open.count - 1)))
                        break
                    }
                    buffer.removeFirst(start)
                    capturing = true
                    searchFrom = open.count
                }
                guard let end = Self.find(close, in: buffer, from: searchFrom) else {
                    if buffer.count > maximumFragment {
                        // Too long to be a correlation: skip it.
                        buffer.removeFirst(open.count)
                        capturing = false
                        continue
                    }
                    searchFrom = max(open.count, buffer.count - (close.count - 1))
                    break
                }
                let fragment = Array(buffer[..<(end + close.count)])
                buffer.removeFirst(end + close.count)
                capturing = false
                for key in Self.members(of: fragment) {
                    if keys.count >= maximumMembers { overflowed = true; break }
                    keys.insert(key)
                }
            }
        }
        return (keys, overflowed)
    }

    private static func members(of fragment: [UInt8]) -> [ContentKey] {
        var keys: [ContentKey] = []
        let document = Data("<HealthData>".utf8) + Data(fragment) + Data("</HealthData>".utf8)
        try? ExportXMLReader().read(InputStream(data: document)) { element in
            guard element.name == "Correlation" else { return }
            for child in element.children where child.name == "Record" {
                keys.append(ContentKey(child.contentDigest))
            }
        }
        return keys
    }

    /// The first index of `pattern` in `bytes` at or after `from`: memchr for its first byte, then a comparison.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = pattern.first, from < bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack -> Int? in
            guard let base = haystack.baseAddress else { return nil }
            var index = from
            while index + pattern.count <= haystack.count {
                guard let hit = memchr(base + index, Int32(first), haystack.count - index) else { return nil }
                let position = base.distance(to: UnsafeRawPointer(hit))
                guard position + pattern.count <= haystack.count else { return nil }
                if memcmp(base + position, pattern, pattern.count) == 0 { return position }
                index = position + 1
            }
            return nil
        }
    }
}

/// The first 128 bits of an element's content digest: a compact key for sets.
struct ContentKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(_ digest: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 where index < digest.count { high = high << 8 | UInt64(digest[index]) }
        for index in 8..<16 where index < digest.count { low = low << 8 | UInt64(digest[index]) }
        self.high = high
        self.low = low
    }
}
